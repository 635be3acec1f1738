package org.sdp4j.nio;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.net.SocketTimeoutException;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import org.sdp4j.Sdp4j;
import org.sdp4j.jdk.JdkNio;
import org.sdp4j.log.SdpLog;
import org.sdp4j.transport.Poller;
import org.sdp4j.transport.Router;
import org.sdp4j.transport.TcpTransport;
import org.sdp4j.transport.Transport;
import org.sdp4j.transport.TransportChannel;

/**
 * The ServerSocketChannel of sdp4j's provider: the JDK's own channel underneath, decided at {@code bind} by the
 * server rules against the address and port actually bound. {@code sdp} moves the listener to the transport's
 * channel (the TCP one is closed: the listener must not stay reachable over TCP against the rules); {@code both}
 * listens on the transport's channel and TCP on the same port, and {@code accept} returns whichever connection is
 * there (a selector polls both; a blocking accept waits on both in the transport's poller). Accepted channels are
 * sdp4j channels too, so that a program sees one provider throughout.
 */
final class SdpServerSocketChannel extends ServerSocketChannel implements WrappingChannel {
    private final ServerSocketChannel initial;
    private volatile ServerSocketChannel delegate;
    /** The transport the listener accepts on (told of each accepted connection), once bound. */
    private volatile Transport listening;
    /** {@code both}: the transport's listener next to {@link #initial}; null otherwise. */
    private volatile ServerSocketChannel dual;
    private volatile Poller dualPoller;
    private boolean dualTurn; // alternates which listener a both-accept tries first
    private final Object stateLock = new Object();
    private final KeyList keys = new KeyList();
    private final Map<SocketOption<?>, Object> preOptions = new LinkedHashMap<>();
    private volatile boolean decided;
    private volatile ServerSocket adaptor;

    SdpServerSocketChannel(SelectorProvider provider, ServerSocketChannel delegate) {
        super(provider);
        this.initial = delegate;
        this.delegate = delegate;
    }

    @Override
    public SelectableChannel kernelChannel() {
        ServerSocketChannel d = dual;
        return d != null ? d : delegate;
    }

    @Override
    public SelectableChannel secondChannel() {
        return dual != null ? initial : null;
    }

    @Override
    public void registered(SdpSelectionKey key) {
        keys.add(key);
    }

    @Override
    public void deregistered(SdpSelectionKey key) {
        keys.remove(key);
    }

    ServerSocket currentSocket() {
        return delegate.socket();
    }

    /**
     * Binds on TCP, then applies the server rules. A rule this listener cannot follow ({@code sdp} without a usable
     * RDMA transport) closes the channel and throws: it must not stay reachable over TCP against the rules.
     */
    @Override
    public ServerSocketChannel bind(SocketAddress local, int backlog) throws IOException {
        if (decided) {
            delegate.bind(local, backlog); // throws AlreadyBound
            return this;
        }
        initial.bind(local, backlog);
        InetSocketAddress bound = (InetSocketAddress) initial.getLocalAddress();
        try {
            listening = Sdp4j.router().listen(bound, new Router.ListenPaths() {
                @Override
                public void tcp() {
                    // the JDK channel listens from its bind on
                }

                @Override
                public void rdma(Transport t) throws IOException {
                    ServerSocketChannel r = t.openServerSocketChannel(provider());
                    try {
                        replay(t, r);
                        initial.close(); // before the transport binds the same port (a shared port space)
                        r.bind(bound, backlog);
                        install(r, false);
                    } catch (IOException | RuntimeException e) {
                        r.close();
                        throw e;
                    }
                }

                @Override
                public void both(Transport t) throws IOException {
                    Poller p = t.newPoller();
                    if (p == null) {
                        throw new IOException(t.name() + " has no poller to wait on its listener and TCP's together");
                    }
                    ServerSocketChannel r = t.openServerSocketChannel(provider());
                    try {
                        replay(t, r);
                        r.bind(bound, backlog);
                        r.configureBlocking(false);
                        initial.configureBlocking(false);
                        dualPoller = p;
                        install(r, true);
                    } catch (IOException | RuntimeException e) {
                        dualPoller = null;
                        r.close();
                        p.close();
                        if (isOpen() && initial.isOpen()) {
                            initial.configureBlocking(isBlocking());
                        }
                        throw e;
                    }
                }
            });
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        } finally {
            decided = true;
        }
        return this;
    }

