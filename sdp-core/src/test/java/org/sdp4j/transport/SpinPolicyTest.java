package org.sdp4j.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Waits here are for a state, never bounded by a time of their own: a hang fails by the class @Timeout. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
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
     * The sampler's own read is not a runnable thread competing for a CPU: two spinners on two otherwise idle CPUs
     * read "3/..." and are not oversubscribed; a third spinner is.
     */
    @Test
    void theSamplerDoesNotCountItself() {
        assertEquals(0, SpinPolicy.othersThanReader(1), "an idle machine: only the reader runs");
        assertEquals(2, SpinPolicy.othersThanReader(parse("0.00 0.00 0.00 3/90 1")), "two spinners and the reader");
        assertEquals(0, SpinPolicy.othersThanReader(0), "unreadable stays 0");
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
        while (SpinPolicy.sampledAt() == idleAt) { // a sampler that never comes back fails by the class @Timeout
            SpinPolicy.pause(true, true); // a spin whose peer is on this host asks
            Thread.sleep(1);
        }
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
        while (sampler.getState() != Thread.State.WAITING) { // one that never parks fails by the class @Timeout
            Thread.sleep(50);
        }
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
            // the kernel's count is instantaneous: sample until it shows the busy threads (never: the class @Timeout)
            while (!SpinPolicy.oversubscribed()) {
                Thread.sleep(SpinPolicy.SAMPLE_NANOS / 1_000_000 + 10);
            }
        } finally {
            stop.set(true);
            for (Thread t : busy) {
                t.join();
            }
        }
    }
}
