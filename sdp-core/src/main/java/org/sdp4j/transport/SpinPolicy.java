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
 * kernel's ({@code /proc/loadavg}'s fourth field, system-wide, less the sampler's own thread), read every {@link
 * #SAMPLE_NANOS} by a sampler thread while spins ask for it (a spinner reads volatile fields: nothing allocated, no
 * system call), and it takes {@link #CONFIRM} samples in a row to stop spins. (The kernel's CPU pressure, {@code
 * /proc/pressure/cpu}, was tried instead: over 10 ms it told an idle machine from a loaded one a little better, 5 %
 * against 9 % of samples wrong, but over 2 ms it read 0 almost always, loaded or not, and at 10 ms H2 and round trips
 * gained nothing.)
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
    /**
     * How often the runnable-thread count is sampled ({@code sdp4j.spin.sample}, microseconds): a verdict lasts until
     * the next sample, so a load that has just ended (another process's burst, a JIT compile) stops spins for up to
     * this long. 10 ms until issue 18's twelfth pass: that held spins off for the first fifth of a 50 ms benchmark
     * iteration after the JVM before it had measured. The price is the sampler's CPU while waits ask for it: on this
     * project's 2-vCPU VM a sample (a timed park, a wake-up, a read) kept the thread on a CPU 60-70 us every 2 ms,
     * 2.7-3.3 % of a CPU, against 140-190 us every 10 ms, 1.3-1.8 % (its scheduler's on-CPU time; most of it the
     * VM's wake-up, not the read's 0.8 us).
     */
    static final long SAMPLE_NANOS = Props.longProperty("sdp4j.spin.sample", 2000, 100, 1_000_000) * 1000L;
    /**
     * How many samples in a row must see more threads runnable than CPUs before spins stop ({@code
     * sdp4j.spin.confirm}): an instant's extra thread (a JIT or GC thread, another JVM's timer) came in 9 % of the
     * samples of two spinners on two otherwise idle CPUs; two busy JVMs beside them, in 96 % (issue 18, twelfth pass).
     */
    static final int CONFIRM = Props.intProperty("sdp4j.spin.confirm", 2, 1);
    private static final int CPUS = Runtime.getRuntime().availableProcessors();
    /**
     * {@code -Dsdp4j.spin.policy=false}: spins turn as they did before this policy, whatever the load ({@link
     * #enabled}; for side-by-side measurement, and a way back).
     */
    private static final boolean ENABLED = Boolean.parseBoolean(System.getProperty("sdp4j.spin.policy", "true"));

    /** The sampler stops after this long without a wait asking. */
    static final long IDLE_NANOS = 1_000_000_000L;
    /** When the runnable count was last sampled and last asked for (nanoTime). */
    private static volatile long sampledAt = System.nanoTime(), askedAt = sampledAt;
    /** The verdict {@link #oversubscribed} answers: the last {@link #CONFIRM} samples all saw the CPUs taken. */
    private static volatile boolean contended;
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
     * did before: {@code yieldBefore} (ucx) or not (rsockets). (A local ucx spin asks {@link #oversubscribed(long)}
     * itself before each turn, and ends rather than yields when the CPUs are taken, so its turns pass {@code false}.)
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

    /**
     * More threads runnable than CPUs, by the latest {@link #CONFIRM} samples (the sampler is woken if it had
     * stopped).
     */
    public static boolean oversubscribed() {
        return ENABLED && oversubscribed(System.nanoTime());
    }

    /** {@link #oversubscribed()} for a spinner that has just read the clock ({@code now}, nanoTime). */
    public static boolean oversubscribed(long now) {
        if (!ENABLED) {
            return false;
        }
        if (now - askedAt > SAMPLE_NANOS) {
            askedAt = now; // once a sample period, not on every turn of every spinner
        }
        if (now - sampledAt > 3 * SAMPLE_NANOS && !samplerAwake) {
            samplerAwake = true; // racy by design: at worst a second unpark
            LockSupport.unpark(SAMPLER);
        }
        return contended;
    }

    /** The sampler thread (tests watch it park). */
    static Thread sampler() {
        return SAMPLER;
    }

    /** When the latest sample was taken (nanoTime). */
    static long sampledAt() {
        return sampledAt;
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
        int taken = 0; // samples in a row that saw more threads runnable than CPUs
        while (true) {
            try {
                if (f == null) {
                    f = new java.io.RandomAccessFile("/proc/loadavg", "r");
                }
                f.seek(0);
                int n = f.read(buf, 0, buf.length);
                int r = n > 0 ? othersThanReader(parseRunnable(buf, n)) : 0;
                taken = r > CPUS ? Math.min(taken + 1, CONFIRM) : 0;
                contended = taken >= CONFIRM;
            } catch (IOException | RuntimeException e) {
                contended = false; // not Linux, or /proc not mounted: spin as configured
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
                taken = 0; // what was seen before the pause says nothing about now
            } else {
                LockSupport.parkNanos(SAMPLE_NANOS);
            }
        }
    }

    /**
     * The runnable threads other than the one reading {@code /proc/loadavg}: the reader is running while it reads, so
     * the kernel's R counts it (an idle machine reads "1/83"). Counted in, two spinners on two idle CPUs read 3 and
     * looked oversubscribed: until issue 18's twelfth pass that ended local spins on an idle 2-CPU machine.
     */
    static int othersThanReader(int r) {
        return Math.max(0, r - 1);
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