    @SuppressWarnings("unchecked")
    private void replay(Transport t, ServerSocketChannel r) throws IOException {
        Map<SocketOption<?>, Object> copy;
        synchronized (preOptions) {
            copy = new LinkedHashMap<>(preOptions);
        }
        Set<SocketOption<?>> supported = r.supportedOptions();
        for (Map.Entry<SocketOption<?>, Object> e : copy.entrySet()) {
            if (!supported.contains(e.getKey())) {
                continue;
            }
            try {
                r.setOption((SocketOption<Object>) e.getKey(), e.getValue());
            } catch (IOException | RuntimeException x) {
                SdpLog.log(SdpLog.WARN, "socket option " + e.getKey() + "=" + e.getValue() + " not applied on "
                        + t.name() + ": " + x.getMessage());
            }
        }
        r.configureBlocking(isBlocking());
    }

    private void install(ServerSocketChannel r, boolean both) throws IOException {
        synchronized (stateLock) {
            if (!isOpen()) {
                throw new AsynchronousCloseException();
            }
            if (both) {
                dual = r;
            } else {
                delegate = r;
            }
        }
        for (SdpSelectionKey k : keys.snapshot()) {
            if (k.selector() instanceof SdpSelector s) {
                s.retargeted();
            }
        }
    }

    @Override
    public SocketChannel accept() throws IOException {
        return accept(0);
    }

    /** @param timeoutMillis blocking mode, {@code both}: at most this long (0 = no limit; the adaptor's SO_TIMEOUT) */
    SocketChannel accept(int timeoutMillis) throws IOException {
        ServerSocketChannel r = dual;
        SocketChannel c;
        try {
            c = r != null ? acceptBoth(r, timeoutMillis) : delegate.accept();
        } catch (ClosedChannelException e) {
            if (!delegate.isOpen() && isOpen()) {
                close();
            }
            throw e;
        }
        Transport l = listening;
        if (c != null && l != null && l != TcpTransport.INSTANCE) { // the TCP path stays as the JDK's
            l.established(c, null, true);
        }
        return c == null ? null : wrapAccepted(c);
    }

    private SocketChannel acceptBoth(ServerSocketChannel r, int timeoutMillis) throws IOException {
        SocketChannel c = acceptEither(r);
        if (c != null || !isBlocking()) {
            return c;
        }
        Poller p = dualPoller;
        TransportChannel tc = (TransportChannel) r;
        int tcpFd = JdkNio.channelFd(initial);
        long deadline = timeoutMillis > 0 ? System.nanoTime() + timeoutMillis * 1_000_000L : 0;
        int[] fds = new int[2];
        short[] ev = {Poller.POLLIN, Poller.POLLIN};
        short[] rev = new short[2];
        boolean completed = false;
        synchronized (p) { // one blocking accept polls at a time (a Poller is not reentrant)
            try {
                begin();
                for (;;) {
                    c = acceptEither(r);
                    if (c != null) {
                        completed = true;
                        return c;
                    }
                    long wait = -1;
                    if (deadline != 0) {
                        long ns = deadline - System.nanoTime();
                        if (ns <= 0) {
                            completed = true;
                            throw new SocketTimeoutException("Accept timed out");
                        }
                        wait = Math.max(1, (ns + 999_999) / 1_000_000L);
                    }
                    int rfd = tc.pollBegin(p);
                    if (rfd < 0) {
                        throw new AsynchronousCloseException();
                    }
                    try {
                        fds[0] = tcpFd;
                        fds[1] = rfd;
                        p.poll(fds, ev, rev, 2, wait);
                    } catch (java.nio.channels.ClosedSelectorException e) {
                        return null; // this channel was closed: end(false) throws
                    } finally {
                        tc.pollEnd(p);
                    }
                    if (!isOpen()) {
                        return null; // end(false) throws AsynchronousClose/ClosedByInterrupt
                    }
                }
            } finally {
                end(completed);
            }
        }
    }

    /** A pending connection from either listener, trying them in turn; null when neither has one. */
    private SocketChannel acceptEither(ServerSocketChannel r) throws IOException {
        boolean rdmaFirst;
        synchronized (stateLock) {
            rdmaFirst = dualTurn = !dualTurn;
        }
        ServerSocketChannel first = rdmaFirst ? r : initial;
        SocketChannel c = unclaimed(first, first.accept(), r);
        if (c != null) {
            return c;
        }
        ServerSocketChannel second = rdmaFirst ? initial : r;
        return unclaimed(second, second.accept(), r);
    }

