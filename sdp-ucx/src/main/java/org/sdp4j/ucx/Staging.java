package org.sdp4j.ucx;

import java.nio.ByteBuffer;

/**
 * The staging buffers of UCX connections and the direct memory they may take: each connection end stages its
 * sends and receives in two native buffers (UCX reads and writes registered memory), which start small and double
 * up to {@link #STAGING}; a share of the JVM's direct memory is left to the JDK's own socket I/O.
 */
final class Staging {
    private Staging() {}

    /** The most a staging buffer grows to ({@code sdp4j.ucx.buffer}): one UCX send or receive at most. */
    static final int STAGING = org.sdp4j.transport.Props.intProperty("sdp4j.ucx.buffer", 256 * 1024, 4096);
    /**
     * A staging buffer's first size ({@code sdp4j.ucx.buffer.initial}, 16 KiB): it doubles, up to {@link #STAGING},
     * when a receive fills it or a write is larger. A database connection moves small messages, and 1,000
     * connections with both ends in one JVM took 1 GiB of direct memory at 256 KiB a buffer (the concurrency
     * benchmark ran out at -Xmx512m and sent half of them to TCP); a streaming connection reaches full size within
     * a few transfers.
     */
    static final int STAGING_INITIAL = Math.min(STAGING, org.sdp4j.transport.Props.intProperty(
            "sdp4j.ucx.buffer.initial", 16 * 1024, 4096));
    /**
     * The share of the JVM's direct memory (percent, {@code sdp4j.ucx.directShare}, default 75) beyond which no
     * staging buffer is taken: a new connection goes to TCP and a buffer stops growing. The rest is the JDK's own:
     * its TCP sockets take a temporary direct buffer for each read and write (JDK 17: of the write's size up to
     * 128 KiB), so UCX staging that filled direct memory made the TCP connections it fell back to fail with
     * OutOfMemoryError (UcxDirectMemoryTest on JDK 17).
     */
    static final int DIRECT_SHARE = Math.min(100, org.sdp4j.transport.Props.intProperty("sdp4j.ucx.directShare", 75,
            1));
    private static final java.lang.management.BufferPoolMXBean DIRECT_POOL = directPool();
    private static final long DIRECT_ROOM = directLimit() / 100 * DIRECT_SHARE;
    /**
     * A staging buffer. {@link Handshake} takes both before the wire-up, so that a side without direct memory fails
     * while its peer is still in the handshake (its catch turns the OutOfMemoryError into a SocketException: the
     * connection goes to TCP), and a UCX connection never fails later for want of a buffer.
     */
    static ByteBuffer staging() {
        synchronized (SPARE) {
            ByteBuffer b = SPARE.pollFirst();
            if (b != null) {
                return b.clear();
            }
        }
        return ByteBuffer.allocateDirect(STAGING_INITIAL);
    }

    /** Staging buffers of first size kept for the next connection: at most two per idle pooled worker. */
    private static final java.util.ArrayDeque<ByteBuffer> SPARE = new java.util.ArrayDeque<>();

    /**
     * Keeps a closed connection's staging buffer for the next one, when it is of first size and there is room: a
     * direct buffer costs an allocation, zeroing and a cleaner (about a tenth of a local UCX connect on two cores).
     * Only for a buffer no UCX request can still reach (a clean close: every request completed).
     */
    static void recycle(ByteBuffer b) {
        if (b == null || b.capacity() != STAGING_INITIAL) {
            return;
        }
        synchronized (SPARE) {
            if (SPARE.size() < 2 * WorkerPool.MAX_IDLE) {
                SPARE.addFirst(b);
            }
        }
    }

    /**
     * A staging buffer of at least {@code need} bytes (doubling {@code b}'s size, at most {@link #STAGING}), or
     * {@code b} itself when it is at full size or direct memory is short (a smaller buffer only means more sends).
     */
    static ByteBuffer grown(ByteBuffer b, int need) {
        int cap = b.capacity();
        if (cap >= STAGING || need <= cap) {
            return b;
        }
        int size = cap;
        while (size < need && size < STAGING) {
            size <<= 1;
        }
        if (!directRoom(Math.min(size, STAGING))) {
            return b;
        }
        try {
            return ByteBuffer.allocateDirect(Math.min(size, STAGING));
        } catch (OutOfMemoryError e) {
            if (!isDirectMemory(e)) {
                throw e;
            }
            return b;
        }
    }

