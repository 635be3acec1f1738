package org.sdp4j.ucx;

import java.io.IOException;
import java.net.ConnectException;
import java.net.DatagramSocket;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.security.MessageDigest;
import java.security.SecureRandom;

import org.openucx.jucx.UcxUtils;
import org.openucx.jucx.ucp.UcpConstants;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpEndpointParams;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;

/**
 * {@code use ucx} to another host (docs/ucx.md, "Across hosts"): the client's half, the listener's TCP half, and the
 * two fixed-size messages of the rendezvous.
 *
 * <p>Client: binds a TCP socket to its source address and an ephemeral port {@code P}; connects the connection's
 * UCX endpoint to the listener's {@code rdmacm} rendezvous ({@link RemoteRendezvous}, RDMA-CM's port space, same port
 * number; UCX wires RC up through RDMA-CM) and sends a {@link #CLAIM} over it: "I will connect over TCP from
 * {@code IP:P}" and a nonce. The listener checks the claim ({@code IP} must be the RDMA-CM peer's address), records a
 * pending upgrade for {@code (IP, P)} and answers with a {@link #REPLY}: its own nonce. Then the
 * client connects TCP from {@code P} to the application's port. The listener's accept path sees a TCP connection
 * whose source has a pending upgrade (any other goes to the application untouched) and writes its nonce on it; the
 * client compares it with the one the rendezvous gave (so the TCP listener it reached is the process it spoke UCX
 * with) and only then writes its own nonce, which the listener compares (so the TCP connection is the claimant's).
 * Then the wire-up exchange over the endpoints and {@link Rendezvous#READY}; the TCP connection stays open as the
 * connection's liveness and end-of-stream channel, as the Unix socket does on one host.
 */
final class Upgrade {
    /** Both rendezvous messages: magic(8) version(4) kind(4) ip(16) port(4) nonce(16) id(4), zero-padded. */
    static final int MESSAGE = 64;
    static final int CLAIM = 'C', REPLY = 'A';
    static final int NONCE = 16;
    private static final SecureRandom RANDOM = new SecureRandom();

    private Upgrade() {}

    static byte[] nonce() {
        byte[] n = new byte[NONCE];
        RANDOM.nextBytes(n);
        return n;
    }

    /** A claim or reply in a direct buffer of {@link #MESSAGE} bytes (jucx sends from native memory). */
    static ByteBuffer message(int kind, InetAddress ip, int port, byte[] nonce, int id) {
        ByteBuffer b = ByteBuffer.allocateDirect(MESSAGE);
        b.putLong(Rendezvous.MAGIC).putInt(Rendezvous.VERSION).putInt(kind);
        b.put(ip16(ip)).putInt(port).put(nonce).putInt(id);
        return b.clear();
    }

    /** An address as 16 bytes (IPv4 mapped), or zeros for none. */
    static byte[] ip16(InetAddress ip) {
        byte[] out = new byte[16];
        if (ip instanceof Inet4Address) {
            out[10] = out[11] = (byte) 0xff;
            System.arraycopy(ip.getAddress(), 0, out, 12, 4);
        } else if (ip != null) {
            System.arraycopy(ip.getAddress(), 0, out, 0, 16);
        }
        return out;
    }

    /** A received message, checked. */
    record Message(int kind, byte[] ip, int port, byte[] nonce, int id) {
        InetAddress address() throws java.net.UnknownHostException {
            return InetAddress.getByAddress(ip); // a mapped IPv4 address comes back as an Inet4Address
        }
    }

