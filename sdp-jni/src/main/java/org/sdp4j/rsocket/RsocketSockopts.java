package org.sdp4j.rsocket;

import java.io.IOException;
import java.net.SocketException;
import java.net.SocketOption;
import java.net.SocketOptions;
import java.net.StandardSocketOptions;
import java.util.Set;

import jdk.net.ExtendedSocketOptions;

/**
 * The one option table of rsockets, for the java.net SocketImpl (both its forms) and the NIO channels: each
 * {@link SocketOption} mapped to {@link Native#setOption}, with one set of value checks. IP_TOS and the
 * keep-alive interval/count are kept on the Java side (rsockets accepts and ignores them); SO_LINGER is on/off in
 * rsockets, the seconds are kept here. {@link RsocketOptions#BUSY_POLL} is Java-side too (the waits spin).
 */
final class RsocketSockopts {
    private RsocketSockopts() {}

    static final Set<SocketOption<?>> CLIENT = Set.of(StandardSocketOptions.SO_SNDBUF,
            StandardSocketOptions.SO_RCVBUF, StandardSocketOptions.SO_KEEPALIVE, StandardSocketOptions.SO_LINGER,
            StandardSocketOptions.SO_REUSEADDR, StandardSocketOptions.TCP_NODELAY, StandardSocketOptions.IP_TOS,
            ExtendedSocketOptions.TCP_KEEPIDLE, ExtendedSocketOptions.TCP_KEEPINTERVAL,
            ExtendedSocketOptions.TCP_KEEPCOUNT, RsocketOptions.RDMA_SQSIZE, RsocketOptions.RDMA_RQSIZE,
            RsocketOptions.RDMA_INLINE, RsocketOptions.BUSY_POLL);
    /** A listener's options, as the JDK's ServerSocket has them (no SO_SNDBUF) plus rsockets' own. */
    static final Set<SocketOption<?>> SERVER = Set.of(StandardSocketOptions.SO_RCVBUF,
            StandardSocketOptions.SO_REUSEADDR, StandardSocketOptions.IP_TOS,
            RsocketOptions.RDMA_SQSIZE, RsocketOptions.RDMA_RQSIZE, RsocketOptions.RDMA_INLINE,
            RsocketOptions.BUSY_POLL);
    /** What the tunables (global, per rule) set on a listener: SO_SNDBUF too, which its accepted rsockets inherit. */
    static final Set<SocketOption<?>> SERVER_TUNABLES = Set.of(StandardSocketOptions.SO_RCVBUF,
            StandardSocketOptions.SO_SNDBUF, StandardSocketOptions.SO_REUSEADDR, StandardSocketOptions.IP_TOS,
            RsocketOptions.RDMA_SQSIZE, RsocketOptions.RDMA_RQSIZE, RsocketOptions.RDMA_INLINE,
            RsocketOptions.BUSY_POLL);

    /** Java-side option values of one channel. */
    static final class Kept {
        volatile int tos, keepInterval, keepCount, lingerSeconds = -1, busyPollMicros;
        /** Options the application set itself: tunables (global, per rule) do not override them. */
        final Set<SocketOption<?>> explicit = java.util.concurrent.ConcurrentHashMap.newKeySet();
    }

    static void checkSupported(Set<SocketOption<?>> supported, SocketOption<?> name) {
        if (name == null) {
            throw new NullPointerException("name");
        }
        if (!supported.contains(name)) {
            throw new UnsupportedOperationException("'" + name + "' not supported");
        }
    }

    static void check(Set<SocketOption<?>> supported, SocketOption<?> name, Object value) {
        checkSupported(supported, name);
        if (!name.type().isInstance(value)) {
            throw new IllegalArgumentException("Invalid value '" + value + "' for " + name);
        }
    }

    /** A tunable (global or per rule) on fd: applied when in the table and not set by the application itself. */
    static void setTunable(int fd, Kept kept, Set<SocketOption<?>> table, SocketOption<Integer> name, Integer value)
            throws IOException {
        if (table.contains(name) && !kept.explicit.contains(name)) {
            set(fd, kept, name, value);
        }
    }

