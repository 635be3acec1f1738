package org.sdp4j.bench;

import java.lang.management.ManagementFactory;
import java.util.Collection;
import java.util.List;

import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * CPU time per operation: the fork's process CPU time (every thread: the benchmark's, an in-JVM echo peer's, the
 * transport's own, JIT and GC) over an iteration, divided by the operations of that iteration. Latency alone hides
 * what a wait costs: a reader that spins answers sooner and burns a CPU the peer may need, which on a 2-core machine
 * under load is the whole difference (issue 18). Noise shifts it far less than it shifts time.
 */
public final class CpuTimeProfiler implements InternalProfiler {
    /** The secondary result's label. */
    public static final String NAME = "cpu.time/op";
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private long before;

    @Override
    public String getDescription() {
        return "process CPU time per operation (all threads of the fork)";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        before = OS.getProcessCpuTime();
    }

    @Override
    public Collection<? extends Result> afterIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams,
            IterationResult result) {
        long used = OS.getProcessCpuTime() - before;
        long ops = result.getMetadata() == null ? 0 : result.getMetadata().getAllOps();
        if (ops <= 0 || before < 0 || used < 0) {
            return List.of();
        }
        return List.of(new ScalarResult(NAME, used / 1e3 / ops, "us/op", AggregationPolicy.AVG));
    }
}
