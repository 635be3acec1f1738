package org.sdp4j.bench;

import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpParams;
import org.openucx.jucx.ucp.UcpWorker;
import org.openucx.jucx.ucp.UcpWorkerParams;

/**
 * The UCX context and workers of the jucx-alone connect benchmarks ({@link JucxConnect}, {@link LinkConnectFloor}),
 * made as sdp4j makes its own ({@code org.sdp4j.ucx.Ucx}, {@code WorkerPool}): the stream and wake-up features,
 * {@code posix,cma,self}, {@code MM_RX_BUFS_GROW=16}, {@code MM_FIFO_SIZE=32}; thread-safe workers woken by receives
 * and sends. Written down once here so that both measure the same UCX.
 */
final class JucxSettings {
    private JucxSettings() {}

    static UcpContext context() {
        // libucs's constructor installs fatal-signal handlers for SIGSEGV, SIGBUS, SIGFPE and SIGILL, which the JVM
        // raises on purpose; jucx removes them only later, in its JNI_OnLoad. sdp4j loads libucs with them off
        // (docs/ucx.md); jucx alone cannot, so a fork without the variable died in between ("Caught signal 11",
        // JucxConnect on JDK 17, 2026-12-02). The environment is the only place to say it before the load.
        if (System.getenv("UCX_ERROR_SIGNALS") == null) {
            throw new IllegalStateException("run the jucx-alone benchmarks with UCX_ERROR_SIGNALS= (empty) in the "
                    + "environment: e.g. UCX_ERROR_SIGNALS= java -jar benchmarks/target/benchmarks.jar JucxConnect; "
                    + "otherwise UCX's fatal-signal handlers can kill the JVM (docs/ucx.md)");
        }
        UcpParams p = new UcpParams().requestStreamFeature().requestWakeupFeature().setConfig("TLS", "posix,cma,self");
        // -Dsdp4j.ucx.config=NAME=VALUE,... as sdp4j reads it, to measure another setting with the same benchmark
        String config = System.getProperty("sdp4j.ucx.config", "MM_RX_BUFS_GROW=16,MM_FIFO_SIZE=32");
        for (String kv : config.split(",")) {
            if (kv.isBlank()) continue;
            int eq = kv.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("-Dsdp4j.ucx.config: '" + kv + "' is not NAME=VALUE");
            }
            p.setConfig(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
        }
        return new UcpContext(p);
    }

    static UcpWorker worker(UcpContext context) {
        return context.newWorker(new UcpWorkerParams().requestThreadSafety().requestWakeupRX().requestWakeupTX());
    }
}
