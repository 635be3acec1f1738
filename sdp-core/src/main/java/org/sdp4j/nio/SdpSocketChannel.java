package org.sdp4j.nio;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import org.sdp4j.Sdp4j;
import org.sdp4j.log.SdpLog;
import org.sdp4j.transport.Router;
import org.sdp4j.transport.Transport;
import org.sdp4j.transport.Transports;

/**
 * The SocketChannel of sdp4j's provider: the JDK's own channel underneath until {@code connect}, where the rules
 * decide. {@code tcp} keeps the JDK channel; {@code sdp} (and {@code both} when RDMA answers) switch this channel's
 * I/O to the transport's own channel (rsockets: {@code RsocketSocketChannel}), to which the options and bind address
 * set so far are handed. Reads and writes go straight to the channel in use with the caller's buffers.
 *
 * <p><b>Non-blocking connect under {@code both}.</b> libsdp made such connects blocking. Here the RDMA connect is
 * started non-blocking and {@code connect} returns false at once; the application's selector polls the rsocket and
 * reports OP_CONNECT when it connected, failed, or when the attempt bound ({@code sdp4j.both.timeout}) passed. Then
 * {@code finishConnect} completes it, or falls back: starts the TCP connect (non-blocking, on the original JDK
 * channel), so the caller never waits for the attempt. The Router holds the attempt ({@link Router.Pending}): its
 * one decision line is logged when it ends, {@code transport=rsocket} or {@code transport=tcp fallback="..."}, the
 * latter also putting the destination into the Router's memory of failures.
 */
final class SdpSocketChannel extends SocketChannel implements WrappingChannel {
    /** The JDK's channel this one was opened with (or, accepted, the channel it was accepted as). */
    private final SocketChannel initial;
    private volatile SocketChannel delegate;
    private final KeyList keys = new KeyList();
    private final Object stateLock = new Object();
    private volatile boolean decided;
    private volatile Socket adaptor;
    /** Before the decision: options for the transport that will carry the connection, in order. */
    private final Map<SocketOption<?>, Object> preOptions = new LinkedHashMap<>();
    private volatile SocketAddress bindRequest;
    /** An RDMA channel being connected in blocking mode (closed by an asynchronous close of this channel). */
    private volatile SocketChannel connecting;
    /** A pending non-blocking {@code both}/{@code ucx} attempt that may still fall back (the Router's); null when none. */
    private volatile Router.Pending attempt;
    /** A non-blocking connect decided for a transport and still under way (told once it completes). */
    private volatile Transport establishing;
    /** Where the pending attempt connects to (for the fallback's TCP connect). */
    private volatile InetSocketAddress attemptRemote;

