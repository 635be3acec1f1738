package org.sdp4j.transport;

import java.net.InetSocketAddress;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Destinations where an RDMA attempt failed recently, so that a {@code both} rule falls straight back to TCP for
 * them instead of paying the attempt again on every connect of a connection pool. Entries expire after the
 * retry interval; the map is bounded (cleared when full: a burst of distinct failing destinations costs at
 * most one more attempt each).
 */
final class NegativeCache {
    private static final int MAX = 4096;

    record Failure(long atNanos, String reason) {}

    private final ConcurrentHashMap<InetSocketAddress, Failure> failures = new ConcurrentHashMap<>();
    private final long retryNanos;

    NegativeCache(long retryMillis) {
        this.retryNanos = Math.max(0, retryMillis) * 1_000_000L;
    }

    /** The recent failure for this destination, or null when an attempt is due. */
    Failure recent(InetSocketAddress destination) {
        Failure f = failures.get(destination);
        if (f == null) {
            return null;
        }
        if (System.nanoTime() - f.atNanos() >= retryNanos) {
            failures.remove(destination, f);
            return null;
        }
        return f;
    }

    void failed(InetSocketAddress destination, String reason) {
        if (retryNanos == 0) {
            return;
        }
        if (failures.size() >= MAX) {
            failures.clear();
        }
        failures.put(destination, new Failure(System.nanoTime(), reason));
    }

    void succeeded(InetSocketAddress destination) {
        failures.remove(destination);
    }

    /** The destinations an attempt is not due for yet: "host:port  retry in N ms  reason", soonest retry first. */
    java.util.List<String> describe() {
        long now = System.nanoTime();
        java.util.List<java.util.Map.Entry<InetSocketAddress, Failure>> l = new java.util.ArrayList<>();
        for (java.util.Map.Entry<InetSocketAddress, Failure> e : failures.entrySet()) {
            if (now - e.getValue().atNanos() < retryNanos) {
                l.add(e);
            }
        }
        l.sort(java.util.Comparator.comparingLong(e -> e.getValue().atNanos()));
        java.util.List<String> out = new java.util.ArrayList<>();
        for (java.util.Map.Entry<InetSocketAddress, Failure> e : l) {
            long left = (retryNanos - (now - e.getValue().atNanos())) / 1_000_000L;
            out.add(Router.hostPort(e.getKey()) + "  retry in " + left + " ms  " + e.getValue().reason());
        }
        return out;
    }

    long retryMillis() {
        return retryNanos / 1_000_000L;
    }
}
