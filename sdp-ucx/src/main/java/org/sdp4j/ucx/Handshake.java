package org.sdp4j.ucx;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;

import org.openucx.jucx.UcxUtils;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpEndpointParams;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;
import org.sdp4j.transport.Router;

/**
 * The connect/accept half of a UCX connection: find the peer through the rendezvous, exchange UCX worker addresses,
 * create and wire up the endpoint. It produces a {@link UcxConnection} (worker, endpoint, control socket, ids).
 */
final class Handshake {
    /** In a client's hello, with its id: it asks for a link its later connections share ({@link SharedLink}). */
    static final int SHARE = 0x10000;

    private Handshake() {}

    /** The layout every peer's worker address must have: this process's own (same UCX, same configuration). */
    private static volatile WorkerAddress template;

    static WorkerAddress template(UcpWorker w) throws SocketException {
        WorkerAddress t = template;
        if (t == null) {
            template = t = WorkerAddress.template(w.getAddress());
        }
        return t;
    }

    /**
     * Client side, in two bounded phases. Finding out whether UCX can serve — the listener's owner, its rendezvous
     * socket taking the connect (the kernel queues it for the listener's acceptor), the peer's credentials — within
     * {@code timeoutMillis} (the {@code both} attempt bound; 0: the handshake bound). Then being served (the
     * listener's acknowledgement, its hello, the wire-up): within the
     * application's own connect timeout ({@link Router#callerTimeoutMillis()}; without one,
     * {@link Rendezvous#QUEUE_MILLIS}), so that a connect queued behind a burst of others is not sent to TCP for it.
     * The client learns from the kernel who owns the TCP listener of {@code addr:port}, looks for the rendezvous only
     * in that account's directory, and checks the peer's credentials before it sends a byte.
     */
    static UcxConnection connect(InetAddress addr, int port, int timeoutMillis) throws IOException {
        String where = Rendezvous.hostPort(addr, port);
        long start = System.nanoTime();
        long deadline = start + Math.min(timeoutMillis > 0 ? timeoutMillis : Integer.MAX_VALUE,
                Rendezvous.HANDSHAKE_MILLIS) * 1_000_000L;
        int caller = Router.callerTimeoutMillis();
        if (caller < 0) { // not through the Router: the timeout given is the caller's
            caller = timeoutMillis;
        }
        long servedBy = start + (caller > 0 ? caller : Rendezvous.QUEUE_MILLIS) * 1_000_000L;
        if (servedBy - deadline < 0) {
            servedBy = deadline;
        }
        if (!Rendezvous.isLocal(addr)) {
            return Upgrade.connect(addr, port, deadline, servedBy, where);
        }
        PeerCheck.Listener l = PeerCheck.listenerFor(addr, port);
        if (l == null) {
            throw new ConnectException("UCX to " + where + ": no TCP listener on that address and port");
        }
        int me = PeerCheck.euid();
        if (l.uid() != me) {
            throw new ConnectException("UCX to " + where + ": its TCP listener belongs to uid " + l.uid()
                    + " and this process runs as uid " + me + "; UCX connects two processes of one account only "
                    + "(shared memory cannot be private between two accounts), so TCP carries this connection");
        }
        Path dir = Rendezvous.accountDir(l.uid());
        Rendezvous.checkDirRecently(dir, l.uid());
        Path p = dir.resolve(Rendezvous.name(l.address(), port));
        boolean share = SharedLinks.wanted();
        if (share) {
            UcxConnection c = SharedLinks.connect(p, servedBy);
            if (c != null) {
                return c; // on a link to this listener's process made earlier (SharedLink)
            }
        } else {
            UcxConnection kept = Links.connect(p, servedBy);
            if (kept != null) {
                return kept; // a pair kept from an earlier connection to this listener's process (Link)
            }
        }
        SharedLink made = null;
        try {
            UcxConnection c = rendezvous(p, l.uid(), dir, where, deadline, servedBy, share);
            if (share) {
                made = c.shared;
                made.key = p;
            } else {
                c.link.key = p; // its pair may be kept for the next connect to this listener
            }
            return c;
        } finally {
            if (share) {
                SharedLinks.made(p, made); // connects waiting for this link go on, on it or (failed) on their own
            }
        }
    }

