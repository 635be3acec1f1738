package org.sdp4j.ucx;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketOption;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.AlreadyBoundException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NotYetBoundException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.UnresolvedAddressException;
import java.nio.channels.UnsupportedAddressTypeException;
import java.nio.channels.spi.SelectorProvider;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * A UCX listener as a {@link ServerSocketChannel}: the rendezvous socket {@link Rendezvous#path} for the TCP
 * address and port it shadows (a {@code ucx} server rule: sdp4j's server channel listens on TCP and on this one,
 * on the same port). Its readiness is a kernel descriptor's, the rendezvous socket's, so {@link UcxPoller} polls it
 * with poll(2) and a selector holding only listeners and kernel channels sleeps without spinning.
 *
 * <p>{@code accept} completes the rendezvous handshake before it returns (the client sent its half with its connect,
 * so this is immediate unless the client misbehaves; it is bounded by {@link Rendezvous#HANDSHAKE_MILLIS}); a client
 * that fails it is logged and skipped. Closing while a poll or a blocking accept uses the rendezvous socket is
 * deferred to the last of them, as for {@link UcxSocketChannel}.
 */
final class UcxServerSocketChannel extends ServerSocketChannel implements TransportChannel, UcxPoller.Pollable {
    private final Transport owner;
    final int pseudoFd = UcxPoller.newPseudoFd();
    private final Object stateLock = new Object();
    private final ReentrantLock acceptLock = new ReentrantLock();
    private final Map<SocketOption<?>, Object> options = new ConcurrentHashMap<>();

    // guarded by stateLock
    private ServerSocketChannel rendezvous;
    private Selector acceptSelector;
    private Path path;
    private int uses;
    private boolean closing;
    private final List<Poller> pollers = new ArrayList<>(1);

    private volatile InetSocketAddress local;
    private volatile int udsFd = -1;

    UcxServerSocketChannel(SelectorProvider provider, Transport owner) {
        super(provider);
        this.owner = owner;
    }

    // ---- use counting ----

    private ServerSocketChannel enter() throws ClosedChannelException {
        synchronized (stateLock) {
            if (closing || !isOpen()) {
                throw new ClosedChannelException();
            }
            uses++;
            return rendezvous;
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

    private void release() {
        ServerSocketChannel ch;
        Selector sel;
        Path p;
        synchronized (stateLock) {
            ch = rendezvous;
            sel = acceptSelector;
            p = path;
            rendezvous = null;
            acceptSelector = null;
            path = null;
            udsFd = -1;
        }
        try {
            if (sel != null) {
                sel.close(); // deregisters the rendezvous socket, so its close below is immediate
            }
            if (ch != null) {
                ch.close();
            }
            if (p != null) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            SdpLog.log(SdpLog.WARN, "ucx: closing the listener " + p + ": " + e);
        }
    }

    @Override
    protected void implCloseSelectableChannel() throws IOException {
        Selector sel;
        Poller[] ps;
        synchronized (stateLock) {
            if (closing) {
                return;
            }
            closing = true;
            if (uses == 0) {
                sel = null;
                ps = null;
            } else {
                sel = acceptSelector;
                ps = pollers.toArray(new Poller[0]);
            }
        }
        if (ps == null) {
            release();
            return;
        }
        if (sel != null) {
            sel.wakeup(); // a blocking accept leaves, and the last one out releases
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
            if (closing || !isOpen() || rendezvous == null) {
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
            Ucx.context(); // unavailable UCX fails here, with the reason
            Path p = Rendezvous.path(isa.getAddress(), isa.getPort());
            Rendezvous.ensureDir(p.getParent());
            if (Files.exists(p)) {
                boolean live;
                try {
                    Rendezvous.connect(p).close();
                    live = true;
                } catch (IOException stale) {
                    live = false;
                    Files.deleteIfExists(p); // left by a process that died; its TCP port is ours now
                }
                if (live) {
                    throw new SocketException("UCX rendezvous " + p + " is served by another live listener");
                }
            }
            ServerSocketChannel ch = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            try {
                ch.bind(UnixDomainSocketAddress.of(p), backlog > 0 ? backlog : 50);
                p.toFile().setWritable(true, false); // any local user may connect, as to a TCP port
                ch.configureBlocking(false);
                int fd = JdkNio.channelFd(ch);
                synchronized (stateLock) {
                    if (closing || !isOpen()) {
                        throw new ClosedChannelException();
                    }
                    rendezvous = ch;
                    path = p;
                    udsFd = fd;
                    local = isa;
                }
            } catch (ClosedChannelException e) {
                ch.close();
                Files.deleteIfExists(p);
                throw e;
            } catch (IOException | RuntimeException e) {
                ch.close();
                Files.deleteIfExists(p);
                throw new IOException("UCX listener " + p + ": " + e.getMessage(), e);
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
            ServerSocketChannel ch = enter();
            boolean blocking = isBlocking();
            boolean completed = false;
            try {
                if (blocking) {
                    begin();
                }
                InetSocketAddress l = local;
                String where = Rendezvous.hostPort(l.getAddress(), l.getPort());
                long deadline = timeoutMillis > 0 ? System.nanoTime() + timeoutMillis * 1_000_000L : 0;
                while (true) {
                    UcxConnection c = null;
                    try {
                        c = Handshake.accept(ch, where);
                    } catch (ClosedChannelException e) {
                        if (!blocking) {
                            throw e;
                        }
                        return null; // closed: end(false) throws AsynchronousClose/ClosedByInterrupt
                    } catch (IOException e) {
                        // a client that failed its handshake costs only itself
                        SdpLog.log(SdpLog.WARN, "ucx: listener " + where + ": " + e);
                        continue;
                    }
                    if (c != null) {
                        completed = true;
                        return accepted(c, l);
                    }
                    if (!blocking) {
                        completed = true;
                        return null;
                    }
                    long wait = 0;
                    if (deadline != 0) {
                        wait = (deadline - System.nanoTime()) / 1_000_000L;
                        if (wait <= 0) {
                            completed = true;
                            throw new SocketTimeoutException("Accept timed out");
                        }
                    }
                    Selector s = acceptSelector(ch);
                    if (s == null || isClosing()) {
                        return null;
                    }
                    s.select(wait);
                    s.selectedKeys().clear();
                }
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

    private boolean isClosing() {
        synchronized (stateLock) {
            return closing;
        }
    }

    private Selector acceptSelector(ServerSocketChannel ch) throws IOException {
        synchronized (stateLock) {
            if (closing) {
                return null;
            }
            if (acceptSelector == null) {
                Selector s = JdkNio.defaultProvider().openSelector();
                ch.register(s, SelectionKey.OP_ACCEPT);
                acceptSelector = s;
            }
            return acceptSelector;
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

    private static final Set<SocketOption<?>> OPTIONS = Set.of(StandardSocketOptions.SO_RCVBUF,
            StandardSocketOptions.SO_REUSEADDR);

    @Override
    public <T> ServerSocketChannel setOption(SocketOption<T> name, T value) throws IOException {
        if (!OPTIONS.contains(name)) {
            throw new UnsupportedOperationException("'" + name + "' not supported");
        }
        if (!name.type().isInstance(value)) {
            throw new IllegalArgumentException("Invalid value '" + value + "' for " + name);
        }
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
        return (T) (name == StandardSocketOptions.SO_RCVBUF ? (Object) UcxConnection.STAGING : Boolean.TRUE);
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
