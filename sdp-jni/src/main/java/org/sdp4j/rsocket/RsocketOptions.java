package org.sdp4j.rsocket;

import java.net.SocketOption;

/**
 * rsocket-specific socket options ({@code SOL_RDMA} in rsocket(7)), for {@code Socket.setOption}. They size the
 * queue pair and inline data and take effect only when set before connect (or on a listener, for the sockets it
 * accepts); later, rsockets rejects them.
 */
public final class RsocketOptions {
    private RsocketOptions() {}

    /** Send queue depth (work requests). */
    public static final SocketOption<Integer> RDMA_SQSIZE = new Opt("RDMA_SQSIZE", Native.OPT_RDMA_SQSIZE);
    /** Receive queue depth (work requests). */
    public static final SocketOption<Integer> RDMA_RQSIZE = new Opt("RDMA_RQSIZE", Native.OPT_RDMA_RQSIZE);
    /** Largest send carried inline in the work request (bytes). */
    public static final SocketOption<Integer> RDMA_INLINE = new Opt("RDMA_INLINE", Native.OPT_RDMA_INLINE);

    /**
     * sdp4j's busy-poll time in microseconds (0, the default, = off): a read, write, accept or connect that would
     * wait first re-checks the rsocket without sleeping for this long, trading a CPU for latency. The role of
     * libsdp's {@code recv_poll} and of rsocket's {@code polling_time} (which librdmacm reads once per process from
     * {@code /etc/rdma/rsocket/polling_time}); sdp4j's waits are its own, so this one is per socket. Java-side:
     * valid at any time, also after connect.
     */
    public static final SocketOption<Integer> BUSY_POLL = new JavaOpt("RDMA_BUSY_POLL");

    /** An option sdp4j implements itself (no rsetsockopt). */
    static final class JavaOpt implements SocketOption<Integer> {
        private final String name;

        JavaOpt(String name) {
            this.name = name;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public Class<Integer> type() {
            return Integer.class;
        }

        @Override
        public String toString() {
            return name;
        }
    }

    static final class Opt implements SocketOption<Integer> {
        private final String name;
        final int id;

        Opt(String name, int id) {
            this.name = name;
            this.id = id;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public Class<Integer> type() {
            return Integer.class;
        }

        @Override
        public String toString() {
            return name;
        }
    }
}
