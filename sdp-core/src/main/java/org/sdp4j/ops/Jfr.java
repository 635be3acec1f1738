package org.sdp4j.ops;

import org.sdp4j.conf.Role;

/**
 * sdp4j's JFR events, committed only where the runtime has {@code jdk.jfr} (a jlinked runtime may not): the event
 * classes are touched only after {@link #AVAILABLE} said so.
 */
public final class Jfr {
    private static final boolean AVAILABLE = available();

    private Jfr() {}

    private static boolean available() {
        try {
            Class.forName("jdk.jfr.Event", false, Jfr.class.getClassLoader());
            return ModuleLayer.boot().findModule("jdk.jfr").isPresent() && Jfr.class.getModule().canRead(
                    ModuleLayer.boot().findModule("jdk.jfr").get());
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** True while a recording takes sdp4j's events: the caller then builds their strings, else not. */
    public static boolean enabled() {
        return AVAILABLE && Events.enabled();
    }

    /** A decision, begun at {@code startNanos} (System.nanoTime). */
    public static void decision(Role role, String address, String rule, String family, String transport,
                                String fallback, String error, long startNanos) {
        if (!AVAILABLE) {
            return;
        }
        Events.decision(role, address, rule, family, transport, fallback, error, startNanos);
    }

    public static void accepted(String address, String transport) {
        if (!AVAILABLE) {
            return;
        }
        Events.accepted(address, transport);
    }

    /**
     * Begins timing a channel read ({@code read} true) or write: a begun event while a recording takes it, else
     * null, so that the data path allocates nothing when nobody records. End it with {@link #ioEnd}.
     */
    public static Object ioBegin(boolean read) {
        return AVAILABLE ? Events.ioBegin(read) : null;
    }

    /** Ends what {@link #ioBegin} began: committed when it took the threshold; {@code bytes} -1 at end of stream. */
    public static void ioEnd(Object event, String transport, java.net.InetSocketAddress remote, long bytes) {
        if (event != null) {
            Events.ioEnd(event, transport, remote, bytes);
        }
    }

    /** The part that links jdk.jfr: loaded only when it is there. */
    private static final class Events {
        private static final SocketReadEvent READ = new SocketReadEvent();
        private static final SocketWriteEvent WRITE = new SocketWriteEvent();

        static Object ioBegin(boolean read) {
            if (!(read ? READ : WRITE).isEnabled()) {
                return null;
            }
            SocketIoEvent e = read ? new SocketReadEvent() : new SocketWriteEvent();
            e.begin();
            return e;
        }

        static void ioEnd(Object event, String transport, java.net.InetSocketAddress remote, long bytes) {
            SocketIoEvent e = (SocketIoEvent) event;
            e.end();
            if (e.shouldCommit()) {
                e.transport = transport;
                if (remote != null) {
                    e.host = remote.getHostString();
                    e.address = remote.getAddress() == null ? "" : remote.getAddress().getHostAddress();
                    e.port = remote.getPort();
                }
                e.bytes = bytes;
                e.commit();
            }
        }

        private static final ConnectEvent CONNECT = new ConnectEvent();
        private static final AcceptEvent ACCEPT = new AcceptEvent();
        private static final FallbackEvent FALLBACK = new FallbackEvent();

        /** isEnabled is per event type (what the recordings ask for), so one instance of each answers it. */
        static boolean enabled() {
            return CONNECT.isEnabled() || ACCEPT.isEnabled() || FALLBACK.isEnabled();
        }

        static void decision(Role role, String address, String rule, String family, String transport,
                             String fallback, String error, long startNanos) {
            DecisionEvent e = role == Role.CLIENT ? new ConnectEvent() : null;
            if (e != null && e.isEnabled()) {
                fill(e, address, rule, family, transport, error != null ? error : fallback, startNanos);
                e.commit();
            }
            if (fallback != null) {
                FallbackEvent f = new FallbackEvent();
                if (f.isEnabled()) {
                    fill(f, address, rule, family, transport, fallback, startNanos);
                    f.commit();
                }
            }
        }

        static void accepted(String address, String transport) {
            AcceptEvent e = new AcceptEvent();
            if (e.isEnabled()) {
                e.address = address;
                e.transport = transport;
                e.commit();
            }
        }

        private static void fill(DecisionEvent e, String address, String rule, String family, String transport,
                                 String reason, long startNanos) {
            e.address = address;
            e.rule = rule;
            e.family = family;
            e.transport = transport;
            e.reason = reason;
            e.took = System.nanoTime() - startNanos;
        }
    }
}
