package org.sdp4j.rsocket;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketOption;
import java.net.SocketTimeoutException;
import java.nio.channels.AlreadyBoundException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.IllegalBlockingModeException;
import java.nio.channels.NotYetBoundException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.UnresolvedAddressException;
import java.nio.channels.UnsupportedAddressTypeException;
import java.nio.channels.spi.SelectorProvider;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

import org.sdp4j.transport.Deadline;
import org.sdp4j.transport.Poller;
import org.sdp4j.transport.Transport;
import org.sdp4j.nio.TransportSocketAdaptor;
import org.sdp4j.transport.TransportChannel;

/**
 * A {@link ServerSocketChannel} over a listening rsocket. Blocking accept waits as {@link RsocketSocketImpl}'s does
 * (poll(2) on the listener's rdma_cm channel, then raccept with a short backoff: rdma-core 44 makes rpoll see a
 * queued connection only at its 5 s wake-up); in a selector, {@link RsocketPoller}'s pollMany does the same with a
 * dup of that channel. The rsocket, its close and its polls are an {@link RsocketHandle}.
 */
final class RsocketServerSocketChannel extends ServerSocketChannel implements RsocketChannel {
    private final Transport owner;
    private final ReentrantLock acceptLock = new ReentrantLock();
    final RsocketSockopts.Kept kept = new RsocketSockopts.Kept();
    private final RsocketHandle h;

    private volatile InetSocketAddress local;
    private volatile ServerSocket adaptor;

    RsocketServerSocketChannel(SelectorProvider provider, Transport owner) throws IOException {
        super(provider);
        this.owner = owner;
        h = RsocketHandle.openListener();
        try {
            RsocketTunables.applyGlobal(this::setTunable);
        } catch (IOException | RuntimeException e) {
            h.close();
            throw e;
        }
    }

    @Override
    public Transport transport() {
        return owner;
    }

    @Override
    public RsocketHandle handle() {
        return h;
    }

    @Override
    public boolean pollable() {
        return local != null; // polled once it listens
    }

    @Override
    protected void implCloseSelectableChannel() throws IOException {
        h.close();
    }

    @Override
    protected void implConfigureBlocking(boolean block) {
        // the rsocket is always non-blocking
    }

    @Override
    public ServerSocketChannel bind(SocketAddress localAddress, int backlog) throws IOException {
        if (localAddress != null && !(localAddress instanceof InetSocketAddress)) {
            throw new UnsupportedAddressTypeException();
        }
        InetSocketAddress isa = localAddress == null ? new InetSocketAddress(0) : (InetSocketAddress) localAddress;
        if (isa.isUnresolved()) {
            throw new UnresolvedAddressException();
        }
        acceptLock.lock();
        try {
            int fd = enter();
            try {
                if (local != null) {
                    throw new AlreadyBoundException();
                }
                InetAddress a = isa.getAddress();
                Native.bind(fd, a.getAddress(), a instanceof java.net.Inet6Address
                        ? ((java.net.Inet6Address) a).getScopeId() : 0, isa.getPort());
                InetSocketAddress bound = RsocketAddresses.local(fd);
                RsocketTunables.applyRule(false, bound, this::setTunable); // before rlisten: accepted rsockets inherit
                Native.listen(fd, backlog < 1 ? 50 : backlog);
                local = bound;
            } finally {
                exit();
            }
        } finally {
            acceptLock.unlock();
        }
        return this;
    }

    @Override
    public SocketChannel accept() throws IOException {
        return accept(0);
    }

    /** Blocking mode waits at most {@code timeoutMillis} (0 = no limit): the adaptor's SO_TIMEOUT. */
    SocketChannel accept(int timeoutMillis) throws IOException {
        acceptLock.lock();
        try {
            boolean blocking = isBlocking();
            int fd = enter();
            boolean completed = false;
            int nfd;
            try {
                if (local == null) {
                    throw new NotYetBoundException();
                }
                if (blocking) {
                    begin();
                }
                if (!blocking) {
                    nfd = Native.accept(fd);
                    if (nfd == Native.UNAVAILABLE) {
                        completed = true;
                        return null;
                    }
                } else {
                    try {
                        nfd = h.accept(fd, Deadline.afterMillis(timeoutMillis));
                    } catch (SocketTimeoutException e) {
                        completed = true;
                        throw e;
                    }
                    if (nfd == RsocketHandle.INTERRUPTED) {
                        h.awaitCloseByInterrupt();
                    }
                    if (nfd < 0) {
                        return null; // closed: end(false) throws AsynchronousClose/ClosedByInterrupt
                    }
                }
                completed = true;
            } finally {
                try {
                    if (blocking) {
                        end(completed);
                    }
                } finally {
                    exit();
                }
            }
            try {
                return new RsocketSocketChannel(provider(), owner, nfd, kept.busyPollMicros);
            } catch (IOException | RuntimeException e) {
                RsocketHandle.discard(nfd, e);
                throw e;
            }
        } finally {
            acceptLock.unlock();
        }
    }

