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
 *
 * <p>A connect that finds no idle worker makes one (2-6 ms on two CPUs, each side of a new local pair), so once a
 * take has found none (the process's first aside), a take that leaves fewer than {@code sdp4j.ucx.pool.spares}
 * (default 2) idle asks a thread of the pool's own to make spares: the next new pairs find theirs made, and a
 * virtual thread's carrier does not spend those milliseconds in UCX. Spares are made only while the process has
 * room for kept ends ({@link Descriptors#roomToKeep}).
 */
final class WorkerPool {
    static final int MAX_IDLE = org.sdp4j.transport.Props.intProperty("sdp4j.ucx.pool", 8, 0);
    static final int MAX_USES = org.sdp4j.transport.Props.intProperty("sdp4j.ucx.pool.uses", 64, 1);
    static final int SPARES = Math.min(MAX_IDLE, org.sdp4j.transport.Props.intProperty("sdp4j.ucx.pool.spares", 2, 0));
    private static final ArrayDeque<UcpWorker> IDLE = new ArrayDeque<>();
    /** The thread making spares now, or null (under {@code IDLE}'s lock). */
    private static Thread maker;
    /** A take found no idle worker after one was made: the process makes new pairs (under {@code IDLE}'s lock). */
    private static boolean sparesWanted;
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
        UcpWorker w;
        Thread start = null;
        synchronized (IDLE) {
            w = IDLE.pollFirst();
            if (w != null) {
                LIVE.get(w).uses++;
            }
            // not for a process's first worker: one that makes a single connection makes no spare
            sparesWanted |= w == null && CREATED.get() > 0;
            if (sparesWanted && IDLE.size() < SPARES && maker == null) {
                start = maker = new Thread(WorkerPool::spares, "sdp4j-ucx-spare-workers");
            }
        }
        if (start != null) { // outside the lock: a thread's start can take milliseconds on a busy machine
            start.setDaemon(true);
            try {
                start.start();
            } catch (OutOfMemoryError e) { // no thread to be had: connects make their own workers, as before
                synchronized (IDLE) {
                    if (maker == start) {
                        maker = null;
                    }
                }
            }
        }
        return w != null ? w : create();
    }

    /** The spare maker: fills the pool up to {@link #SPARES} idle workers, then ends. */
    private static void spares() {
        try {
            while (true) {
                synchronized (IDLE) {
                    if (IDLE.size() >= SPARES || maker != Thread.currentThread()) {
                        return;
                    }
                }
                if (!Descriptors.roomToKeep(Link.kept())) {
                    return;
                }
                UcpWorker w = create();
                synchronized (IDLE) {
                    if (IDLE.size() < MAX_IDLE && maker == Thread.currentThread()) {
                        IDLE.addLast(w); // behind the reused ones: a fresh worker's uses start at 0
                        LIVE.get(w).uses = 0;
                        continue;
                    }
                    LIVE.remove(w);
                }
                w.close();
                return;
            }
        } catch (IOException | RuntimeException | OutOfMemoryError e) {
            // UCX could not make one (out of memory, shared memory or descriptors): the connect that needs it says so
        } finally {
            synchronized (IDLE) {
                if (maker == Thread.currentThread()) {
                    maker = null;
                }
            }
        }
    }

    private static UcpWorker create() throws IOException {
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
        Links.drain(); // kept pairs and links hold workers too
        Thread m;
        synchronized (IDLE) {
            m = maker;
            maker = null; // it stops at its next worker and closes it
        }
        if (m != null) {
            try {
                m.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
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
