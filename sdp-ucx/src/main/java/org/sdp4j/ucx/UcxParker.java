package org.sdp4j.ucx;

import java.io.IOException;
import java.net.SocketException;
import java.util.HashMap;
import java.util.concurrent.locks.LockSupport;

import org.sdp4j.log.SdpLog;
import org.sdp4j.ucp.UcpNative;

/**
 * Waits of virtual threads on UCX: the thread arms its worker, adds the worker's event descriptor to the poller's
 * epoll set itself ({@code EPOLLONESHOT}) and parks (its carrier is free); one platform poller thread waits in
 * {@code epoll_wait} and unparks the threads parked on a descriptor as soon as it is ready: the worker has events, or
 * is signalled (close, the peer's marker or hang-up: {@link UcxWait#signal}), or their bound passes. A virtual thread
 * must not sleep in the worker itself (the poll is native and would pin its carrier). The JDK's own poller and
 * junixsocket's work this way; the first version woke the poller with an eventfd write per park to rebuild a
 * ppoll array, a context switch more per wait.
 *
 * <p>A descriptor's only waiter parks through the JDK's own poller instead ({@link #JDK}), as the JDK's sockets
 * do; a second waiter on the same descriptor (the JDK's poller keeps one) uses this class's epoll set.
 *
 * <p>A park bounded only by the wait's tick (the safety net against UCX's rare lost wake-up, {@link UcxWait}) is
 * untimed: the poller ends it, looking every tick for waiters past their bound. A timed park of a virtual thread
 * is a task on the JDK's unparker queue, and when that queue is empty, as in a request/response on one connection,
 * each one woke the unparker thread to re-arm its timer: untimed, a 64 B ping-pong of two virtual threads took 0.32
 * context switches and 5.9 system calls per round trip instead of 0.95 and 8.0, and 30 % less CPU. A read's
 * deadline stays a timed park: it is the caller's to keep exactly.
 *
 * <p>The set may hold a descriptor whose worker is gone by then: epoll drops a closed descriptor by itself, and a
 * number reused by another worker is added anew by its first waiter; an unpark that comes late only ends some later
 * park early, which every park loop tolerates. So no waiter holds anything the poller could use after it is freed.
 */
final class UcxParker {
    private UcxParker() {}

    /**
     * One parked thread, on a descriptor's stack of waiters; {@code done} once it left. {@code until}: the poller
     * unparks it then (an untimed park), else 0 (a timed one ends by itself).
     */
    private static final class Waiter {
        final Thread thread;
        final long until;
        Waiter next;
        volatile boolean done;

        Waiter(Thread thread, long until, Waiter next) {
            this.thread = thread;
            this.until = until;
            this.next = next;
        }
    }

    /**
     * The threads parked on each descriptor, newest first. A waiter pushes itself before it arms the descriptor, and
     * the poller takes a descriptor's whole stack when it reports it: a readiness never finds its waiter missing, at
     * worst one that armed later and is woken early.
     */
    private static final HashMap<Integer, Waiter> PARKED = new HashMap<>(); // under its own lock: no lambda to
    // bootstrap in a virtual thread's first park (class loading there pins its carrier)
    /** Descriptors of shared links' workers: the poller lets the link progress it and wake whom it concerns. */
    private static final java.util.concurrent.ConcurrentHashMap<Integer, LinkWaits> LINKS =
            new java.util.concurrent.ConcurrentHashMap<>();
    /** The poller's epoll set, made with the poller. */
    private static volatile int epfd = -1;
    /** An idle poller looks again after this, as a safety net only (ms). */
    private static final int IDLE_MILLIS = 1000;
    /** How often a poller that saw a park within {@link #IDLE_MILLIS} looks for waiters past their bound (ms). */
    private static final int SWEEP_MILLIS = (int) Math.max(1, UcxWait.FIRST_TICK_NANOS / 1_000_000L);
    /** When the last park began (nanoTime): the poller sweeps every tick until a second passed without one. */
    private static volatile long lastPark;
    /** False once the poller stopped (it never should): parks are timed again then, so no thread waits forever. */
    private static volatile boolean polling = true;
    /** {@code sdp4j.ucx.park.timed}: every park timed, as before the sweep (to measure the two side by side). */
    private static final boolean TIMED = Boolean.getBoolean("sdp4j.ucx.park.timed");
    /**
     * Whether a descriptor's only waiter parks through the JDK's own poller ({@code sdp4j.ucx.parker}: {@code jdk},
     * the default where the JDK has it, or {@code own}): since JDK 22 its pollers are virtual threads, which wake a
     * parked thread without a platform thread's context switch; this class's poller then only sweeps.
     */
    static final boolean JDK = !"own".equals(System.getProperty("sdp4j.ucx.parker"))
            && org.sdp4j.jdk.JdkPoller.isAvailable();

    /** Loads the nested class here, not in a virtual thread's first park (class loading there pins its carrier). */
    static void preload() {
        new Waiter(Thread.currentThread(), 0, null).done = true; // and JDK's initializer loads JdkPoller
    }