    void setTunable(SocketOption<Integer> name, Integer value) throws IOException {
        int fd = enter();
        try {
            RsocketSockopts.setTunable(fd, kept, RsocketSockopts.SERVER_TUNABLES, name, value);
        } finally {
            exit();
        }
    }

    @Override
    public <T> ServerSocketChannel setOption(SocketOption<T> name, T value) throws IOException {
        RsocketSockopts.check(RsocketSockopts.SERVER, name, value);
        int fd = enter();
        try {
            RsocketSockopts.set(fd, kept, name, value);
            kept.explicit.add(name);
        } finally {
            exit();
        }
        return this;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(SocketOption<T> name) throws IOException {
        RsocketSockopts.checkSupported(RsocketSockopts.SERVER, name);
        int fd = enter();
        try {
            return (T) RsocketSockopts.get(fd, kept, name);
        } finally {
            exit();
        }
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return RsocketSockopts.SERVER;
    }

    @Override
    public SocketAddress getLocalAddress() throws IOException {
        if (!isOpen()) {
            throw new ClosedChannelException();
        }
        return local;
    }

    @Override
    public ServerSocket socket() {
        ServerSocket s = adaptor;
        if (s == null) {
            synchronized (this) {
                s = adaptor;
                if (s == null) {
                    try {
                        adaptor = s = new Adaptor();
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                }
            }
        }
        return s;
    }

    @Override
    public String toString() {
        return "RsocketServerSocketChannel[" + (!isOpen() ? "closed" : local == null ? "unbound" : local.toString())
                + "]";
    }

    /** {@code socket()}: a ServerSocket over this channel, as the JDK's adaptor is. */
    private final class Adaptor extends ServerSocket {
        private volatile int timeout;

        Adaptor() throws IOException {
            super(TransportSocketAdaptor.inertImpl());
        }

        @Override public ServerSocketChannel getChannel() { return RsocketServerSocketChannel.this; }
        @Override public void bind(SocketAddress local) throws IOException { bind(local, 50); }

        @Override
        public void bind(SocketAddress l, int backlog) throws IOException {
            RsocketServerSocketChannel.this.bind(l, backlog);
        }

        @Override
        public Socket accept() throws IOException {
            synchronized (blockingLock()) {
                if (!isBlocking()) {
                    throw new IllegalBlockingModeException();
                }
                return RsocketServerSocketChannel.this.accept(timeout).socket();
            }
        }

        @Override public InetAddress getInetAddress() { InetSocketAddress l = local; return l == null ? null : l.getAddress(); }
        @Override public int getLocalPort() { InetSocketAddress l = local; return l == null ? -1 : l.getPort(); }
        @Override public SocketAddress getLocalSocketAddress() { return local; }
        @Override public void close() throws IOException { RsocketServerSocketChannel.this.close(); }
        @Override public boolean isBound() { return local != null; }
        @Override public boolean isClosed() { return !isOpen(); }

        @Override
        public void setSoTimeout(int t) throws SocketException {
            if (t < 0) {
                throw new IllegalArgumentException("timeout < 0");
            }
            timeout = t;
        }

        @Override public int getSoTimeout() { return timeout; }
        @Override public <T> ServerSocket setOption(SocketOption<T> name, T value) throws IOException { RsocketServerSocketChannel.this.setOption(name, value); return this; }
        @Override public <T> T getOption(SocketOption<T> name) throws IOException { return RsocketServerSocketChannel.this.getOption(name); }
        @Override public Set<SocketOption<?>> supportedOptions() { return RsocketServerSocketChannel.this.supportedOptions(); }

        @Override
        public void setReuseAddress(boolean on) throws SocketException {
            try {
                setOption(java.net.StandardSocketOptions.SO_REUSEADDR, on);
            } catch (IOException e) {
                throw (SocketException) new SocketException(e.getMessage()).initCause(e);
            }
        }

        @Override
        public void setReceiveBufferSize(int size) throws SocketException {
            try {
                setOption(java.net.StandardSocketOptions.SO_RCVBUF, size);
            } catch (IOException e) {
                throw (SocketException) new SocketException(e.getMessage()).initCause(e);
            }
        }

        @Override
        public String toString() {
            return local == null ? "ServerSocket[unbound]" : "ServerSocket[addr=" + local.getAddress()
                    + ",localport=" + local.getPort() + "]";
        }
    }
}
