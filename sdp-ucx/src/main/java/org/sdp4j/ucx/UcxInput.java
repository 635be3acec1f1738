package org.sdp4j.ucx;

import java.io.IOException;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.util.concurrent.locks.ReentrantLock;

import org.openucx.jucx.UcxUtils;

/**
 * The UCX read path of one connection: {@link #read} copies from the receive staging buffer, posting a partial
 * {@code ucp_stream_recv} into it when it is empty and waiting for that in {@link UcxWait#await}. End-of-stream is
 * the peer's marker ({@link UcxConnection#peerSent}) once that many bytes arrived. Everything here runs under
 * {@link #lock}, taken through {@link UcxConnection#lock} (counted in, so close never frees what a reader uses).
 */
final class UcxInput {
    private final UcxConnection conn;
    final ReentrantLock lock = new ReentrantLock();
    /** Receive staging, replaced by a larger one only with no receive posted into it. */
    private ByteBuffer buf;
    private long addr;
    private int pos, lim;
    /** The receive request posted into the staging buffer until it completes (close cancels it), else 0. */
    long pending;
    long received;
    /** Bytes still to discard of the client's hello at the start of a connection on a link ({@link SharedLink}). */
    private int skip;
    /** shutdownInput: reads see end-of-stream (taken without the lock; the reader drops what is staged). */
    volatile boolean shutdown;

    UcxInput(UcxConnection conn, ByteBuffer staging) {
        this.conn = conn;
        this.buf = staging;
        this.addr = UcxUtils.getAddress(staging);
    }

    /**
     * The next connection on a kept pair ({@link Link}), made on the last one's staging buffer: {@code op} a receive
     * the last one left posted into it (0: none), {@code [from, to)} bytes of this connection already in it.
     */
    void adopt(long op, int from, int to) {
        pending = op;
        pos = from;
        lim = to;
        received = to - from;
    }

    /** A connection on a link: its first {@code n} bytes are the client's hello, not the application's. */
    void skipHello(int n) {
        skip = n;
    }

    /** The staging buffer, for {@link Staging#recycle} once the connection is released. */
    ByteBuffer staging() {
        return buf;
    }

