package org.sdp4j.transport;

/**
 * Implemented by channels whose readiness the kernel's poll cannot see (an rsocket): the sdp4j Selector
 * switches to the owning transport's {@link Poller} when one of these is registered.
 *
 * <p>A transport descriptor must not be released while a {@link Poller#poll} that includes it is in progress
 * (rsockets: closing an rsocket another thread is rpoll'ing uses freed state). So a selector brackets every poll
 * with {@link #pollBegin} and {@link #pollEnd}: a close in between marks the channel closed, wakes the poller,
 * and leaves the release to {@code pollEnd}.
 */
public interface TransportChannel {

    Transport transport();

    /** The transport's descriptor for this channel, as its {@link Poller} understands it. */
    int pollFd();

    /**
     * Counts a poll by {@code poller} in: until the matching {@link #pollEnd} the descriptor stays valid even if the
     * channel is closed meanwhile (the close then calls {@code poller.wakeup()}).
     *
     * @return the descriptor to poll, or -1 when the channel is closed (leave it out of the set)
     */
    default int pollBegin(Poller poller) {
        return pollFd();
    }

    /** Counts the poll out; releases the descriptor if the channel was closed during the poll. Only after a
     * {@link #pollBegin} that returned a descriptor. */
    default void pollEnd(Poller poller) {
    }
}
