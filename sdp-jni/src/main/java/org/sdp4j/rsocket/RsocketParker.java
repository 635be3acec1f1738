package org.sdp4j.rsocket;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.sdp4j.log.SdpLog;
import org.sdp4j.transport.Deadline;
import org.sdp4j.transport.Props;

/**
 * Waits of virtual threads on rsockets: the virtual thread parks (its carrier is free) while one of a small, fixed
 * number of platform poller threads rpolls every parked waiter's descriptors and unparks the ones that are ready.
 * Platform threads wait in rpoll themselves (no hand-off: the fast path) while nothing is parked here and at most
 * {@link #DIRECT_WAITERS} of them do so at once; other platform-thread waits park here too ({@link #awaitPlatform}).
 * rsockets' rpoll is not made for many threads: every rpoll-ing thread of a process is woken whenever one of them
 * leaves poll(2) (librdmacm's shared poll signal) and spins in sched_yield until all have, so 1,000 platform threads
 * each in its own rpoll spent the machine on wake-ups (issue 13: 1,000 connections did not finish in the soft-RoCE
 * VM), while one poller rpolls for all parked ones.
 *
 * <p>A waiter is in its poller's set until the poller has let it go: a timeout or an interrupt asks the poller to
 * drop it and waits for that, so a descriptor never leaves a wait (and can never be rclose'd by its last user)
 * while a poller's rpoll still holds it; librdmacm would use freed state.
 */
final class RsocketParker {
    /** In a result: the waiting thread was interrupted (a virtual thread: the caller closes, as the JDK does). */
    static final int INTERRUPTED = 0x20000;
    /** The most a busy-poll may spin on a virtual thread's carrier before it parks (µs). */
    static final int VIRTUAL_SPIN_MAX_MICROS = 20;

    /** Platform threads that may wait in their own rpoll at once; beyond, they park on a poller. */
    static final int DIRECT_WAITERS = (int) Props.longProperty("sdp4j.rsocket.directWaiters", 8, 0, 1 << 20);

    private static final int POLLERS = (int) Props.longProperty("sdp4j.rsocket.pollerThreads", 1, 1, 16);
    /** How long a platform thread's own rpoll runs before it checks whether to park instead (ms). */
    static final int DIRECT_SLICE_MS = 50;
    /** Platform threads in their own rpoll; waiters parked on the pollers (virtual and platform threads). */
    private static final AtomicInteger direct = new AtomicInteger(), parked = new AtomicInteger();
    private static volatile Poller[] pollers;

    private RsocketParker() {
    }