    /** The read path: up to {@code len} bytes, -1 at end-of-stream. {@code timeoutMillis} 0 waits forever. */
    int read(byte[] b, int off, int len, int timeoutMillis) throws IOException {
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0) {
            return 0;
        }
        conn.lock(lock);
        try {
            if (shutdown) {
                pos = lim = 0;
                return -1;
            }
            long deadline = timeoutMillis > 0 ? System.nanoTime() + timeoutMillis * 1_000_000L : 0;
            while (true) {
                if (pos < lim) {
                    int n = Math.min(len, lim - pos);
                    buf.get(pos, b, off, n);
                    pos += n;
                    return n;
                }
                if (!fill(true, deadline)) {
                    return endOfStream();
                }
            }
        } finally {
            conn.unlock(lock);
        }
    }

    /**
     * Reads into {@code dsts[off..off+len)}: bytes read, -1 at end-of-stream, 0 when not blocking and nothing is
     * there. Blocking waits as {@link #read(byte[], int, int, int)} does ({@code timeoutMillis} 0 = forever).
     */
    long read(ByteBuffer[] dsts, int off, int len, boolean block, int timeoutMillis) throws IOException {
        conn.lock(lock);
        try {
            if (shutdown) {
                pos = lim = 0;
                return -1;
            }
            long deadline = block && timeoutMillis > 0 ? System.nanoTime() + timeoutMillis * 1_000_000L : 0;
            while (true) {
                if (pos < lim) {
                    long total = 0;
                    for (int i = off; i < off + len && pos < lim; i++) {
                        ByteBuffer d = dsts[i];
                        int n = Math.min(d.remaining(), lim - pos);
                        if (n == 0) {
                            continue;
                        }
                        d.put(d.position(), buf, pos, n); // absolute: no slice allocated per read
                        d.position(d.position() + n);
                        pos += n;
                        total += n;
                    }
                    return total;
                }
                if (!fill(block, deadline)) {
                    return endOfStream();
                }
                if (!block && pos >= lim) {
                    if (conn.finished()) {
                        return -1;
                    }
                    if (conn.gone != null) {
                        for (int i = 0; i < 64 && pos >= lim; i++) { // a last look for data on its way
                            fill(false, 0);
                        }
                        if (pos >= lim) {
                            if (conn.finished()) {
                                return -1;
                            }
                            throw new SocketException("Connection reset: " + conn.gone);
                        }
                        continue;
                    }
                    return 0;
                }
            }
        } finally {
            conn.unlock(lock);
        }
    }

    private int endOfStream() {
        if (shutdown) {
            pos = lim = 0;
        }
        return -1;
    }

    /**
     * Makes staged data available: posts a receive if none is pending and waits for it ({@code block}) or
     * progresses once. Returns false at end-of-stream; true when data is staged or, not blocking, none yet.
     */
    private boolean fill(boolean block, long deadline) throws IOException {
        long r = pending;
        if (r == 0) {
            if (conn.finished()) {
                return false;
            }
            if (lim == buf.capacity() && lim < Staging.STAGING) { // the last receive filled it: a larger transfer
                ByteBuffer b = Staging.grown(buf, lim + 1);
                if (b != buf) {
                    buf = b;
                    addr = UcxUtils.getAddress(b);
                }
            }
            r = conn.io.recv(addr, buf.capacity());
            pending = UcxWait.request(r);
        }
        if (!UcxWait.completed(r)) {
            if (!block) {
                conn.io.progress();
            } else if (!conn.io.await(r, true, deadline)) {
                if (conn.finished() || shutdown) {
                    return false;
                }
                throw new SocketException("Connection reset: " + conn.gone);
            }
            if (!UcxWait.completed(r)) {
                return true;
            }
        }
        pending = 0;
        long n = UcxWait.received(r);
        if (n < 0) {
            // across hosts the endpoint has peer error handling: a peer that closes in order disconnects it after
            // its last byte, which fails the receive posted for more. Its end-of-stream marker (over TCP) decides
            if (conn.remote && conn.io.peerVerdict(deadline) && conn.finished()) {
                return false;
            }
            throw new SocketException(conn.gone != null ? "Connection reset: " + conn.gone
                    : conn.endpointError != null ? "Connection reset: the UCX endpoint failed: " + conn.endpointError
                    : "UCX stream receive failed: " + UcxWait.status((int) n));
        }
        pos = 0;
        lim = (int) n;
        if (skip > 0) {
            hello();
        }
        received += lim - pos;
        return true;
    }

    /** Discards what this receive brought of the client's hello (checked: a same-account sdp4j peer sends it). */
    private void hello() throws SocketException {
        int k = Math.min(skip, lim);
        for (int i = 0; i < k; i++) {
            int at = SharedLink.HELLO_BYTES - skip + i; // the magic, big-endian, as the client's buffer holds it
            if (buf.get(i) != (byte) (Rendezvous.MAGIC >>> (56 - 8 * at))) {
                conn.peerGone("the connection's first bytes were not the link's hello");
                throw new SocketException("Connection reset: the connection's first bytes were not the link's hello");
            }
        }
        skip -= k;
        pos = k;
    }

    /** Bytes readable without blocking (rsockets has no FIONREAD either; this progresses UCX once to see). */
    int available() throws IOException {
        if (!conn.tryLock(lock)) {
            return 0; // a reader is waiting and will take whatever arrives
        }
        try {
            if (shutdown) {
                return 0;
            }
            if (pos >= lim) {
                fill(false, 0);
            }
            return lim - pos;
        } finally {
            conn.unlock(lock);
        }
    }

    /**
     * Reads see end-of-stream from now on, a blocked reader included (TCP's behaviour): no lock is taken, the
     * reader is woken and drops what is staged itself.
     */
    void shutdown() throws IOException {
        conn.use();
        try {
            shutdown = true;
            conn.io.signal();
        } finally {
            conn.exit();
        }
    }

    /**
     * Whether a read would not block now (with the connection counted in): staged data, a completed receive,
     * end-of-stream or a dead peer; false while a blocked reader holds the lock (that thread takes the data).
     */
    boolean ready() {
        if (!lock.tryLock()) {
            return false;
        }
        try {
            return shutdown || conn.gone != null || pos < lim || conn.finished() || !fill(false, 0) || pos < lim;
        } catch (IOException | RuntimeException e) {
            return true; // the read reports it
        } finally {
            lock.unlock();
        }
    }
}
