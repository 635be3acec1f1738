package org.sdp4j.rsocket;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.util.Map;

import org.sdp4j.Sdp4j;
import org.sdp4j.conf.Match;
import org.sdp4j.conf.Role;
import org.sdp4j.conf.Tunables;
import org.sdp4j.transport.Router;

/**
 * Applies {@link Tunables} to rsockets: the global ones ({@code -Dsdp4j.rsocket.*}) when an rsocket is created, the
 * matching rule's just before {@code rconnect}/{@code rlisten} (rsockets takes RDMA_SQSIZE/RQSIZE/INLINE and the
 * buffer sizes only before the connection is set up; a listener's values are inherited by what it accepts). The
 * rule is looked up with the Router's own matching, which only tells which rule applies: the transport decision is
 * still the Router's. Options the application set on the socket itself are never overridden.
 */
final class RsocketTunables {
    private RsocketTunables() {}

    @FunctionalInterface
    interface Setter {
        void set(SocketOption<Integer> option, Integer value) throws IOException;
    }

    static SocketOption<Integer> option(Tunables.Key k) {
        switch (k) {
            case SNDBUF: return StandardSocketOptions.SO_SNDBUF;
            case RCVBUF: return StandardSocketOptions.SO_RCVBUF;
            case SQSIZE: return RsocketOptions.RDMA_SQSIZE;
            case RQSIZE: return RsocketOptions.RDMA_RQSIZE;
            case INLINE: return RsocketOptions.RDMA_INLINE;
            case BUSYPOLL: return RsocketOptions.BUSY_POLL;
            default: throw new IllegalArgumentException(k.toString());
        }
    }

    static void apply(Tunables t, Setter s) throws IOException {
        for (Map.Entry<Tunables.Key, Integer> e : t.values().entrySet()) {
            s.set(option(e.getKey()), e.getValue());
        }
    }

    static void applyGlobal(Setter s) throws IOException {
        apply(Tunables.global(), s);
    }

    /** The tunables of the rule matching this connect ({@code client}) or listener, if the rules are configured. */
    static Tunables ofRule(boolean client, InetSocketAddress address) {
        Router r = Sdp4j.configuredRouter();
        if (r == null || address == null || address.isUnresolved()) {
            return Tunables.NONE;
        }
        Match m = r.match(client ? Role.CLIENT : Role.SERVER, address);
        return m.rule() == null ? Tunables.NONE : m.rule().tunables();
    }

    static void applyRule(boolean client, InetSocketAddress address, Setter s) throws IOException {
        apply(ofRule(client, address), s);
    }
}
