package org.sdp4j.ucx;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

import org.openucx.jucx.ucp.UcpWorker;
import org.openucx.jucx.ucp.UcpWorkerParams;

/**
 * Idle UCX workers kept for the next connection. A worker costs milliseconds to create and destroy (its
 * shared-memory receive FIFO and 4 MiB of receive buffers: UCX's {@code *_RX_BUFS_GROW}), an endpoint a fraction of
 * one; a connection pool that churns, or 10,000 connect/close cycles, would spend its time in UCX's allocator. At most
 * {@code sdp4j.ucx.pool} (default 8) idle workers are kept; a worker comes back only from a connection that closed
 * cleanly, its endpoint closed and no request outstanding.
 *
 * <p>A worker serves at most {@code sdp4j.ucx.pool.uses} (default 64) connections: UCX 1.13 frees an endpoint
 * that the peer connected to only with its worker ("to enable remote endpoints keep sending", ucp_ep.c), so a
 * pooled worker keeps every endpoint it ever closed, and the peers' FIFOs it attached to, until it is destroyed.
 */
final class WorkerPool {
    static final int MAX_IDLE = org.sdp4j.transport.Props.intProperty("sdp4j.ucx.pool", 8, 0);
    static final int MAX_USES = org.sdp4j.transport.Props.intProperty("sdp4j.ucx.pool.uses", 64, 1);
    private static final ArrayDeque<UcpWorker> IDLE = new ArrayDeque<>();
    /**
     * Each live worker's connections served and its UCX address, read-only, taken once (jucx's {@code getAddress}
     * packs it anew and copies it into a new direct buffer, 40 us a side of a local connect). Under {@code IDLE}'s
     * lock.
     */
    private static final java.util.Map<UcpWorker, Live> LIVE = new java.util.IdentityHashMap<>();

    private static final class Live {
        int uses = 1;
        final ByteBuffer address;

        Live(ByteBuffer address) {
            this.address = address;
        }
    }
    /** Workers made in all (tests prove that closes give them back rather than make the next connect create one). */
    static final java.util.concurrent.atomic.AtomicLong CREATED = new java.util.concurrent.atomic.AtomicLong();
    /** Workers destroyed because their connection did not end cleanly (not those retired after MAX_USES). */
    static final java.util.concurrent.atomic.AtomicLong DESTROYED = new java.util.concurrent.atomic.AtomicLong();

    private WorkerPool() {}

    static UcpWorker take() throws IOException {
        synchronized (IDLE) {
            UcpWorker w = IDLE.pollFirst();
            if (w != null) {
                LIVE.get(w).uses++;
                return w;
            }
        }
        Quarantine.sweep(); // before a descriptor number can be taken again (see there)
        // MULTI thread mode: a reader, a writer and close() may be in the worker at once
        UcpWorker w = Ucx.context().newWorker(new UcpWorkerParams().requestThreadSafety().requestWakeupRX()
                .requestWakeupTX());
        CREATED.incrementAndGet();
        ByteBuffer address;
        try {
            ByteBuffer a = w.getAddress();
            address = ByteBuffer.allocate(a.remaining()).put(a).flip().asReadOnlyBuffer();
        } catch (RuntimeException | OutOfMemoryError e) {
            w.close();
            throw e;
        }
        synchronized (IDLE) {
            LIVE.put(w, new Live(address));
        }
        return w;
    }

    /** {@code w}'s UCX address (a worker from {@link #take}: kept; any other: asked of UCX), to read from. */
    static ByteBuffer address(UcpWorker w) {
        Live l;
        synchronized (IDLE) {
            l = LIVE.get(w);
        }
        return l != null ? l.address.duplicate() : w.getAddress();
    }

    static void give(UcpWorker w) {
        synchronized (IDLE) {
            Live l = LIVE.get(w);
            if (IDLE.size() < MAX_IDLE && l != null && l.uses < MAX_USES) {
                IDLE.addFirst(w);
                return;
            }
            LIVE.remove(w);
        }
        w.close();
    }

    /** Destroys a worker that must not serve again (a connection or handshake that did not end cleanly). */
    static void destroy(UcpWorker w) {
        DESTROYED.incrementAndGet();
        forget(w);
        try {
            w.close();
        } catch (RuntimeException ignore) {
            // nothing more can be released
        }
    }

    /** Stops counting a worker that is neither pooled nor destroyed ({@link Linger#abandoned}). */
    static void forget(UcpWorker w) {
        synchronized (IDLE) {
            LIVE.remove(w);
        }
    }

    /** Closes the idle workers (tests measure descriptors and mappings against an empty pool). */
    static void drain() {
        Links.drain(); // kept pairs hold workers too
        while (true) {
            UcpWorker w;
            synchronized (IDLE) {
                w = IDLE.pollFirst();
                LIVE.remove(w);
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
