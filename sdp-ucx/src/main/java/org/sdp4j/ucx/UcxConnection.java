package org.sdp4j.ucx;

import java.io.IOException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;
import java.util.Set;

import jdk.net.ExtendedSocketOptions;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import org.openucx.jucx.UcxUtils;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpWorker;

/**
 * One UCX stream connection: its UCX worker and endpoint, the rendezvous socket that carries end-of-stream and
 * reports the peer's death, its read path ({@link UcxInput}, where {@code read} is) and write path
 * ({@link UcxOutput}), each with a staging buffer in native memory, and how its threads wait ({@link UcxWait}).
 * This class holds the life cycle: every operation counts itself in ({@link #enter}), so close never frees a worker
 * another thread is in; the last one out releases ({@link UcxClose}).
 *
 * <p>UCX streams have no end-of-stream, so a side that closes (or shuts down output) first flushes its endpoint and
 * then sends, on the rendezvous socket, the total number of bytes it sent; the reader reports end-of-stream once it
 * has received exactly that many. A hang-up without that marker means the peer process is gone: reads and writes
 * then fail at once rather than waiting on shared memory nobody will write again.
 */
final class UcxConnection {
    private static final int CLOSED = 1 << 30;
    static final long CLOSE_BOUND_NANOS = 1_000_000_000L;
    static final AtomicInteger IDS = new AtomicInteger();
    /** UCX connections established in this process (both ends), for tests that prove a run stayed on UCX. */
    static final java.util.concurrent.atomic.AtomicLong ESTABLISHED = new java.util.concurrent.atomic.AtomicLong();
    /**
     * Sends a close cancelled while they were still in flight (a forced endpoint close). Counted: a peer that lives
     * and reads must never lose bytes this way (the marker counted them), only one that hung up or is gone.
     */
    static final java.util.concurrent.atomic.AtomicLong SENDS_CANCELLED = new java.util.concurrent.atomic.AtomicLong();

    /** The endpoint pair this connection rides, kept for the next one when both sides close cleanly; or null. */
    final Link link;
    /** Or the link whose worker pair this connection shares with others, on an endpoint pair of its own; or null. */
    final SharedLink shared;
    /** On a shared link: the connection's number there (its endpoints' place in the pairing order), else 0. */
    final int n;
    final UcpWorker worker;
    final UcpEndpoint ep;
    final SocketChannel control;
    /** The worker calls and the waiting policy of this connection. */
    final UcxWait io;
    final int id;
    final int peerId;
    /** users in progress, plus {@link #CLOSED} once closed; the last one out releases everything. */
    private final AtomicInteger state = new AtomicInteger();
    /** The read path and the write path, each with its staging buffer and its lock. */
    final UcxInput in;
    final UcxOutput out;
    /** Bytes the peer sent in all, once its end-of-stream marker arrived; -1 before. */
    volatile long peerSent = -1;
    /** Why the peer is gone (its rendezvous socket hung up without the marker); null while it lives. */
    volatile String gone;
    /**
     * Across hosts: UCX's error callback for the endpoint fired (its status), or null (set by
     * {@link Upgrade.EndpointFailure}). Waiters wake; a reader lets the peer's end-of-stream marker decide (an orderly
     * close disconnects the endpoint too) within {@link UcxWait#peerVerdict}'s bound, else fails; a writer fails.
     */
    volatile String endpointError;
    /** The peer closed in order (marker, then hang-up): its endpoint, maybe its worker, serve others now. */
    volatile boolean closedByPeer;
    /** Across hosts: the peer said it closed ({@link Rendezvous#CLOSED}); this side's close need not wait for it. */
    volatile boolean peerClosed;
    /** Across hosts ({@link Upgrade}): the worker is the RDMA context's and is never pooled; the peer's address. */
    volatile boolean remote;
    volatile java.net.InetAddress peerAddress;
    /** Across hosts: why the RDMA device under the connection is gone, or null (see {@link #deviceGone}). */
    volatile java.util.function.Supplier<String> deviceCheck;

    private volatile org.sdp4j.ops.OpenConnections.Entry tracked;

    /**
     * Lists this connection among the open ones (stat, JMX) until it closes; {@code role} client or accepted, the
     * addresses as the socket reports them (a UCX connection's port numbers are the listener's and connection ids).
     */
    void track(String role, java.net.InetSocketAddress local, java.net.InetSocketAddress peer) {
        tracked = org.sdp4j.ops.OpenConnections.opened("ucx", role, local, peer, () -> in.received, () -> out.sent,
                remote ? "rdma" : "shm");
    }

