package org.sdp4j.ucx;

import java.io.IOException;
import java.util.ArrayDeque;

import org.openucx.jucx.ucp.UcpWorker;
import org.openucx.jucx.ucp.UcpWorkerParams;

/**
 * Idle UCX workers kept for the next connection. A worker costs milliseconds to create and destroy (its
 * shared-memory receive FIFO and 4 MiB of receive buffers: UCX's {@code *_RX_BUFS_GROW}), an endpoint a fraction of
 * one; a connection pool that churns, or 10,000 connect/close cycles, would spend its time in UCX's allocator. At most
 * {@code sdp4j.ucx.pool} (default 8) idle workers are kept; a worker comes back only from a connection that closed
 * cleanly, its endpoint closed and no request outstanding.
 */
final class WorkerPool {
    static final int MAX_IDLE = org.sdp4j.transport.Props.intProperty("sdp4j.ucx.pool", 8, 0);
    private static final ArrayDeque<UcpWorker> IDLE = new ArrayDeque<>();

    private WorkerPool() {}

    static UcpWorker take() throws IOException {
        synchronized (IDLE) {
            UcpWorker w = IDLE.pollFirst();
            if (w != null) {
                return w;
            }
        }
        // MULTI thread mode: a reader, a writer and close() may be in the worker at once
        return Ucx.context().newWorker(new UcpWorkerParams().requestThreadSafety().requestWakeupRX()
                .requestWakeupTX());
    }

    static void give(UcpWorker w) {
        synchronized (IDLE) {
            if (IDLE.size() < MAX_IDLE) {
                IDLE.addFirst(w);
                return;
            }
        }
        w.close();
    }

    /** Closes the idle workers (tests measure descriptors and mappings against an empty pool). */
    static void drain() {
        while (true) {
            UcpWorker w;
            synchronized (IDLE) {
                w = IDLE.pollFirst();
            }
            if (w == null) {
                return;
            }
            w.close();
        }
    }

    static int idle() {
        synchronized (IDLE) {
            return IDLE.size();
        }
    }
}
