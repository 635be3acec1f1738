package org.sdp4j.nio;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.IllegalBlockingModeException;
import java.nio.channels.SocketChannel;
import java.util.Objects;
import java.util.Set;

/**
 * {@code socket()} of a transport's SocketChannel (rsockets, UCX): a java.net.Socket over the channel, as the JDK's
 * socket adaptor is. Transport-independent: everything goes through the channel's public API plus its shutdown state.
 */
public final class TransportSocketAdaptor extends Socket {
    /** What the adaptor needs of a channel beyond SocketChannel's API: timed connect and read, shutdown state. */
    public interface Channel {
        boolean connect(SocketAddress remote, int timeoutMillis) throws IOException;

        long read(ByteBuffer[] dsts, int offset, int length, int timeoutMillis) throws IOException;

        boolean isInputShutdown();

        boolean isOutputShutdown();
    }

    private final SocketChannel ch;
    private final Channel state;
    private final String transport;
    private volatile int timeout;

    /** @param transport the transport's name, for "not supported" messages */
    public <C extends SocketChannel & Channel> TransportSocketAdaptor(C ch, String transport)
            throws SocketException {
        super(new InertSocketImpl());
        this.ch = ch;
        this.state = ch;
        this.transport = transport;
    }

    @Override
    public SocketChannel getChannel() {
        return ch;
    }

    @Override
    public void connect(SocketAddress remote) throws IOException {
        connect(remote, 0);
    }

    @Override
    public void connect(SocketAddress remote, int timeoutMillis) throws IOException {
        if (remote == null) {
            throw new IllegalArgumentException("connect: The address can't be null");
        }
        if (timeoutMillis < 0) {
            throw new IllegalArgumentException("connect: timeout can't be negative");
        }
        synchronized (ch.blockingLock()) {
            if (!ch.isBlocking()) {
                throw new IllegalBlockingModeException();
            }
            state.connect(remote, timeoutMillis);
        }
    }

    @Override
    public void bind(SocketAddress local) throws IOException {
        ch.bind(local);
    }

    private InetSocketAddress remote() {
        try {
            return (InetSocketAddress) ch.getRemoteAddress();
        } catch (IOException e) {
            return null;
        }
    }

    private InetSocketAddress local() {
        try {
            return (InetSocketAddress) ch.getLocalAddress();
        } catch (IOException e) {
            return null;
        }
    }

    @Override public InetAddress getInetAddress() { InetSocketAddress a = remote(); return a == null ? null : a.getAddress(); }
    @Override public int getPort() { InetSocketAddress a = remote(); return a == null ? 0 : a.getPort(); }
    @Override public SocketAddress getRemoteSocketAddress() { return remote(); }

    @Override
    public InetAddress getLocalAddress() {
        InetSocketAddress a = local();
        return a == null ? new InetSocketAddress(0).getAddress() : a.getAddress();
    }

    @Override public int getLocalPort() { InetSocketAddress a = local(); return a == null ? -1 : a.getPort(); }
    @Override public SocketAddress getLocalSocketAddress() { return local(); }

    private void ensureStreamable() throws IOException {
        if (!ch.isOpen()) {
            throw new SocketException("Socket is closed");
        }
        if (!ch.isConnected()) {
            throw new SocketException("Socket is not connected");
        }
    }

