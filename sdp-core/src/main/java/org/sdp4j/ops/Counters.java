package org.sdp4j.ops;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

import org.sdp4j.conf.Role;

/**
 * The process-wide counters that {@code stat}, JMX and JFR read: every decision the Router logs is counted here
 * too, whatever the log level. One {@link TransportCounters} per transport name ({@code tcp}, {@code sdp}/rsocket,
 * {@code ucx}), created on its first decision.
 */
public final class Counters {
    private static final ConcurrentHashMap<String, TransportCounters> BY_NAME = new ConcurrentHashMap<>();

    private static final java.util.Set<String> BYPASSED = new java.util.concurrent.ConcurrentSkipListSet<>();

    private Counters() {}

    /** A library loaded in this JVM that makes sockets the rules cannot see (the agent's NativeSockets). */
    public static void bypassed(String what) {
        BYPASSED.add(what);
    }

    public static java.util.List<String> bypassed() {
        return new ArrayList<>(BYPASSED);
    }

    public static TransportCounters of(String transport) {
        TransportCounters c = BY_NAME.get(transport);
        if (c != null) {
            return c;
        }
        TransportCounters made = new TransportCounters(transport);
        c = BY_NAME.putIfAbsent(transport, made);
        if (c == null) {
            Jmx.register(made); // once per transport, outside the map's lock
            return made;
        }
        return c;
    }

    /** Every transport that decided something so far, in name order. */
    public static List<TransportCounters> all() {
        List<TransportCounters> l = new ArrayList<>(BY_NAME.values());
        l.sort((a, b) -> a.name.compareTo(b.name));
        return l;
    }

    /**
     * One decision, as the Router logs it: {@code transport} the one used or tried ({@code none}: none could be;
     * {@code X+tcp}: a {@code both} listener), {@code fallback} why not RDMA (or null), {@code error} the failure
     * the application saw (or null).
     */
    public static void decision(Role role, String transport, String fallback, String error) {
        String name = transport.endsWith("+tcp") ? transport.substring(0, transport.length() - 4) : transport;
        TransportCounters c = of(name);
        if (error != null) {
            c.error(error);
            return;
        }
        if (fallback != null) {
            c.fallback(fallback);
        }
        switch (role) {
            case CLIENT -> c.connects.increment();
            case SERVER -> c.listens.increment();
            default -> { }
        }
    }

    /** An accepted connection, on {@code transport}, from {@code from} (host:port, for JFR). */
    public static void accepted(String transport, java.util.function.Supplier<String> from) {
        of(transport).accepts.increment();
        if (Jfr.enabled()) {
            Jfr.accepted(from.get(), transport);
        }
    }
}
