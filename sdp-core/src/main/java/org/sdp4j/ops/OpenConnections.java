package org.sdp4j.ops;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

import org.sdp4j.Sdp4j;
import org.sdp4j.conf.Match;
import org.sdp4j.conf.Role;
import org.sdp4j.transport.Router;

/**
 * The open connections of the RDMA transports ({@code rsocket}, {@code ucx}), one line each in {@code stat} and in the
 * MBean {@code org.sdp4j:type=Connections}: as {@code ss} lists the kernel's sockets (which is where a {@code tcp}
 * connection stays: the JDK's own socket, never wrapped, so it costs nothing). A transport registers a connection
 * once it is connected or accepted and removes it on close; the byte counts are the connection's own counters, read
 * when asked, so the data path gains no lock and no allocation. The rule is matched when the list is read.
 */
public final class OpenConnections {
    /**
     * Loads and initialises what a connection's open and close count with, for a transport's one-time start: 1,000
     * virtual threads closing their first connections at once loaded TransportCounters together, and one of them
     * waited for another's class loading pinned to its carrier (a jdk.VirtualThreadPinned event, VM step k).
     */
    public static void preload() {
        for (Class<?> c : new Class<?>[] {Entry.class, TransportCounters.class, Counters.class, Jmx.class}) {
            try {
                Class.forName(c.getName(), true, c.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(e);
            }
        }
        // and the JDK classes a first TransportCounters initializes: a fresh-clone run (r30, VM step k) had a
        // virtual thread pinned "waiting for initialization of java.util.concurrent.atomic.LongAdder by another
        // thread" in TransportCounters' constructor, on the first close of 1,000; Striped64's Cell and
        // ThreadLocalRandom come in under contention
        for (String jdk : new String[] {"java.util.concurrent.atomic.LongAdder", "java.util.concurrent.atomic.Striped64$Cell",
                "java.util.concurrent.ThreadLocalRandom"}) {
            try {
                Class.forName(jdk, true, null);
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** One open connection. */
    public static final class Entry {
        final String transport, role, detail;
        final InetSocketAddress local, remote;
        final LongSupplier in, out;
        final long openedAt = System.currentTimeMillis();

        Entry(String transport, String role, InetSocketAddress local, InetSocketAddress remote, LongSupplier in,
                LongSupplier out, String detail) {
            this.transport = transport;
            this.role = role;
            this.local = local;
            this.remote = remote;
            this.in = in;
            this.out = out;
            this.detail = detail;
        }
    }

    /** Field order of a line of {@link #lines}, tab-separated. */
    public static final String[] FIELDS = {"transport", "role", "local", "remote", "rule", "ageMillis", "bytesIn",
        "bytesOut", "detail"};

    private static final Set<Entry> OPEN = ConcurrentHashMap.newKeySet();

    private OpenConnections() {}

    /**
     * A connection of {@code transport} just connected ({@code role} "client") or accepted ("accepted"): returns the
     * token to give {@link #closed}. {@code in}/{@code out}: its byte counters; {@code detail}: what carries it.
     */
    public static Entry opened(String transport, String role, InetSocketAddress local, InetSocketAddress remote,
            LongSupplier in, LongSupplier out, String detail) {
        Entry e = new Entry(transport, role, local, remote, in, out, detail);
        OPEN.add(e);
        Jmx.registerConnections();
        return e;
    }

    /** The connection closed: its bytes join the transport's totals. Idempotent; null is ignored. */
    public static void closed(Entry e) {
        if (e != null && OPEN.remove(e)) {
            Counters.of(e.transport).closedBytes(e.in.getAsLong(), e.out.getAsLong());
        }
    }

    /** Bytes in and out of the open connections of {@code transport}. */
    static long[] openBytes(String transport) {
        long[] b = new long[2];
        for (Entry e : OPEN) {
            if (e.transport.equals(transport)) {
                b[0] += e.in.getAsLong();
                b[1] += e.out.getAsLong();
            }
        }
        return b;
    }

    static long count(String transport) {
        return OPEN.stream().filter(e -> e.transport.equals(transport)).count();
    }

    /** One tab-separated line per open connection ({@link #FIELDS}), oldest first. */
    public static String[] lines() {
        List<Entry> l = new ArrayList<>(OPEN);
        l.sort((a, b) -> Long.compare(a.openedAt, b.openedAt));
        long now = System.currentTimeMillis();
        List<String> out = new ArrayList<>();
        for (Entry e : l) {
            out.add(String.join("\t", e.transport, e.role, hostPort(e.local), hostPort(e.remote), rule(e),
                    Long.toString(Math.max(0, now - e.openedAt)), Long.toString(e.in.getAsLong()),
                    Long.toString(e.out.getAsLong()), e.detail == null ? "" : e.detail));
        }
        return out.toArray(String[]::new);
    }

    /** The rule that decides this connection today: a client's destination, or the listener's address. */
    private static String rule(Entry e) {
        Router r = Sdp4j.configuredRouter();
        InetSocketAddress a = e.role.equals("client") ? e.remote : e.local;
        if (r == null || a == null || a.isUnresolved()) {
            return "-";
        }
        Match m = r.match(e.role.equals("client") ? Role.CLIENT : Role.SERVER, a);
        return m.rule() == null ? "default" : r.rules().source() + ":" + m.rule().line();
    }

    private static String hostPort(InetSocketAddress a) {
        return a == null ? "-" : Router.hostPort(a);
    }
}
