package org.sdp4j.conf;

/** The address family a libsdp rule gives a connection: {@code use sdp|tcp|both}. */
public enum Family {
    /** RDMA only (rsockets); failure is the application's exception. */
    SDP,
    /** The JDK's own TCP implementation, untouched. */
    TCP,
    /** Try RDMA within a bounded time, fall back to TCP (server: listen on both). */
    BOTH;

    public String keyword() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