    /** @param decided true for an accepted channel: already connected, nothing left to decide */
    SdpSocketChannel(SelectorProvider provider, SocketChannel delegate, boolean decided) {
        super(provider);
        this.initial = delegate;
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
    public long nanosUntilDeadline() {
        Router.Pending a = attempt;
        return a == null ? Long.MAX_VALUE : a.deadlineNanos - System.nanoTime();
    }

    /** The socket of the channel in use (the adaptor forwards to it). */
    Socket currentSocket() {
        return delegate.socket();
    }

    /** The Socket the JDK channel of this one has (the adaptor's TCP path). */
    Socket initialSocket() {
        return initial.socket();
    }

    // ---- connect ----

    @Override
    public boolean connect(SocketAddress remote) throws IOException {
        if (decided || !(remote instanceof InetSocketAddress isa) || isa.isUnresolved()) {
            return afterClose(() -> delegate.connect(remote));
        }
        if (!isOpen()) {
            throw new ClosedChannelException();
        }
        Router router = Sdp4j.router();
        boolean[] connected = new boolean[1];
        try {
            if (isBlocking()) {
                router.connect(isa, 0, (t, ms) -> connected[0] = connectRdma(t, isa, ms),
                        t -> connected[0] = afterClose(() -> initial.connect(isa)));
            } else {
                Router.Pending p = router.connectNonBlocking(isa, t -> connected[0] = startRdma(t, isa),
                        t -> connected[0] = afterClose(() -> initial.connect(isa)));
                if (p != null) {
                    attemptRemote = isa;
                    attempt = p; // the TCP channel stays for the fallback
                } else if (delegate != initial) {
                    closeInitial();
                }
            }
        } catch (IOException e) {
            closeIfInnerClosed();
            throw e;
        } finally {
            decided = true;
        }
        return connected[0];
    }

    /**
     * The Router's RDMA path in blocking mode: a channel of transport {@code t}, given this channel's options and
     * bind address, connected within {@code attemptMillis} (0: none). On failure the TCP channel is untouched.
     */
    private boolean connectRdma(Transport t, InetSocketAddress isa, int attemptMillis) throws IOException {
        SocketChannel r = t.openSocketChannel(provider());
        try {
            replay(t, r);
            connecting = r;
            if (!isOpen()) {
                throw new AsynchronousCloseException();
            }
            try {
                r.socket().connect(isa, attemptMillis);
            } finally {
                connecting = null;
            }
            install(r);
            closeInitial();
            t.established(r, isa, false);
            return true;
        } catch (IOException | RuntimeException e) {
            closeQuietly(r, e);
            throw e;
        }
    }

    /**
     * The same in non-blocking mode: the transport's channel becomes the one in use and its connect is started
     * (true when it completed at once); the TCP channel is kept while the Router may still fall back.
     */
    private boolean startRdma(Transport t, InetSocketAddress isa) throws IOException {
        SocketChannel r = t.openSocketChannel(provider());
        try {
            replay(t, r);
            r.configureBlocking(false);
            boolean done = r.connect(isa);
            install(r);
            if (done) {
                t.established(r, isa, false);
            } else {
                attemptRemote = isa;
                establishing = t;
            }
            return done;
        } catch (IOException | RuntimeException e) {
            closeQuietly(r, e);
            throw e;
        }
    }

    private static void closeQuietly(SocketChannel r, Exception e) {
        try {
            r.close();
        } catch (IOException suppressed) {
            e.addSuppressed(suppressed);
        }
    }

    /** Hands the options and bind address given so far to the transport's channel. */
    @SuppressWarnings("unchecked")
    private void replay(Transport t, SocketChannel r) throws IOException {
        Map<SocketOption<?>, Object> copy;
        synchronized (preOptions) {
            copy = new LinkedHashMap<>(preOptions);
        }
        Set<SocketOption<?>> supported = r.supportedOptions();
        for (Map.Entry<SocketOption<?>, Object> e : copy.entrySet()) {
            if (!supported.contains(e.getKey())) {
                SdpLog.log(SdpLog.DEBUG, "socket option " + e.getKey() + " not applied on " + t.name()
                        + ": not supported there");
                continue;
            }
            try {
                r.setOption((SocketOption<Object>) e.getKey(), e.getValue());
            } catch (IOException | RuntimeException x) {
                SdpLog.log(SdpLog.WARN, "socket option " + e.getKey() + "=" + e.getValue() + " not applied on "
                        + t.name() + ": " + x.getMessage());
            }
        }
        SocketAddress b = bindRequest;
        if (b != null) {
            r.bind(b);
        }
        r.configureBlocking(isBlocking());
    }

    /** Makes {@code r} the channel in use; a selector this channel is registered with follows at its next select. */
    private void install(SocketChannel r) throws IOException {
        synchronized (stateLock) {
            if (!isOpen()) {
                throw new AsynchronousCloseException();
            }
            delegate = r;
        }
        retarget();
    }

    private void retarget() {
        for (SdpSelectionKey k : keys.snapshot()) {
            if (k.selector() instanceof SdpSelector s) {
                s.retargeted();
            }
        }
    }

    private void closeInitial() {
        try {
            initial.close();
        } catch (IOException ignore) {
            // never used for I/O; nothing to report
        }
    }

    @Override
    public boolean finishConnect() throws IOException {
        Router.Pending a = attempt;
        if (a == null) {
            boolean done = afterClose(() -> delegate.finishConnect());
            Transport t = establishing;
            if (done && t != null) {
                establishing = null;
                t.established(delegate, attemptRemote, false);
            }
            return done;
        }
        SocketChannel r = delegate;
        IOException failure;
        try {
            if (r.finishConnect()) {
                attempt = null;
                a.connected();
                closeInitial();
                return true;
            }
            if (!a.expired()) {
                return false;
            }
            failure = new SocketTimeoutException("no answer within the " + a.boundMillis + " ms attempt bound");
        } catch (ClosedChannelException e) {
            closeIfInnerClosed(); // closed by the application or an interrupt: no fallback
            throw e;
        } catch (IOException e) {
            failure = e;
        }
        // fall back: the TCP connect, non-blocking as the application asked
        attempt = null;
        synchronized (stateLock) {
            if (!isOpen()) {
                throw new AsynchronousCloseException();
            }
            delegate = initial;
        }
        try {
            r.close();
        } catch (IOException ignore) {
            // the attempt is over
        }
        retarget();
        boolean[] connected = new boolean[1];
        InetSocketAddress remote = attemptRemote;
        try {
            a.fallBack(failure, t -> connected[0] = initial.connect(remote));
        } catch (IOException e) {
            closeIfInnerClosed();
            throw e;
        }
        return connected[0];
    }

    @Override
    public boolean isConnected() {
        return delegate.isConnected();
    }

    @Override
    public boolean isConnectionPending() {
        return attempt != null || delegate.isConnectionPending();
    }

    // ---- data ----

    @Override
    public int read(ByteBuffer dst) throws IOException {
        SocketChannel d = delegate;
        try {
            return d.read(dst);
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

    // ---- bind, options ----

    @Override
    public SocketChannel bind(SocketAddress local) throws IOException {
        delegate.bind(local);
        if (!decided) {
            bindRequest = local == null ? new InetSocketAddress(0) : local;
        }
        return this;
    }

    /** Options every installed transport adds to the JDK's (rsockets' RDMA_SQSIZE ...). */
    private static Set<SocketOption<?>> transportOptions() {
        return org.sdp4j.transport.TransportOptions.of(org.sdp4j.Sdp4j.router().rules());
    }

    @Override
    public <T> SocketChannel setOption(SocketOption<T> name, T value) throws IOException {
        SocketChannel d = delegate;
        if (decided || d != initial) {
            d.setOption(name, value);
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
        SocketChannel d = delegate;
        if (!decided && d == initial && name != null && !d.supportedOptions().contains(name)
                && transportOptions().contains(name)) {
            if (!isOpen()) {
                throw new ClosedChannelException();
            }
            synchronized (preOptions) {
                return (T) preOptions.get(name); // null: not set (the transport's default applies)
            }
        }
        return d.getOption(name);
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        SocketChannel d = delegate;
        if (decided || d != initial) {
            return d.supportedOptions();
        }
        Set<SocketOption<?>> s = new HashSet<>(d.supportedOptions());
        s.addAll(transportOptions());
        return Set.copyOf(s);
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
                        adaptor = s = new SdpSocketAdaptor(this);
                    } catch (java.net.SocketException e) {
                        throw new IllegalStateException(e);
                    }
                }
            }
        }
        return s;
    }

