package org.sdp4j.nio;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.util.Set;

import org.sdp4j.Sdp4j;
import org.sdp4j.transport.Router;
import org.sdp4j.transport.Transport;

/**
 * The ServerSocketChannel of sdp4j's provider: the JDK's own channel underneath, decided at {@code bind} by the
 * server rules against the address and port actually bound. Accepted channels are sdp4j channels too, so that a
 * program sees one provider throughout.
 */
final class SdpServerSocketChannel extends ServerSocketChannel implements WrappingChannel {
    private final ServerSocketChannel delegate;
    private final KeyList keys = new KeyList();
    private volatile ServerSocket adaptor;

    SdpServerSocketChannel(SelectorProvider provider, ServerSocketChannel delegate) {
        super(provider);
        this.delegate = delegate;
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

    /**
     * Binds on TCP, then applies the server rules. A rule this listener cannot follow ({@code sdp} without a usable
     * RDMA NIO transport) closes the channel and throws: it must not stay reachable over TCP against the rules.
     */
    @Override
    public ServerSocketChannel bind(SocketAddress local, int backlog) throws IOException {
        delegate.bind(local, backlog);
        InetSocketAddress bound = (InetSocketAddress) delegate.getLocalAddress();
        try {
            Sdp4j.router().listen(bound, new Router.ListenPaths() {
                @Override
                public void tcp() {
                    // the JDK channel listens from its bind on
                }

                @Override
                public void rdma(Transport t) throws IOException {
                    SdpSocketChannel.noNioTransport(t, 0);
                }

                @Override
                public void both(Transport t) throws IOException {
                    SdpSocketChannel.noNioTransport(t, 0);
                }
            });
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
        return this;
    }

    @Override
    public SocketChannel accept() throws IOException {
        SocketChannel c;
        try {
            c = delegate.accept();
        } catch (ClosedChannelException e) {
            if (!delegate.isOpen() && isOpen()) {
                close();
            }
            throw e;
        }
        return c == null ? null : wrapAccepted(c);
    }

    SocketChannel wrapAccepted(SocketChannel c) {
        return new SdpSocketChannel(provider(), c, true);
    }

    @Override
    public <T> ServerSocketChannel setOption(SocketOption<T> name, T value) throws IOException {
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

    /** An adaptor whose {@code bind} is decided by the rules and whose {@code getChannel()} is this channel. */
    @Override
    public ServerSocket socket() {
        ServerSocket s = adaptor;
        if (s == null) {
            synchronized (this) {
                s = adaptor;
                if (s == null) {
                    try {
                        adaptor = s = new SdpServerSocketAdaptor(this, delegate.socket());
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                }
            }
        }
        return s;
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
}
