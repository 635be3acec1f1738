package org.sdp4j.net;

import java.io.IOException;
import java.net.SocketException;
import java.net.SocketImpl;
import java.net.SocketTimeoutException;

import org.sdp4j.jdk.JdkNet;
import org.sdp4j.transport.Poller;
import org.sdp4j.transport.Transport;
import org.sdp4j.transport.TransportChannel;

/**
 * A {@code both} listener: the JDK's TCP listener and a transport's listener on the same address and port, waited
 * on together in the transport's poller (rsockets' rpoll takes kernel descriptors too), so {@code accept()} returns
 * whichever connection comes first without a thread of sdp4j's.
 */
final class DualListener {
    static final int TCP = 0, RDMA = 1;

    final SocketImpl tcp;
    final SocketImpl rdma;
    private final TransportChannel rdmaChannel; // rdma itself, as its poller sees it
    final Transport transport;
    private final Poller poller;
    private final int[] fds;
    private final short[] events = {Poller.POLLIN, Poller.POLLIN};
    private final short[] revents = new short[2];
    /** Alternates which listener wins when both are ready, so neither starves. */
    private int turn;

    DualListener(SocketImpl tcp, int tcpFd, SocketImpl rdma, TransportChannel rdmaChannel, Transport transport,
                 Poller poller) {
        this.tcp = tcp;
        this.rdma = rdma;
        this.rdmaChannel = rdmaChannel;
        this.transport = transport;
        this.poller = poller;
        this.fds = new int[] {tcpFd, -1};
    }

    interface Closed {
        boolean get();
    }

    /**
     * Waits until one listener has a connection: {@link #TCP} or {@link #RDMA}. {@code timeoutMillis} 0 waits
     * forever, as {@code SO_TIMEOUT} 0 does. Serialised: concurrent acceptors take turns.
     */
    synchronized int await(int timeoutMillis, Closed closed) throws IOException {
        long deadline = timeoutMillis > 0 ? System.nanoTime() + timeoutMillis * 1_000_000L : 0;
        while (true) {
            if (closed.get()) {
                throw new SocketException("Socket closed");
            }
            long wait = -1;
            if (timeoutMillis > 0) {
                wait = (deadline - System.nanoTime()) / 1_000_000L;
                if (wait <= 0) {
                    throw new SocketTimeoutException("Accept timed out");
                }
            }
            revents[0] = revents[1] = 0;
            // counted in on the transport's listener: a close from another thread now only marks it and wakes this
            // poll, and the last one out releases it (an rsocket rclosed under rpoll is a use after free)
            int rfd = rdmaChannel.pollBegin(poller);
            if (rfd < 0) {
                throw new SocketException("Socket closed");
            }
            try {
                fds[RDMA] = rfd;
                poller.poll(fds, events, revents, 2, wait);
            } catch (java.nio.channels.ClosedSelectorException e) {
                throw new SocketException("Socket closed"); // close() released the poller first
            } finally {
                rdmaChannel.pollEnd(poller);
            }
            if (closed.get()) {
                throw new SocketException("Socket closed");
            }
            boolean t = revents[TCP] != 0, r = revents[RDMA] != 0;
            if (t && r) {
                turn ^= 1;
                return turn;
            }
            if (t) {
                return TCP;
            }
            if (r) {
                return RDMA;
            }
        }
    }

    /** Wakes a thread in {@link #await} and releases the transport's side; the TCP side is the caller's. */
    void close() {
        try {
            poller.wakeup();
        } catch (IOException ignore) {
            // closing anyway
        }
        JdkNet.closeQuietly(rdma);
        try {
            poller.close();
        } catch (IOException ignore) {
            // nothing left to release
        }
    }
}
