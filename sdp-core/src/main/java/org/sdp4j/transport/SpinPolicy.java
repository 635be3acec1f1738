package org.sdp4j.transport;

import java.io.IOException;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * How a waiting reader or writer of an accelerated transport (ucx, rsockets) busy-polls before it blocks on the
 * transport's event descriptor. One policy for both, from two facts:
 * <ul>
 * <li><b>Spinning pays only up to the cost of a wake-up.</b> A wait that blocks at once pays one wake-up when the
 * data comes; one that spins first pays its spin. Spinning longer than a wake-up costs can at best save that
 * wake-up, so the budget is at most {@link #wakeNanos()}, measured once per process (a park/unpark hand-off between
 * two platform threads, median of a few dozen, on a daemon thread: nobody waits for it) - the ski-rental bound,
 * within twice the best choice made in hindsight. A request/response with a server think time longer than that
 * (a JDBC INSERT) then sleeps after a short spin instead of burning a CPU the server needs.</li>
 * <li><b>With the CPUs taken, a spinner must give its CPU away at every turn</b> ({@link #pause}: {@code
 * Thread.yield()}, else {@code Thread.onSpinWait()}): a thread ready to run, perhaps the very peer whose answer it
 * waits for, then runs at once. The number of runnable threads is the kernel's ({@code /proc/loadavg}'s fourth
 * field, system-wide), read every {@link #SAMPLE_NANOS} by a sampler thread while waits ask for it (a waiter reads
 * volatile fields: nothing allocated, no system call).</li>
 * </ul>
 * Not spinning at all under load was measured and rejected (benchmarks/README.md, issue 18): with 64-byte round trips
 * on 2 loaded cores it made each round trip 3-5x slower and cost 2-3x more CPU per round trip than a yielding spin,
 * since a sleep and its wake-up (futex, eventfd, two context switches) cost more than the few microseconds of spin
 * that catch the answer. The caller's own bound (its {@code sdp4j.*.poll} setting, its adaptive budget, a virtual
 * thread's 20 us) still applies; this only lowers it.
 */
public final class SpinPolicy {
    /** How often the runnable-thread count is sampled. */
    static final long SAMPLE_NANOS = 10_000_000L;
    /** The wake-up cost assumed until it is measured, and where it cannot be (ns). */
    static final long DEFAULT_WAKE_NANOS = 50_000L;
    /** Bounds on a measured wake-up cost (a VM paused mid-measurement must not allow a millisecond's spin). */
    static final long MIN_WAKE_NANOS = 2_000L, MAX_WAKE_NANOS = 200_000L;
    private static final int CPUS = Runtime.getRuntime().availableProcessors();
    /**
     * {@code -Dsdp4j.spin.policy=false}: every wait spins what its caller asks, whatever the load (the behaviour before
     * this policy; for side-by-side measurement, and a way back).
     */
    static final boolean ENABLED = Boolean.parseBoolean(System.getProperty("sdp4j.spin.policy", "true"));

    private static volatile long wakeNanos = DEFAULT_WAKE_NANOS;
    private static volatile boolean measured;
    /** The sampler stops after this long without a wait asking. */
    static final long IDLE_NANOS = 1_000_000_000L;
    /** When the runnable count was last sampled and last asked for (nanoTime), and its value. */
    private static volatile long sampledAt = System.nanoTime(), askedAt = sampledAt;
    private static volatile int runnable;
    private static volatile boolean samplerAwake = true;
    private static final Thread SAMPLER = new Thread(SpinPolicy::sample, "sdp4j-spin-sampler");

    static {
        SAMPLER.setDaemon(true);
        SAMPLER.start();
        Thread t = new Thread(SpinPolicy::measure, "sdp4j-spin-calibration");
        t.setDaemon(true);
        t.start();
    }

    private SpinPolicy() {
    }

    /** The busy-poll budget for a wait whose caller would spin {@code requestedNanos}: at most a wake-up's cost. */
    public static long budgetNanos(long requestedNanos) {
        if (requestedNanos <= 0 || !ENABLED) {
            return Math.max(0, requestedNanos);
        }
        return Math.min(requestedNanos, wakeNanos);
    }

    /**
     * One turn of a spin: gives the CPU away ({@code Thread.yield()}) while more threads are runnable than there are
     * CPUs, else only hints the processor ({@code Thread.onSpinWait()}, no system call).
     */
    public static void pause() {
        if (oversubscribed()) {
            Thread.yield();
        } else {
            Thread.onSpinWait();
        }
    }

