package org.sdp4j.testing;

import java.io.IOException;
import java.net.SocketImpl;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;

import org.sdp4j.conf.Family;
import org.sdp4j.transport.Transport;

/**
 * An RDMA-family transport for testing the Router's decisions on a host without RDMA: available or not as the
 * test says. The Router never touches its sockets (the callbacks do), so it has none.
 */
public final class FakeRdmaTransport implements Transport {
    private final Throwable cause;

    public FakeRdmaTransport(Throwable unavailabilityCause) {
        this.cause = unavailabilityCause;
    }

    @Override public String name() { return "fakerdma"; }
    @Override public Family family() { return Family.SDP; }
    @Override public boolean isAvailable() { return cause == null; }
    @Override public Throwable unavailabilityCause() { return cause; }

    @Override
    public SocketImpl newSocketImpl(boolean server) {
        throw new UnsupportedOperationException("the Router tests use callbacks");
    }

    @Override
    public SocketChannel openSocketChannel(SelectorProvider provider) {
        throw new UnsupportedOperationException();
    }

    @Override
    public ServerSocketChannel openServerSocketChannel(SelectorProvider provider) {
        throw new UnsupportedOperationException();
    }
}