    /** Checks every field of a received message; throws naming the first that is wrong. */
    static Message parse(ByteBuffer m, int kind, String where) throws SocketException {
        ByteBuffer b = m.duplicate().clear();
        if (b.remaining() != MESSAGE) {
            throw new SocketException("UCX rendezvous " + where + ": message of " + b.remaining() + " bytes");
        }
        if (b.getLong() != Rendezvous.MAGIC) {
            throw new SocketException("UCX rendezvous " + where + ": not an sdp4j peer (bad magic)");
        }
        int version = b.getInt();
        if (version != Rendezvous.VERSION) {
            throw new SocketException("UCX rendezvous " + where + ": peer speaks version " + version + ", this is "
                    + Rendezvous.VERSION);
        }
        int k = b.getInt();
        if (k != kind) {
            throw new SocketException("UCX rendezvous " + where + ": message kind " + k + ", expected " + kind);
        }
        byte[] ip = new byte[16];
        b.get(ip);
        int port = b.getInt();
        if (kind == CLAIM ? port <= 0 || port > 65535 : port != 0) {
            throw new SocketException("UCX rendezvous " + where + ": port " + port + " in a " + (char) kind);
        }
        byte[] nonce = new byte[NONCE];
        b.get(nonce);
        int id = b.getInt();
        if (id < 0 || id > 0xFFFF) {
            throw new SocketException("UCX rendezvous " + where + ": connection number " + id);
        }
        while (b.hasRemaining()) {
            if (b.get() != 0) {
                throw new SocketException("UCX rendezvous " + where + ": padding is not zero");
            }
        }
        return new Message(kind, ip, port, nonce, id);
    }

    /**
     * The endpoint's parameters: peer error handling (RDMA has no shared memory to lose); UCX's error callback (a
     * rejected RDMA-CM connect, a peer gone) is kept in {@code failure} for the handshake to stop waiting at once.
     */
    static UcpEndpointParams params(EndpointFailure failure) {
        return new UcpEndpointParams().setPeerErrorHandlingMode().setErrorHandler((endpoint, status, message) ->
                failure.failed("UCX status " + status + (message != null ? " (" + message + ")" : "")));
    }

    /**
     * UCX's error callback of one cross-host endpoint: what the handshake stops on, and, once the connection exists,
     * what wakes its waiters (a queue pair that went to the error state, the peer's disconnect), so that a dead
     * endpoint ends blocked and later reads and writes with an IOException instead of leaving them to their timeout
     * (issue 20). Runs on whatever thread progresses the worker.
     */
    static final class EndpointFailure extends java.util.concurrent.atomic.AtomicReference<String> {
        private static final long serialVersionUID = 1L;
        private transient volatile UcxConnection conn;

        void failed(String why) {
            compareAndSet(null, why);
            tell(conn, get());
        }

        /** The connection this endpoint now carries; told at once if the endpoint failed already. */
        void attach(UcxConnection c) {
            conn = c;
            tell(c, get());
        }

        private static void tell(UcxConnection c, String why) {
            if (c != null && why != null) {
                if (c.endpointError == null) {
                    String device = c.deviceGone();
                    c.endpointError = device != null ? device + " (" + why + ")" : why;
                }
                c.wake();
            }
        }
    }

    /** The source address this host uses towards {@code to} (a UDP connect picks the route and sends nothing). */
    static InetAddress sourceFor(InetAddress to) throws IOException {
        try (DatagramSocket d = new DatagramSocket()) {
            d.connect(to, 9);
            InetAddress a = d.getLocalAddress();
            if (a == null || a.isAnyLocalAddress()) {
                throw new ConnectException("UCX to " + to.getHostAddress() + ": no route (no source address)");
            }
            return a;
        }
    }

