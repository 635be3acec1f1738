package org.sdp4j.boot;

import java.io.IOException;
import java.net.ProtocolFamily;
import java.nio.channels.Channel;
import java.nio.channels.DatagramChannel;
import java.nio.channels.Pipe;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.AbstractSelector;
import java.nio.channels.spi.SelectorProvider;

/**
 * What {@code -Djava.nio.channels.spi.SelectorProvider} names when the agent runs: the JDK instantiates the
 * property's class through the system class loader, which cannot see sdp4j's module layer, so this class on the
 * class path hands every call to sdp4j's provider in the layer. Channels and selectors are the layer's own
 * (their {@code provider()} is sdp4j's provider); this class only forwards the public SPI and holds nothing else.
 */
public final class LayerSelectorProvider extends SelectorProvider {
    private static volatile SelectorProvider published;

    private final SelectorProvider real;

    /** Called by the JDK ({@link SelectorProvider#provider()}), after the agent {@link #publish}ed sdp4j's. */
    public LayerSelectorProvider() {
        SelectorProvider p = published;
        if (p == null) {
            throw new IllegalStateException(getClass().getName() + " is sdp4j's agent's own provider; without the"
                    + " agent use -Djava.nio.channels.spi.SelectorProvider=org.sdp4j.nio.SdpSelectorProvider");
        }
        real = p;
    }

    static void publish(SelectorProvider p) {
        published = p;
    }

    @Override
    public DatagramChannel openDatagramChannel() throws IOException {
        return real.openDatagramChannel();
    }

    @Override
    public DatagramChannel openDatagramChannel(ProtocolFamily family) throws IOException {
        return real.openDatagramChannel(family);
    }

    @Override
    public Pipe openPipe() throws IOException {
        return real.openPipe();
    }

    @Override
    public AbstractSelector openSelector() throws IOException {
        return real.openSelector();
    }

    @Override
    public ServerSocketChannel openServerSocketChannel() throws IOException {
        return real.openServerSocketChannel();
    }

    @Override
    public ServerSocketChannel openServerSocketChannel(ProtocolFamily family) throws IOException {
        return real.openServerSocketChannel(family);
    }

    @Override
    public SocketChannel openSocketChannel() throws IOException {
        return real.openSocketChannel();
    }

    @Override
    public SocketChannel openSocketChannel(ProtocolFamily family) throws IOException {
        return real.openSocketChannel(family);
    }

    @Override
    public Channel inheritedChannel() throws IOException {
        return real.inheritedChannel();
    }

    @Override
    public String toString() {
        return real.toString();
    }
}
