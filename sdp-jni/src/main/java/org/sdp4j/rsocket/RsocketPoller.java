package org.sdp4j.rsocket;

import java.io.IOException;
import java.nio.channels.ClosedSelectorException;
import java.util.Objects;

import org.sdp4j.transport.Poller;

/**
 * {@link Poller} over rsockets' {@code rpoll}: rsocket descriptors and kernel descriptors (pipes, TCP sockets,
 * eventfds) in one call, plus a private eventfd for {@link #wakeup()}. poll(2) semantics: negative descriptors are
 * ignored, a descriptor that is neither an rsocket nor open reports POLLNVAL.
 *
 * <p>An rsocket must not be closed while it is in a {@link #poll} in progress (librdmacm would use freed state):
 * the selector deregisters before it closes, as the JDK's selectors do for kernel descriptors.
 */
final class RsocketPoller implements Poller {
    private final Object lock = new Object();
    private int efd; // guarded by lock
    private boolean closed, polling;

    RsocketPoller() throws IOException {
        Rsocket.ensureAvailability();
        efd = Native.eventfd();
    }

    @Override
    public int poll(int[] fds, short[] events, short[] revents, int n, long timeoutMillis) throws IOException {
        Objects.requireNonNull(fds, "fds");
        Objects.requireNonNull(events, "events");
        Objects.requireNonNull(revents, "revents");
        int ev;
        synchronized (lock) {
            if (closed) {
                throw new ClosedSelectorException();
            }
            if (polling) {
                throw new IllegalStateException("Poller.poll is not reentrant");
            }
            polling = true;
            ev = efd;
        }
        try {
            int t = timeoutMillis < 0 ? -1 : (int) Math.min(Integer.MAX_VALUE, timeoutMillis);
            if (t == 0 || !RsocketParker.onVirtualThread()) {
                return Native.pollMany(fds, events, revents, n, ev, t, true);
            }
            // a virtual thread parks; an interrupt wakes the selector through wakeup() as usual
            int r = RsocketParker.awaitMany(fds, events, revents, n, ev, t);
            if ((r & Native.WOKEN) != 0) {
                Native.pollMany(fds, events, new short[n], 0, ev, 0, true); // drains the wakeup eventfd
            }
            return r & 0xffff;
        } finally {
            int toClose = -1;
            synchronized (lock) {
                polling = false;
                if (closed) {
                    toClose = efd;
                    efd = -1;
                }
            }
            if (toClose >= 0) {
                Native.closeEvent(toClose);
            }
        }
    }

    @Override
    public void wakeup() throws IOException {
        synchronized (lock) {
            if (!closed) {
                Native.signal(efd);
            }
        }
    }

    @Override
    public void close() throws IOException {
        int toClose;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            if (polling) {
                Native.signal(efd); // the poll returns and closes the eventfd
                return;
            }
            toClose = efd;
            efd = -1;
        }
        Native.closeEvent(toClose);
    }
}