    /**
     * Client side. {@code deadline} bounds "can UCX serve" (the RDMA-CM rendezvous and its reply: the {@code both}
     * attempt bound); {@code servedBy} the rest (TCP connect, nonces, wire-up: the application's connect timeout).
     */
    static UcxConnection connect(InetAddress addr, int port, long deadline, long servedBy, String where)
            throws IOException {
        Throwable off = RemoteUcx.unavailabilityCause();
        if (off != null) {
            throw new ConnectException("UCX to " + where + " (another host): " + off.getMessage());
        }
        UcpWorker w = null;
        UcpEndpoint ep = null;
        SocketChannel tcp = null;
        try {
            String noFds = Descriptors.refusal();
            if (noFds != null) {
                throw new SocketException("UCX " + where + ": " + noFds);
            }
            if (!Staging.directRoom(2L * Staging.STAGING_INITIAL)) {
                throw new SocketException("UCX " + where + ": " + Staging.noDirectRoom());
            }
            ByteBuffer[] staging = {Staging.staging(), Staging.staging()};
            InetAddress src = sourceFor(addr);
            tcp = Rendezvous.JDK.openSocketChannel(addr instanceof Inet4Address ? StandardProtocolFamily.INET
                    : StandardProtocolFamily.INET6);
            tcp.bind(new InetSocketAddress(src, 0));
            int p = ((InetSocketAddress) tcp.getLocalAddress()).getPort();
            w = RemoteUcx.newWorker();
            // the connection's own endpoint, made through RDMA-CM: UCX wires the RC lane up in the connection
            // manager's exchange (no auxiliary UD transport needed); the claim and reply ride it first
            EndpointFailure failure = new EndpointFailure();
            ep = w.newEndpoint(params(failure).setSocketAddress(new InetSocketAddress(addr, port)));
            int id = UcxConnection.IDS.incrementAndGet() & 0xFFFF;
            byte[] mine = nonce();
            ByteBuffer claim = message(CLAIM, src, p, mine, id);
            ByteBuffer in = ByteBuffer.allocateDirect(MESSAGE);
            UcpRequest sent = ep.sendStreamNonBlocking(UcxUtils.getAddress(claim), MESSAGE, null);
            UcpRequest got = ep.recvStreamNonBlocking(UcxUtils.getAddress(in), MESSAGE,
                    UcpConstants.UCP_STREAM_RECV_FLAG_WAITALL, null);
            try {
                progressUntil(w, deadline, where, "the RDMA-CM rendezvous", failure, sent, got);
            } finally {
                if (!got.isCompleted()) {
                    try {
                        w.cancelRequest(got);
                    } catch (RuntimeException ignore) {
                        // released with the endpoint
                    }
                }
            }
            Message reply = parse(in, REPLY, where);
            // UCX can serve: the listener on the RDMA-CM port answered and expects this TCP connection
            connect(tcp, new InetSocketAddress(addr, port), servedBy, where);
            UcxConnection c = prove(w, ep, tcp, id, reply, mine, staging, servedBy, where);
            failure.attach(c);
            return c;
        } catch (IOException | RuntimeException | OutOfMemoryError e) {
            throw Handshake.release(e, tcp, ep, w, where);
        }
    }

    /**
     * Client side, on the connected TCP connection: the listener's nonce must be the one its rendezvous reply carried
     * (else this TCP listener is not the process the client spoke UCX with: nothing is written to it), then this
     * client's nonce, the wire-up and the listener's READY. Releases nothing on failure (the caller does).
     */
    static UcxConnection prove(UcpWorker w, UcpEndpoint ep, SocketChannel tcp, int id, Message reply, byte[] mine,
            ByteBuffer[] staging, long servedBy, String where) throws IOException {
        ByteBuffer theirs = ByteBuffer.allocate(NONCE);
        Rendezvous.readFully(tcp, theirs, servedBy, where);
        if (!MessageDigest.isEqual(theirs.array(), reply.nonce())) {
            throw new SocketException("UCX to " + where + ": the TCP listener did not prove it is the process "
                    + "that answered on the RDMA-CM rendezvous (nonce mismatch)");
        }
        Rendezvous.writeFully(tcp, ByteBuffer.wrap(mine), servedBy);
        UcxConnection c = Handshake.finish(w, ep, tcp, id, reply.id(), staging, servedBy, where, true, null, null);
        c.remote = true;
        c.peerAddress = ((InetSocketAddress) tcp.getRemoteAddress()).getAddress();
        c.deviceCheck = org.sdp4j.transport.Transports.rdmaDeviceCheck(
                ((InetSocketAddress) tcp.getLocalAddress()).getAddress());
        return c;
    }

