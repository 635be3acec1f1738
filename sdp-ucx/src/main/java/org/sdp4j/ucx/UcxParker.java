package org.sdp4j.ucx;

import java.io.IOException;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

import org.sdp4j.log.SdpLog;
import org.sdp4j.ucp.UcpNative;

/**
 * Waits of virtual threads on UCX: the thread arms its worker and parks (its carrier is free), and one platform
 * poller thread polls the armed workers' event descriptors and unparks a waiter as soon as its worker has events,
 * is signalled (close, the peer's marker or hang-up: {@link UcxWait#signal}) or its bound passes. A virtual thread
 * must not sleep in the worker itself (the poll is native and would pin its carrier); before this it napped, 10 µs
 * doubling to 1 ms, and woke late by up to a nap (the pooled JDBC benchmark on 32 virtual threads, issue 18).
 *
 * <p>The poller may poll a descriptor whose worker is gone by then: poll(2) reports a closed one at once and a reused
 * one at worst spuriously, and an unpark that comes late only ends some later park early, which every park loop
 * tolerates. So no waiter holds anything the poller could use after it is freed.
 */
final class UcxParker {
    private UcxParker() {}

    /** One parked thread and the descriptor it waits on; {@code done} once it left (the poller drops it). */
    private static final class Waiter {
        final Thread thread;
        final int fd;
        volatile boolean done;

        Waiter(Thread thread, int fd) {
            this.thread = thread;
            this.fd = fd;
        }
    }

    private static final ConcurrentLinkedQueue<Waiter> ADDED = new ConcurrentLinkedQueue<>();
    /** The poller's own wake-up (an eventfd), made with the poller. */
    private static volatile int wakeFd = -1;
    /** An idle poller looks again after this, as a safety net only (new waiters wake it). */
    private static final int IDLE_MICROS = 1_000_000;

    /** Loads the nested class here, not in a virtual thread's first park (class loading there pins its carrier). */
    static void preload() {
        new Waiter(Thread.currentThread(), -1).done = true;
    }

    /**
     * Parks the calling thread until {@code worker} has events or is signalled, or {@code nanos} passed; returns at
     * once when events are due already (the caller progresses). An interrupt ends the park too (the caller checks).
     */
    static void park(Object blocker, long worker, long nanos) throws IOException {
        int fd = UcpNative.arm(worker);
        if (fd == -1) {
            return;
        }
        if (fd < -1) {
            throw new SocketException("UCX worker arm failed: " + UcxWait.status(fd));
        }
        int wake = ensurePoller();
        Waiter w = new Waiter(Thread.currentThread(), fd);
        ADDED.add(w);
        UcpNative.wake(wake);
        try {
            LockSupport.parkNanos(blocker, nanos);
        } finally {
            w.done = true;
        }
    }

    private static int ensurePoller() throws IOException {
        int fd = wakeFd;
        if (fd >= 0) {
            return fd;
        }
        synchronized (UcxParker.class) {
            if (wakeFd < 0) {
                int made = UcpNative.eventfd();
                Thread t = new Thread(() -> run(made), "sdp4j-ucx-parker");
                t.setDaemon(true);
                t.start();
                wakeFd = made;
            }
            return wakeFd;
        }
    }

    /** The poller: lives as long as the process (one thread, idle in a 1 s poll when nobody waits). */
    private static void run(int wake) {
        List<Waiter> waiting = new ArrayList<>();
        int[] fds = new int[64];
        try {
            while (true) {
                for (Waiter w; (w = ADDED.poll()) != null; ) {
                    waiting.add(w);
                }
                waiting.removeIf(w -> w.done);
                int n = waiting.size();
                if (fds.length < n) {
                    fds = new int[Math.max(n, 2 * fds.length)];
                }
                for (int i = 0; i < n; i++) {
                    fds[i] = waiting.get(i).fd;
                }
                if (UcpNative.pollMany(fds, n, wake, IDLE_MICROS) == 0) {
                    continue;
                }
                for (int i = 0; i < n; i++) {
                    if (fds[i] == -1) {
                        Waiter w = waiting.get(i);
                        w.done = true;
                        LockSupport.unpark(w.thread);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // parked threads still wake at their bound: slower, not stuck. Say so loudly.
            SdpLog.log(SdpLog.ERROR, "sdp4j: the ucx parker stopped: " + e);
        }
    }
}
