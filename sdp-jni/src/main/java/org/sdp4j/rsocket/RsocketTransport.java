package org.sdp4j.rsocket;

import java.io.IOException;
import java.net.SocketImpl;
import java.net.SocketOption;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.util.Set;

import org.sdp4j.conf.Family;
import org.sdp4j.transport.Poller;
import org.sdp4j.transport.Transport;

/**
 * The rsocket transport (rule family {@code sdp}): rdma-core's rsockets through libsdp4j.so. Found by
 * {@link java.util.ServiceLoader}; constructing it loads nothing, {@link #isAvailable()} loads and probes once
 * and never throws.
 */
public final class RsocketTransport implements Transport {
    /** The kernel's RDMA device list serves UCX across hosts too (it has no device watch of its own). */
    @Override
    public java.util.function.Supplier<String> rdmaDeviceCheck(java.net.InetAddress local) {
        RdmaDeviceWatch.Device d = RdmaDeviceWatch.deviceOf(local);
        if (d == null) {
            return null;
        }
        return new java.util.function.Supplier<>() {
            @Override
            public String get() {
                return RdmaDeviceWatch.goneNow(d) ? "RDMA device " + d + " was removed (it left the kernel's RDMA "
                        + "device list)" : null;
            }

            @Override
            public String toString() {
                return d.toString(); // the device's name, for the decision log
            }
        };
    }


    public RsocketTransport() {
        // cheap on purpose: ServiceLoader instantiates every transport, used or not
    }

    @Override
    public String name() {
        return "rsocket";
    }

    @Override
    public Family family() {
        return Family.SDP;
    }

    @Override
    public boolean isAvailable() {
        return Rsocket.isAvailable();
    }

    @Override
    public Throwable unavailabilityCause() {
        return Rsocket.unavailabilityCause();
    }

    @Override
    public SocketImpl newSocketImpl(boolean server) throws IOException {
        Rsocket.ensureAvailability();
        RsocketSocketImpl impl = new RsocketSocketImpl(server);
        impl.owner(this);
        return impl;
    }

    @Override
    public SocketChannel openSocketChannel(SelectorProvider provider) throws IOException {
        return new RsocketSocketChannel(provider, this);
    }

    @Override
    public ServerSocketChannel openServerSocketChannel(SelectorProvider provider) throws IOException {
        return new RsocketServerSocketChannel(provider, this);
    }

    /** {@link RsocketOptions}: accepted by sdp4j's channels before connect/bind, applied if rsockets carries them. */
    @Override
    public Set<SocketOption<?>> transportOptions() {
        return Set.of(RsocketOptions.RDMA_SQSIZE, RsocketOptions.RDMA_RQSIZE, RsocketOptions.RDMA_INLINE,
                RsocketOptions.BUSY_POLL);
    }

    @Override
    public Poller newPoller() throws IOException {
        return new RsocketPoller();
    }

    @Override
    public String toString() {
        return "rsocket transport (" + (isAvailable() ? "available" : "unavailable: " + unavailabilityCause().getMessage()) + ")";
    }
}