    /** What carries this connection, for the decision log. */
    String carrier() {
        return remote ? "UCX over RDMA across hosts (tls=" + RemoteUcx.transports() + ", device "
                + (deviceCheck != null ? deviceCheck : "not known") + ", rendezvous over rdmacm, "
                + "liveness and end-of-stream over TCP " + control.socket().getLocalSocketAddress() + " -> "
                + control.socket().getRemoteSocketAddress() + ")" : "UCX shared memory (tls=" + Ucx.transports() + ")";
    }

    /**
     * Made by {@link Handshake} on a new pair, or by {@link Link} on a kept one: the pair's worker and endpoint
     * connected and wired up, its rendezvous socket (registered with {@link Watchdog#watch} once per pair),
     * {@code id} this side's connection number, {@code peerId} the peer's, {@code staging} the receive and send
     * staging buffers.
     */
    UcxConnection(Link link, int id, int peerId, ByteBuffer[] staging) {
        this(link, null, link.worker, link.ep, link.control, link.sleepers, 0, id, peerId, staging);
        link.conn = this;
    }

    /** Made by {@link SharedLink}: connection {@code n} of the link, on its own endpoint {@code ep}. */
    UcxConnection(SharedLink shared, UcpEndpoint ep, int n, int id, int peerId, ByteBuffer[] staging) {
        this(null, shared, shared.worker, ep, shared.control, shared.sleepers, n, id, peerId, staging);
    }

    private UcxConnection(Link link, SharedLink shared, UcpWorker worker, UcpEndpoint ep, SocketChannel control,
            AtomicInteger sleepers, int n, int id, int peerId, ByteBuffer[] staging) {
        this.link = link;
        this.shared = shared;
        this.n = n;
        this.worker = worker;
        this.ep = ep;
        this.io = new UcxWait(this, worker, ep, sleepers);
        this.in = new UcxInput(this, staging[0]);
        this.out = new UcxOutput(this, staging[1]);
        this.control = control;
        this.id = id;
        this.peerId = peerId;
        ESTABLISHED.incrementAndGet();
    }

    /** The listener {@code s} accepted this connection: its pair or link may carry that listener's next ones. */
    void acceptedBy(HandshakeServer s) {
        if (link != null) {
            link.server = s;
        } else if (shared != null) {
            shared.server = s;
        }
    }

    SocketChannel control() {
        return control;
    }

    // ---- life cycle: enter/exit around every use, so that close never frees a worker another thread is in ----

    /** Counts a user in (an operation, or a poll that progresses this worker); false when closed. */
    boolean enter() {
        while (true) {
            int s = state.get();
            if ((s & CLOSED) != 0) {
                return false;
            }
            if (state.compareAndSet(s, s + 1)) {
                return true;
            }
        }
    }

    void use() throws SocketException {
        if (!enter()) {
            throw new SocketException("Socket closed");
        }
    }

    void exit() {
        if (state.decrementAndGet() == CLOSED) {
            UcxClose.release(this);
        }
    }

    /**
     * Counts a user in, then takes {@code lock}; pair with {@link #unlock}. Never leaves the lock held when it
     * throws (a closed connection): a thread that took the lock and then failed would block every later caller.
     */
    void lock(ReentrantLock lock) throws SocketException {
        use();
        lock.lock();
        if (isClosed()) {
            lock.unlock();
            exit();
            throw new SocketException("Socket closed");
        }
    }

    void unlock(ReentrantLock lock) {
        lock.unlock();
        exit();
    }

    /** As {@link #lock} without waiting: false (nothing held) when another thread holds {@code lock}. */
    boolean tryLock(ReentrantLock lock) throws SocketException {
        use();
        if (!lock.tryLock()) {
            exit();
            return false;
        }
        if (isClosed()) {
            unlock(lock);
            throw new SocketException("Socket closed");
        }
        return true;
    }

    boolean isClosed() {
        return (state.get() & CLOSED) != 0;
    }

    /** The keep-alive options a connection hands to its rendezvous socket ({@link #keepAlive}). */
    static final Set<SocketOption<?>> KEEPALIVE = Set.of(StandardSocketOptions.SO_KEEPALIVE,
            ExtendedSocketOptions.TCP_KEEPIDLE, ExtendedSocketOptions.TCP_KEEPINTERVAL,
            ExtendedSocketOptions.TCP_KEEPCOUNT);

