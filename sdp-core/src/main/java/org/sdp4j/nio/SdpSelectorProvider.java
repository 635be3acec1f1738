package org.sdp4j.nio;

import java.io.IOException;
import java.net.ProtocolFamily;
import java.net.StandardProtocolFamily;
import java.nio.channels.Channel;
import java.nio.channels.DatagramChannel;
import java.nio.channels.Pipe;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.AbstractSelector;
import java.nio.channels.spi.SelectorProvider;

import org.sdp4j.jdk.JdkNio;

/**
 * sdp4j's SelectorProvider, installed by the agent or with
 * {@code -Djava.nio.channels.spi.SelectorProvider=org.sdp4j.nio.SdpSelectorProvider}. Stream sockets over IP are
 * sdp4j channels decided by the rules; everything else (pipes, datagram channels, UNIX domain sockets, the
 * inherited channel) is the JDK's own, and the {@link SdpSelector} multiplexes all of them together.
 */
public final class SdpSelectorProvider extends SelectorProvider {
    private final SelectorProvider jdk;

    /** Loaded by {@link SelectorProvider#provider()} from the system property: must not call it back. */
    public SdpSelectorProvider() {
        this.jdk = JdkNio.defaultProvider();
    }

    @Override
    public DatagramChannel openDatagramChannel() throws IOException {
        return jdk.openDatagramChannel();
    }

    @Override
    public DatagramChannel openDatagramChannel(ProtocolFamily family) throws IOException {
        return jdk.openDatagramChannel(family);
    }

    @Override
    public Pipe openPipe() throws IOException {
        return jdk.openPipe();
    }

    @Override
    public AbstractSelector openSelector() throws IOException {
        return new SdpSelector(this, jdk.openSelector());
    }

    @Override
    public ServerSocketChannel openServerSocketChannel() throws IOException {
        return new SdpServerSocketChannel(this, jdk.openServerSocketChannel());
    }

    @Override
    public ServerSocketChannel openServerSocketChannel(ProtocolFamily family) throws IOException {
        ServerSocketChannel c = jdk.openServerSocketChannel(family);
        return isIp(family) ? new SdpServerSocketChannel(this, c) : c;
    }

    @Override
    public SocketChannel openSocketChannel() throws IOException {
        return new SdpSocketChannel(this, jdk.openSocketChannel(), false);
    }

    @Override
    public SocketChannel openSocketChannel(ProtocolFamily family) throws IOException {
        SocketChannel c = jdk.openSocketChannel(family);
        return isIp(family) ? new SdpSocketChannel(this, c, false) : c;
    }

    @Override
    public Channel inheritedChannel() throws IOException {
        return jdk.inheritedChannel();
    }

    private static boolean isIp(ProtocolFamily f) {
        return f == StandardProtocolFamily.INET || f == StandardProtocolFamily.INET6;
    }
}
