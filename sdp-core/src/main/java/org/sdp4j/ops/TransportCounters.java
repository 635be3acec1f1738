package org.sdp4j.ops;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one transport did in this JVM since start: decisions that chose it, connections it failed, and (for TCP) the
 * fallbacks that ended there, by reason. Counted at connect, accept and listen only, never per read or write: the
 * data path stays free of allocation and locks (LongAdder cells are allocated once, under contention).
 */
public final class TransportCounters {
    final String name;
    final LongAdder connects = new LongAdder();
    final LongAdder accepts = new LongAdder();
    final LongAdder listens = new LongAdder();
    final LongAdder errors = new LongAdder();
    final LongAdder fallbacks = new LongAdder();
    /** Bytes of the connections that closed; the open ones' are read from them ({@link OpenConnections}). */
    final LongAdder closedIn = new LongAdder(), closedOut = new LongAdder();
    private final ConcurrentHashMap<String, LongAdder> fallbackReasons = new ConcurrentHashMap<>();
    private volatile String lastFallback = "";
    private volatile String lastError = "";

    TransportCounters(String name) {
        this.name = name;
    }

    void fallback(String reason) {
        fallbacks.increment();
        fallbackReasons.computeIfAbsent(kind(reason), k -> new LongAdder()).increment();
        lastFallback = reason;
    }

    void closedBytes(long in, long out) {
        closedIn.add(in);
        closedOut.add(out);
    }

    void error(String error) {
        errors.increment();
        lastError = error;
    }

    /**
     * A fallback reason's kind, for counting: the free text names addresses and times, which would make every
     * reason its own row. The kinds follow the Router's wording.
     */
    static String kind(String reason) {
        if (reason == null) {
            return "unknown";
        }
        if (reason.contains(" is unavailable") || reason.contains("no RDMA transport") || reason.contains("no UCX")) {
            return "unavailable";
        }
        if (reason.contains(" failed ") && reason.contains("next attempt after")) {
            return "recently-failed";
        }
        if (reason.contains("listen failed")) {
            return "listen-failed";
        }
        if (reason.contains("connect failed")) {
            return "connect-failed";
        }
        return "other";
    }

    public String name() {
        return name;
    }

    public long connects() {
        return connects.sum();
    }

    public long accepts() {
        return accepts.sum();
    }

    public long listens() {
        return listens.sum();
    }

    public long errors() {
        return errors.sum();
    }

    public long fallbacks() {
        return fallbacks.sum();
    }

    /** Open connections (the RDMA transports'; a tcp connection is the JDK's own socket and is not followed). */
    public long open() {
        return OpenConnections.count(name);
    }

    /** Bytes received by this transport's connections since start, the open ones' included. */
    public long bytesIn() {
        return closedIn.sum() + OpenConnections.openBytes(name)[0];
    }

    public long bytesOut() {
        return closedOut.sum() + OpenConnections.openBytes(name)[1];
    }

    /** Fallbacks that ended on this transport (TCP), by kind of reason. */
    public Map<String, Long> fallbackReasons() {
        Map<String, Long> m = new TreeMap<>();
        fallbackReasons.forEach((k, v) -> m.put(k, v.sum()));
        return m;
    }

    public String lastFallback() {
        return lastFallback;
    }

    public String lastError() {
        return lastError;
    }
}
