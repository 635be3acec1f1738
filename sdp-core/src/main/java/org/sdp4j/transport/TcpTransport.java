package org.sdp4j.transport;

import java.io.IOException;
import java.net.SocketImpl;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;

import org.sdp4j.conf.Family;
import org.sdp4j.jdk.JdkNet;
import org.sdp4j.jdk.JdkNio;

/** Plain TCP: the JDK's own implementations, handed out untouched (no copy, thread or buffer of sdp4j's). */
public final class TcpTransport implements Transport {
    public static final TcpTransport INSTANCE = new TcpTransport();

    private TcpTransport() {}

    @Override public String name() { return "tcp"; }
    @Override public Family family() { return Family.TCP; }
    @Override public boolean isAvailable() { return true; }
    @Override public Throwable unavailabilityCause() { return null; }

    /** Client: the platform impl behind the JDK's SOCKS layer, exactly what {@code new Socket()} gets without sdp4j. */
    @Override
    public SocketImpl newSocketImpl(boolean server) throws IOException {
        return server ? JdkNet.newPlatformImpl(true) : JdkNet.newClientImplAsJdkDoes();
    }

    @Override
    public SocketChannel openSocketChannel(SelectorProvider provider) throws IOException {
        return JdkNio.defaultProvider().openSocketChannel();
    }

    @Override
    public ServerSocketChannel openServerSocketChannel(SelectorProvider provider) throws IOException {
        return JdkNio.defaultProvider().openServerSocketChannel();
    }
}
