package org.sdp4j.ucx;

import java.io.IOException;
import java.util.ArrayList;

import org.openucx.jucx.ucp.UcpWorker;
import org.sdp4j.ucp.UcpNative;

/**
 * Virtual threads waiting on a shared link's worker ({@link SharedLink}), each woken for its own request. One
 * worker serves every connection of the link and its one event descriptor cannot say whose data came: waking every
 * thread parked on it (what {@link UcxParker} does for a worker of one connection) made 256 connections on a link do
 * a fifth of the round trips of 256 worker pairs. So the parker's poller progresses a link's worker itself and
 * unparks only the threads whose requests completed ({@link #ready}); a thread whose own progress completes
 * another's request unparks it ({@link #wakeCompleted}); a close, an end-of-stream or a hang-up unparks that
 * connection's threads ({@link #wake}).
 */
final class LinkWaits {
    private final UcpWorker worker;

    LinkWaits(UcpWorker worker) {
        this.worker = worker;
    }

    /** A virtual thread parked for request {@code op} of connection {@code conn}. */
    private static final class Parked {
        final Thread thread;
        final UcxConnection conn;
        final long op;

        Parked(Thread thread, UcxConnection conn, long op) {
            this.thread = thread;
            this.conn = conn;
            this.op = op;
        }
    }

    /** Parked threads (under its own lock); {@link #parkedCount} lets a progress skip the lock when none. */
    private final ArrayList<Parked> parked = new ArrayList<>();
    private volatile int parkedCount;
    /** Held by the poller while it progresses the worker ({@link #ready}), and by the worker's destroy. */
    private final Object life = new Object();
    private boolean destroyed;
    /** The worker's event descriptor, once armed (for {@link UcxParker#forget}). */
    private volatile int efd = -1;

    /**
     * Parks a virtual thread until {@code op} completes, {@code c} is woken ({@link #wake}) or {@code nanos} pass;
     * false at once when UCX will not arm the worker (events due, or a send pending: the caller progresses). One
     * worker serves every connection of the link, and its one descriptor cannot say whose data came: the poller
     * progresses the worker and wakes only the threads whose requests completed ({@link #ready}), as does any
     * thread whose own progress completes another's ({@link #wakeCompleted}).
     */
    boolean park(UcxConnection c, long op, long nanos, boolean reading) throws IOException {
        Parked me = new Parked(Thread.currentThread(), c, op);
        synchronized (parked) {
            parked.add(me);
            parkedCount = parked.size();
        }
        try {
            // what a waker may have changed before this thread was on the list, which it could not wake then: its
            // request, or the connection's state (the watchdog's end-of-stream marker or hang-up, a close); missed,
            // the thread would sleep to its tick
            if (UcxWait.completed(op) || c.isClosed() || c.gone != null || c.endpointError != null
                    || (reading ? c.in.shutdown || c.finished() : c.closedByPeer || c.peerClosed)) {
                return true;
            }
            int fd = UcpNative.arm(worker.getNativeId());
            if (fd == -1) {
                return false;
            }
            if (fd < -1) {
                throw new java.net.SocketException("UCX worker arm failed: " + UcxWait.status(fd));
            }
            efd = fd;
            UcxParker.watch(this, fd);
            java.util.concurrent.locks.LockSupport.parkNanos(c, nanos);
            return true;
        } finally {
            synchronized (parked) {
                parked.remove(me);
                parkedCount = parked.size();
            }
        }
    }

    /** Unparks the parked threads whose requests completed (a progress did something). */
    void wakeCompleted() {
        // the request's completion was written by UCX (native) and the list's count by a parking thread: without a
        // full fence each side may read the other's old value and the parked thread sleeps to its tick (Dekker)
        java.lang.invoke.VarHandle.fullFence();
        if (parkedCount == 0) {
            return;
        }
        synchronized (parked) {
            for (int i = parked.size() - 1; i >= 0; i--) {
                Parked p = parked.get(i);
                if (UcxWait.completed(p.op)) {
                    java.util.concurrent.locks.LockSupport.unpark(p.thread);
                    parked.remove(i); // woken: the descriptor need not be armed for it again
                }
            }
            parkedCount = parked.size();
        }
    }

    /** Unparks {@code c}'s parked threads (its close, its peer's end-of-stream or hang-up: they look again). */
    void wake(UcxConnection c) {
        java.lang.invoke.VarHandle.fullFence(); // as in wakeCompleted: the connection's new state, then the count
        if (parkedCount == 0) {
            return;
        }
        synchronized (parked) {
            for (int i = 0, n = parked.size(); i < n; i++) {
                Parked p = parked.get(i);
                if (p.conn == c) {
                    java.util.concurrent.locks.LockSupport.unpark(p.thread);
                }
            }
        }
    }

    /**
     * The worker's descriptor is ready (the parker's poller thread): progress the worker, wake the threads whose
     * requests completed, and arm the descriptor again while threads are still parked. When UCX keeps saying
     * "busy" (a send pending that only the peer's reading clears), everyone parked looks for themselves.
     */
    void ready(int fd) {
        synchronized (life) {
            if (!destroyed) {
                readyLocked();
            }
        }
    }

    private void readyLocked() {
        try {
            for (int turn = 0; turn < 16; turn++) {
                for (int i = 0; i < 64 && UcpNative.progress(worker.getNativeId()) != 0; i++) {
                    // drain what is due
                }
                wakeCompleted();
                if (parkedCount == 0) {
                    return;
                }
                int again = UcpNative.arm(worker.getNativeId());
                if (again >= 0) {
                    UcxParker.watch(this, again);
                    return;
                }
                if (again < -1) {
                    break;
                }
            }
        } catch (IOException | RuntimeException e) {
            // everyone parked looks for themselves, below
        }
        synchronized (parked) {
            for (Parked p : parked) {
                java.util.concurrent.locks.LockSupport.unpark(p.thread);
            }
        }
    }

    /** The worker is about to be destroyed: the poller progresses it no more, and forgets its descriptor. */
    void destroyed() {
        synchronized (life) {
            destroyed = true;
            if (efd >= 0) {
                UcxParker.forget(efd);
            }
        }
    }

}
