package org.sdp4j.ucx;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.openucx.jucx.UcxUtils;
import org.openucx.jucx.ucp.UcpConnectionRequest;
import org.openucx.jucx.ucp.UcpConstants;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpEndpointParams;
import org.openucx.jucx.ucp.UcpListener;
import org.openucx.jucx.ucp.UcpListenerParams;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;
import org.sdp4j.log.SdpLog;

/**
 * The cross-host rendezvous of a {@code ucx} listener on {@code addr:port} ({@link Upgrade}): a UCX listener on the
 * same address and port in RDMA-CM's port space (the {@link RemoteUcx} context has only the {@code rdmacm} connection
 * manager, so no kernel TCP port is bound), served by one platform thread that progresses its worker. For each
 * connection request it reads one {@link Upgrade#CLAIM} (bounded by {@link #CLAIM_MILLIS}), checks it (the claimed
 * address must be the RDMA-CM peer's; the worker address must have this host's RDMA layout), creates the
 * connection's own worker and endpoint, records a pending upgrade for the claimed TCP source {@code (IP, P)} (expiring
 * after {@link #PENDING_MILLIS}) and answers with a {@link Upgrade#REPLY}. Requests are served concurrently (each is
 * a few posted requests the thread progresses); at most {@link #MAX_PENDING} claims and upgrades are in flight.
 */
final class RemoteRendezvous implements AutoCloseable {
    /** Bound of one claim from the RDMA-CM connection request to the reply sent ({@code sdp4j.ucx.remote.claim}). */
    static final int CLAIM_MILLIS = org.sdp4j.transport.Props.intProperty("sdp4j.ucx.remote.claim", 10_000, 100);
    /** How long a recorded upgrade waits for its TCP connection ({@code sdp4j.ucx.remote.pending}). */
    static final int PENDING_MILLIS = org.sdp4j.transport.Props.intProperty("sdp4j.ucx.remote.pending", 30_000, 100);
    static final int MAX_PENDING = org.sdp4j.transport.Props.intProperty("sdp4j.ucx.remote.max", 128, 1);

    /**
     * A recorded upgrade: what the TCP connection from {@code key} must prove, and the connection's UCX side.
     * {@code taken} (set under the record's monitor) hands the worker to whoever took the record out of the map: the
     * rendezvous thread progresses the worker (to finish sending the reply) only under the monitor and while not
     * taken, so it never touches a worker an upgrade or an expiry may be releasing.
     */
    record Pending(InetSocketAddress key, byte[] nonce, byte[] clientNonce, UcpWorker worker, UcpEndpoint ep, int id,
            int peerId, ByteBuffer[] staging, long expires, Upgrade.EndpointFailure failure,
            java.util.concurrent.atomic.AtomicBoolean taken) {
        Pending(InetSocketAddress key, byte[] nonce, byte[] clientNonce, UcpWorker worker, UcpEndpoint ep, int id,
                int peerId, ByteBuffer[] staging, long expires, Upgrade.EndpointFailure failure) {
            this(key, nonce, clientNonce, worker, ep, id, peerId, staging, expires, failure,
                    new java.util.concurrent.atomic.AtomicBoolean());
        }

        /** Marks it taken: from now on only the caller uses its worker. */
        void own() {
            synchronized (this) {
                taken.set(true);
            }
        }
    }

    /** A connection request being served: its own worker and endpoint, the claim being received, the reply sent. */
    private static final class Claim {
        final UcpWorker worker;
        final UcpEndpoint ep;
        final InetAddress from;
        final ByteBuffer in = ByteBuffer.allocateDirect(Upgrade.MESSAGE);
        final long deadline = System.nanoTime() + CLAIM_MILLIS * 1_000_000L;
        UcpRequest recv, reply;
        ByteBuffer out;
        Pending recorded;
        final Upgrade.EndpointFailure failure;

        Claim(UcpWorker worker, UcpEndpoint ep, InetAddress from, Upgrade.EndpointFailure failure) {
            this.worker = worker;
            this.ep = ep;
            this.from = from;
            this.failure = failure;
        }
    }