    /**
     * Parks the calling thread until {@code worker} has events or is signalled, or {@code nanos} passed; returns
     * false at once, without parking, when UCX says the worker is busy (events due, or a send still pending: the
     * caller progresses). An interrupt ends the park too (the caller checks). {@code exact}: the bound is the
     * caller's deadline (a timed park); else it is the wait's tick, which the poller keeps (an untimed park,
     * ended within a sweep of its bound, or within {@link #IDLE_MILLIS} after a second without parks).
     */
    static boolean park(Object blocker, long worker, long nanos, boolean exact) throws IOException {
        int fd = UcpNative.arm(worker);
        if (fd == -1) {
            return false;
        }
        if (fd < -1) {
            throw new SocketException("UCX worker arm failed: " + UcxWait.status(fd));
        }
        int ep = ensurePoller();
        boolean timed = exact || TIMED || !polling;
        long now = System.nanoTime();
        long until = timed ? 0 : (now + nanos) | 1; // never 0 when untimed: 0 means timed
        Waiter mine;
        boolean jdk;
        synchronized (PARKED) {
            Waiter head = prune(PARKED.get(fd));
            jdk = JDK && head == null; // the JDK's poller keeps one thread per descriptor: a second waiter uses ours
            mine = new Waiter(Thread.currentThread(), until, head);
            PARKED.put(fd, mine);
        }
        lastPark = now;
        try {
            if (jdk) {
                org.sdp4j.jdk.JdkPoller.awaitReadable(fd, timed ? nanos : 0); // the sweep unparks an untimed one
            } else {
                UcpNative.epollArm(ep, fd);
                if (timed) {
                    LockSupport.parkNanos(blocker, nanos);
                } else {
                    LockSupport.park(blocker);
                }
            }
        } finally {
            mine.done = true; // after the JDK's poller let go of the descriptor: the next waiter may use it
        }
        return true;
    }

    /**
     * Watches the armed descriptor {@code fd} of shared link {@code l}'s worker: when it is ready, the poller calls
     * {@link LinkWaits#ready} rather than waking every thread parked on the link (one event for one connection
     * woke all of a link's parked readers: 256 connections made a fifth of the round trips of 256 worker pairs).
     */
    static void watch(LinkWaits l, int fd) throws IOException {
        int ep = ensurePoller();
        LINKS.put(fd, l);
        UcpNative.epollArm(ep, fd);
    }

    /** A shared link's worker is destroyed: its descriptor number may come back for another worker. */
    static void forget(int fd) {
        LINKS.remove(fd);
    }

    /** Whether a stack of waiters is kept for descriptor {@code fd} (for tests: stacks must not outlive them). */
    static boolean holds(int fd) {
        synchronized (PARKED) {
            return PARKED.containsKey(fd);
        }
    }

    /** {@code head}'s stack without the waiters that left (under the map's lock). */
    private static Waiter prune(Waiter head) {
        while (head != null && head.done) {
            head = head.next;
        }
        for (Waiter w = head; w != null; w = w.next) {
            while (w.next != null && w.next.done) {
                w.next = w.next.next;
            }
        }
        return head;
    }

    private static int ensurePoller() throws IOException {
        int fd = epfd;
        if (fd >= 0) {
            return fd;
        }
        synchronized (UcxParker.class) {
            if (epfd < 0) {
                int made = UcpNative.epollCreate();
                Thread t = new Thread(() -> run(made), "sdp4j-ucx-parker");
                t.setDaemon(true);
                t.start();
                epfd = made;
            }
            return epfd;
        }
    }

    /** The poller: lives as long as the process (one thread, idle in epoll_wait when nobody waits). */
    private static void run(int ep) {
        int[] ready = new int[64];
        long swept = System.nanoTime();
        try {
            while (true) {
                boolean busy = System.nanoTime() - lastPark < IDLE_MILLIS * 1_000_000L;
                int n = UcpNative.epollWait(ep, ready, busy ? SWEEP_MILLIS : IDLE_MILLIS);
                for (int i = 0; i < n; i++) {
                    LinkWaits l = LINKS.get(ready[i]);
                    if (l != null) {
                        l.ready(ready[i]);
                        continue;
                    }
                    Waiter head;
                    synchronized (PARKED) {
                        head = PARKED.remove(ready[i]);
                    }
                    for (Waiter w = head; w != null; w = w.next) {
                        if (!w.done) {
                            LockSupport.unpark(w.thread);
                        }
                    }
                }
                long now = System.nanoTime();
                if (now - swept >= SWEEP_MILLIS * 1_000_000L) {
                    swept = now;
                    sweep(now);
                }
            }
        } catch (IOException | RuntimeException e) {
            // parked threads are woken and park timed from now on: slower, not stuck. Say so loudly.
            polling = false;
            SdpLog.log(SdpLog.ERROR, "sdp4j: the ucx parker stopped: " + e);
            synchronized (PARKED) {
                for (Waiter head : PARKED.values()) {
                    for (Waiter w = head; w != null; w = w.next) {
                        LockSupport.unpark(w.thread);
                    }
                }
            }
        }
    }

    /**
     * Unparks the untimed waiters past their bound (they re-check, and park again with the next tick), and drops
     * the stacks of waiters that all left: a descriptor that never turns ready again (its worker destroyed after
     * a park ended by its bound) would otherwise keep its stack for the life of the process.
     */
    private static void sweep(long now) {
        synchronized (PARKED) {
            for (java.util.Iterator<java.util.Map.Entry<Integer, Waiter>> it = PARKED.entrySet().iterator();
                    it.hasNext(); ) {
                java.util.Map.Entry<Integer, Waiter> e = it.next();
                Waiter head = prune(e.getValue());
                if (head == null) {
                    it.remove();
                    continue;
                }
                e.setValue(head);
                for (Waiter w = head; w != null; w = w.next) {
                    if (w.until != 0 && !w.done && now - w.until >= 0) {
                        LockSupport.unpark(w.thread);
                    }
                }
            }
        }
    }
}