    /** {@link #budgetNanos} in microseconds (rsockets' setting is in µs). */
    public static int budgetMicros(int requestedMicros) {
        return (int) (budgetNanos(requestedMicros * 1000L) / 1000L);
    }

    /** The measured cost of waking a parked thread (ns); {@link #DEFAULT_WAKE_NANOS} until measured. */
    public static long wakeNanos() {
        return wakeNanos;
    }

    /** Whether {@link #wakeNanos()} is a measurement yet. */
    public static boolean measured() {
        return measured;
    }

    /** More threads runnable than CPUs, by the latest sample (the sampler is woken if it had stopped). */
    public static boolean oversubscribed() {
        if (!ENABLED) {
            return false;
        }
        long now = System.nanoTime();
        askedAt = now;
        if (now - sampledAt > 3 * SAMPLE_NANOS && !samplerAwake) {
            samplerAwake = true; // racy by design: at worst a second unpark
            LockSupport.unpark(SAMPLER);
        }
        return runnable > CPUS;
    }

    /** The kernel's runnable count at the latest sample, this thread's own included; 0 where it cannot be read. */
    static int runnable() {
        oversubscribed();
        return runnable;
    }

    /**
     * The sampler: reads {@code /proc/loadavg} every {@link #SAMPLE_NANOS} while waits ask for it, and stops (parked
     * until the next wait) after {@link #IDLE_NANOS} without one. It is a thread of its own because a waiter cannot
     * read the file itself: a read through an NIO FileChannel ends with {@code end()}, which clears the waiter's
     * interruptor (a socket channel's read would no longer be closed by an interrupt), and plain file I/O on a
     * virtual thread may make its scheduler add a carrier.
     */
    private static void sample() {
        byte[] buf = new byte[128];
        java.io.RandomAccessFile f = null;
        while (true) {
            try {
                if (f == null) {
                    f = new java.io.RandomAccessFile("/proc/loadavg", "r");
                }
                f.seek(0);
                int n = f.read(buf, 0, buf.length);
                runnable = n > 0 ? parseRunnable(buf, n) : 0;
            } catch (IOException | RuntimeException e) {
                runnable = 0; // not Linux, or /proc not mounted: spin as configured
                return;
            }
            long now = System.nanoTime();
            sampledAt = now;
            if (now - askedAt > IDLE_NANOS) {
                samplerAwake = false;
                if (System.nanoTime() - askedAt > IDLE_NANOS) {
                    LockSupport.park();
                }
                samplerAwake = true;
            } else {
                LockSupport.parkNanos(SAMPLE_NANOS);
            }
        }
    }

    /** The R of the "R/T" field of {@code /proc/loadavg} ("0.52 0.58 0.59 3/911 4321"), or 0. */
    static int parseRunnable(byte[] b, int n) {
        int field = 0, i = 0;
        while (i < n && field < 3) {
            if (b[i++] == ' ') {
                field++;
            }
        }
        int v = 0, digits = 0;
        while (i < n && b[i] >= '0' && b[i] <= '9' && digits < 9) {
            v = v * 10 + (b[i++] - '0');
            digits++;
        }
        return digits > 0 && i < n && b[i] == '/' ? v : 0;
    }

    /** Times park/unpark hand-offs between this thread and a partner; keeps the median, bounded. */
    private static void measure() {
        final int rounds = 41;
        long[] took = new long[rounds];
        AtomicLong sentAt = new AtomicLong();
        Thread self = Thread.currentThread();
        Thread partner = new Thread(() -> {
            for (int i = 0; i < rounds; i++) {
                while (sentAt.get() == 0) {
                    LockSupport.park();
                }
                took[i] = System.nanoTime() - sentAt.getAndSet(0);
                LockSupport.unpark(self);
            }
        }, "sdp4j-spin-calibration-partner");
        partner.setDaemon(true);
        partner.start();
        try {
            for (int i = 0; i < rounds; i++) {
                Thread.sleep(1); // the partner is parked (asleep in the kernel), as a blocked reader is
                sentAt.set(System.nanoTime());
                LockSupport.unpark(partner);
                long end = System.nanoTime() + 1_000_000_000L;
                while (sentAt.get() != 0 && System.nanoTime() - end < 0) {
                    LockSupport.parkNanos(1_000_000L);
                }
            }
            partner.join(1000);
        } catch (InterruptedException e) {
            return;
        }
        Arrays.sort(took);
        long median = took[rounds / 2];
        if (median > 0) {
            wakeNanos = Math.max(MIN_WAKE_NANOS, Math.min(MAX_WAKE_NANOS, median));
            measured = true;
        }
    }
}
