package org.sdp4j.transport;

import java.io.IOException;
import java.util.concurrent.locks.LockSupport;

/**
 * How a waiting reader or writer of an accelerated transport (ucx, rsockets) spins before it blocks on the
 * transport's event descriptor: one turn of a spin is {@link #pause}, which gives the CPU away ({@code Thread.yield()})
 * while more threads are runnable than there are CPUs and the peer runs on this machine's CPUs (ucx on this host) -
 * a thread ready to run, perhaps the very peer whose answer it waits for, then runs at once - and otherwise only
 * hints the processor ({@code Thread.onSpinWait()}: no system call, so an idle machine keeps a spin's full speed).
 * A peer on another host (rsockets, which has no loopback; ucx across hosts) needs none of this machine's CPU to
 * answer, and yielding there only delayed the answer: an rsocket's 64 B round trip with {@code busypoll=1000} took
 * 1.11-1.24x as long with the yield as without it, in each of 8 rounds of {@code benchmarks/rdma-vm.sh --busypoll
 * 1000 --no-policy} (soft-RoCE VM, 2026-11-28; streaming the same). The number of runnable threads is the
 * kernel's ({@code /proc/loadavg}'s fourth field, system-wide), read every {@link #SAMPLE_NANOS} by a sampler thread
 * while spins ask for it (a spinner reads volatile fields: nothing allocated, no system call).
 *
 * <p>How long to spin stays each transport's (ucx: {@code sdp4j.ucx.poll}, adapted per connection; rsockets: {@code
 * RDMA_BUSY_POLL}). Two tighter bounds were measured and dropped (benchmarks/README.md, issue 18): no spin at all
 * while the CPUs are taken made 64-byte round trips on 2 loaded cores 3-5x slower and cost more CPU per round trip
 * (a sleep and its wake-up cost more than the few microseconds of spin that catch the answer); a spin bounded by the
 * cost of a thread wake-up (a park/unpark hand-off, 9-15 us here) made H2 INSERTs over UCX stall for milliseconds
 * and a HikariCP pool on virtual threads 1.7x slower: a UCX worker's sleep costs far more than a futex wake-up
 * (its event descriptor, and UCX 1.13's lost wake-ups that only the watchdog's tick ends).
 */
public final class SpinPolicy {
    /** How often the runnable-thread count is sampled. */
    static final long SAMPLE_NANOS = 10_000_000L;
    private static final int CPUS = Runtime.getRuntime().availableProcessors();
    /**
     * {@code -Dsdp4j.spin.policy=false}: spins turn as they did before this policy, whatever the load ({@link
     * #enabled}; for side-by-side measurement, and a way back).
     */
    private static final boolean ENABLED = Boolean.parseBoolean(System.getProperty("sdp4j.spin.policy", "true"));

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
    }

    private SpinPolicy() {
    }

    /**
     * One turn of a spin: gives the CPU away ({@code Thread.yield()}) while more threads are runnable than there are
     * CPUs and {@code peerHere} (the peer runs on this machine's CPUs), else only hints the processor ({@code
     * Thread.onSpinWait()}, no system call). Under {@code -Dsdp4j.spin.policy=false} the turn is what the transport
     * did before: {@code yieldBefore} (ucx) or not (rsockets).
     */
    public static void pause(boolean peerHere, boolean yieldBefore) {
        if (ENABLED ? peerHere && oversubscribed() : yieldBefore) {
            Thread.yield();
        } else {
            Thread.onSpinWait();
        }
    }

    /** Starts the sampler (at a transport's one-time start, not in a virtual thread's first spin). */
    public static void start() {
        // loading this class started it
    }

    /** More threads runnable than CPUs, by the latest sample (the sampler is woken if it had stopped). */
    public static boolean oversubscribed() {
        if (!ENABLED) {
            return false;
        }
        long now = System.nanoTime();
        if (now - askedAt > SAMPLE_NANOS) {
            askedAt = now; // once a sample period, not on every turn of every spinner
        }
        if (now - sampledAt > 3 * SAMPLE_NANOS && !samplerAwake) {
            samplerAwake = true; // racy by design: at worst a second unpark
            LockSupport.unpark(SAMPLER);
        }
        return runnable > CPUS;
    }

    /** The sampler thread (tests watch it park). */
    static Thread sampler() {
        return SAMPLER;
    }

    /** When the latest sample was taken (nanoTime). */
    static long sampledAt() {
        return sampledAt;
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
}
