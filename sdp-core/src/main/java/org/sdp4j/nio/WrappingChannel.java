package org.sdp4j.nio;

import java.nio.channels.SelectableChannel;

/**
 * An sdp4j channel in front of the channel that really does the I/O (the JDK's own for TCP). The
 * {@link SdpSelector} registers that inner channel with the JDK selector it runs on, and tells the wrapper
 * about its keys so that the wrapper can release them when it goes back to blocking mode.
 */
interface WrappingChannel {
    /**
     * The channel whose readiness the selector waits for: a JDK channel, or an RDMA transport's channel (a
     * {@link org.sdp4j.transport.TransportChannel}); it may change over the channel's life (an sdp4j channel connects
     * over rsockets, or falls back to TCP), and the selector follows it at each select.
     */
    SelectableChannel kernelChannel();

    /** A second channel to watch together with {@link #kernelChannel()} (a {@code both} listener's TCP side). */
    default SelectableChannel secondChannel() {
        return null;
    }

    /**
     * Nanoseconds until a pending connect's RDMA attempt gives up ({@code both}); {@code Long.MAX_VALUE} when there is
     * none. When it passes, the selector reports OP_CONNECT so that {@code finishConnect} can fall back to TCP.
     */
    default long nanosUntilDeadline() {
        return Long.MAX_VALUE;
    }

    void registered(SdpSelectionKey key);

    void deregistered(SdpSelectionKey key);
}