    static void set(int fd, Kept kept, SocketOption<?> name, Object value) throws IOException {
        if (name == RsocketOptions.BUSY_POLL) {
            int v = (Integer) value;
            if (v < 0) {
                throw new IllegalArgumentException("Invalid value '" + value + "' for " + name);
            }
            kept.busyPollMicros = v;
        } else if (name instanceof RsocketOptions.Opt) {
            int v = (Integer) value;
            if (v <= 0) {
                throw new IllegalArgumentException("Invalid value '" + value + "' for " + name);
            }
            Native.setOption(fd, ((RsocketOptions.Opt) name).id, v);
        } else if (name == StandardSocketOptions.SO_SNDBUF || name == StandardSocketOptions.SO_RCVBUF) {
            int v = (Integer) value;
            if (v <= 0) {
                throw new IllegalArgumentException("Invalid value '" + value + "' for " + name);
            }
            Native.setOption(fd, name == StandardSocketOptions.SO_SNDBUF ? Native.OPT_SO_SNDBUF
                    : Native.OPT_SO_RCVBUF, v);
        } else if (name == StandardSocketOptions.SO_KEEPALIVE) {
            Native.setOption(fd, Native.OPT_SO_KEEPALIVE, (Boolean) value ? 1 : 0);
        } else if (name == StandardSocketOptions.SO_REUSEADDR) {
            Native.setOption(fd, Native.OPT_SO_REUSEADDR, (Boolean) value ? 1 : 0);
        } else if (name == StandardSocketOptions.TCP_NODELAY) {
            Native.setOption(fd, Native.OPT_TCP_NODELAY, (Boolean) value ? 1 : 0);
        } else if (name == StandardSocketOptions.SO_LINGER) {
            int secs = (Integer) value < 0 ? -1 : (Integer) value;
            Native.setOption(fd, Native.OPT_SO_LINGER, secs);
            kept.lingerSeconds = secs;
        } else if (name == StandardSocketOptions.IP_TOS) {
            kept.tos = (Integer) value & 0xFF;
        } else if (name == ExtendedSocketOptions.TCP_KEEPIDLE) {
            int v = positive(name, value);
            Native.setOption(fd, Native.OPT_TCP_KEEPIDLE, v);
        } else if (name == ExtendedSocketOptions.TCP_KEEPINTERVAL) {
            kept.keepInterval = positive(name, value);
        } else if (name == ExtendedSocketOptions.TCP_KEEPCOUNT) {
            kept.keepCount = positive(name, value);
        } else {
            throw new UnsupportedOperationException("'" + name + "' not supported");
        }
    }

    private static int positive(SocketOption<?> name, Object value) {
        int v = (Integer) value;
        if (v <= 0) {
            throw new IllegalArgumentException("Invalid value '" + value + "' for " + name);
        }
        return v;
    }

    static Object get(int fd, Kept kept, SocketOption<?> name) throws IOException {
        if (name == RsocketOptions.BUSY_POLL) {
            return kept.busyPollMicros;
        } else if (name instanceof RsocketOptions.Opt) {
            return Native.getOption(fd, ((RsocketOptions.Opt) name).id);
        } else if (name == StandardSocketOptions.SO_SNDBUF) {
            return Native.getOption(fd, Native.OPT_SO_SNDBUF);
        } else if (name == StandardSocketOptions.SO_RCVBUF) {
            return Native.getOption(fd, Native.OPT_SO_RCVBUF);
        } else if (name == StandardSocketOptions.SO_KEEPALIVE) {
            return Native.getOption(fd, Native.OPT_SO_KEEPALIVE) != 0;
        } else if (name == StandardSocketOptions.SO_REUSEADDR) {
            return Native.getOption(fd, Native.OPT_SO_REUSEADDR) != 0;
        } else if (name == StandardSocketOptions.TCP_NODELAY) {
            return Native.getOption(fd, Native.OPT_TCP_NODELAY) != 0;
        } else if (name == StandardSocketOptions.SO_LINGER) {
            return kept.lingerSeconds;
        } else if (name == StandardSocketOptions.IP_TOS) {
            return kept.tos;
        } else if (name == ExtendedSocketOptions.TCP_KEEPIDLE) {
            return Native.getOption(fd, Native.OPT_TCP_KEEPIDLE);
        } else if (name == ExtendedSocketOptions.TCP_KEEPINTERVAL) {
            return kept.keepInterval > 0 ? kept.keepInterval : 1;
        } else if (name == ExtendedSocketOptions.TCP_KEEPCOUNT) {
            return kept.keepCount > 0 ? kept.keepCount : 1;
        }
        throw new UnsupportedOperationException("'" + name + "' not supported");
    }