    /** Progresses {@code w} until every request completed successfully, or throws at the deadline or an error. */
    static void progressUntil(UcpWorker w, long deadline, String where, String what,
            java.util.concurrent.atomic.AtomicReference<String> failure, UcpRequest... rs) throws IOException {
        int idle = 0;
        while (true) {
            String f = failure.get();
            if (f != null) {
                throw new ConnectException("UCX to " + where + ": " + what + " failed: " + f + " (no sdp4j UCX "
                        + "listener on that RDMA-CM port, or no RDMA path)");
            }
            boolean all = true;
            for (UcpRequest r : rs) {
                if (r.isCompleted()) {
                    if (r.getStatus() != 0) {
                        throw new ConnectException("UCX to " + where + ": " + what + " failed (UCX status "
                                + r.getStatus() + "; no sdp4j UCX listener on that port, or no RDMA path)");
                    }
                } else {
                    all = false;
                }
            }
            if (all) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new SocketTimeoutException("UCX to " + where + ": no answer on " + what + " within the bound");
            }
            try {
                if (w.progress() == 0) {
                    java.util.concurrent.locks.LockSupport.parkNanos(Math.min(1_000_000L, 10_000L << Math.min(
                            idle++, 7)));
                }
            } catch (Exception e) {
                throw new IOException("UCX to " + where + ": " + what + ": " + e.getMessage(), e);
            }
        }
    }

    /** A non-blocking TCP connect completed within {@code deadline}; the channel is left in blocking mode. */
    private static void connect(SocketChannel ch, InetSocketAddress to, long deadline, String where)
            throws IOException {
        ch.configureBlocking(false);
        if (!ch.connect(to)) {
            try (Selector s = Rendezvous.JDK.openSelector()) {
                ch.register(s, SelectionKey.OP_CONNECT);
                while (!ch.finishConnect()) {
                    long left = (deadline - System.nanoTime()) / 1_000_000L;
                    if (left <= 0) {
                        throw new SocketTimeoutException("UCX to " + where + ": TCP connect timed out");
                    }
                    s.select(left);
                    s.selectedKeys().clear();
                }
            }
        }
        ch.configureBlocking(true);
    }

    /**
     * Listener side, on one of its handshake threads: the TCP connection {@code ch} came from the source a pending
     * upgrade {@code p} expects. Proves this process to the client (its nonce), checks the client's, wires up.
     */
    static UcxConnection serve(SocketChannel ch, Object impl, RemoteRendezvous.Pending p, String where)
            throws IOException {
        long deadline = Math.min(p.expires(), System.nanoTime() + Rendezvous.SERVE_MILLIS * 1_000_000L);
        try {
            Rendezvous.writeFully(ch, ByteBuffer.wrap(p.nonce()), deadline);
            ByteBuffer theirs = ByteBuffer.allocate(NONCE);
            Rendezvous.readFully(ch, theirs, deadline, where);
            if (!MessageDigest.isEqual(theirs.array(), p.clientNonce())) {
                throw new SocketException("UCX listener " + where + ": the TCP connection from " + p.key()
                        + " did not prove it is the client of the rendezvous (nonce mismatch); closed");
            }
            UcxConnection c = Handshake.finish(p.worker(), p.ep(), ch, p.id(), p.peerId(), p.staging(), deadline,
                    where, false, null, null);
            c.remote = true;
            c.peerAddress = p.key().getAddress();
            c.deviceCheck = org.sdp4j.transport.Transports.rdmaDeviceCheck(
                    ((InetSocketAddress) ch.getLocalAddress()).getAddress());
            p.failure().attach(c);
            return c;
        } catch (IOException | RuntimeException | OutOfMemoryError e) {
            throw Handshake.release(e, ch, p.ep(), p.worker(), where);
        }
    }
}
