package org.sdp4j.ucx;

import java.io.IOException;
import java.nio.ByteBuffer;

import org.openucx.jucx.ucp.UcpRequest;

/**
 * Closing a UCX connection its last user left ({@link UcxConnection#close}): flush, end-of-stream marker, endpoint
 * close, worker back to the pool, one non-blocking step at a time ({@link #settle}), by the closing thread for a
 * moment and then by {@link Linger}'s, never both.
 */
final class UcxClose {
    /** How long the closing thread itself works at a close before {@link Linger} takes it over (platform threads). */
    private static final long RELEASE_SPIN_NANOS = 200_000;
    /** How long a receive left posted on a closed endpoint may take to complete before its worker is destroyed. */
    private static final long RECEIVE_GRACE_NANOS = 1_000_000;

    private final UcxConnection conn;

    private UcxClose(UcxConnection conn) {
        this.conn = conn;
    }

    /** Closing ({@link #settle}; the closing thread, then {@link Linger}'s, never both): step, requests, outcome. */
    private static final int START = 0, FLUSHING = 1, MARKER = 2, PEER_DONE = 3, CLOSE_EP = 4, CLOSING_EP = 5,
            RELEASED = 6, PARKED = 7;
    private int closing = START;
    private UcpRequest flushing, closeRequest;
    private boolean clean, closeForced;
    private long lingerUntil, receiveGraceUntil;

    /**
     * The last user left a closed connection: what was written before the close still goes to the peer, then the
     * end-of-stream marker, then the endpoint closes and the worker goes back to the pool. That can take long: across
     * hosts a flush waits for RC acknowledgements, and one frame lost on the wire costs a retransmission timeout (a
     * one-second bound here lost the tail of a stream and aborted the process in {@code ucp_worker_destroy} under a
     * request still posted). So the closing thread gives it a moment and {@link Linger} finishes it, as the kernel
     * finishes a closed TCP socket's sends: close does not block, and nothing written is dropped while the peer lives.
     */
    static void release(UcxConnection c) {
        new UcxClose(c).start();
    }

    private void start() {
        lingerUntil = System.nanoTime() + Linger.MILLIS * 1_000_000L;
        long end = System.nanoTime() + (org.sdp4j.transport.Threads.onVirtualThread() ? UcxWait.VIRTUAL_SPIN_NANOS
                : RELEASE_SPIN_NANOS);
        while (!settle()) {
            if (System.nanoTime() - end >= 0) {
                Linger.add(this);
                return;
            }
        }
    }