    private final String where;
    private final UcpWorker worker;
    private final UcpListener listener;
    private final ConcurrentLinkedQueue<UcpConnectionRequest> requests = new ConcurrentLinkedQueue<>();
    private final Map<InetSocketAddress, Pending> pending = new ConcurrentHashMap<>();
    private final List<Claim> claims = new ArrayList<>();
    private final Thread thread;
    private volatile boolean closed;

    private final int port;

    private RemoteRendezvous(String where, UcpWorker worker, InetSocketAddress at) throws IOException {
        this.where = where;
        this.port = at.getPort();
        this.worker = worker;
        this.listener = worker.newListener(new UcpListenerParams().setSockAddr(at)
                .setConnectionHandler(requests::add));
        this.thread = new Thread(this::loop, "sdp4j-ucx-rdmacm " + where);
        thread.setDaemon(true);
    }

    /**
     * The rendezvous of a listener on {@code addr:port}, or null when UCX cannot reach other hosts from here (no
     * RDMA device, rdmacm unavailable, the RDMA-CM port taken): logged, and the listener serves this host only.
     */
    static RemoteRendezvous open(InetAddress addr, int port, String where) {
        Throwable off = RemoteUcx.unavailabilityCause();
        if (off != null) {
            SdpLog.log(SdpLog.DECISION, "ucx: listener " + where + " serves this host only: " + off.getMessage());
            return null;
        }
        UcpWorker w = null;
        org.sdp4j.transport.UcxRdmaCmPorts.held(port); // before UCX listens: this JVM's rsocket connects keep off
        try {
            w = RemoteUcx.newWorker();
            RemoteRendezvous r = new RemoteRendezvous(where, w, new InetSocketAddress(addr != null ? addr
                    : new InetSocketAddress(0).getAddress(), port));
            r.thread.start();
            SdpLog.log(SdpLog.DECISION, "ucx: listener " + where + " also serves other hosts: rendezvous on RDMA-CM "
                    + "port " + port + " (tls=" + RemoteUcx.transports() + ")");
            return r;
        } catch (IOException | RuntimeException e) {
            if (w != null) {
                try {
                    w.close();
                } catch (RuntimeException ignore) {
                    // nothing more to release
                }
            }
            org.sdp4j.transport.UcxRdmaCmPorts.released(port);
            SdpLog.log(SdpLog.WARN, "ucx: listener " + where + " serves this host only: no RDMA-CM rendezvous on "
                    + "port " + port + ": " + e.getMessage());
            return null;
        }
    }

    /** Whether a TCP connection from {@code peer:peerPort} is one a client announced. */
    boolean claims(InetAddress peer, int peerPort) {
        return !pending.isEmpty() && pending.containsKey(new InetSocketAddress(peer, peerPort));
    }

    /** Takes the pending upgrade for that source (the caller now owns its worker), or null. */
    Pending take(InetAddress peer, int peerPort) {
        Pending p = pending.remove(new InetSocketAddress(peer, peerPort));
        if (p != null) {
            p.own();
        }
        return p;
    }

    private void loop() {
        int idle = 0;
        while (!closed) {
            boolean busy = false;
            try {
                busy = worker.progress() != 0;
            } catch (Exception e) {
                SdpLog.log(SdpLog.WARN, "ucx: rendezvous " + where + ": progress: " + e);
            }
            for (UcpConnectionRequest r; (r = requests.poll()) != null; ) {
                accept(r);
                busy = true;
            }
            busy |= serveClaims();
            expire();
            // nothing to do: nap (1 ms while claims are in flight, up to 10 ms idle): a connection request is
            // seen within 10 ms; jucx has no timed wait on a worker
            if (busy) {
                idle = 0;
            } else {
                java.util.concurrent.locks.LockSupport.parkNanos(claims.isEmpty() ? 10_000_000L
                        : Math.min(1_000_000L, 20_000L << Math.min(idle++, 6)));
            }
        }
        for (Claim c : claims) {
            if (c.recorded == null) { // recorded ones are the pending map's, released below
                Handshake.release(new IOException("closed"), null, c.ep, c.worker, where);
            }
        }
        claims.clear();
        for (Pending p : pending.values()) {
            if (pending.remove(p.key(), p)) {
                p.own();
                drop(p);
            }
        }
        try {
            listener.close();
        } catch (RuntimeException ignore) {
            // the worker's close releases it
        }
        try {
            worker.close();
        } catch (RuntimeException ignore) {
            // nothing more to release
        }
    }

