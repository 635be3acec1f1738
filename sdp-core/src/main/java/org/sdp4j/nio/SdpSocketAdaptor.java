package org.sdp4j.nio;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketOption;
import java.nio.channels.SocketChannel;
import java.util.Set;

/**
 * {@code SdpSocketChannel.socket()}: the adaptor of the channel in use (the JDK's, or after an RDMA connect the
 * transport channel's) does the work, except what must see the sdp4j channel — {@code connect} (the rules decide,
 * with the adaptor's timeout) and {@code getChannel}.
 */
final class SdpSocketAdaptor extends Socket {
    private final SdpSocketChannel channel;

    SdpSocketAdaptor(SdpSocketChannel channel) throws SocketException {
        super(new InertSocketImpl());
        this.channel = channel;
    }

    /** The socket adaptor of the channel in use. */
    private Socket s() {
        return channel.currentSocket();
    }

    @Override
    public SocketChannel getChannel() {
        return channel;
    }

    @Override
    public void connect(SocketAddress remote) throws IOException {
        connect(remote, 0);
    }

    @Override
    public void connect(SocketAddress remote, int timeout) throws IOException {
        channel.connectFromAdaptor(remote, timeout);
    }

    @Override public void bind(SocketAddress local) throws IOException { s().bind(local); }
    @Override public InetAddress getInetAddress() { return s().getInetAddress(); }
    @Override public InetAddress getLocalAddress() { return s().getLocalAddress(); }
    @Override public int getPort() { return s().getPort(); }
    @Override public int getLocalPort() { return s().getLocalPort(); }
    @Override public SocketAddress getRemoteSocketAddress() { return s().getRemoteSocketAddress(); }
    @Override public SocketAddress getLocalSocketAddress() { return s().getLocalSocketAddress(); }
    @Override public InputStream getInputStream() throws IOException { return s().getInputStream(); }
    @Override public OutputStream getOutputStream() throws IOException { return s().getOutputStream(); }
    @Override public void setTcpNoDelay(boolean on) throws SocketException { s().setTcpNoDelay(on); }
    @Override public boolean getTcpNoDelay() throws SocketException { return s().getTcpNoDelay(); }
    @Override public void setSoLinger(boolean on, int linger) throws SocketException { s().setSoLinger(on, linger); }
    @Override public int getSoLinger() throws SocketException { return s().getSoLinger(); }
    @Override public void sendUrgentData(int data) throws IOException { s().sendUrgentData(data); }
    @Override public void setOOBInline(boolean on) throws SocketException { s().setOOBInline(on); }
    @Override public boolean getOOBInline() throws SocketException { return s().getOOBInline(); }
    @Override public void setSoTimeout(int timeout) throws SocketException { s().setSoTimeout(timeout); }
    @Override public int getSoTimeout() throws SocketException { return s().getSoTimeout(); }
    @Override public void setSendBufferSize(int size) throws SocketException { s().setSendBufferSize(size); }
    @Override public int getSendBufferSize() throws SocketException { return s().getSendBufferSize(); }
    @Override public void setReceiveBufferSize(int size) throws SocketException { s().setReceiveBufferSize(size); }
    @Override public int getReceiveBufferSize() throws SocketException { return s().getReceiveBufferSize(); }
    @Override public void setKeepAlive(boolean on) throws SocketException { s().setKeepAlive(on); }
    @Override public boolean getKeepAlive() throws SocketException { return s().getKeepAlive(); }
    @Override public void setTrafficClass(int tc) throws SocketException { s().setTrafficClass(tc); }
    @Override public int getTrafficClass() throws SocketException { return s().getTrafficClass(); }
    @Override public void setReuseAddress(boolean on) throws SocketException { s().setReuseAddress(on); }
    @Override public boolean getReuseAddress() throws SocketException { return s().getReuseAddress(); }
    @Override public void close() throws IOException { channel.close(); }
    @Override public void shutdownInput() throws IOException { s().shutdownInput(); }
    @Override public void shutdownOutput() throws IOException { s().shutdownOutput(); }
    @Override public String toString() { return s().toString(); }
    @Override public boolean isConnected() { return s().isConnected(); }
    @Override public boolean isBound() { return s().isBound(); }
    @Override public boolean isClosed() { return !channel.isOpen(); }
    @Override public boolean isInputShutdown() { return s().isInputShutdown(); }
    @Override public boolean isOutputShutdown() { return s().isOutputShutdown(); }
    @Override public void setPerformancePreferences(int c, int l, int b) { s().setPerformancePreferences(c, l, b); }
    @Override public <T> Socket setOption(SocketOption<T> name, T value) throws IOException { s().setOption(name, value); return this; }
    @Override public <T> T getOption(SocketOption<T> name) throws IOException { return s().getOption(name); }
    @Override public Set<SocketOption<?>> supportedOptions() { return s().supportedOptions(); }
}