    /**
     * One step of closing a released connection (the closing thread's, then {@link Linger}'s, one at a time);
     * true once everything is released. Flush, marker, endpoint close, worker: a worker is never destroyed under a
     * request still posted (UCX aborts the process); a flush that the peer's hang-up or the linger bound ends
     * becomes a forced close, and a forced close that never completes leaves its worker to the process.
     */
    boolean settle() {
        switch (closing) {
            case START -> { // start: flush unless there is nobody to deliver to or nothing is left to deliver
                clean = conn.gone == null;
                closing = CLOSE_EP;
                // after shutdownOutput the marker already counted a send that may still be in flight (a
                // non-blocking write's): it must be delivered, not cancelled by a forced close, or the peer waits
                // for bytes that never come (issue 23; in one JVM the peer still got them, by cma from a staging
                // buffer the close had given up: luck, not delivery)
                long inFlight = conn.out.pending;
                boolean undelivered = !conn.out.shutdown || inFlight != 0 && !UcxWait.completed(inFlight);
                if (clean && undelivered && !conn.closedByPeer && !conn.peerClosed) {
                    try {
                        flushing = conn.ep.flushNonBlocking(null);
                        closing = FLUSHING;
                    } catch (RuntimeException e) {
                        clean = false;
                    }
                } else if (clean && !conn.remote && !conn.closedByPeer) {
                    // nothing to flush (the marker went with shutdownOutput, or the peer kept its end already):
                    // the marker step still decides whether this end is kept (keep)
                    closing = MARKER;
                }
                return false;
            }
            case FLUSHING -> { // flushing: the peer acknowledged all we sent, or it is gone, or time is up
                progressQuietly();
                if (flushing == null || flushing.isCompleted()) {
                    closing = MARKER;
                } else if (conn.closedByPeer || conn.peerClosed) {
                    // the peer closed in order and reads no more: the forced close ends the flush, and the worker,
                    // once every request completed, serves again (destroying it made the next connect create one:
                    // a quarter of the closes of a connect/close loop, each side closing at once, came here)
                    closing = CLOSE_EP;
                } else if (conn.gone != null || System.nanoTime() - lingerUntil >= 0) {
                    clean = false;
                    closing = CLOSE_EP;
                }
                return false;
            }
            case MARKER -> { // the marker: how much that was (shutdownOutput sent it already); across hosts: closed
                try {
                    // a peer that closed in order (its marker, then its hang-up) reads no marker: writing it only
                    // failed on the closed socket and sent the worker to be destroyed instead of pooled
                    if (!conn.out.shutdown && !conn.closedByPeer) {
                        marker(conn);
                    }
                    if (conn.remote) {
                        closed(conn);
                    } else if (conn.shared != null) {
                        conn.shared.closed(conn); // the peer's writes to it fail from now on
                    }
                } catch (IOException | RuntimeException e) {
                    if (conn.peerSent >= 0 && conn.gone == null && !conn.remote) {
                        // the peer sent its marker, then hung up before the watchdog told us: its orderly close, as
                        // the watchdog would report it (UcxConnection#peerGone), not a failure; the worker stays
                        // poolable (a connect/close loop, the client closing first, destroyed a server worker in ten
                        // here, and each cost a later connect a new one)
                        conn.closedByPeer = true;
                    } else {
                        clean = false; // the peer went away meanwhile
                    }
                }
                if (clean && !conn.remote && conn.link != null && keep()) {
                    closing = PARKED; // the pair waits for the next connection (Link); resume() ends it
                    return true;
                }
                closing = conn.remote && clean ? PEER_DONE : CLOSE_EP;
                return false;
            }
            case PEER_DONE -> {
                // across hosts the endpoint must outlive the peer's reading: closing it disconnects the queue pair,
                // the peer's UCX fails its endpoint, and a reader there that has not yet received every byte ends
                // (ucx-lossy, 2 % loss between the guests: a 1 MiB echo ended in "Connection reset by remote peer"
                // after its sender had echoed everything and closed). So it stays until the peer closed too (its
                // CLOSED message, or its hang-up), or is gone, or the linger bound passed - as a closed TCP socket's
                // data stays deliverable while the peer reads on.
                progressQuietly();
                if (conn.peerClosed || conn.closedByPeer || conn.gone != null
                        || System.nanoTime() - lingerUntil >= 0) {
                    closing = CLOSE_EP;
                }
                return false;
            }
            case CLOSE_EP -> { // the endpoint: a send the peer will never take is cancelled by a forced close
                long w = conn.out.pending;
                boolean inFlight = w != 0 && !UcxWait.completed(w);
                closeForced = !clean || conn.closedByPeer || conn.peerClosed || inFlight;
                if (inFlight) {
                    UcxConnection.SENDS_CANCELLED.incrementAndGet();
                }
                closeEp(closeForced, inFlight);
                return false;
            }
            case CLOSING_EP -> { // the endpoint closing
                progressQuietly();
                UcpRequest c = closeRequest, f = flushing;
                long r = conn.in.pending, w = conn.out.pending;
                // a flush the bound cut short completes (with an error) once the forced close purged its endpoint
                boolean closed = (c == null || c.isCompleted()) && (w == 0 || UcxWait.completed(w))
                        && (f == null || f.isCompleted());
                if (closed && r != 0 && !UcxWait.completed(r) && conn.shared == null) {
                    // a receive still posted on a closed endpoint completes only with its worker (UCX frees a
                    // peer-connected endpoint with the worker): a moment for it, then the worker goes, not pooled
                    if (receiveGraceUntil == 0) {
                        receiveGraceUntil = System.nanoTime() + RECEIVE_GRACE_NANOS;
                        return false;
                    }
                    if (System.nanoTime() - receiveGraceUntil < 0) {
                        return false;
                    }
                    clean = false;
                }
                if (closed) {
                    boolean receiving = r != 0 && !UcxWait.completed(r);
                    clean &= !receiving || conn.shared != null;
                    // the data path's requests go back to UCX (one still posted is released when the worker
                    // completes it) before the worker is pooled or destroyed
                    UcxWait.abandon(r);
                    UcxWait.abandon(w);
                    conn.in.pending = conn.out.pending = 0;
                    if (conn.shared != null) {
                        // the worker is the link's: it goes with the link's last connection. A receive left posted
                        // on the closed endpoint completes only then, into this staging buffer: the link holds it
                        Staging.recycle(conn.out.staging());
                        if (!receiving) {
                            Staging.recycle(conn.in.staging());
                        }
                        conn.shared.released(conn, receiving, false);
                    } else if (clean && !conn.remote) {
                        WorkerPool.give(conn.worker);
                        Staging.recycle(conn.in.staging());
                        Staging.recycle(conn.out.staging());
                    } else {
                        WorkerPool.destroy(conn.worker);
                    }
                } else if (System.nanoTime() - lingerUntil < 0) {
                    return false;
                } else if (!closeForced) {
                    clean = false;
                    closeEp(true, true); // a flushing close that outlasted the bound
                    lingerUntil = System.nanoTime() + UcxConnection.CLOSE_BOUND_NANOS * 5;
                    return false;
                } else if (conn.shared != null) {
                    conn.shared.released(conn, true, true); // the link's worker is left to the process with it
                } else {
                    Linger.abandoned(conn.worker); // destroying it would abort the process
                }
                if (conn.shared == null) {
                    Watchdog.retire(conn.control); // the watchdog closes it: see there why not this thread
                }
                closing = RELEASED;
                return true;
            }
            default -> {
                return true;
            }
        }
    }

