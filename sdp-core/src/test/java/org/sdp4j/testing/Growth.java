package org.sdp4j.testing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Tells a leak from noise: a leak grows with the number of cycles, noise (a lazily opened descriptor, the JIT's
 * threads, heap and code-cache mappings) does not. Samples are taken after a warm-up and after each of several
 * equal rounds; a counter leaks when every round added more than its tolerance,
 * {@code floor + perCycle * cycles}. One count against a fixed tolerance (the old check) fails on noise
 * ("memory mappings 667 -> 734") and teaches people to ignore it.
 */
public final class Growth {
    private Growth() {}

    /** What may grow per round without being a leak: an absolute floor plus a share of the round's cycles. */
    public record Tolerance(long floor, double perCycle) {
        long at(long cycles) {
            return floor + (long) Math.ceil(perCycle * cycles);
        }
    }

    /** The tolerances of the usual counters: descriptors and threads nearly exact, mappings loose. */
    public static Tolerance usual(String kind) {
        return switch (kind) {
            case "fds" -> new Tolerance(1, 0);
            case "java-threads" -> new Tolerance(1, 0);
            case "os-threads" -> new Tolerance(3, 0); // HotSpot adds and removes JIT and GC threads with the load
            // a leaked UCX worker or endpoint keeps several mappings per connection; noise (UCX memory pools, malloc
            // arenas, heap, code cache) swings by thousands either way: 2660, 4059, 10453, 1255 after a warm-up and
            // three rounds of 3,000 UCX connections (LeakTest, 2026-11-24). Half a mapping per cycle separates them.
            case "maps" -> new Tolerance(64, 0.5);
            case "shm" -> new Tolerance(0, 0);
            default -> throw new IllegalArgumentException("no tolerance for " + kind);
        };
    }

    /**
     * Null when {@code samples} (after warm-up, then after each round of {@code cycles}) show no leak, else why: a
     * leak is growth beyond the tolerance in every round. Noise goes up and down (UCX's mappings: 2726, 6314, 1376,
     * 5774 in one run), a leak only up.
     */
    public static String leak(String kind, List<Long> samples, long cycles, Tolerance t) {
        if (samples.size() < 3) {
            throw new IllegalArgumentException(kind + ": a warm-up sample and at least two rounds are needed");
        }
        long tol = t.at(cycles);
        List<Long> growth = new ArrayList<>();
        for (int i = 1; i < samples.size(); i++) {
            long g = samples.get(i) - samples.get(i - 1);
            if (g <= tol) {
                return null;
            }
            growth.add(g);
        }
        return kind + " grew by " + growth + " in " + growth.size() + " rounds of " + cycles + " cycles (tolerance "
                + tol + " per round): " + samples;
    }

    /** Every counter's verdict; empty when nothing leaks. */
    public static List<String> leaks(Map<String, List<Long>> samples, long cycles) {
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, List<Long>> e : samples.entrySet()) {
            String l = leak(e.getKey(), e.getValue(), cycles, usual(e.getKey()));
            if (l != null) {
                out.add(l);
            }
        }
        return out;
    }

    /** Counters to sample in this JVM, by kind. */
    public interface Counter {
        long read() throws Exception;
    }

    /**
     * Runs {@code cycle} {@code cycles} times as warm-up, then {@code rounds} rounds of {@code cycles}, sampling the
     * counters after each (after {@code settle}, e.g. draining a pool); returns the samples by kind.
     */
    public static Map<String, List<Long>> rounds(int rounds, int cycles, Map<String, Counter> counters,
                                                 Cycle cycle, Cycle settle) throws Exception {
        Map<String, List<Long>> samples = new LinkedHashMap<>();
        for (int r = 0; r <= rounds; r++) {
            for (int i = 0; i < cycles; i++) {
                cycle.run(i);
            }
            settle.run(r);
            for (Map.Entry<String, Counter> c : counters.entrySet()) {
                samples.computeIfAbsent(c.getKey(), k -> new ArrayList<>()).add(c.getValue().read());
            }
        }
        return samples;
    }

    public interface Cycle {
        void run(int i) throws Exception;
    }

    /**
     * Waits until no live thread of this JVM is a transient one ({@code transientThread} by name: threads a
     * transport starts for a while and that end by themselves, as UCX's handshake threads end 1 s after their last
     * handshake), at most {@code boundMillis}; returns the names still running then (empty at quiescence). A sample
     * taken while they wind down counts them as growth; a thread that never ends is still there after the bound and
     * grows round after round, so a real leak still fails.
     */
    public static List<String> quiesce(java.util.function.Predicate<String> transientThread, long boundMillis)
            throws InterruptedException {
        long end = System.nanoTime() + boundMillis * 1_000_000L;
        while (true) {
            List<String> left = new ArrayList<>();
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (transientThread.test(t.getName())) {
                    left.add(t.getName());
                }
            }
            if (left.isEmpty() || System.nanoTime() - end > 0) {
                return left;
            }
            Thread.sleep(20);
        }
    }

    /** Open descriptors of this process. */
    public static long openFds() throws java.io.IOException {
        try (var s = java.nio.file.Files.list(java.nio.file.Path.of("/proc/self/fd"))) {
            return s.count();
        }
    }
}
