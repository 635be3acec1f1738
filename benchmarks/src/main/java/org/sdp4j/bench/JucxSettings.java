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
        return new UcpContext(new UcpParams().requestStreamFeature().requestWakeupFeature()
                .setConfig("TLS", "posix,cma,self").setConfig("MM_RX_BUFS_GROW", "16")
                .setConfig("MM_FIFO_SIZE", "32"));
    }

    static UcpWorker worker(UcpContext context) {
        return context.newWorker(new UcpWorkerParams().requestThreadSafety().requestWakeupRX().requestWakeupTX());
    }
}
