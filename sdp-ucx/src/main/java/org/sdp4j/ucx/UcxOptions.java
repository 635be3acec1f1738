package org.sdp4j.ucx;

import java.net.SocketOption;
import java.net.SocketOptions;
import java.net.StandardSocketOptions;
import java.util.Map;
import java.util.Set;

import jdk.net.ExtendedSocketOptions;

/**
 * The UCX transport's one option table, for its {@code SocketImpl}s and its channels alike. A UCX stream has no kernel
 * socket to apply TCP options to, so they are validated as the JDK validates them, kept, and read back (JDBC drivers
 * set them regardless); {@code SO_TIMEOUT} is the callers' own. The old integer option ids of
 * {@link java.net.SocketImpl} map onto the same options, so {@code setTcpNoDelay} and
 * {@code getOption(TCP_NODELAY)} read one value.
 */
final class UcxOptions {
    static final Set<SocketOption<?>> SOCKET = Set.of(StandardSocketOptions.SO_SNDBUF,
            StandardSocketOptions.SO_RCVBUF, StandardSocketOptions.SO_KEEPALIVE, StandardSocketOptions.SO_LINGER,
            StandardSocketOptions.SO_REUSEADDR, StandardSocketOptions.TCP_NODELAY, StandardSocketOptions.IP_TOS,
            ExtendedSocketOptions.TCP_KEEPIDLE, ExtendedSocketOptions.TCP_KEEPINTERVAL,
            ExtendedSocketOptions.TCP_KEEPCOUNT);
    static final Set<SocketOption<?>> LISTENER = Set.of(StandardSocketOptions.SO_RCVBUF,
            StandardSocketOptions.SO_REUSEADDR);

    private static final Map<Integer, SocketOption<?>> BY_ID = Map.of(SocketOptions.SO_SNDBUF,
            StandardSocketOptions.SO_SNDBUF, SocketOptions.SO_RCVBUF, StandardSocketOptions.SO_RCVBUF,
            SocketOptions.SO_KEEPALIVE, StandardSocketOptions.SO_KEEPALIVE, SocketOptions.SO_LINGER,
            StandardSocketOptions.SO_LINGER, SocketOptions.SO_REUSEADDR, StandardSocketOptions.SO_REUSEADDR,
            SocketOptions.TCP_NODELAY, StandardSocketOptions.TCP_NODELAY, SocketOptions.IP_TOS,
            StandardSocketOptions.IP_TOS);

    private UcxOptions() {
    }

    /** The option for a {@link SocketOptions} id, or null (SO_TIMEOUT, SO_BINDADDR, SO_OOBINLINE are the caller's). */
    static SocketOption<?> byId(int optID) {
        return BY_ID.get(optID);
    }

    /** Throws as the JDK does: UnsupportedOperationException outside {@code table}, IllegalArgumentException else. */
    static void check(Set<SocketOption<?>> table, SocketOption<?> name, Object value) {
        if (!table.contains(name)) {
            throw new UnsupportedOperationException("'" + name + "' not supported");
        }
        if (!name.type().isInstance(value)) {
            throw new IllegalArgumentException("Invalid value '" + value + "' for " + name);
        }
        if (value instanceof Integer i) {
            boolean ok = name == StandardSocketOptions.SO_SNDBUF || name == StandardSocketOptions.SO_RCVBUF ? i > 0
                    : name == StandardSocketOptions.SO_LINGER || i >= 0;
            if (name == StandardSocketOptions.IP_TOS) {
                ok = i <= 255;
            }
            if (!ok) {
                throw new IllegalArgumentException("Invalid value '" + value + "' for " + name);
            }
        }
    }

    static Object defaultValue(SocketOption<?> name) {
        if (name == StandardSocketOptions.TCP_NODELAY) {
            return Boolean.TRUE; // UCX sends at once: there is no Nagle
        }
        if (name == StandardSocketOptions.SO_SNDBUF || name == StandardSocketOptions.SO_RCVBUF) {
            return Staging.STAGING;
        }
        if (name == StandardSocketOptions.SO_LINGER) {
            return -1;
        }
        if (name.type() == Boolean.class) {
            return Boolean.FALSE;
        }
        return name == StandardSocketOptions.IP_TOS ? 0 : 1;
    }

    /** The {@link SocketOptions}-style value of {@code name} (SO_LINGER: FALSE when off, else its seconds). */
    static Object legacyValue(SocketOption<?> name, Object v) {
        if (name == StandardSocketOptions.SO_LINGER) {
            int s = (Integer) v;
            return s < 0 ? Boolean.FALSE : (Object) s;
        }
        return v;
    }

    /** A {@link SocketOptions}-style value as the option's own ({@code setSoLinger(false, n)} passes FALSE). */
    static Object fromLegacy(SocketOption<?> name, Object v) {
        if (name == StandardSocketOptions.SO_LINGER && v instanceof Boolean b) {
            return b ? 0 : -1;
        }
        return v;
    }
}
