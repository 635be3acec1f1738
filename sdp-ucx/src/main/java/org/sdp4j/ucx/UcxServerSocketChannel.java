package org.sdp4j.ucx;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketOption;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.channels.AlreadyBoundException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NotYetBoundException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.UnresolvedAddressException;
import java.nio.channels.UnsupportedAddressTypeException;
import java.nio.channels.spi.SelectorProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

import org.sdp4j.jdk.JdkNio;
import org.sdp4j.log.SdpLog;
import org.sdp4j.transport.Poller;
import org.sdp4j.transport.Transport;
import org.sdp4j.transport.TransportChannel;

/**
 * A UCX listener as a {@link ServerSocketChannel}: a {@link HandshakeServer} on the rendezvous socket for the TCP
 * address and port it shadows (a {@code ucx} server rule: sdp4j's server channel listens on TCP and on this one,
 * on the same port). Its readiness is a kernel descriptor's, the handshake server's readiness pipe (readable while
 * a completed connection waits), so {@link UcxPoller} polls it with poll(2) and a selector holding only listeners
 * and kernel channels sleeps without spinning.
 *
 * <p>Handshakes are served concurrently by the {@link HandshakeServer}'s threads, each bounded by
 * {@link Rendezvous#HANDSHAKE_MILLIS}; {@code accept} takes a completed one, and a client that fails its handshake
 * is logged and costs only itself. Closing while a poll or a blocking accept uses the listener is deferred to the
 * last of them, as for {@link UcxSocketChannel}.
 */
