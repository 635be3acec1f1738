package org.sdp4j.ucx;

import java.io.IOException;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.util.concurrent.locks.ReentrantLock;

import org.openucx.jucx.UcxUtils;

/**
 * The UCX write path of one connection: bytes are copied into the send staging buffer and posted with
 * {@code ucp_stream_send}; a blocking write waits for each chunk ({@link UcxWait#await}), a non-blocking one leaves
 * one chunk in flight ({@link #pending}). Everything here runs under {@link #lock}, taken through
 * {@link UcxConnection#lock}.
 */
final class UcxOutput {
    private final UcxConnection conn;
    final ReentrantLock lock = new ReentrantLock();
    /** Send staging, replaced by a larger one only with no send in flight from it. */
    private ByteBuffer buf;
    private long addr;
    long sent;
    /**
     * The send last posted, until it completes: kept so that release() never frees an endpoint under it, and so that
     * a non-blocking write's chunk is known to be in flight. 0 when none (a send that completed at once has none).
     */
    long pending;
    /** shutdownOutput (or close): the end-of-stream marker has been sent, or is being. */
    boolean shutdown;

    UcxOutput(UcxConnection conn, ByteBuffer staging) {
        this.conn = conn;
        this.buf = staging;
        this.addr = UcxUtils.getAddress(staging);
    }

    /** The staging buffer, for {@link Staging#recycle} once the connection is released. */
    ByteBuffer staging() {
        return buf;
    }

    void write(byte[] b, int off, int len) throws IOException {
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        conn.lock(lock);
        try {
            if (shutdown) {
                throw new SocketException("Socket output is shutdown");
            }
            done(true); // a non-blocking NIO send may still use the staging buffer
            while (len > 0) {
                failIfPeerEnded();
                grow(len);
                int n = Math.min(len, buf.capacity());
                buf.put(0, b, off, n);
                post(n);
                done(true);
                sent += n;
                off += n;
                len -= n;
            }
        } finally {
            conn.unlock(lock);
        }
    }

    /**
     * Writes from {@code srcs[off..off+len)}. Blocking: everything, each chunk sent before it returns (as
     * {@link #write(byte[], int, int)}). Not blocking: at most one staging buffer's worth is posted and left in
     * flight; returns 0 while the previous one is still in flight.
     */
    long write(ByteBuffer[] srcs, int off, int len, boolean block) throws IOException {
        conn.lock(lock);
        try {
            if (shutdown) {
                throw new SocketException("Socket output is shutdown");
            }
            long total = 0;
            while (true) {
                if (!done(block)) { // blocking: waits for the previous chunk
                    return total;
                }
                if (conn.gone != null && Staging.hasRemaining(srcs, off, len)) {
                    // checked only with data left to send: a peer that finished and left took what came before
                    throw new SocketException("Broken pipe: " + conn.gone);
                }
                long want = 0;
                for (int i = off; i < off + len; i++) {
                    want += srcs[i].remaining();
                }
                grow((int) Math.min(want, Staging.STAGING));
                int cap = buf.capacity();
                int n = 0;
                for (int i = off; i < off + len && n < cap; i++) {
                    ByteBuffer s = srcs[i];
                    int k = Math.min(s.remaining(), cap - n);
                    if (k == 0) {
                        continue;
                    }
                    buf.put(n, s, s.position(), k);
                    s.position(s.position() + k);
                    n += k;
                }
                if (n == 0) {
                    return total;
                }
                post(n);
                sent += n;
                total += n;
                if (!block) {
                    done(false); // progress once: small sends complete at once over shared memory
                    return total;
                }
            }
        } finally {
            conn.unlock(lock);
        }
    }

    private void failIfPeerEnded() throws SocketException {
        String failed = conn.endpointError;
        if (failed != null) { // this side's own endpoint failed (a dead queue pair, a removed device): say that
            throw new SocketException("Connection reset: the UCX endpoint failed: " + failed);
        }
        if (conn.gone != null) {
            throw new SocketException("Broken pipe: " + conn.gone);
        }
        if (conn.closedByPeer || conn.peerClosed) {
            throw new SocketException("Broken pipe: the peer closed the connection");
        }
    }

    /** Under the lock, with no send in flight: a staging buffer fit for {@code need} bytes if it can. */
    private void grow(int need) {
        ByteBuffer b = Staging.grown(buf, need);
        if (b != buf) {
            buf = b;
            addr = UcxUtils.getAddress(b);
        }
    }

    /** Under the lock: posts a send of the first {@code n} staged bytes; a send that completed at once leaves none. */
    private void post(int n) throws IOException {
        pending = UcxWait.request(conn.io.send(addr, n));
    }

    /** Under the lock: true when no send is in flight (waiting for it when {@code block}). */
    private boolean done(boolean block) throws IOException {
        long r = pending;
        if (r == 0) {
            return true;
        }
        if (!UcxWait.completed(r)) {
            if (block) {
                conn.io.await(r, false, 0);
            } else {
                conn.io.progress();
                if (!UcxWait.completed(r)) {
                    failIfPeerEnded();
                    return false;
                }
            }
        }
        pending = 0;
        int s = UcxWait.sent(r);
        if (s != 0) {
            throw new SocketException("UCX stream send failed: " + UcxWait.status(s));
        }
        return true;
    }

    /** Sends the end-of-stream marker once (counting a send still in flight: a close delivers it). */
    void shutdown() throws IOException {
        conn.lock(lock);
        try {
            if (!shutdown) {
                shutdown = true;
                if (conn.gone == null) {
                    UcxClose.marker(conn);
                }
            }
        } finally {
            conn.unlock(lock);
        }
    }

    /** Whether a write would not block now (with the connection counted in); false while a writer holds the lock. */
    boolean ready() {
        if (!lock.tryLock()) {
            return false;
        }
        try {
            return shutdown || conn.gone != null || done(false);
        } catch (IOException | RuntimeException e) {
            return true; // the write reports it
        } finally {
            lock.unlock();
        }
    }
}
