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
    private volatile int timeout;

    SdpServerSocketAdaptor(SdpServerSocketChannel channel) throws IOException {
        super(new InertSocketImpl());
        this.channel = channel;
    }

    /** The adaptor of the listener in use (the JDK's, or the transport's after an {@code sdp} rule). */
    private ServerSocket s() {
        return channel.currentSocket();
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
        if (channel.isDual()) { // both: one wait over the two listeners
            synchronized (channel.blockingLock()) {
                if (!channel.isBlocking()) {
                    throw new java.nio.channels.IllegalBlockingModeException();
                }
                return channel.accept(timeout).socket();
            }
        }
        ServerSocket ss = s();
        if (ss.getSoTimeout() != timeout) {
            ss.setSoTimeout(timeout); // set before an sdp rule moved the listener
        }
        return channel.wrapAccepted(ss.accept().getChannel()).socket();
    }

    @Override public InetAddress getInetAddress() { return s().getInetAddress(); }
    @Override public int getLocalPort() { return s().getLocalPort(); }
    @Override public SocketAddress getLocalSocketAddress() { return s().getLocalSocketAddress(); }
    @Override public void close() throws IOException { channel.close(); }
    @Override public boolean isBound() { return s().isBound(); }
    @Override public boolean isClosed() { return !channel.isOpen(); }
    @Override public void setSoTimeout(int t) throws SocketException { s().setSoTimeout(t); timeout = t; }
    @Override public int getSoTimeout() throws IOException { return timeout; }
    @Override public void setReuseAddress(boolean on) throws SocketException { s().setReuseAddress(on); }
    @Override public boolean getReuseAddress() throws SocketException { return s().getReuseAddress(); }
    @Override public String toString() { return s().toString(); }
    @Override public void setReceiveBufferSize(int size) throws SocketException { s().setReceiveBufferSize(size); }
    @Override public int getReceiveBufferSize() throws SocketException { return s().getReceiveBufferSize(); }
    @Override public void setPerformancePreferences(int c, int l, int b) { s().setPerformancePreferences(c, l, b); }
    @Override public <T> ServerSocket setOption(SocketOption<T> name, T value) throws IOException { s().setOption(name, value); return this; }
    @Override public <T> T getOption(SocketOption<T> name) throws IOException { return s().getOption(name); }
    @Override public Set<SocketOption<?>> supportedOptions() { return s().supportedOptions(); }
}