    /** {@code socket().connect(remote, timeout)}: blocking, with the JDK adaptor's timeout semantics. */
    void connectFromAdaptor(SocketAddress remote, int timeout) throws IOException {
        Socket jdkAdaptor = initial.socket();
        try {
            if (decided || !(remote instanceof InetSocketAddress isa) || isa.isUnresolved()) {
                delegate.socket().connect(remote, timeout);
                return;
            }
            Router router = Sdp4j.router();
            try {
                router.connect(isa, timeout, (t, ms) -> connectRdma(t, isa, ms), t -> jdkAdaptor.connect(isa, t));
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
        SocketChannel d;
        synchronized (stateLock) {
            d = delegate;
        }
        IOException first = null;
        SocketChannel r = connecting;
        for (SocketChannel c : new SocketChannel[] {d, initial != d ? initial : null, r != d ? r : null}) {
            if (c == null) {
                continue;
            }
            try {
                c.close();
            } catch (IOException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    @Override
    protected void implConfigureBlocking(boolean block) throws IOException {
        if (block) {
            keys.cancelInnerKeys();
        }
        SocketChannel d = delegate;
        d.configureBlocking(block);
        if (d != initial && initial.isOpen() && attempt != null) {
            initial.configureBlocking(block); // the fallback connect follows the application's mode
        }
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
