package org.sdp4j.nio;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.nio.ByteBuffer;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.util.Set;

import org.sdp4j.Sdp4j;
import org.sdp4j.transport.Transport;

/**
 * The SocketChannel of sdp4j's provider: the JDK's own channel underneath, decided at {@code connect} by the rules.
 * Reads and writes go straight to the inner channel with the caller's buffers.
 *
 * <p>The rsocket transport has no NIO channel yet: a {@code sdp} rule fails the connect saying so, a {@code both}
 * rule falls back to TCP with that reason in the log.
 */
final class SdpSocketChannel extends SocketChannel implements WrappingChannel {
    private final SocketChannel delegate;
    private final KeyList keys = new KeyList();
    private volatile boolean decided;
    private volatile Socket adaptor;

    /** @param decided true for an accepted channel: already connected, nothing left to decide */
    SdpSocketChannel(SelectorProvider provider, SocketChannel delegate, boolean decided) {
        super(provider);
        this.delegate = delegate;
        this.decided = decided;
    }

    @Override
    public SelectableChannel kernelChannel() {
        return delegate;
    }

    @Override
    public void registered(SdpSelectionKey key) {
        keys.add(key);
    }

    @Override
    public void deregistered(SdpSelectionKey key) {
        keys.remove(key);
    }

    @Override
    public boolean connect(SocketAddress remote) throws IOException {
        if (decided || !(remote instanceof InetSocketAddress isa)) {
            return afterClose(() -> delegate.connect(remote));
        }
        boolean[] connected = new boolean[1];
        try {
            Sdp4j.router().connect(isa, 0, SdpSocketChannel::noNioTransport,
                    t -> connected[0] = afterClose(() -> delegate.connect(isa)));
        } catch (IOException e) {
            closeIfInnerClosed();
            throw e;
        } finally {
            decided = true;
        }
        return connected[0];
    }

    static void noNioTransport(Transport t, int timeout) throws IOException {
        throw new IOException("NIO channels over " + t.name() + " are not implemented yet");
    }

    @Override
    public boolean finishConnect() throws IOException {
        return afterClose(delegate::finishConnect);
    }

    @Override
    public boolean isConnected() {
        return delegate.isConnected();
    }

    @Override
    public boolean isConnectionPending() {
        return delegate.isConnectionPending();
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        try {
            return delegate.read(dst);
        } catch (IOException e) {
            closeIfInnerClosed();
            throw e;
        }
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        try {
            return delegate.read(dsts, offset, length);
        } catch (IOException e) {
            closeIfInnerClosed();
            throw e;
        }
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        try {
            return delegate.write(src);
        } catch (IOException e) {
            closeIfInnerClosed();
            throw e;
        }
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        try {
            return delegate.write(srcs, offset, length);
        } catch (IOException e) {
            closeIfInnerClosed();
            throw e;
        }
    }

    @Override
    public SocketChannel bind(SocketAddress local) throws IOException {
        delegate.bind(local);
        return this;
    }

    @Override
    public <T> SocketChannel setOption(SocketOption<T> name, T value) throws IOException {
        delegate.setOption(name, value);
        return this;
    }

    @Override
    public <T> T getOption(SocketOption<T> name) throws IOException {
        return delegate.getOption(name);
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return delegate.supportedOptions();
    }

    @Override
    public SocketChannel shutdownInput() throws IOException {
        delegate.shutdownInput();
        return this;
    }

    @Override
    public SocketChannel shutdownOutput() throws IOException {
        delegate.shutdownOutput();
        return this;
    }

    /** An adaptor whose {@code connect} is decided by the rules and whose {@code getChannel()} is this channel. */
    @Override
    public Socket socket() {
        Socket s = adaptor;
        if (s == null) {
            synchronized (this) {
                s = adaptor;
                if (s == null) {
                    try {
                        adaptor = s = new SdpSocketAdaptor(this, delegate.socket());
                    } catch (java.net.SocketException e) {
                        throw new IllegalStateException(e);
                    }
                }
            }
        }
        return s;
    }

    /** {@code socket().connect(remote, timeout)}: blocking, with the JDK adaptor's timeout semantics. */
    void connectFromAdaptor(SocketAddress remote, int timeout, Socket jdkAdaptor) throws IOException {
        try {
            if (decided || !(remote instanceof InetSocketAddress isa)) {
                jdkAdaptor.connect(remote, timeout);
                return;
            }
            try {
                Sdp4j.router().connect(isa, timeout, SdpSocketChannel::noNioTransport,
                        t -> jdkAdaptor.connect(isa, t));
            } finally {
                decided = true;
            }
        } catch (IOException e) {
            closeIfInnerClosed();
            throw e;
        }
    }

    @Override
    public SocketAddress getRemoteAddress() throws IOException {
        return delegate.getRemoteAddress();
    }

    @Override
    public SocketAddress getLocalAddress() throws IOException {
        return delegate.getLocalAddress();
    }

    @Override
    protected void implCloseSelectableChannel() throws IOException {
        delegate.close();
    }

    @Override
    protected void implConfigureBlocking(boolean block) throws IOException {
        if (block) {
            keys.cancelInnerKeys();
        }
        delegate.configureBlocking(block);
    }

    @Override
    public String toString() {
        return delegate.toString(); // as without sdp4j: the JDK names the abstract channel type, not the class
    }

    /** An interrupt or an asynchronous close closed the inner channel: this channel is closed with it. */
    private void closeIfInnerClosed() {
        if (!delegate.isOpen() && isOpen()) {
            try {
                close();
            } catch (IOException ignore) {
                // the inner channel is closed already; nothing left to release
            }
        }
    }

    private interface IoCall {
        boolean call() throws IOException;
    }

    private boolean afterClose(IoCall c) throws IOException {
        try {
            return c.call();
        } catch (IOException e) {
            closeIfInnerClosed();
            throw e;
        }
    }
}