    private void accept(UcpConnectionRequest r) {
        InetAddress from;
        try {
            from = r.getClientAddress().getAddress();
        } catch (RuntimeException e) {
            from = null;
        }
        if (from == null || claims.size() + pending.size() >= MAX_PENDING) {
            SdpLog.log(SdpLog.WARN, "ucx: rendezvous " + where + ": refused a connection request from " + from
                    + (from == null ? " (no address)" : " (" + MAX_PENDING + " claims in flight)"));
            try {
                r.reject();
            } catch (RuntimeException ignore) {
                // gone already
            }
            return;
        }
        UcpWorker w = null;
        UcpEndpoint ep = null;
        try {
            // the connection's own worker takes the request (UCX migrates the RDMA-CM id to it): the endpoint made
            // here carries the claim, the reply and then the stream
            w = RemoteUcx.newWorker();
            Upgrade.EndpointFailure failure = new Upgrade.EndpointFailure();
            ep = w.newEndpoint(Upgrade.params(failure).setConnectionRequest(r));
            Claim c = new Claim(w, ep, from, failure);
            c.recv = ep.recvStreamNonBlocking(UcxUtils.getAddress(c.in), Upgrade.MESSAGE,
                    UcpConstants.UCP_STREAM_RECV_FLAG_WAITALL, null);
            claims.add(c);
        } catch (IOException | RuntimeException e) {
            Handshake.release(e, null, ep, w, where);
            SdpLog.log(SdpLog.WARN, "ucx: rendezvous " + where + ": accepting a request from " + from + ": " + e);
        }
    }

    /** Advances every claim in flight; true when one of them moved. */
    private boolean serveClaims() {
        boolean moved = false;
        long now = System.nanoTime();
        for (Iterator<Claim> it = claims.iterator(); it.hasNext(); ) {
            Claim c = it.next();
            Pending rec = c.recorded;
            if (rec != null) {
                // recorded before the reply went out (a client that has the reply may connect at once): from here
                // the worker is the record's, progressed here only until the reply is sent and while not taken
                synchronized (rec) {
                    boolean done = rec.taken().get();
                    if (!done) {
                        try {
                            c.worker.progress();
                        } catch (Exception e) {
                            done = true; // the upgrade, or the expiry, finds the endpoint failed
                        }
                        done |= c.reply.isCompleted() || now - c.deadline > 0;
                        if (c.reply.isCompleted() && c.reply.getStatus() != 0 && pending.remove(rec.key(), rec)) {
                            SdpLog.log(SdpLog.WARN, "ucx: rendezvous " + where + ": the reply to "
                                    + c.from.getHostAddress() + " failed (UCX status " + c.reply.getStatus() + ")");
                            rec.taken().set(true);
                            drop(rec);
                        }
                    }
                    if (done) {
                        it.remove();
                        moved = true;
                    }
                }
                continue;
            }
            try {
                if (c.worker.progress() != 0) {
                    moved = true;
                }
                if (c.failure.get() != null) {
                    throw new SocketException("its endpoint failed: " + c.failure.get());
                }
                if (c.recv.isCompleted()) {
                    moved = true;
                    if (c.recv.getStatus() != 0) {
                        throw new SocketException("the peer left before its claim (UCX status "
                                + c.recv.getStatus() + ")");
                    }
                    c.out = answer(c);
                    // recorded before the reply is posted: UCX may send it at once, and a client that has it
                    // connects its TCP at once; this thread can lose the CPU in between (1 vCPU under TCG, 2 % loss:
                    // once the TCP connection was there first, went to the application as a plain one, and the
                    // client's upgrade timed out). Under the record's lock: a TCP connection from the claimed source
                    // that comes even sooner (a client that did not wait for the reply) takes the worker only once
                    // this thread is done with it (Pending.own)
                    Pending made = c.recorded;
                    synchronized (made) {
                        pending.put(made.key(), made);
                        try {
                            c.reply = c.ep.sendStreamNonBlocking(UcxUtils.getAddress(c.out), Upgrade.MESSAGE, null);
                        } catch (RuntimeException e) {
                            pending.remove(made.key(), made);
                            throw e;
                        }
                    }
                } else if (now - c.deadline > 0) {
                    throw new java.net.SocketTimeoutException("no claim within " + CLAIM_MILLIS + " ms");
                }
            } catch (Exception e) {
                SdpLog.log(SdpLog.WARN, "ucx: rendezvous " + where + ": a claim from " + c.from.getHostAddress()
                        + " refused: " + e.getMessage());
                if (!c.recv.isCompleted()) {
                    try {
                        c.worker.cancelRequest(c.recv);
                    } catch (RuntimeException ignore) {
                        // the endpoint's close completes it
                    }
                }
                c.recorded = null;
                Handshake.release(e, null, c.ep, c.worker, where);
                it.remove();
            }
        }
        return moved;
    }