    /** A full rendezvous with the listener at {@code p}: a new worker pair, or with {@code share} a new link. */
    private static UcxConnection rendezvous(Path p, int uid, Path dir, String where, long deadline, long servedBy,
            boolean share) throws IOException {
        SocketChannel ch;
        try {
            ch = Rendezvous.connect(p, deadline);
        } catch (SocketTimeoutException e) {
            throw e;
        } catch (IOException e) {
            // why, looked for only now (a stat on every connect cost more than the rest of its checks)
            if (!Files.exists(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                throw new ConnectException("UCX to " + where + ": no sdp4j UCX listener (" + p + " absent)");
            }
            throw (ConnectException) new ConnectException("UCX to " + where + ": no live sdp4j UCX listener at " + p
                    + " (" + e.getMessage() + ")").initCause(e);
        }
        try {
            if (!Rendezvous.peerIs(ch, uid, dir)) {
                java.nio.file.attribute.UserPrincipal peer = Rendezvous.peerUser(ch);
                throw new ConnectException("UCX to " + where + ": the rendezvous socket " + p + " is served by user "
                        + peer.getName() + ", not by the owner of the TCP listener (uid " + uid + ")");
            }
        } catch (IOException | RuntimeException e) {
            closeQuietly(ch);
            throw e;
        }
        return handshake(ch, deadline, servedBy, where, true, share);
    }

    /**
     * Server side, the listener's check of a connection just accepted on its rendezvous socket, before a byte of it
     * is read: the client's account must be this process's. Closes a refused one.
     */
    static void admit(SocketChannel ch, String where, java.nio.file.attribute.UserPrincipal own, Path ownDir)
            throws IOException {
        java.nio.file.attribute.UserPrincipal peer;
        try {
            if (Rendezvous.peerIs(ch, PeerCheck.euid(), ownDir)) {
                return;
            }
            peer = Rendezvous.peerUser(ch);
        } catch (IOException | RuntimeException e) {
            closeQuietly(ch);
            throw new SocketException("UCX listener " + where + ": no peer credentials: " + e);
        }
        closeQuietly(ch);
        throw new SocketException("UCX listener " + where + ": refused a rendezvous from user " + peer.getName()
                + " (not this process's account " + own.getName() + "; such clients use TCP)");
    }

    /** Server side, for an admitted connection taken off the queue: the whole handshake within its bound. */
    static UcxConnection serve(SocketChannel ch, String where, HandshakeServer server) throws IOException {
        long deadline = System.nanoTime() + Rendezvous.SERVE_MILLIS * 1_000_000L;
        return handshake(ch, deadline, deadline, where, false, false, server);
    }

    /**
     * Exchanges and checks worker addresses, creates and wires up the endpoint; no UCX exception escapes. A client
     * waits for the listener's {@link Rendezvous#QUEUED} byte, its hello and the wire-up until {@code servedBy}.
     */
    static UcxConnection handshake(SocketChannel ch, long deadline, long servedBy, String where, boolean client,
            boolean share) throws IOException {
        return handshake(ch, deadline, servedBy, where, client, share, null);
    }

    /** {@code server}: the listener serving this handshake (a link it makes takes that listener's connections). */
    private static UcxConnection handshake(SocketChannel ch, long deadline, long servedBy, String where,
            boolean client, boolean share, HandshakeServer server) throws IOException {
        UcpWorker w = null;
        UcpEndpoint ep = null;
        boolean told = false; // the peer may have our worker's address
        boolean reserved = false; // descriptors reserved for this end (Descriptors.reserve)
        try {
            // receive and send staging, before anything the peer would take as success; held workers first: they
            // hold descriptors, and a sweep only at the next worker made never came once the budget refused (a
            // benchmark's JVM stayed out of descriptors for good)
            Quarantine.sweep();
            String noFds = Descriptors.reserve();
            if (noFds != null && Links.any()) {
                Links.shed(); // kept pairs hold descriptors; a new connection comes first
                noFds = Descriptors.reserve();
            }
            if (noFds != null) {
                throw new SocketException("UCX " + where + ": " + noFds);
            }
            reserved = true;
            if (!Staging.directRoom(2L * Staging.STAGING_INITIAL)) {
                throw new SocketException("UCX " + where + ": " + Staging.noDirectRoom());
            }
            ByteBuffer[] staging = {Staging.staging(), Staging.staging()};
            w = WorkerPool.take();
            reserved = false;
            Descriptors.settle(); // the worker's descriptors are open: counted from now on
            WorkerAddress t = template(w);
            int id = UcxConnection.IDS.incrementAndGet() & 0xFFFF;
            Rendezvous.Peer peer;
            if (client) {
                told = true;
                Rendezvous.writeFully(ch, Rendezvous.hello(WorkerPool.address(w), share ? id | SHARE : id));
                // UCX can serve: the listener's socket took the connect and its owner is the TCP listener's (checked
                // by the caller). The rest waits as a TCP connect to a busy listener does: its acceptor may be
                // behind a burst too (1,000 platform threads on two cores kept it from its ack for 2 s)
                deadline = servedBy;
                Rendezvous.readQueued(ch, deadline, where);
                peer = Rendezvous.readHello(ch, deadline, where, t);
                Rendezvous.expectSilence(ch, where); // the listener gave up: its worker may be gone (Quarantine)
                ep = w.newEndpoint(new UcpEndpointParams().setUcpAddress(peer.workerAddress()));
            } else {
                peer = Rendezvous.readHello(ch, deadline, where, t);
                share = (peer.id() & SHARE) != 0; // the client asks for a link (SharedLink)
                // a client that gave up while queued has half-closed, and its worker may be gone (Quarantine)
                Rendezvous.expectSilence(ch, where);
                // the answer first: the client makes its endpoint while this side makes its own (UCX pairs the two
                // whichever wire-up message comes first; one worker pair per connection, so nothing else to pair),
                // a tenth of a local connect; a client that gives up now holds its worker until we hang up
                told = true;
                Rendezvous.writeFully(ch, Rendezvous.hello(WorkerPool.address(w), id));
                ep = w.newEndpoint(new UcpEndpointParams().setUcpAddress(peer.workerAddress()));
            }
            return finish(w, ep, ch, id, peer.id() & 0xFFFF, staging, deadline, where, client,
                    share ? peer.workerAddress() : null, server);
        } catch (IOException | RuntimeException | OutOfMemoryError e) {
            throw release(e, ch, ep, w, where, told);
        } finally {
            if (reserved) {
                Descriptors.settle();
            }
        }
    }

    /**
     * The common end of a handshake, local or across hosts: the wire-up exchange over the new endpoint, the
     * listener's {@link Rendezvous#READY}, the connection registered with the watchdog. {@code ch} (the Unix socket,
     * or across hosts the TCP connection) stays the connection's liveness and end-of-stream channel.
     */
    static UcxConnection finish(UcpWorker w, UcpEndpoint ep, SocketChannel ch, int id, int peerId,
            ByteBuffer[] staging, long deadline, String where, boolean client, ByteBuffer linkPeer,
            HandshakeServer server) throws IOException {
        ByteBuffer early = wireUp(w, ep, ch, deadline, where);
        if (client) {
            // the listener's word that its side is made too: without it, a listener whose handshake thread ran
            // out of time just after the exchange (1,000 handshakes on two cores) left the client a connection
            // whose peer was already gone
            byte first;
            if (early.position() > 0) {
                first = early.get(0);
            } else {
                ByteBuffer r = ByteBuffer.allocate(1);
                Rendezvous.readFully(ch, r, deadline, where);
                first = r.get(0);
            }
            if (first != Rendezvous.READY) {
                throw new SocketException("UCX rendezvous " + where + ": the listener did not confirm the "
                        + "connection (byte " + (first & 0xff) + ")");
            }
            early = ByteBuffer.allocate(1);
        } else {
            Rendezvous.writeFully(ch, ByteBuffer.wrap(new byte[] {Rendezvous.READY}));
        }
        Controlled watched;
        UcxConnection c;
        if (linkPeer != null) { // a link: more connections may come on this worker pair (SharedLink)
            SharedLink link = new SharedLink(w, ch, linkPeer, client);
            link.server = server; // before the watchdog reads the client's next CONNECT
            c = link.first(ep, id, peerId, staging);
            SharedLinks.added(link);
            watched = link;
        } else {
            Link link = new Link(w, ep, ch);
            c = new UcxConnection(link, id, peerId, staging);
            watched = link;
        }
        if (early.position() > 0) {
            watched.pendingControl = early.flip(); // the start of the peer's end-of-stream marker, for the watchdog
        }
        Watchdog.watch(watched);
        return c;
    }

    /**
     * Releases what a failed handshake made (no UCX exception escapes) and returns what to throw: an IOException,
     * or the heap's OutOfMemoryError.
     */
    static IOException release(Throwable e, java.io.Closeable ch, UcpEndpoint ep, UcpWorker w, String where) {
        return release(e, ch, ep, w, where, false);
    }

    /**
     * Releases what a failed handshake made and returns the exception to throw. {@code told}: the peer may have this
     * worker's address (a local hello went out): the worker is held, not destroyed ({@link Quarantine}).
     */
    static IOException release(Throwable e, java.io.Closeable ch, UcpEndpoint ep, UcpWorker w, String where,
            boolean told) {
        if (e instanceof OutOfMemoryError oom && !Staging.isDirectMemory(oom)) {
            throw oom; // the heap: nothing a fallback could help with
        }
        try {
            if (ep != null) {
                ep.closeNonBlockingForce();
            }
        } catch (RuntimeException ignore) {
            // jucx's UcxException (e.g. "Invalid parameter"): destroying the worker releases the endpoint
        }
        if (w != null && told && ch instanceof SocketChannel control) {
            Quarantine.hold(w, control); // the peer may still attach to it: see there
        } else {
            closeQuietly(ch);
            if (w != null) {
                WorkerPool.destroy(w);
            }
        }
        if (e instanceof IOException io) {
            return io;
        }
        if (e instanceof OutOfMemoryError) { // the staging buffers, or jucx's own (e.g. the worker address)
            return new SocketException("UCX " + where + ": " + Staging.noDirectMemory(e));
        }
        return new IOException("UCX " + where + ": " + e, e);
    }

    /**
     * One 8-byte exchange over the new endpoints while both processes are in their handshake and so progressing
     * their workers: UCX connects lazily, and a first send after the handshake would otherwise wait for wire-up
     * replies from a peer whose worker nobody progresses (an idle reader) — a TCP connection never needs the
     * peer's cooperation to accept a small write.
     */
    static ByteBuffer wireUp(UcpWorker w, UcpEndpoint ep, SocketChannel ch, long deadline, String where)
            throws IOException {
        // non-blocking, to notice a peer that hangs up instead of wiring up rather than hold a thread 5 s for it;
        // a byte that arrives instead is the start of the marker of a peer that is done already: handed on
        ch.configureBlocking(false);
        ByteBuffer probe = ByteBuffer.allocate(1);
        int idle = 0;
        ByteBuffer b = ByteBuffer.allocateDirect(16);
        b.putLong(0, Rendezvous.MAGIC);
        UcpRequest sent = ep.sendStreamNonBlocking(UcxUtils.getAddress(b), 8, null);
        UcpRequest got = ep.recvStreamNonBlocking(UcxUtils.getAddress(b) + 8, 8,
                org.openucx.jucx.ucp.UcpConstants.UCP_STREAM_RECV_FLAG_WAITALL, null);
        while (!sent.isCompleted() || !got.isCompleted()) {
            try {
                if (w.progress() == 0) {
                    // the peer's thread doing the same needs a CPU: yield, then nap (a burst of handshakes on two
                    // cores must not spend them spinning)
                    if (++idle < 64) {
                        Thread.yield();
                    } else {
                        java.util.concurrent.locks.LockSupport.parkNanos(Math.min(1_000_000L, 10_000L << Math.min(
                                idle - 64, 7)));
                    }
                    if ((idle & 15) == 0 && probe.hasRemaining() && ch.read(probe) < 0) {
                        throw new SocketException("UCX " + where + ": the peer hung up during the wire-up");
                    }
                }
            } catch (Exception e) {
                throw new IOException("UCX " + where + ": wire-up failed: " + e.getMessage(), e);
            }
            if (System.nanoTime() - deadline > 0) {
                if (!got.isCompleted()) {
                    w.cancelRequest(got);
                }
                throw new SocketTimeoutException("UCX " + where + ": no wire-up within the handshake time");
            }
        }
        ch.configureBlocking(true);
        if (sent.getStatus() != 0 || got.getStatus() != 0 || b.getLong(8) != Rendezvous.MAGIC) {
            throw new SocketException("UCX " + where + ": wire-up exchange failed (status " + sent.getStatus()
                    + "/" + got.getStatus() + ")");
        }
        return probe;
    }

    private static void closeQuietly(java.io.Closeable c) {
        try {
            if (c != null) {
                c.close();
            }
        } catch (IOException ignore) {
            // nothing to do
        }
    }
}