    private static java.lang.management.BufferPoolMXBean directPool() {
        try {
            for (java.lang.management.BufferPoolMXBean b : java.lang.management.ManagementFactory
                    .getPlatformMXBeans(java.lang.management.BufferPoolMXBean.class)) {
                if (b.getName().equals("direct")) {
                    return b;
                }
            }
        } catch (RuntimeException | LinkageError e) {
            // no java.management: only the JVM's own OutOfMemoryError then limits staging
        }
        return null;
    }

    /** -XX:MaxDirectMemorySize, or the JVM's default for it (the maximum heap). */
    static long directLimit() {
        long limit = Runtime.getRuntime().maxMemory();
        try {
            for (String a : java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()) {
                if (a.startsWith("-XX:MaxDirectMemorySize=")) {
                    long v = parseSize(a.substring(a.indexOf('=') + 1));
                    if (v > 0) {
                        limit = v;
                    }
                }
            }
        } catch (RuntimeException | LinkageError e) {
            // the default stands
        }
        return limit;
    }

    static long parseSize(String v) {
        String t = v.trim().toLowerCase(java.util.Locale.ROOT);
        long unit = 1;
        if (!t.isEmpty() && "kmgt".indexOf(t.charAt(t.length() - 1)) >= 0) {
            unit = 1L << (10 * ("kmgt".indexOf(t.charAt(t.length() - 1)) + 1));
            t = t.substring(0, t.length() - 1);
        }
        try {
            return Long.parseLong(t) * unit;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Whether {@code bytes} more of staging leaves the JDK its share of direct memory. */
    static boolean directRoom(long bytes) {
        return DIRECT_POOL == null || fits(bytes) || reclaimed(bytes);
    }

    private static boolean fits(long bytes) {
        return DIRECT_POOL.getMemoryUsed() + bytes <= DIRECT_ROOM;
    }

    /** One collection at a time; callers that come meanwhile wait for its outcome (a lock a virtual thread parks on). */
    private static final java.util.concurrent.locks.ReentrantLock RECLAIM = new java.util.concurrent.locks.ReentrantLock();
    /** When a collection was last asked for ({@link System#nanoTime}; 0: never; under {@link #RECLAIM}). */
    private static long lastReclaim;

    /**
     * Direct memory counts the staging buffers of closed connections until a collection runs their cleaners: a
     * process that opens and closes connections but allocates little on the heap reached the share with garbage
     * alone, and from then on every connection went to TCP (a scratch loop of 1,000 connections held and closed and
     * a burst of 1,000, at -Xmx512m: from the 18th round on). So, as the JDK does when {@code allocateDirect} runs
     * short ({@code java.nio.Bits.reserveMemory}): a collection, then a short wait for the cleaners, at most once a
     * second per process; callers meanwhile wait for its outcome (without that, the 741 other connects of the
     * burst in flight went to TCP in that second).
     */
    private static boolean reclaimed(long bytes) {
        RECLAIM.lock();
        try {
            if (fits(bytes)) {
                return true; // the collection another caller asked for made room
            }
            long now = System.nanoTime();
            if (lastReclaim != 0 && now - lastReclaim < 1_000_000_000L) {
                return false;
            }
            lastReclaim = now;
            System.gc();
            for (int sleep = 1; sleep <= 256; sleep <<= 1) {
                if (fits(bytes)) {
                    return true;
                }
                Thread.sleep(sleep);
            }
            return fits(bytes);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            RECLAIM.unlock();
        }
    }

    static String noDirectRoom() {
        return "direct memory is " + (DIRECT_POOL == null ? "?" : DIRECT_POOL.getMemoryUsed() / 1024) + " KiB used "
                + "of " + DIRECT_ROOM / 1024 + " KiB that UCX staging may bring it to (" + DIRECT_SHARE + "% of "
                + "-XX:MaxDirectMemorySize, -Dsdp4j.ucx.directShare; the rest is for the JDK's own socket I/O)";
    }

    static boolean isDirectMemory(OutOfMemoryError e) {
        return String.valueOf(e.getMessage()).contains("direct buffer memory");
    }

    static String noDirectMemory(Throwable e) {
        return "no direct memory left (" + e.getMessage() + "); each UCX connection end takes two staging buffers of "
                + STAGING_INITIAL / 1024 + " KiB, growing to " + STAGING / 1024 + " KiB with large transfers: raise "
                + "-XX:MaxDirectMemorySize or lower -Dsdp4j.ucx.buffer";
    }

    /** Whether any of {@code bufs[off..off+len)} has bytes left. */
    static boolean hasRemaining(ByteBuffer[] bufs, int off, int len) {
        for (int i = off; i < off + len; i++) {
            if (bufs[i].hasRemaining()) {
                return true;
            }
        }
        return false;
    }
}
