package org.sdp4j.transport;

/**
 * Implemented by channels whose readiness the kernel's poll cannot see (an rsocket): the sdp4j Selector
 * switches to the owning transport's {@link Poller} when one of these is registered.
 */
public interface TransportChannel {

    Transport transport();

    /** The transport's descriptor for this channel, as its {@link Poller} understands it. */
    int pollFd();
}
