package org.sdp4j.nio;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketOption;
import java.nio.channels.ServerSocketChannel;
import java.util.Set;

/**
 * {@code SdpServerSocketChannel.socket()}: the JDK's adaptor does the work, except what must see the sdp4j
 * channel — {@code bind} (the server rules decide; {@code com.sun.net.httpserver} binds this way), {@code accept}
 * (returns the socket of an sdp4j channel) and {@code getChannel}.
 */
final class SdpServerSocketAdaptor extends ServerSocket {
    private final SdpServerSocketChannel channel;
    private final ServerSocket jdk;

    SdpServerSocketAdaptor(SdpServerSocketChannel channel, ServerSocket jdk) throws IOException {
        super(new InertSocketImpl());
        this.channel = channel;
        this.jdk = jdk;
    }

    @Override
    public ServerSocketChannel getChannel() {
        return channel;
    }

    @Override
    public void bind(SocketAddress local) throws IOException {
        bind(local, 50);
    }

    @Override
    public void bind(SocketAddress local, int backlog) throws IOException {
        channel.bind(local, backlog < 1 ? 50 : backlog);
    }

    @Override
    public Socket accept() throws IOException {
        return channel.wrapAccepted(jdk.accept().getChannel()).socket();
    }

    @Override public InetAddress getInetAddress() { return jdk.getInetAddress(); }
    @Override public int getLocalPort() { return jdk.getLocalPort(); }
    @Override public SocketAddress getLocalSocketAddress() { return jdk.getLocalSocketAddress(); }
    @Override public void close() throws IOException { channel.close(); }
    @Override public boolean isBound() { return jdk.isBound(); }
    @Override public boolean isClosed() { return !channel.isOpen(); }
    @Override public void setSoTimeout(int timeout) throws SocketException { jdk.setSoTimeout(timeout); }
    @Override public int getSoTimeout() throws IOException { return jdk.getSoTimeout(); }
    @Override public void setReuseAddress(boolean on) throws SocketException { jdk.setReuseAddress(on); }
    @Override public boolean getReuseAddress() throws SocketException { return jdk.getReuseAddress(); }
    @Override public String toString() { return jdk.toString(); }
    @Override public void setReceiveBufferSize(int size) throws SocketException { jdk.setReceiveBufferSize(size); }
    @Override public int getReceiveBufferSize() throws SocketException { return jdk.getReceiveBufferSize(); }
    @Override public void setPerformancePreferences(int c, int l, int b) { jdk.setPerformancePreferences(c, l, b); }
    @Override public <T> ServerSocket setOption(SocketOption<T> name, T value) throws IOException { jdk.setOption(name, value); return this; }
    @Override public <T> T getOption(SocketOption<T> name) throws IOException { return jdk.getOption(name); }
    @Override public Set<SocketOption<?>> supportedOptions() { return jdk.supportedOptions(); }
}