    /**
     * Loads and initializes this class, its nested classes and Deadline, from NativeLibrary's one-time init: a
     * virtual thread that first meets them in a wait would load them there, and one that waits for another
     * thread's loading of the same class parks pinned (a jdk.VirtualThreadPinned event in the VM's JFR check).
     */
    static void preload() {
        try {
            for (String n : new String[] {"RsocketParker$Waiter", "RsocketParker$Poller"}) {
                Class.forName("org.sdp4j.rsocket." + n, true, RsocketParker.class.getClassLoader());
            }
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
        Deadline.afterNanos(1).remainingNanos();
        org.sdp4j.transport.SpinPolicy.start(); // starts its sampler here, not in a virtual thread's first spin
        org.sdp4j.ops.OpenConnections.preload();
    }

    /** True on a virtual thread (JDK 21+); false on JDK 17 and on platform threads. */
    static boolean onVirtualThread() {
        return org.sdp4j.transport.Threads.onVirtualThread();
    }

    /**
     * As {@link Native#poll}: waits up to timeoutMillis (-1: no limit) for events on fd or for wakeFd (-1: none);
     * returns revents | {@link Native#WOKEN}, 0 on timeout, | {@link #INTERRUPTED} when the thread was interrupted.
     */
    static int await(int fd, int events, int wakeFd, int timeoutMillis) throws IOException {
        return await(fd, events, wakeFd, timeoutMillis, true);
    }

    /**
     * A platform thread's wait, as {@link Native#poll}: in its own rpoll while no waiter is parked here and fewer
     * than {@link #DIRECT_WAITERS} platform threads are in theirs, else parked on a poller. The own rpoll runs in
     * slices of {@link #DIRECT_SLICE_MS}: once waiters are parked (the poller rpolls), a direct waiter moves over
     * too within a slice, since every other rpoll-ing thread of the process is woken by each event the poller sees
     * and spins (sched_yield) while the poller scans its set. Never {@link #INTERRUPTED}: as the JDK's sockets on a
     * platform thread, an interrupt does not end the wait (the flag is kept).
     */
    static int awaitPlatform(int fd, int events, int wakeFd, int timeoutMillis) throws IOException {
        if (timeoutMillis == 0) {
            return Native.poll(fd, events, wakeFd, 0);
        }
        Deadline deadline = timeoutMillis < 0 ? Deadline.NONE : Deadline.afterNanos(timeoutMillis * 1_000_000L);
        while (enterDirect()) {
            int r;
            try {
                int left = deadline.pollMillis();
                r = Native.poll(fd, events, wakeFd, left < 0 ? DIRECT_SLICE_MS : Math.min(left, DIRECT_SLICE_MS));
            } finally {
                direct.decrementAndGet();
            }
            if (r != 0 || deadline.expired()) {
                return r;
            }
        }
        int left = deadline.pollMillis();
        return left == 0 ? 0 : await(fd, events, wakeFd, left, false);
    }

    /** True when this platform thread may rpoll itself (then it decrements {@link #direct}). */
    private static boolean enterDirect() {
        if (parked.get() > 0) {
            return false;
        }
        if (direct.incrementAndGet() <= DIRECT_WAITERS) {
            return true;
        }
        direct.decrementAndGet();
        return false;
    }

    private static int await(int fd, int events, int wakeFd, int timeoutMillis, boolean interruptible)
            throws IOException {
        int[] fds = { fd };
        short[] ev = { (short) events };
        short[] rev = new short[1];
        int r = awaitMany(fds, ev, rev, 1, wakeFd, timeoutMillis, interruptible);
        return r < 0 ? 0 : (r & (Native.WOKEN | INTERRUPTED)) | (rev[0] & 0xffff);
    }

    /**
     * As {@link Native#pollMany} (whose wakeFd is drained when it fired; here the caller drains it): revents of
     * fds[0..n) filled in; returns the number of fds with events, | {@link Native#WOKEN} when wakeFd fired,
     * | {@link #INTERRUPTED}; 0 on timeout.
     */
    static int awaitMany(int[] fds, short[] events, short[] revents, int n, int wakeFd, int timeoutMillis)
            throws IOException {
        return awaitMany(fds, events, revents, n, wakeFd, timeoutMillis, true);
    }

    /**
     * interruptible false (a platform thread): an interrupt neither ends the wait nor is reported; the flag is
     * cleared while parked (park would not wait with it set) and set again before this returns.
     */
    private static int awaitMany(int[] fds, short[] events, short[] revents, int n, int wakeFd, int timeoutMillis,
            boolean interruptible) throws IOException {
        if (interruptible && Thread.currentThread().isInterrupted()) {
            return INTERRUPTED | Native.WOKEN;
        }
        Waiter w = new Waiter(fds, events, revents, n, wakeFd, Thread.currentThread());
        Poller p = poller(fds.length > 0 ? fds[0] : wakeFd);
        parked.incrementAndGet();
        try {
            return parkUntilDone(p, w, timeoutMillis, interruptible);
        } finally {
            parked.decrementAndGet();
        }
    }

    private static int parkUntilDone(Poller p, Waiter w, int timeoutMillis, boolean interruptible)
            throws IOException {
        p.add(w);
        Deadline deadline = timeoutMillis < 0 ? Deadline.NONE : Deadline.afterNanos(timeoutMillis * 1_000_000L);
        boolean interrupted = false, keepFlag = false;
        while (!w.done) {
            if (!interruptible) {
                keepFlag |= Thread.interrupted();
            } else if (Thread.currentThread().isInterrupted()) {
                interrupted = true;
                break;
            }
            if (deadline.isNone()) {
                LockSupport.park(w);
            } else {
                long left = deadline.remainingNanos();
                if (left == 0) {
                    break;
                }
                LockSupport.parkNanos(w, left);
            }
        }
        if (!w.done) {
            p.cancel(w); // returns once the poller no longer holds the descriptors
        }
        if (keepFlag) {
            Thread.currentThread().interrupt();
        }
        if (w.failure != null) {
            throw new IOException("rsocket poller: " + w.failure, w.failure);
        }
        return w.result | (interrupted ? INTERRUPTED | Native.WOKEN : 0);
    }

    private static Poller poller(int key) throws IOException {
        Poller[] ps = pollers;
        if (ps == null) {
            synchronized (RsocketParker.class) {
                ps = pollers;
                if (ps == null) {
                    ps = new Poller[POLLERS];
                    for (int i = 0; i < ps.length; i++) {
                        ps[i] = new Poller(i);
                    }
                    pollers = ps;
                }
            }
        }
        return ps[Math.floorMod(key, ps.length)];
    }

    private static final class Waiter {
        final int[] fds;
        final short[] events, revents;
        final int n, wakeFd;
        final Thread thread;
        volatile boolean done, cancelled;
        int result; // written before done
        Throwable failure;

        Waiter(int[] fds, short[] events, short[] revents, int n, int wakeFd, Thread thread) {
            this.fds = fds;
            this.events = events;
            this.revents = revents;
            this.n = n;
            this.wakeFd = wakeFd;
            this.thread = thread;
        }
    }

    /** One platform thread: rpoll over the descriptors of its waiters plus its own eventfd (new waiters, cancels). */
    private static final class Poller implements Runnable {
        private final ConcurrentLinkedQueue<Waiter> incoming = new ConcurrentLinkedQueue<>();
        private final int efd;
        private final List<Waiter> active = new ArrayList<>();
        private int[] fds = new int[64];
        private short[] ev = new short[64], rev = new short[64];

        Poller(int index) throws IOException {
            Rsocket.ensureAvailability();
            efd = Native.eventfd(); // lives as long as the process, as the thread does
            Thread t = new Thread(this, "sdp4j-rsocket-poller-" + index);
            t.setDaemon(true);
            t.start();
        }

        void add(Waiter w) throws IOException {
            incoming.add(w);
            Native.signal(efd);
        }

        /** Asks the poller to let w go and waits until it has (briefly: the poller wakes on its eventfd). */
        void cancel(Waiter w) {
            w.cancelled = true;
            boolean interrupted = Thread.interrupted(); // park would not wait with the flag set
            try {
                Native.signal(efd);
            } catch (IOException e) {
                // the eventfd lives for ever; cannot happen
            }
            while (!w.done) {
                LockSupport.parkNanos(w, 1_000_000L);
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void run() {
            for (;;) {
                try {
                    pollOnce();
                } catch (Throwable e) {
                    SdpLog.log(SdpLog.ERROR, "sdp4j rsocket poller: " + e);
                    for (Waiter w : active) {
                        w.failure = e;
                        finish(w, 0);
                    }
                    active.clear();
                }
            }
        }

        private void finish(Waiter w, int result) {
            w.result = result;
            w.done = true;
            LockSupport.unpark(w.thread);
        }

        private void pollOnce() throws IOException {
            for (Waiter w; (w = incoming.poll()) != null;) {
                active.add(w);
            }
            int k = 0;
            for (int i = 0; i < active.size(); i++) {
                Waiter w = active.get(i);
                if (w.cancelled) {
                    finish(w, 0);
                    continue;
                }
                active.set(k++, w);
            }
            active.subList(k, active.size()).clear();
            int size = 0;
            for (Waiter w : active) {
                size += w.n + 1;
            }
            if (fds.length < size) {
                int cap = Math.max(size, fds.length * 2);
                fds = new int[cap];
                ev = new short[cap];
                rev = new short[cap];
            }
            int j = 0;
            for (Waiter w : active) {
                for (int i = 0; i < w.n; i++, j++) {
                    fds[j] = w.fds[i];
                    ev[j] = w.events[i];
                }
                fds[j] = w.wakeFd; // -1: left out of the set
                ev[j++] = (short) Native.POLLIN;
            }
            Native.pollMany(fds, ev, rev, j, efd, -1, false); // no settling: one listener must not stall the rest
            j = 0;
            k = 0;
            for (int a = 0; a < active.size(); a++) {
                Waiter w = active.get(a);
                int count = 0;
                for (int i = 0; i < w.n; i++, j++) {
                    w.revents[i] = rev[j];
                    count += rev[j] != 0 ? 1 : 0;
                }
                boolean woken = rev[j++] != 0;
                if (count > 0 || woken || w.cancelled) {
                    finish(w, count | (woken ? Native.WOKEN : 0));
                } else {
                    active.set(k++, w);
                }
            }
            active.subList(k, active.size()).clear();
        }
    }
}
