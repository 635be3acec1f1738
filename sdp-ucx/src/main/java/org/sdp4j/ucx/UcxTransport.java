package org.sdp4j.ucx;

import java.io.IOException;
import java.net.SocketImpl;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;

import org.sdp4j.conf.Family;
import org.sdp4j.transport.Poller;
import org.sdp4j.transport.Transport;

/**
 * The UCX transport (rule family {@code ucx}): Java-to-Java streams over UCX shared memory through jucx. Found by
 * {@link java.util.ServiceLoader}; constructing it loads nothing, {@link #isAvailable()} probes once.
 */
public final class UcxTransport implements Transport {

    @Override
    public String name() {
        return "ucx";
    }

    @Override
    public Family family() {
        return Family.UCX;
    }

    @Override
    public boolean isAvailable() {
        return Ucx.isAvailable();
    }

    @Override
    public Throwable unavailabilityCause() {
        return Ucx.unavailabilityCause();
    }

    @Override
    public SocketImpl newSocketImpl(boolean server) throws IOException {
        Ucx.context();
        return server ? new UcxServerSocketImpl() : new UcxSocketImpl();
    }

    /** A {@link UcxSocketChannel}: connects over the rendezvous (blocking, see there), polled by {@link UcxPoller}. */
    @Override
    public SocketChannel openSocketChannel(SelectorProvider provider) throws IOException {
        Ucx.context();
        return new UcxSocketChannel(provider, this);
    }

    /** A {@link UcxServerSocketChannel}: the rendezvous listener of a {@code ucx} server channel. */
    @Override
    public ServerSocketChannel openServerSocketChannel(SelectorProvider provider) throws IOException {
        Ucx.context();
        return new UcxServerSocketChannel(provider, this);
    }

    /** Polls UCX channels and kernel descriptors together: spins, then naps in 1 ms slices ({@link UcxPoller}). */
    @Override
    public Poller newPoller() throws IOException {
        Ucx.context();
        return new UcxPoller();
    }

    /** For {@code selftest}: the shared-memory transports and whether the descriptor budget works here. */
    @Override
    public String describe() {
        return "tls=" + Ucx.transports() + "; " + Descriptors.budget();
    }

    @Override
    public String toString() {
        return "ucx transport (" + (isAvailable() ? "available, tls=" + Ucx.transports()
                : "unavailable: " + unavailabilityCause().getMessage()) + ")";
    }
}
