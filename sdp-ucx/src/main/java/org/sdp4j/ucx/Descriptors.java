package org.sdp4j.ucx;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;

/**
 * File descriptors a UCX connection may take. A UCX connection end holds about 8 (its worker's event descriptors,
 * the posix shared-memory segments kept open so the peer can map them through /proc/PID/fd, the rendezvous socket;
 * {@code UcxFootprintTest} counts them) where a TCP socket holds 1: 1,000 connections with both ends in one JVM took
 * 16,000, and the concurrency benchmark's JVM (limit 20,000) then failed the application's own TCP accepts and
 * connects with "Too many open files". UCX therefore stops at {@code sdp4j.ucx.fdShare} percent (default 90) of the
 * process's descriptor limit: beyond, a connection goes to TCP, which needs one.
 */
final class Descriptors {
    static final int SHARE = Math.min(100, org.sdp4j.transport.Props.intProperty("sdp4j.ucx.fdShare", 90, 1));
    /** Descriptors one connection end is expected to add (measured, rounded up). */
    static final int PER_END = 8;
    private static final com.sun.management.UnixOperatingSystemMXBean OS = os();
    /** Counting is O(descriptors): away from the limit, only every 32nd check counts ({@link #check}). */
    private static final java.util.concurrent.atomic.AtomicInteger CALLS = new java.util.concurrent.atomic.AtomicInteger();
    private static volatile long lastCount;

    private Descriptors() {}

    /** Why open descriptors cannot be counted here, or null when they can. */
    private static String blind;

    private static com.sun.management.UnixOperatingSystemMXBean os() {
        try {
            OperatingSystemMXBean b = ManagementFactory.getOperatingSystemMXBean();
            if (b instanceof com.sun.management.UnixOperatingSystemMXBean u) {
                return u;
            }
            blind = "the platform's OperatingSystemMXBean does not count open descriptors";
        } catch (RuntimeException | LinkageError e) {
            // no jdk.management (a runtime or module layer without it): only EMFILE itself then limits UCX
            blind = "open descriptors cannot be counted (" + e + ")";
        }
        return null;
    }

    /**
     * The budget in one line, for {@code selftest} ({@link UcxTransport#describe}): the guard is silent by design
     * when it cannot count (the agent's module layer could not, until issue 18's fourteenth pass, and nothing said so).
     */
    static String budget() {
        if (OS == null) {
            return "descriptor budget OFF: " + blind + "; UCX connections may take every descriptor (ulimit -n)";
        }
        long max = OS.getMaxFileDescriptorCount();
        if (max <= 0 || max == Long.MAX_VALUE) {
            return "descriptor budget off: no descriptor limit";
        }
        return "descriptor budget " + SHARE + " % of " + max + " (ulimit -n), " + OS.getOpenFileDescriptorCount() + " open";
    }

    /**
     * Connection ends that passed {@link #reserve} and have not made their worker yet: a burst of 1,000 connects
     * all checked the count before any of them had opened anything, and together they ran the JVM out (the
     * application's own TCP accepts failed with EMFILE).
     */
    private static final java.util.concurrent.atomic.AtomicInteger PENDING = new java.util.concurrent.atomic.AtomicInteger();

    /** Null when a new connection end may take its descriptors; else why not. Nothing is reserved. */
    static String refusal() {
        return check(PENDING.get() + 1);
    }

    /**
     * Like {@link #refusal}, counting the ends reserved before; on null the caller holds a reservation until it
     * made its worker (then its descriptors are open and counted) or failed: {@link #settle} once, either way.
     */
    static String reserve() {
        String why = check(PENDING.incrementAndGet());
        if (why != null) {
            PENDING.decrementAndGet();
        }
        return why;
    }

    /**
     * Whether one more idle end may be kept ({@link Link}), {@code kept} being kept now: the kept ends' own
     * descriptors stay within a quarter of the process's limit, and only while the process is within its {@link
     * #SHARE} (a kept end's descriptors then go back to the application and TCP). Keeping adds no descriptor (the
     * closing end holds them already); it holds them for up to the idle bound, so it is the cache that is bounded,
     * not the process: a burst of 256 connections with both ends in one JVM takes about 4,000 of the 20,000 here,
     * and the ends it leaves are what the next burst reuses.
     */
    static boolean roomToKeep(int kept) {
        if (OS == null) {
            return true;
        }
        long max = OS.getMaxFileDescriptorCount();
        if (max <= 0 || max == Long.MAX_VALUE) {
            return true;
        }
        if ((long) (kept + 1) * PER_END > max / 4) {
            return false;
        }
        // counting lists /proc/self/fd (milliseconds with thousands open): every 32nd close counts, the others read
        // the last count (off by at most 31 ends' descriptors; the guard of a new connection counts for itself)
        long open = lastCount;
        if ((CALLS.incrementAndGet() & 31) == 0) {
            lastCount = open = OS.getOpenFileDescriptorCount();
        }
        return open < room(max);
    }

    /** The descriptors UCX may hold: {@link #SHARE} percent of the limit. */
    private static long room(long max) {
        return max / 100 * SHARE;
    }

    static void settle() {
        PENDING.decrementAndGet();
    }

    private static String check(int ends) {
        if (OS == null) {
            return null;
        }
        long max = OS.getMaxFileDescriptorCount();
        if (max <= 0 || max == Long.MAX_VALUE) {
            return null;
        }
        long coming = (long) ends * PER_END;
        long room = room(max);
        // counting lists /proc/self/fd: with 16,000 open (a burst of 1,000 connections, both ends in one JVM) a few
        // milliseconds per connect. Every 32nd check counts; the others trust the last count while even 32 more
        // ends (what 31 checks since could have let through) would stay within the room
        if (lastCount + coming + 32L * PER_END < room && (CALLS.incrementAndGet() & 31) != 0) {
            return null;
        }
        long open = OS.getOpenFileDescriptorCount();
        lastCount = open;
        if (open + coming > room) {
            return open + " file descriptors open of " + max + " (ulimit -n), " + (ends - 1) + " more connection "
                    + "ends on their way; UCX takes about " + PER_END + " per connection end and stops at " + SHARE
                    + "% of the limit (-Dsdp4j.ucx.fdShare), leaving the rest to TCP and the application";
        }
        return null;
    }
}
