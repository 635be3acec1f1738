package org.sdp4j.ucx;

import java.io.IOException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import org.openucx.jucx.UcxUtils;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;

/**
 * One UCX stream connection: its own UCX worker and endpoint (so closing it releases everything it used), the
 * rendezvous socket that carries end-of-stream and reports the peer's death, and two staging buffers in native
 * memory. This is the UCX read path: {@link #read} copies from the receive staging buffer, posting a partial
 * {@code ucp_stream_recv} when it is empty and waiting for it in {@link UcxWait#await}: busy progress for
 * {@code sdp4j.ucx.poll} microseconds (the role of libsdp's {@code recv_poll}), then sleeping in the worker.
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

    final UcpWorker worker;
    final UcpEndpoint ep;
    final SocketChannel control;
    /** The worker calls and the waiting policy of this connection. */
    final UcxWait io;
    final int id;
    final int peerId;
    /** users in progress, plus {@link #CLOSED} once closed; the last one out releases everything. */
    private final AtomicInteger state = new AtomicInteger();
    private final ReentrantLock readLock = new ReentrantLock(), writeLock = new ReentrantLock();

    /** Receive staging (under the read lock), replaced by a larger one only with no receive posted into it. */
    private ByteBuffer rbuf;
    private long raddr;
    private int rpos, rlim;
    UcpRequest pendingRecv;
    private long received;
    /** Send staging (under the write lock), replaced by a larger one only with no send in flight from it. */
    private ByteBuffer sbuf;
    private long saddr;
    private long sent;
    /** A send posted by a non-blocking {@link #write(ByteBuffer[], int, int, boolean)}, until it completes. */
    UcpRequest pendingSend;
    volatile boolean inputShutdown;
    boolean outputShutdown;
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
    /** Across hosts ({@link Upgrade}): the worker is the RDMA context's and is never pooled; the peer's address. */
    volatile boolean remote;
    volatile java.net.InetAddress peerAddress;

    private volatile org.sdp4j.ops.OpenConnections.Entry tracked;

    /**
     * Lists this connection among the open ones (stat, JMX) until it closes; {@code role} client or accepted, the
     * addresses as the socket reports them (a UCX connection's port numbers are the listener's and connection ids).
     */
    void track(String role, java.net.InetSocketAddress local, java.net.InetSocketAddress peer) {
        tracked = org.sdp4j.ops.OpenConnections.opened("ucx", role, local, peer, () -> received, () -> sent,
                remote ? "rdma" : "shm");
    }

    /** What carries this connection, for the decision log. */
    String carrier() {
        return remote ? "UCX over RDMA across hosts (tls=" + RemoteUcx.transports() + ", rendezvous over rdmacm, "
                + "liveness and end-of-stream over TCP " + control.socket().getLocalSocketAddress() + " -> "
                + control.socket().getRemoteSocketAddress() + ")" : "UCX shared memory (tls=" + Ucx.transports() + ")";
    }

    /** Control bytes read so far of an incomplete message (watchdog thread only). */
    ByteBuffer pendingControl;

    /**
     * Made by {@link Handshake} only: {@code worker} and {@code ep} connected and wired up (one exchange completed
     * over the endpoint), {@code control} the connected rendezvous socket in blocking mode, {@code id} this side's
     * connection number, {@code peerId} the peer's. The caller then registers it with {@link Watchdog#watch}.
     */
    UcxConnection(UcpWorker worker, UcpEndpoint ep, SocketChannel control, int id, int peerId, ByteBuffer[] staging) {
        this.rbuf = staging[0];
        this.raddr = UcxUtils.getAddress(rbuf);
        this.sbuf = staging[1];
        this.saddr = UcxUtils.getAddress(sbuf);
        this.worker = worker;
        this.ep = ep;
        this.io = new UcxWait(this, worker, ep);
        this.control = control;
        this.id = id;
        this.peerId = peerId;
        ESTABLISHED.incrementAndGet();
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

    private void use() throws SocketException {
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
    private void lock(ReentrantLock lock) throws SocketException {
        use();
        lock.lock();
        if (isClosed()) {
            lock.unlock();
            exit();
            throw new SocketException("Socket closed");
        }
    }

    private void unlock(ReentrantLock lock) {
        lock.unlock();
        exit();
    }

    boolean isClosed() {
        return (state.get() & CLOSED) != 0;
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

    /** Watchdog: wake whoever waits in the worker (an alarm, the marker, a hang-up). */
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

    /**
     * The rendezvous socket hung up ({@code why} null) or broke. After the peer's end-of-stream marker that is its
     * orderly close: reads finish normally, writes fail as on a TCP socket whose peer closed. Without the marker
     * the peer process is gone: both fail at once.
     */
    void peerGone(String why) {
        if (why == null && peerSent >= 0) {
            closedByPeer = true;
        } else if (gone == null) {
            gone = why != null ? why : "the peer's rendezvous socket closed without end-of-stream (peer process gone)";
        }
        wake();
    }

    // ---- data ----

    /** The read path: up to {@code len} bytes, -1 at end-of-stream. {@code timeoutMillis} 0 waits forever. */
    int read(byte[] b, int off, int len, int timeoutMillis) throws IOException {
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0) {
            return 0;
        }
        lock(readLock);
        try {
            if (inputShutdown) {
                rpos = rlim = 0;
                return -1;
            }
            long deadline = timeoutMillis > 0 ? System.nanoTime() + timeoutMillis * 1_000_000L : 0;
            while (true) {
                if (rpos < rlim) {
                    int n = Math.min(len, rlim - rpos);
                    rbuf.get(rpos, b, off, n);
                    rpos += n;
                    return n;
                }
                if (!fill(true, deadline)) {
                    if (inputShutdown) {
                        rpos = rlim = 0;
                    }
                    return -1;
                }
            }
        } finally {
            unlock(readLock);
        }
    }

    /**
     * Makes staged data available: posts a receive if none is pending and waits for it ({@code block}) or
     * progresses once. Returns false at end-of-stream; true when data is staged or, not blocking, none yet.
     */
    private boolean fill(boolean block, long deadline) throws IOException {
        if (pendingRecv == null) {
            if (peerSent >= 0 && received >= peerSent) {
                return false;
            }
            if (rlim == rbuf.capacity() && rlim < Staging.STAGING) { // the last receive filled it: a larger transfer
                ByteBuffer b = Staging.grown(rbuf, rlim + 1);
                if (b != rbuf) {
                    rbuf = b;
                    raddr = UcxUtils.getAddress(b);
                }
            }
            pendingRecv = io.recv(raddr, rbuf.capacity());
        }
        UcpRequest r = pendingRecv;
        if (!r.isCompleted()) {
            if (!block) {
                io.progress();
            } else if (!io.await(r, true, deadline)) {
                if (finished() || inputShutdown) {
                    return false;
                }
                throw new SocketException("Connection reset: " + gone);
            }
            if (!r.isCompleted()) {
                return true;
            }
        }
        pendingRecv = null;
        if (r.getStatus() != 0) {
            // across hosts the endpoint has peer error handling: a peer that closes in order disconnects it after
            // its last byte, which fails the receive posted for more. Its end-of-stream marker (over TCP) decides
            if (remote && io.peerVerdict(deadline) && peerSent >= 0 && received >= peerSent) {
                return false;
            }
            throw new SocketException(gone != null ? "Connection reset: " + gone
                    : "UCX stream receive failed, status " + r.getStatus());
        }
        rpos = 0;
        rlim = (int) r.getRecvSize();
        received += rlim;
        return true;
    }

    /** Bytes readable without blocking (rsockets has no FIONREAD either; this progresses UCX once to see). */
    int available() throws IOException {
        use();
        if (!readLock.tryLock()) {
            exit();
            return 0; // a reader is waiting and will take whatever arrives
        }
        if (isClosed()) {
            unlock(readLock);
            throw new SocketException("Socket closed");
        }
        try {
            if (inputShutdown) {
                return 0;
            }
            if (rpos >= rlim) {
                fill(false, 0);
            }
            return rlim - rpos;
        } finally {
            unlock(readLock);
        }
    }

    void write(byte[] b, int off, int len) throws IOException {
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        lock(writeLock);
        try {
            if (outputShutdown) {
                throw new SocketException("Socket output is shutdown");
            }
            sendDone(true); // a non-blocking NIO send may still use the staging buffer
            while (len > 0) {
                if (gone != null) {
                    throw new SocketException("Broken pipe: " + gone);
                }
                if (closedByPeer) {
                    throw new SocketException("Broken pipe: the peer closed the connection");
                }
                growSend(len);
                int n = Math.min(len, sbuf.capacity());
                sbuf.put(0, b, off, n);
                pendingSend = io.send(saddr, n); // kept until done: release() must not free an endpoint under it
                sendDone(true);
                sent += n;
                off += n;
                len -= n;
            }
        } finally {
            unlock(writeLock);
        }
    }

    /**
     * Reads see end-of-stream from now on, a blocked reader included (TCP's behaviour): no read lock is taken, the
     * reader is woken and drops what is staged itself.
     */
    void shutdownInput() throws IOException {
        use();
        try {
            inputShutdown = true;
            io.signal();
        } finally {
            exit();
        }
    }

    void shutdownOutput() throws IOException {
        lock(writeLock);
        try {
            if (!outputShutdown) {
                outputShutdown = true;
                if (gone == null) {
                    UcxClose.marker(this);
                }
            }
        } finally {
            unlock(writeLock);
        }
    }

    // ---- NIO: ByteBuffers, non-blocking operations, readiness (used by UcxSocketChannel and UcxPoller) ----

    /**
     * Reads into {@code dsts[off..off+len)}: bytes read, -1 at end-of-stream, 0 when not blocking and nothing is
     * there. Blocking waits as {@link #read(byte[], int, int, int)} does ({@code timeoutMillis} 0 = forever).
     */
    long read(ByteBuffer[] dsts, int off, int len, boolean block, int timeoutMillis) throws IOException {
        lock(readLock);
        try {
            if (inputShutdown) {
                rpos = rlim = 0;
                return -1;
            }
            long deadline = block && timeoutMillis > 0 ? System.nanoTime() + timeoutMillis * 1_000_000L : 0;
            while (true) {
                if (rpos < rlim) {
                    long total = 0;
                    for (int i = off; i < off + len && rpos < rlim; i++) {
                        ByteBuffer d = dsts[i];
                        int n = Math.min(d.remaining(), rlim - rpos);
                        if (n == 0) {
                            continue;
                        }
                        d.put(rbuf.slice(rpos, n));
                        rpos += n;
                        total += n;
                    }
                    return total;
                }
                if (!fill(block, deadline)) {
                    if (inputShutdown) {
                        rpos = rlim = 0;
                    }
                    return -1;
                }
                if (!block && rpos >= rlim) {
                    if (finished()) {
                        return -1;
                    }
                    if (gone != null) {
                        for (int i = 0; i < 64 && rpos >= rlim; i++) { // a last look for data on its way
                            fill(false, 0);
                        }
                        if (rpos >= rlim) {
                            if (finished()) {
                                return -1;
                            }
                            throw new SocketException("Connection reset: " + gone);
                        }
                        continue;
                    }
                    return 0;
                }
            }
        } finally {
            unlock(readLock);
        }
    }

    /**
     * Writes from {@code srcs[off..off+len)}. Blocking: everything, each chunk sent before it returns (as
     * {@link #write(byte[], int, int)}). Not blocking: at most one staging buffer's worth is posted and left in
     * flight; returns 0 while the previous one is still in flight.
     */
    long write(ByteBuffer[] srcs, int off, int len, boolean block) throws IOException {
        lock(writeLock);
        try {
            if (outputShutdown) {
                throw new SocketException("Socket output is shutdown");
            }
            long total = 0;
            while (true) {
                if (!sendDone(block)) { // blocking: waits for the previous chunk
                    return total;
                }
                if (gone != null && Staging.hasRemaining(srcs, off, len)) {
                    // checked only with data left to send: a peer that finished and left took what came before
                    throw new SocketException("Broken pipe: " + gone);
                }
                long want = 0;
                for (int i = off; i < off + len; i++) {
                    want += srcs[i].remaining();
                }
                growSend((int) Math.min(want, Staging.STAGING));
                int cap = sbuf.capacity();
                int n = 0;
                for (int i = off; i < off + len && n < cap; i++) {
                    ByteBuffer s = srcs[i];
                    int k = Math.min(s.remaining(), cap - n);
                    if (k == 0) {
                        continue;
                    }
                    sbuf.put(n, s, s.position(), k);
                    s.position(s.position() + k);
                    n += k;
                }
                if (n == 0) {
                    return total;
                }
                UcpRequest r = io.send(saddr, n);
                sent += n;
                total += n;
                pendingSend = r;
                if (!block) {
                    sendDone(false); // progress once: small sends complete at once over shared memory
                    return total;
                }
            }
        } finally {
            unlock(writeLock);
        }
    }

    /** Under the write lock, with no send in flight: a send staging buffer fit for {@code need} bytes if it can. */
    private void growSend(int need) {
        ByteBuffer b = Staging.grown(sbuf, need);
        if (b != sbuf) {
            sbuf = b;
            saddr = UcxUtils.getAddress(b);
        }
    }

    /** All the peer sent has been received and it sent end-of-stream. */
    boolean finished() {
        return peerSent >= 0 && received >= peerSent;
    }

    /** With the write lock: true when no send is in flight (waiting for it when {@code block}). */
    private boolean sendDone(boolean block) throws IOException {
        UcpRequest r = pendingSend;
        if (r == null) {
            return true;
        }
        if (!r.isCompleted()) {
            if (block) {
                io.await(r, false, 0);
            } else {
                io.progress();
                if (!r.isCompleted()) {
                    if (gone != null) {
                        throw new SocketException("Broken pipe: " + gone);
                    }
                    if (closedByPeer) {
                        throw new SocketException("Broken pipe: the peer closed the connection");
                    }
                    return false;
                }
            }
        }
        pendingSend = null;
        if (r.getStatus() != 0) {
            throw new SocketException("UCX stream send failed, status " + r.getStatus());
        }
        return true;
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
            int r = 0;
            if (wantRead && readLock.tryLock()) {
                try {
                    if (inputShutdown || gone != null || rpos < rlim || finished()) {
                        r |= READABLE;
                    } else if (!fill(false, 0) || rpos < rlim) {
                        r |= READABLE; // end-of-stream, or data arrived
                    }
                } catch (IOException | RuntimeException e) {
                    r |= READABLE; // the read reports it
                } finally {
                    readLock.unlock();
                }
            }
            if (wantWrite && writeLock.tryLock()) {
                try {
                    if (outputShutdown || gone != null || sendDone(false)) {
                        r |= WRITABLE;
                    }
                } catch (IOException | RuntimeException e) {
                    r |= WRITABLE;
                } finally {
                    writeLock.unlock();
                }
            }
            return r;
        } finally {
            exit();
        }
    }

    boolean isInputShutdown() {
        return inputShutdown;
    }

    long bytesSent() {
        return sent;
    }

    long bytesReceived() {
        return received;
    }
}
