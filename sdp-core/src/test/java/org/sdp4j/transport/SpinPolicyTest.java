package org.sdp4j.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;

class SpinPolicyTest {

    private static int parse(String s) {
        byte[] b = s.getBytes(StandardCharsets.US_ASCII);
        return SpinPolicy.parseRunnable(b, b.length);
    }

    @Test
    void readsTheRunnableCountOfProcLoadavg() {
        assertEquals(3, parse("0.52 0.58 0.59 3/911 4321\n"));
        assertEquals(17, parse("10.00 9.00 8.00 17/2000 99"));
        assertEquals(0, parse("0.52 0.58 0.59 x/911 4321"), "not a number");
        assertEquals(0, parse("0.52 0.58"), "truncated");
        assertEquals(0, parse("0.52 0.58 0.59 3"), "no slash");
        assertEquals(0, parse("0.52 0.58 0.59 99999999999/1 1"), "absurdly long");
    }

    /**
     * The sampler reads the kernel's count only while spins ask for it: with nobody asking it parks without a
     * timeout (a thread state, not a timing), and a spin that asks brings it back.
     */
    @Test
    void theSamplerStopsWhenNobodyAsksAndComesBackWhenAsked() throws InterruptedException {
        SpinPolicy.oversubscribed();
        awaitSamplerParked();
        long idleAt = SpinPolicy.sampledAt();
        long end = System.nanoTime() + 30_000_000_000L; // a bound against a hang, not a speed
        while (SpinPolicy.sampledAt() == idleAt && System.nanoTime() < end) {
            SpinPolicy.pause(true, true); // a spin whose peer is on this host asks
            Thread.sleep(1);
        }
        assertTrue(SpinPolicy.sampledAt() != idleAt, "a spin asked and the sampler did not come back");
    }

    /**
     * A spin whose peer is on another host (rsockets; ucx across hosts) never asks for the runnable count: its turns
     * only hint the processor (yielding delayed an rsocket's answer, benchmarks/README.md), so a parked sampler stays
     * parked through any number of them.
     */
    @Test
    void aSpinWhosePeerIsOnAnotherHostNeverAsks() throws InterruptedException {
        Thread sampler = awaitSamplerParked();
        long idleAt = SpinPolicy.sampledAt();
        for (int i = 0; i < 200; i++) {
            SpinPolicy.pause(false, false);
            SpinPolicy.pause(false, true);
            Thread.sleep(1);
        }
        assertEquals(idleAt, SpinPolicy.sampledAt(), "a spin whose peer is elsewhere woke the sampler");
        assertEquals(Thread.State.WAITING, sampler.getState());
    }

    /** Waits until the sampler parks with nobody asking (a thread state, not a timing) and returns it. */
    private static Thread awaitSamplerParked() throws InterruptedException {
        Thread sampler = SpinPolicy.sampler();
        long end = System.nanoTime() + 30_000_000_000L; // a bound against a hang, not a speed
        while (sampler.getState() != Thread.State.WAITING && System.nanoTime() < end) {
            Thread.sleep(50);
        }
        assertEquals(Thread.State.WAITING, sampler.getState(), "with nobody asking the sampler did not park");
        return sampler;
    }

    /** Machine-wide runnable threads beyond the CPUs (here: busy threads of this JVM) make a spin yield. */
    @Test
    void oversubscribedWhileMoreThreadsAreRunnableThanCpus() throws InterruptedException {
        int cpus = Runtime.getRuntime().availableProcessors();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> busy = new ArrayList<>();
        for (int i = 0; i < cpus + 2; i++) {
            Thread t = new Thread(() -> {
                long x = 0;
                while (!stop.get()) {
                    x += System.nanoTime() & 1;
                }
                if (x == 42) {
                    System.out.print("");
                }
            }, "busy-" + i);
            t.setDaemon(true);
            t.start();
            busy.add(t);
        }
        try {
            boolean seenBusy = false;
            int[] seen = new int[50];
            for (int i = 0; i < 50 && !seenBusy; i++) { // 50 samples over 1 s: the kernel's count is instantaneous
                Thread.sleep(SpinPolicy.SAMPLE_NANOS / 1_000_000 + 10);
                seen[i] = SpinPolicy.runnable();
                seenBusy = SpinPolicy.oversubscribed();
            }
            assertTrue(seenBusy, "with " + (cpus + 2) + " busy threads on " + cpus + " CPUs the machine never looked "
                    + "oversubscribed; runnable samples " + java.util.Arrays.toString(seen));
        } finally {
            stop.set(true);
            for (Thread t : busy) {
                t.join();
            }
        }
    }
}
