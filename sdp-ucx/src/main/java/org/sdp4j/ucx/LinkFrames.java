package org.sdp4j.ucx;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The writing side of a shared link's control socket ({@link SharedLink}): 13-byte frames (type, connection
 * number, a long), whole and in order, never waited for. What the socket does not take at once waits here and the
 * watchdog sends it when the socket is writable again ({@link Controlled#wantWrite}).
 */
final class LinkFrames {
    static final int FRAME = 13;
    /** The most that may wait: ~80,000 frames; beyond it the peer is taken to read nothing and the link ends. */
    private static final int MAX_QUEUED = 1 << 20;

    private final Controlled link;
    private final SocketChannel control;
    /** Frames go out whole and in order: several connections' closes write on the one socket. */
    private final ReentrantLock writes = new ReentrantLock();
    /** Frames the socket did not take yet (under {@link #writes}). */
    private ByteBuffer queued;

    LinkFrames(Controlled link) {
        this.link = link;
        this.control = link.control;
    }

    /**
     * Writes one frame, whole and in order, without waiting: what the socket does not take now waits in
     * {@link #queued} for the watchdog to send when it can ({@link #writable}). The watchdog itself answers
     * CONNECTs, and with both ends of a link in one process it is also the only reader of the other end: a writer
     * that waited for room there would wait for itself (a burst of 1,000 connects filled the socket so).
     */
    void send(byte type, int n, long v) throws IOException {
        writes.lock();
        try {
            if (queued == null || queued.position() == 0) {
                ByteBuffer m = frame(type, n, v);
                control.write(m);
                if (!m.hasRemaining()) {
                    return;
                }
                queue(m);
            } else {
                queue(frame(type, n, v));
            }
        } finally {
            writes.unlock();
        }
        link.wantWrite();
    }

    static ByteBuffer frame(byte type, int n, long v) {
        return ByteBuffer.allocate(FRAME).put(type).putInt(n).putLong(v).flip();
    }

    /** Under {@link #writes}: appends the rest of a frame; a peer that reads nothing for this long ends the link. */
    private void queue(ByteBuffer m) throws IOException {
        if (queued == null) {
            queued = ByteBuffer.allocate(64 * FRAME);
        }
        if (queued.remaining() < m.remaining()) {
            if (queued.capacity() >= MAX_QUEUED) {
                throw new java.net.SocketException("the link's peer reads none of its control messages");
            }
            queued = ByteBuffer.allocate(queued.capacity() * 2).put(queued.flip());
        }
        queued.put(m);
    }

    boolean wantsWrite() {
        writes.lock();
        try {
            return queued != null && queued.position() > 0;
        } finally {
            writes.unlock();
        }
    }

    void writable() {
        boolean done;
        writes.lock();
        try {
            if (queued == null) {
                return;
            }
            queued.flip();
            try {
                control.write(queued);
            } catch (IOException e) {
                queued.clear(); // the socket broke: its read reports the hang-up
            }
            queued.compact();
            done = queued.position() == 0;
        } finally {
            writes.unlock();
        }
        if (done) {
            java.nio.channels.SelectionKey k = link.selectionKey;
            try {
                k.interestOps(java.nio.channels.SelectionKey.OP_READ);
            } catch (java.nio.channels.CancelledKeyException e) {
                // ended meanwhile
            }
        }
    }
}
