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
 * {@code SdpSocketChannel.socket()}: the JDK's adaptor of the inner channel does the work, except what must
 * see the sdp4j channel — {@code connect} (the rules decide, with the adaptor's timeout) and {@code getChannel}.
 */
final class SdpSocketAdaptor extends Socket {
    private final SdpSocketChannel channel;
    private final Socket jdk;

    SdpSocketAdaptor(SdpSocketChannel channel, Socket jdk) throws SocketException {
        super(new InertSocketImpl());
        this.channel = channel;
        this.jdk = jdk;
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
        channel.connectFromAdaptor(remote, timeout, jdk);
    }

    @Override public void bind(SocketAddress local) throws IOException { jdk.bind(local); }
    @Override public InetAddress getInetAddress() { return jdk.getInetAddress(); }
    @Override public InetAddress getLocalAddress() { return jdk.getLocalAddress(); }
    @Override public int getPort() { return jdk.getPort(); }
    @Override public int getLocalPort() { return jdk.getLocalPort(); }
    @Override public SocketAddress getRemoteSocketAddress() { return jdk.getRemoteSocketAddress(); }
    @Override public SocketAddress getLocalSocketAddress() { return jdk.getLocalSocketAddress(); }
    @Override public InputStream getInputStream() throws IOException { return jdk.getInputStream(); }
    @Override public OutputStream getOutputStream() throws IOException { return jdk.getOutputStream(); }
    @Override public void setTcpNoDelay(boolean on) throws SocketException { jdk.setTcpNoDelay(on); }
    @Override public boolean getTcpNoDelay() throws SocketException { return jdk.getTcpNoDelay(); }
    @Override public void setSoLinger(boolean on, int linger) throws SocketException { jdk.setSoLinger(on, linger); }
    @Override public int getSoLinger() throws SocketException { return jdk.getSoLinger(); }
    @Override public void sendUrgentData(int data) throws IOException { jdk.sendUrgentData(data); }
    @Override public void setOOBInline(boolean on) throws SocketException { jdk.setOOBInline(on); }
    @Override public boolean getOOBInline() throws SocketException { return jdk.getOOBInline(); }
    @Override public void setSoTimeout(int timeout) throws SocketException { jdk.setSoTimeout(timeout); }
    @Override public int getSoTimeout() throws SocketException { return jdk.getSoTimeout(); }
    @Override public void setSendBufferSize(int size) throws SocketException { jdk.setSendBufferSize(size); }
    @Override public int getSendBufferSize() throws SocketException { return jdk.getSendBufferSize(); }
    @Override public void setReceiveBufferSize(int size) throws SocketException { jdk.setReceiveBufferSize(size); }
    @Override public int getReceiveBufferSize() throws SocketException { return jdk.getReceiveBufferSize(); }
    @Override public void setKeepAlive(boolean on) throws SocketException { jdk.setKeepAlive(on); }
    @Override public boolean getKeepAlive() throws SocketException { return jdk.getKeepAlive(); }
    @Override public void setTrafficClass(int tc) throws SocketException { jdk.setTrafficClass(tc); }
    @Override public int getTrafficClass() throws SocketException { return jdk.getTrafficClass(); }
    @Override public void setReuseAddress(boolean on) throws SocketException { jdk.setReuseAddress(on); }
    @Override public boolean getReuseAddress() throws SocketException { return jdk.getReuseAddress(); }
    @Override public void close() throws IOException { channel.close(); }
    @Override public void shutdownInput() throws IOException { jdk.shutdownInput(); }
    @Override public void shutdownOutput() throws IOException { jdk.shutdownOutput(); }
    @Override public String toString() { return jdk.toString(); }
    @Override public boolean isConnected() { return jdk.isConnected(); }
    @Override public boolean isBound() { return jdk.isBound(); }
    @Override public boolean isClosed() { return !channel.isOpen(); }
    @Override public boolean isInputShutdown() { return jdk.isInputShutdown(); }
    @Override public boolean isOutputShutdown() { return jdk.isOutputShutdown(); }
    @Override public void setPerformancePreferences(int c, int l, int b) { jdk.setPerformancePreferences(c, l, b); }
    @Override public <T> Socket setOption(SocketOption<T> name, T value) throws IOException { jdk.setOption(name, value); return this; }
    @Override public <T> T getOption(SocketOption<T> name) throws IOException { return jdk.getOption(name); }
    @Override public Set<SocketOption<?>> supportedOptions() { return jdk.supportedOptions(); }
}
