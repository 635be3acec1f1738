package org.sdp4j.conf;

/**
 * The address family a rule gives a connection: libsdp's {@code use sdp|tcp|both}, and sdp4j's {@code use ucx} and
 * {@code use smc}. Both are additions libsdp itself rejects as a syntax error, so no valid libsdp.conf can contain
 * them and every valid libsdp.conf means what it meant before.
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
    UCX,
    /**
     * sdp4j only: the kernel's SMC-R (Linux SMC, {@code AF_SMC}/{@code IPPROTO_SMC}) under the JDK's own socket.
     * The protocol itself falls back to TCP where the peer or the path cannot do SMC; where this kernel has no SMC
     * at all the connection is plain TCP, said in the decision log.
     */
    SMC;

    /** The family whose transport carries this family's accelerated connections (BOTH rides SDP's). */
    public Family transportFamily() {
        return this == BOTH ? SDP : this;
    }

    public String keyword() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