    /**
     * {@code c} as accepted from {@code from}, or null when it is a TCP connection the transport's listener claims
     * (a cross-host UCX client announced it): the transport serves it and accepts the result on its own listener.
     */
    private SocketChannel unclaimed(ServerSocketChannel from, SocketChannel c, ServerSocketChannel r)
            throws IOException {
        if (c == null || from != initial || !(r instanceof org.sdp4j.transport.TcpUpgrade u)) {
            return c;
        }
        java.net.SocketAddress a = c.getRemoteAddress();
        if (a instanceof java.net.InetSocketAddress isa && u.claims(isa.getAddress(), isa.getPort())) {
            u.upgrade(c, null);
            return null;
        }
        return c;
    }

    SocketChannel wrapAccepted(SocketChannel c) {
        org.sdp4j.ops.Counters.accepted(c instanceof TransportChannel tc ? tc.transport().name() : "tcp", () -> {
            try {
                return String.valueOf(c.getRemoteAddress());
            } catch (IOException e) {
                return "?";
            }
        });
        return new SdpSocketChannel(provider(), c, true);
    }

    @Override
    public <T> ServerSocketChannel setOption(SocketOption<T> name, T value) throws IOException {
        ServerSocketChannel d = delegate;
        if (decided) {
            d.setOption(name, value);
            ServerSocketChannel r = dual;
            if (r != null && r.supportedOptions().contains(name)) {
                r.setOption(name, value);
            }
            return this;
        }
        if (name == null) {
            throw new NullPointerException("name");
        }
        if (d.supportedOptions().contains(name)) {
            d.setOption(name, value);
        } else if (transportOptions().contains(name)) {
            if (!isOpen()) {
                throw new ClosedChannelException();
            }
            if (!name.type().isInstance(value)) {
                throw new IllegalArgumentException("Invalid value '" + value + "' for " + name);
            }
        } else {
            throw new UnsupportedOperationException("'" + name + "' not supported");
        }
        synchronized (preOptions) {
            preOptions.put(name, value);
        }
        return this;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(SocketOption<T> name) throws IOException {
        ServerSocketChannel d = delegate;
        ServerSocketChannel r = dual;
        if (r != null && !d.supportedOptions().contains(name) && r.supportedOptions().contains(name)) {
            return r.getOption(name);
        }
        if (!decided && name != null && !d.supportedOptions().contains(name) && transportOptions().contains(name)) {
            synchronized (preOptions) {
                return (T) preOptions.get(name);
            }
        }
        return d.getOption(name);
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        if (decided && dual == null) {
            return delegate.supportedOptions();
        }
        Set<SocketOption<?>> s = new HashSet<>(delegate.supportedOptions());
        s.addAll(decided ? dual.supportedOptions() : transportOptions());
        return Set.copyOf(s);
    }

    private static Set<SocketOption<?>> transportOptions() {
        return org.sdp4j.transport.TransportOptions.of(org.sdp4j.Sdp4j.router().rules());
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
                        adaptor = s = new SdpServerSocketAdaptor(this);
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                }
            }
        }
        return s;
    }

    boolean isDual() {
        return dual != null;
    }

    @Override
    public SocketAddress getLocalAddress() throws IOException {
        return delegate.getLocalAddress();
    }

    @Override
    protected void implCloseSelectableChannel() throws IOException {
        ServerSocketChannel d, r;
        Poller p;
        synchronized (stateLock) {
            d = delegate;
            r = dual;
            p = dualPoller;
        }
        try {
            d.close();
            if (initial != d) {
                initial.close();
            }
        } finally {
            if (r != null) {
                r.close(); // wakes a blocking accept in the poller (pollBegin registered it)
            }
            if (p != null) {
                p.close(); // a poll in progress returns (the poller closes its eventfd after it)
            }
        }
    }

    @Override
    protected void implConfigureBlocking(boolean block) throws IOException {
        if (block) {
            keys.cancelInnerKeys();
        }
        if (dual != null) {
            return; // both listeners stay non-blocking; a blocking accept waits in the poller
        }
        delegate.configureBlocking(block);
    }

    @Override
    public String toString() {
        return delegate.toString(); // as without sdp4j: the JDK names the abstract channel type, not the class
    }
}