    @Override
    public InputStream getInputStream() throws IOException {
        ensureStreamable();
        if (state.isInputShutdown()) {
            throw new SocketException("Socket input is shutdown");
        }
        return new InputStream() {
            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                int n = read(one, 0, 1);
                return n <= 0 ? -1 : one[0] & 0xFF;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                Objects.checkFromIndexSize(off, len, b.length);
                if (len == 0) {
                    return 0;
                }
                synchronized (ch.blockingLock()) {
                    if (!ch.isBlocking()) {
                        throw new IllegalBlockingModeException();
                    }
                    return (int) state.read(new ByteBuffer[] {ByteBuffer.wrap(b, off, len)}, 0, 1, timeout);
                }
            }

            @Override
            public void close() throws IOException {
                ch.close();
            }
        };
    }

    @Override
    public OutputStream getOutputStream() throws IOException {
        ensureStreamable();
        if (state.isOutputShutdown()) {
            throw new SocketException("Socket output is shutdown");
        }
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                Objects.checkFromIndexSize(off, len, b.length);
                synchronized (ch.blockingLock()) {
                    if (!ch.isBlocking()) {
                        throw new IllegalBlockingModeException();
                    }
                    ByteBuffer bb = ByteBuffer.wrap(b, off, len);
                    while (bb.hasRemaining()) {
                        ch.write(bb);
                    }
                }
            }

            @Override
            public void close() throws IOException {
                ch.close();
            }
        };
    }

    private <T> void set(SocketOption<T> name, T value) throws SocketException {
        try {
            ch.setOption(name, value);
        } catch (SocketException e) {
            throw e;
        } catch (IOException e) {
            throw (SocketException) new SocketException(e.getMessage()).initCause(e);
        }
    }

    private <T> T get(SocketOption<T> name) throws SocketException {
        try {
            return ch.getOption(name);
        } catch (SocketException e) {
            throw e;
        } catch (IOException e) {
            throw (SocketException) new SocketException(e.getMessage()).initCause(e);
        }
    }

    @Override public void setTcpNoDelay(boolean on) throws SocketException { set(StandardSocketOptions.TCP_NODELAY, on); }
    @Override public boolean getTcpNoDelay() throws SocketException { return get(StandardSocketOptions.TCP_NODELAY); }
    @Override public void setSoLinger(boolean on, int linger) throws SocketException { set(StandardSocketOptions.SO_LINGER, on ? Math.max(0, Math.min(linger, 65535)) : -1); }
    @Override public int getSoLinger() throws SocketException { return get(StandardSocketOptions.SO_LINGER); }
    @Override public void sendUrgentData(int data) throws IOException { throw new SocketException("sendUrgentData: not supported over " + transport); }
    @Override public void setOOBInline(boolean on) throws SocketException { if (on) { throw new SocketException("SO_OOBINLINE: not supported over " + transport); } }
    @Override public boolean getOOBInline() throws SocketException { return false; }

    @Override
    public void setSoTimeout(int t) throws SocketException {
        if (!ch.isOpen()) {
            throw new SocketException("Socket is closed");
        }
        if (t < 0) {
            throw new IllegalArgumentException("timeout can't be negative");
        }
        timeout = t;
    }

    @Override public int getSoTimeout() throws SocketException { return timeout; }
    @Override public void setSendBufferSize(int size) throws SocketException { if (size <= 0) { throw new IllegalArgumentException("Invalid send size"); } set(StandardSocketOptions.SO_SNDBUF, size); }
    @Override public int getSendBufferSize() throws SocketException { return get(StandardSocketOptions.SO_SNDBUF); }
    @Override public void setReceiveBufferSize(int size) throws SocketException { if (size <= 0) { throw new IllegalArgumentException("Invalid receive size"); } set(StandardSocketOptions.SO_RCVBUF, size); }
    @Override public int getReceiveBufferSize() throws SocketException { return get(StandardSocketOptions.SO_RCVBUF); }
    @Override public void setKeepAlive(boolean on) throws SocketException { set(StandardSocketOptions.SO_KEEPALIVE, on); }
    @Override public boolean getKeepAlive() throws SocketException { return get(StandardSocketOptions.SO_KEEPALIVE); }
    @Override public void setTrafficClass(int tc) throws SocketException { set(StandardSocketOptions.IP_TOS, tc); }
    @Override public int getTrafficClass() throws SocketException { return get(StandardSocketOptions.IP_TOS); }
    @Override public void setReuseAddress(boolean on) throws SocketException { set(StandardSocketOptions.SO_REUSEADDR, on); }
    @Override public boolean getReuseAddress() throws SocketException { return get(StandardSocketOptions.SO_REUSEADDR); }
    @Override public void close() throws IOException { ch.close(); }
    @Override public void shutdownInput() throws IOException { ch.shutdownInput(); }
    @Override public void shutdownOutput() throws IOException { ch.shutdownOutput(); }
    @Override public boolean isConnected() { return ch.isConnected(); }
    @Override public boolean isBound() { return local() != null; }
    @Override public boolean isClosed() { return !ch.isOpen(); }
    @Override public boolean isInputShutdown() { return state.isInputShutdown(); }
    @Override public boolean isOutputShutdown() { return state.isOutputShutdown(); }
    @Override public void setPerformancePreferences(int c, int l, int b) { }
    @Override public <T> Socket setOption(SocketOption<T> name, T value) throws IOException { ch.setOption(name, value); return this; }
    @Override public <T> T getOption(SocketOption<T> name) throws IOException { return ch.getOption(name); }
    @Override public Set<SocketOption<?>> supportedOptions() { return ch.supportedOptions(); }

    @Override
    public String toString() {
        return ch.isConnected() ? "Socket[addr=" + getInetAddress() + ",port=" + getPort() + ",localport="
                + getLocalPort() + "]" : "Socket[unconnected]";
    }

    /** For a transport's own ServerSocket adaptor: the do-nothing SocketImpl its constructor wants. */
    public static java.net.SocketImpl inertImpl() {
        return new InertSocketImpl();
    }
}
