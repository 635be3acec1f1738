package org.sdp4j.conf;

/**
 * The address family a rule gives a connection: libsdp's {@code use sdp|tcp|both}, and sdp4j's {@code use ucx}.
 * {@code ucx} is an addition libsdp itself rejects as a syntax error, so no valid libsdp.conf can contain it and
 * every valid libsdp.conf means what it meant before.
 */
public enum Family {
    /** RDMA only (rsockets); failure is the application's exception. */
    SDP,
    /** The JDK's own TCP implementation, untouched. */
    TCP,
    /** Try RDMA within a bounded time, fall back to TCP (server: listen on both). */
    BOTH,
    /**
     * sdp4j only: UCX (shared memory on one host) when the peer runs sdp4j too, otherwise TCP, with {@code both}'s
     * bounded attempt and memory of failures; a server listens on UCX and TCP on the same port.
     */
    UCX;

    /** The family whose transport carries this family's accelerated connections (BOTH rides SDP's). */
    public Family transportFamily() {
        return this == BOTH ? SDP : this;
    }

    public String keyword() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