    /** The SocketOption of a java.net.SocketOptions id, as the table knows it. */
    static SocketOption<?> option(int optID) throws SocketException {
        switch (optID) {
            case SocketOptions.TCP_NODELAY: return StandardSocketOptions.TCP_NODELAY;
            case SocketOptions.SO_SNDBUF: return StandardSocketOptions.SO_SNDBUF;
            case SocketOptions.SO_RCVBUF: return StandardSocketOptions.SO_RCVBUF;
            case SocketOptions.SO_KEEPALIVE: return StandardSocketOptions.SO_KEEPALIVE;
            case SocketOptions.SO_REUSEADDR: return StandardSocketOptions.SO_REUSEADDR;
            case SocketOptions.SO_LINGER: return StandardSocketOptions.SO_LINGER;
            case SocketOptions.IP_TOS: return StandardSocketOptions.IP_TOS;
            default: throw new SocketException("rsockets: option 0x" + Integer.toHexString(optID) + " not supported");
        }
    }

    static boolean bool(int optID, Object value) throws SocketException {
        if (value instanceof Boolean) {
            return (Boolean) value;
        }
        throw new SocketException("option 0x" + Integer.toHexString(optID) + ": needs a Boolean, got " + value);
    }

    /** An option the application sets itself: a tunable no longer overrides it. */
    static void setExplicit(int fd, Kept kept, SocketOption<?> name, Object value) throws IOException {
        set(fd, kept, name, value);
        kept.explicit.add(name);
    }

    /**
     * The java.net.SocketOptions form ({@code SocketImpl.setOption(int, Object)}, what java.net.Socket's setters
     * call), but SO_TIMEOUT, which the SocketImpl keeps itself.
     */
    static void setById(int fd, Kept kept, int optID, Object value) throws IOException {
        if (optID == SocketOptions.SO_OOBINLINE) { // no SocketOption form; rsockets keeps the flag
            Native.setOption(fd, Native.OPT_SO_OOBINLINE, bool(optID, value) ? 1 : 0);
            return;
        }
        Object v = value;
        if (optID == SocketOptions.SO_LINGER && value instanceof Boolean) { // FALSE for off, an Integer for on
            if ((Boolean) value) {
                throw new SocketException("SO_LINGER: on needs a time in seconds");
            }
            v = -1;
        }
        SocketOption<?> name = option(optID);
        if (!name.type().isInstance(v)) {
            throw new SocketException(name + ": needs " + name.type().getSimpleName() + ", got " + value);
        }
        setExplicit(fd, kept, name, v);
    }

    /** The java.net.SocketOptions form of a get; SO_LINGER off reads as FALSE, as the JDK's impl returns it. */
    static Object getById(int fd, Kept kept, int optID) throws IOException {
        if (optID == SocketOptions.SO_OOBINLINE) {
            return Native.getOption(fd, Native.OPT_SO_OOBINLINE) != 0;
        }
        Object v = get(fd, kept, option(optID));
        if (optID == SocketOptions.SO_LINGER) {
            return (Integer) v < 0 ? (Object) Boolean.FALSE : v;
        }
        return v;
    }
}