    /**
     * Whether this end of the pair is kept for another connection ({@link Link}): a local connection that closed
     * cleanly, everything it sent flushed, no send left in flight; then its KEEP goes out and the link parks it.
     * Bytes a completed receive brought count as received (the peer's marker counts them as sent); a receive still
     * posted stays posted, for the next connection ({@link Link#drain}).
     */
    private boolean keep() {
        Link l = conn.link;
        if (conn.gone != null || conn.closedByPeer || conn.endpointError != null || !l.keeps()) {
            return false;
        }
        if (flushing != null && (!flushing.isCompleted() || flushing.getStatus() != 0)) {
            return false;
        }
        long w = conn.out.pending, r = conn.in.pending;
        if (w != 0 && !UcxWait.completed(w)) {
            return false;
        }
        if (w != 0) {
            conn.out.pending = 0;
            if (UcxWait.sent(w) != 0) {
                return false;
            }
        }
        if (r != 0 && UcxWait.completed(r)) {
            conn.in.pending = 0;
            long n = UcxWait.received(r);
            if (n < 0) {
                return false;
            }
            conn.in.received += n;
        }
        // a receive still posted (a reader that saw end-of-stream leaves one) stays: Link#drain hands it on
        try {
            Rendezvous.writeFully(conn.control, Link.message(Rendezvous.KEEP, 0),
                    System.nanoTime() + UcxConnection.CLOSE_BOUND_NANOS);
        } catch (IOException e) {
            return false;
        }
        return l.park(this);
    }

    /** The pair of a parked end ends ({@link Link#teardown}): its endpoint closes and its worker goes back. */
    void resume() {
        lingerUntil = System.nanoTime() + Linger.MILLIS * 1_000_000L;
        closing = CLOSE_EP;
        Linger.add(this);
    }

    /** The connection's staging buffers, for the next connection on a kept pair. */
    java.nio.ByteBuffer[] staging() {
        return new java.nio.ByteBuffer[] {conn.in.staging(), conn.out.staging()};
    }

    UcxConnection conn() {
        return conn;
    }

    /** Closes the endpoint; {@code inFlight}: a send of ours is still on its way (CLOSE_EP found it). */
    private void closeEp(boolean force, boolean inFlight) {
        if (force && !conn.remote) {
            // UCX refuses to force-close an endpoint without peer error handling (ucp_ep_close_nbx: "Invalid
            // parameter"), and local ones have none (it turns shared memory off). A peer that closed in order with
            // nothing of ours in flight gets the flushing close, which completes at once and keeps the worker
            // poolable; otherwise destroying the worker closes the endpoint (a quarter of the closes of a
            // connect/close loop used to come here through the exception, and each cost the next connect a worker)
            if (!clean || inFlight || !(conn.closedByPeer || conn.peerClosed)) {
                clean = false;
                closeForced = true;
                closeRequest = null;
                closing = CLOSING_EP;
                return;
            }
            force = false;
        }
        closeForced = force;
        try {
            closeRequest = force ? conn.ep.closeNonBlockingForce() : conn.ep.closeNonBlockingFlush();
        } catch (RuntimeException e) {
            clean = false;
            closeRequest = null;
        }
        closing = CLOSING_EP;
    }

    private void progressQuietly() {
        try {
            if (conn.worker.progress() == 0) {
                Thread.onSpinWait();
            }
        } catch (Exception e) {
            clean = false; // the requests waited for complete with the error
        }
    }

    /**
     * Tells the peer how many bytes this side sent in all (end-of-stream); the peer's reads end once that many
     * arrived, so the marker need not wait for them (a shutdownOutput does not wait for acknowledgements, as TCP's
     * does not). Non-blocking: the watchdog reads this socket; one writer at a time (the write lock, or the close).
     */
    static void marker(UcxConnection conn) throws IOException {
        if (conn.shared != null) {
            conn.shared.fin(conn);
            return;
        }
        ByteBuffer m = ByteBuffer.allocate(9).put(Rendezvous.FIN).putLong(conn.bytesSent()).flip();
        Rendezvous.writeFully(conn.control, m, System.nanoTime() + UcxConnection.CLOSE_BOUND_NANOS);
    }

    /**
     * Tells the peer across hosts that this side closed: it reads nothing more, so the peer may close its endpoint
     * (see {@link #settle}'s PEER_DONE). A marker alone does not say that: a shutdownOutput sends it too.
     */
    static void closed(UcxConnection conn) throws IOException {
        ByteBuffer m = ByteBuffer.allocate(9).put(Rendezvous.CLOSED).putLong(0).flip();
        Rendezvous.writeFully(conn.control, m, System.nanoTime() + UcxConnection.CLOSE_BOUND_NANOS);
    }
}
