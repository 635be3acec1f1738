package org.sdp4j.nio;

import java.nio.channels.SelectableChannel;

/**
 * An sdp4j channel in front of the channel that really does the I/O (the JDK's own for TCP). The
 * {@link SdpSelector} registers that inner channel with the JDK selector it runs on, and tells the wrapper
 * about its keys so that the wrapper can release them when it goes back to blocking mode.
 */
interface WrappingChannel {
    /** The channel whose readiness the selector waits for. */
    SelectableChannel kernelChannel();

    void registered(SdpSelectionKey key);

    void deregistered(SdpSelectionKey key);
}