final class UcxServerSocketChannel extends ServerSocketChannel implements TransportChannel, UcxPoller.Pollable,
        org.sdp4j.transport.TcpUpgrade {
    private final Transport owner;
    final int pseudoFd = UcxPoller.newPseudoFd();
    private final Object stateLock = new Object();
    private final ReentrantLock acceptLock = new ReentrantLock();
    private final Map<SocketOption<?>, Object> options = new ConcurrentHashMap<>();

    // guarded by stateLock
    private HandshakeServer server;
    private int uses;
    private boolean closing;
    private final List<Poller> pollers = new ArrayList<>(1);

    private volatile InetSocketAddress local;
    /** The cross-host rendezvous (RDMA-CM port space), or null when this host has no RDMA for UCX. */
    private volatile RemoteRendezvous remote;
    private volatile int udsFd = -1;

    UcxServerSocketChannel(SelectorProvider provider, Transport owner) {
        super(provider);
        this.owner = owner;
    }

    // ---- use counting ----

    private HandshakeServer enter() throws ClosedChannelException {
        synchronized (stateLock) {
            if (closing || !isOpen()) {
                throw new ClosedChannelException();
            }
            uses++;
            return server;
        }
    }

    private void exit() {
        boolean release;
        synchronized (stateLock) {
            release = --uses == 0 && closing;
        }
        if (release) {
            release();
        }
    }

    /** A TCP connection of the application's listener from a source a cross-host client announced. */
    @Override
    public boolean claims(InetAddress peer, int peerPort) {
        RemoteRendezvous r = remote;
        return r != null && r.claims(peer, peerPort);
    }

    @Override
    public void upgrade(SocketChannel ch, java.net.SocketImpl impl) {
        RemoteRendezvous r = remote;
        HandshakeServer hs;
        synchronized (stateLock) {
            hs = server;
        }
        RemoteRendezvous.Pending p = null;
        try {
            InetSocketAddress from = (InetSocketAddress) ch.getRemoteAddress();
            p = r != null ? r.take(from.getAddress(), from.getPort()) : null;
        } catch (IOException e) {
            // closed meanwhile
        }
        if (p == null || hs == null) {
            RemoteRendezvous.drop(ch, p);
            return;
        }
        RemoteRendezvous.Pending taken = p;
        String where = hs.where();
        hs.serveUpgrade(ch, () -> Upgrade.serve(ch, null, taken, where));
    }

    private void release() {
        RemoteRendezvous r = remote;
        if (r != null) {
            r.close();
        }
        HandshakeServer hs;
        synchronized (stateLock) {
            hs = server;
            server = null;
            udsFd = -1;
        }
        if (hs != null) {
            hs.close();
            hs.closeSource(); // no poller and no accept uses the readiness descriptor any more
        }
    }

    @Override
    protected void implCloseSelectableChannel() throws IOException {
        HandshakeServer hs;
        Poller[] ps;
        synchronized (stateLock) {
            if (closing) {
                return;
            }
            closing = true;
            if (uses == 0) {
                hs = null;
                ps = null;
            } else {
                hs = server;
                ps = pollers.toArray(new Poller[0]);
            }
        }
        if (ps == null) {
            release();
            return;
        }
        if (hs != null) {
            hs.close(); // a blocking accept wakes with "closed", and the last one out releases
        }
        for (Poller p : ps) {
            try {
                p.wakeup();
            } catch (IOException | RuntimeException ignore) {
                // that poller is closing too
            }
        }
    }

    @Override
    protected void implConfigureBlocking(boolean block) {
        // the rendezvous socket stays non-blocking; a blocking accept waits in a selector of its own
    }

    // ---- TransportChannel / poller ----

    @Override
    public Transport transport() {
        return owner;
    }

    @Override
    public int pollFd() {
        return pseudoFd;
    }

    @Override
    public int pollBegin(Poller poller) {
        if (!(poller instanceof UcxPoller up)) {
            return -1;
        }
        synchronized (stateLock) {
            if (closing || !isOpen() || server == null) {
                return -1;
            }
            uses++;
            pollers.add(poller);
            up.attach(pseudoFd, this);
        }
        return pseudoFd;
    }

    @Override
    public void pollEnd(Poller poller) {
        synchronized (stateLock) {
            if (!pollers.remove(poller)) {
                return;
            }
            ((UcxPoller) poller).detach(pseudoFd);
        }
        exit();
    }

    @Override
    public int kernelFd() {
        return udsFd;
    }

    @Override
    public short readyOps(short events) {
        return 0; // polled through kernelFd()
    }

    // ---- bind, accept ----

    @Override
    public ServerSocketChannel bind(SocketAddress localAddress, int backlog) throws IOException {
        if (localAddress != null && !(localAddress instanceof InetSocketAddress)) {
            throw new UnsupportedAddressTypeException();
        }
        InetSocketAddress isa = localAddress == null ? new InetSocketAddress(0) : (InetSocketAddress) localAddress;
        if (isa.isUnresolved()) {
            throw new UnresolvedAddressException();
        }
        if (isa.getPort() <= 0) {
            throw new SocketException("a UCX listener takes the port of the TCP listener it shadows, not "
                    + isa.getPort());
        }
        acceptLock.lock();
        try {
            synchronized (stateLock) {
                if (closing || !isOpen()) {
                    throw new ClosedChannelException();
                }
                if (local != null) {
                    throw new AlreadyBoundException();
                }
            }
            HandshakeServer hs = HandshakeServer.bind(isa.getAddress(), isa.getPort(), backlog);
            try {
                int fd = JdkNio.channelFd(hs.readySource());
                synchronized (stateLock) {
                    if (closing || !isOpen()) {
                        throw new ClosedChannelException();
                    }
                    server = hs;
                    udsFd = fd;
                    local = isa;
                }
                if (!Boolean.getBoolean("sdp4j.ucx.remote.disable")) {
                    remote = RemoteRendezvous.open(isa.getAddress(), isa.getPort(), hs.where());
                }
            } catch (IOException | RuntimeException e) {
                hs.close();
                hs.closeSource();
                throw e;
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

    /** Blocking mode waits at most {@code timeoutMillis} (0: no limit). */
    SocketChannel accept(int timeoutMillis) throws IOException {
        acceptLock.lock();
        try {
            if (local == null) {
                if (!isOpen()) {
                    throw new ClosedChannelException();
                }
                throw new NotYetBoundException();
            }
            HandshakeServer hs = enter();
            boolean blocking = isBlocking();
            boolean completed = false;
            try {
                if (blocking) {
                    begin();
                }
                InetSocketAddress l = local;
                UcxConnection c;
                try {
                    // handshakes are served by the listener's own threads; accept takes a completed one
                    c = hs.take(blocking ? Math.max(timeoutMillis, 0) : -1);
                } catch (SocketTimeoutException e) {
                    completed = true;
                    throw e;
                } catch (SocketException e) {
                    if (!blocking) {
                        throw new ClosedChannelException();
                    }
                    return null; // closed: end(false) throws AsynchronousClose/ClosedByInterrupt
                }
                completed = true;
                return c == null ? null : accepted(c, l);
            } finally {
                try {
                    if (blocking) {
                        end(completed);
                    }
                } finally {
                    exit();
                }
            }
        } finally {
            acceptLock.unlock();
        }
    }

    private SocketChannel accepted(UcxConnection c, InetSocketAddress l) {
        InetAddress a = l.getAddress() == null || l.getAddress().isAnyLocalAddress()
                ? InetAddress.getLoopbackAddress() : l.getAddress();
        // both ends are on this host; there is no TCP port: the peer's port is its connection number
        return new UcxSocketChannel(provider(), owner, c, new InetSocketAddress(a, l.getPort()),
                new InetSocketAddress(a, c.peerId));
    }

    // ---- options, addresses ----

    private static final Set<SocketOption<?>> OPTIONS = UcxOptions.LISTENER;

    @Override
    public <T> ServerSocketChannel setOption(SocketOption<T> name, T value) throws IOException {
        UcxOptions.check(OPTIONS, name, value);
        if (!isOpen()) {
            throw new ClosedChannelException();
        }
        options.put(name, value); // the TCP listener this one shadows applies them
        return this;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(SocketOption<T> name) throws IOException {
        if (!OPTIONS.contains(name)) {
            throw new UnsupportedOperationException("'" + name + "' not supported");
        }
        if (!isOpen()) {
            throw new ClosedChannelException();
        }
        Object v = options.get(name);
        if (v != null) {
            return (T) v;
        }
        return (T) (name == StandardSocketOptions.SO_RCVBUF ? (Object) Staging.STAGING : Boolean.TRUE);
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return OPTIONS;
    }

    @Override
    public SocketAddress getLocalAddress() throws IOException {
        if (!isOpen()) {
            throw new ClosedChannelException();
        }
        return local;
    }

    /**
     * Not provided: a UCX listener is always the second listener of an sdp4j server channel, whose
     * {@code socket()} the application uses.
     */
    @Override
    public ServerSocket socket() {
        throw new UnsupportedOperationException("a UCX listener channel has no ServerSocket adaptor; use the sdp4j"
                + " server channel's");
    }

    @Override
    public String toString() {
        return "UcxServerSocketChannel[" + (!isOpen() ? "closed" : local == null ? "unbound" : local.toString()) + "]";
    }
}