    /** Checks a received claim and makes the reply; the upgrade is recorded once the reply went out. */
    private ByteBuffer answer(Claim c) throws IOException {
        Upgrade.Message m = Upgrade.parse(c.in, Upgrade.CLAIM, where);
        InetSocketAddress key = source(m, c.from);
        if (pending.containsKey(key)) {
            throw new SocketException("an upgrade from " + key + " is pending already");
        }
        String noFds = Descriptors.refusal();
        if (noFds != null) {
            throw new SocketException(noFds);
        }
        if (!Staging.directRoom(2L * Staging.STAGING_INITIAL)) {
            throw new SocketException(Staging.noDirectRoom());
        }
        ByteBuffer[] staging = {Staging.staging(), Staging.staging()};
        int id = UcxConnection.IDS.incrementAndGet() & 0xFFFF;
        byte[] nonce = Upgrade.nonce();
        c.recorded = new Pending(key, nonce, m.nonce(), c.worker, c.ep, id, m.id(), staging,
                System.nanoTime() + PENDING_MILLIS * 1_000_000L, c.failure);
        return Upgrade.message(Upgrade.REPLY, null, 0, nonce, id);
    }

    /**
     * The TCP source a claim announces, refused unless its address is the RDMA-CM peer's ({@code from}): a client
     * may only announce connections from its own address.
     */
    static InetSocketAddress source(Upgrade.Message m, InetAddress from) throws IOException {
        InetAddress claimed = m.address();
        if (!claimed.equals(from)) {
            throw new SocketException("it claims TCP source " + claimed.getHostAddress() + ", but its RDMA-CM "
                    + "address is " + from.getHostAddress());
        }
        return new InetSocketAddress(claimed, m.port());
    }

    /** Drops upgrades whose TCP connection did not come in time. */
    private void expire() {
        if (pending.isEmpty()) {
            return;
        }
        long now = System.nanoTime();
        for (Pending p : pending.values()) {
            if (now - p.expires() > 0 && pending.remove(p.key(), p)) {
                p.own();
                SdpLog.log(SdpLog.WARN, "ucx: rendezvous " + where + ": no TCP connection from " + p.key()
                        + " within " + PENDING_MILLIS + " ms of its claim; dropped");
                drop(p);
            }
        }
    }

    private void drop(Pending p) {
        Handshake.release(new IOException("dropped"), null, p.ep(), p.worker(), where);
    }

    /**
     * Stops the rendezvous: its thread releases everything within one nap (10 ms) and is waited for (at most 1 s),
     * so that an application that closes a listener and binds the port again finds the RDMA-CM port free.
     */
    @Override
    public void close() {
        closed = true;
        org.sdp4j.transport.UcxRdmaCmPorts.released(port);
        if (Thread.currentThread() != thread) {
            try {
                thread.join(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** An accepted TCP connection whose upgrade cannot go on (expired, or the listener closed): both are let go. */
    static void drop(java.nio.channels.SocketChannel ch, Pending p) {
        try {
            ch.close();
        } catch (IOException ignore) {
            // nothing to do
        }
        if (p != null) {
            Handshake.release(new IOException("closed"), null, p.ep(), p.worker(), "");
        }
    }
}
