package org.sdp4j.transport;

import java.io.Closeable;
import java.io.IOException;

/**
 * Waits on a mixture of transport descriptors and kernel descriptors in one call, with poll(2) semantics.
 * One per Selector; not thread-safe except {@link #wakeup()}.
 */
public interface Poller extends Closeable {
    short POLLIN = 0x001, POLLPRI = 0x002, POLLOUT = 0x004, POLLERR = 0x008, POLLHUP = 0x010, POLLNVAL = 0x020;

    /**
     * Polls {@code fds[0..n)} for {@code events}, writes {@code revents}; waits at most {@code timeoutMillis}
     * (-1 forever, 0 not at all) or until {@link #wakeup()}. Returns the number of descriptors with events.
     */
    int poll(int[] fds, short[] events, short[] revents, int n, long timeoutMillis) throws IOException;

    /** Makes a concurrent or the next {@link #poll} return at once. */
    void wakeup() throws IOException;
}