    /**
     * Applies the keep-alive options among {@code options} to the rendezvous socket when that is a TCP connection
     * (across hosts). The UCX endpoint gives up on a dead host only after its transport's retries, which soft-RoCE
     * never ends (rdma_rxe takes retry count 7 as "for ever": the two-host step host-crash saw every ucx call still
     * blocked 90 s after the peer's host died), while the rendezvous socket's keep-alive reports the dead host as a
     * TCP socket's would, and its failure fails the connection ({@link Watchdog} then {@link #peerGone}). So
     * {@code setKeepAlive(true)} means on ucx what it means on TCP. On one host the rendezvous is a Unix socket: the
     * peer's host is this one, and nothing is applied.
     */
    @SuppressWarnings("unchecked")
    void keepAlive(java.util.Map<SocketOption<?>, Object> options) {
        try {
            if (!(control.getLocalAddress() instanceof java.net.InetSocketAddress)) {
                return;
            }
            for (SocketOption<?> o : KEEPALIVE) {
                Object v = options.get(o);
                if (v != null) {
                    control.setOption((SocketOption<Object>) o, v);
                }
            }
        } catch (IOException | UnsupportedOperationException e) {
            // the connection works without it; the socket reports the value it was given
            org.sdp4j.log.SdpLog.log(org.sdp4j.log.SdpLog.WARN, "sdp4j: ucx connection " + id
                    + ": keep-alive not applied to its rendezvous socket: " + e);
        }
    }

    /** Closes; threads blocked in this connection wake with "Socket closed"; the last one out releases. */
    void close() {
        while (true) {
            int s = state.get();
            if ((s & CLOSED) != 0) {
                return;
            }
            if (state.compareAndSet(s, (s + 1) | CLOSED)) {
                break;
            }
        }
        org.sdp4j.ops.OpenConnections.closed(tracked);
        io.signal();
        exit();
    }

    /** Watchdog: wake whoever waits in the worker (the marker, a hang-up). */
    void wake() {
        if (enter()) {
            try {
                io.signal();
            } finally {
                exit();
            }
        }
    }

    void peerFinished(long total) {
        peerSent = total;
        wake();
    }

    void peerClosed() {
        peerClosed = true;
        wake();
    }

    /**
     * The rendezvous socket hung up ({@code why} null) or broke. After the peer's end-of-stream marker that is its
     * orderly close: reads finish normally, writes fail as on a TCP socket whose peer closed. Without the marker
     * the peer process is gone: both fail at once.
     */
    void peerGone(String why) {
        if (why == null && peerSent >= 0) {
            closedByPeer = true;
        } else if (gone == null) {
            String device = deviceGone();
            gone = device != null ? device
                    : why != null ? why : "the peer's rendezvous socket closed without end-of-stream (peer process gone)";
        }
        wake();
    }

    /**
     * Across hosts, when this side's RDMA device was removed: that, naming the device, as the cause of a failure
     * (the peer's hang-up or the endpoint's error follows from it; the rsocket transport reads the device list).
     */
    String deviceGone() {
        java.util.function.Supplier<String> check = deviceCheck;
        if (check == null) {
            return null;
        }
        try {
            String why = check.get();
            return why == null ? null : why + " under this UCX connection";
        } catch (RuntimeException | LinkageError e) {
            return null;
        }
    }

    /** All the peer sent has been received and it sent end-of-stream. */
    boolean finished() {
        return peerSent >= 0 && in.received >= peerSent;
    }

    static final int READABLE = 1, WRITABLE = 4; // poll(2)'s POLLIN and POLLOUT

    /**
     * Readiness without blocking: progresses the worker once, posts the next receive if none is pending, and
     * says whether a read or a write would not block now ({@link #READABLE}, {@link #WRITABLE}). End-of-stream,
     * a peer that is gone and a closed connection are readable and writable (the operation then reports it). A
     * thread in a blocking read or write holds that side: it is reported not ready (that thread takes the data).
     */
    int readyOps(boolean wantRead, boolean wantWrite) {
        if (!enter()) {
            return (wantRead ? READABLE : 0) | (wantWrite ? WRITABLE : 0);
        }
        try {
            return (wantRead && in.ready() ? READABLE : 0) | (wantWrite && out.ready() ? WRITABLE : 0);
        } finally {
            exit();
        }
    }

    boolean isInputShutdown() {
        return in.shutdown;
    }

    long bytesSent() {
        return out.sent;
    }

    long bytesReceived() {
        return in.received;
    }
}
