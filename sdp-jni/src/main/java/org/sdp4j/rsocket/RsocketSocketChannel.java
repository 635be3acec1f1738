package org.sdp4j.rsocket;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.AlreadyBoundException;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ConnectionPendingException;
import java.nio.channels.NoConnectionPendingException;
import java.nio.channels.NotYetConnectedException;
import java.nio.channels.SocketChannel;
import java.nio.channels.UnresolvedAddressException;
import java.nio.channels.UnsupportedAddressTypeException;
import java.nio.channels.spi.SelectorProvider;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

import org.sdp4j.transport.Deadline;
import org.sdp4j.transport.Poller;
import org.sdp4j.transport.Transport;
import org.sdp4j.nio.TransportSocketAdaptor;
import org.sdp4j.transport.TransportChannel;

/**
 * A {@link SocketChannel} over an rsocket. Registered with sdp4j's Selector, it is polled with its transport's
 * {@link RsocketPoller} (rpoll), together with the kernel channels of that selector.
 *
 * <p>As in {@link RsocketSocketImpl}, the rsocket itself is always non-blocking; blocking mode waits in rpoll on the
 * rsocket plus this channel's wakeup eventfd, so an asynchronous close (or an interrupt, which closes the channel as
 * for every interruptible channel) wakes a blocked read, write or connect at once. Operations and selector polls
 * count themselves in and out; the rsocket is rclose'd by whoever leaves last, never under a running call or rpoll.
 *
 * <p>Data moves between the caller's buffer and rsockets' registered buffers with one copy: a heap buffer's array
 * is passed as is (a JNI critical region around one non-blocking rrecv/rsend), a direct buffer by address.
 * Scatter/gather loops over the buffers (each a non-blocking call; rsockets' readv/writev copy the same way).
 */
final class RsocketSocketChannel extends SocketChannel implements RsocketChannel, TransportSocketAdaptor.Channel {
    private static final int UNCONNECTED = 0, PENDING = 1, CONNECTED = 2;

    private final Transport owner;
    private final Object stateLock = new Object();
    private final ReentrantLock readLock = new ReentrantLock(), writeLock = new ReentrantLock();
    final RsocketSockopts.Kept kept = new RsocketSockopts.Kept();

    private final RsocketHandle h;

    private volatile int state;
    private volatile InetSocketAddress local, remote;
    private RsocketAddresses.Destination pending; // the pending connect's destination, for finishConnect
    private volatile Socket adaptor;

    /** A new unconnected channel: creates the rsocket (with the global tunables applied). */
    RsocketSocketChannel(SelectorProvider provider, Transport owner) throws IOException {
        super(provider);
        this.owner = owner;
        h = RsocketHandle.open();
        try {
            RsocketTunables.applyGlobal(this::setTunable);
        } catch (IOException | RuntimeException e) {
            h.close();
            throw e;
        }
    }

    /** An accepted channel over {@code nfd} (closed by the caller if this throws). */
    RsocketSocketChannel(SelectorProvider provider, Transport owner, int nfd, int busyPollMicros) throws IOException {
        super(provider);
        this.owner = owner;
        InetSocketAddress peer = RsocketAddresses.peer(nfd);
        InetSocketAddress me = RsocketAddresses.local(nfd);
        h = RsocketHandle.accepted(nfd);
        remote = peer;
        local = me;
        state = CONNECTED;
        kept.busyPollMicros = busyPollMicros;
        h.track("accepted", me, peer);
    }

    // ---- counting operations in and out: the handle ----

    @Override
    public Transport transport() {
        return owner;
    }

    @Override
    public RsocketHandle handle() {
        return h;
    }

    @Override
    protected void implCloseSelectableChannel() throws IOException {
        h.close();
    }

    @Override
    protected void implConfigureBlocking(boolean block) {
        // the rsocket is always non-blocking; the mode only decides whether the Java side waits
    }

    // ---- connect ----

    @Override
    public SocketChannel bind(SocketAddress localAddress) throws IOException {
        synchronized (stateLock) {
            if (h.isClosing() || !isOpen()) {
                throw new ClosedChannelException();
            }
            if (state == PENDING) {
                throw new ConnectionPendingException();
            }
            if (state == CONNECTED) {
                throw new AlreadyConnectedException();
            }
            if (local != null) {
                throw new AlreadyBoundException();
            }
        }
        InetSocketAddress isa = localAddress == null ? new InetSocketAddress(0) : checkAddress(localAddress);
        int fd = enter();
        try {
            InetAddress a = isa.getAddress();
            Native.bind(fd, a.getAddress(), RsocketAddresses.scope(a), isa.getPort());
            local = RsocketAddresses.local(fd);
        } finally {
            exit();
        }
        return this;
    }

    private static InetSocketAddress checkAddress(SocketAddress sa) {
        if (!(sa instanceof InetSocketAddress)) {
            throw new UnsupportedAddressTypeException();
        }
        InetSocketAddress isa = (InetSocketAddress) sa;
        if (isa.isUnresolved()) {
            throw new UnresolvedAddressException();
        }
        return isa;
    }

    @Override
    public boolean connect(SocketAddress remoteAddress) throws IOException {
        return connect(remoteAddress, 0);
    }

    /** Blocking mode: waits at most {@code timeoutMillis} (0 = no limit); the socket adaptor's timed connect. */
    @Override
    public boolean connect(SocketAddress remoteAddress, int timeoutMillis) throws IOException {
        InetSocketAddress isa = checkAddress(Objects.requireNonNull(remoteAddress, "remote"));
        RsocketAddresses.Destination d = RsocketAddresses.Destination.of(isa);
        boolean blocking;
        synchronized (blockingLock()) {
            blocking = isBlocking();
            readLock.lock();
            try {
                writeLock.lock();
                try {
                    synchronized (stateLock) {
                        if (h.isClosing() || !isOpen()) {
                            throw new ClosedChannelException();
                        }
                        if (state == CONNECTED) {
                            throw new AlreadyConnectedException();
                        }
                        if (state == PENDING) {
                            throw new ConnectionPendingException();
                        }
                    }
                    int fd = enter();
                    boolean completed = false;
                    try {
                        RsocketTunables.applyRule(true, isa, this::setTunable);
                        if (blocking) {
                            begin();
                        }
                        boolean done = h.connect(fd, d);
                        synchronized (stateLock) {
                            pending = d;
                            remote = d.socketAddress();
                            state = done ? CONNECTED : PENDING;
                        }
                        if (!done && blocking) {
                            done = waitConnected(fd, timeoutMillis);
                        }
                        if (done) {
                            connected(fd);
                        }
                        completed = true;
                        return done;
                    } finally {
                        try {
                            if (blocking) {
                                end(completed);
                            }
                        } catch (IOException e) {
                            exit();
                            closeQuietly(e);
                            throw e;
                        }
                        exit();
                    }
                } catch (IOException | RuntimeException e) {
                    if (!(e instanceof AlreadyConnectedException || e instanceof ConnectionPendingException)) {
                        closeQuietly(e); // a failed connect closes the channel, as the JDK's does
                    }
                    throw e;
                } finally {
                    writeLock.unlock();
                }
            } finally {
                readLock.unlock();
            }
        }
    }

    /** Blocking wait for a pending connect; true when connected, throws on failure, timeout or close. */
    private boolean waitConnected(int fd, int timeoutMillis) throws IOException {
        int r = h.awaitConnect(fd, pending, timeoutMillis, kept.busyPollMicros);
        if (r == RsocketHandle.INTERRUPTED) {
            h.awaitCloseByInterrupt();
        }
        if (r != 0) {
            throw new ClosedChannelException(); // end() turns this into AsynchronousClose/ClosedByInterrupt
        }
        return true;
    }

    private void connected(int fd) throws IOException {
        InetSocketAddress me = h.connected(fd, pending);
        synchronized (stateLock) {
            local = me;
            state = CONNECTED;
        }
    }

    private boolean isClosing() {
        return h.isClosing();
    }

    private void closeQuietly(Exception e) {
        try {
            close();
        } catch (IOException suppressed) {
            e.addSuppressed(suppressed);
        }
    }

    @Override
    public boolean finishConnect() throws IOException {
        synchronized (blockingLock()) {
            boolean blocking = isBlocking();
            readLock.lock();
            try {
                writeLock.lock();
                try {
                    if (!isOpen()) {
                        throw new ClosedChannelException();
                    }
                    if (state == CONNECTED) {
                        return true;
                    }
                    if (state != PENDING) {
                        throw new NoConnectionPendingException();
                    }
                    int fd = enter();
                    boolean completed = false;
                    try {
                        if (blocking) {
                            begin();
                        }
                        boolean done;
                        if (blocking) {
                            done = waitConnected(fd, 0);
                        } else {
                            int r = Native.poll(fd, Native.POLLOUT, -1, 0);
                            done = r != 0;
                            if (done) {
                                h.finishConnect(fd, r, pending);
                            }
                        }
                        if (done) {
                            connected(fd);
                        }
                        completed = true;
                        return done;
                    } finally {
                        try {
                            if (blocking) {
                                end(completed);
                            }
                        } finally {
                            exit();
                        }
                    }
                } catch (IOException | RuntimeException e) {
                    if (!(e instanceof NoConnectionPendingException)) {
                        closeQuietly(e);
                    }
                    throw e;
                } finally {
                    writeLock.unlock();
                }
            } finally {
                readLock.unlock();
            }
        }
    }

    @Override
    public boolean isConnected() {
        return state == CONNECTED;
    }

    @Override
    public boolean isConnectionPending() {
        return state == PENDING;
    }

    // ---- data ----

    @Override
    public int read(ByteBuffer dst) throws IOException {
        Objects.requireNonNull(dst, "dst");
        return (int) read(new ByteBuffer[] {dst}, 0, 1, 0);
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, dsts.length);
        return read(dsts, offset, length, 0);
    }

    /** Reads with a timeout in blocking mode (0 = none): the socket adaptor's SO_TIMEOUT. */
    @Override
    public long read(ByteBuffer[] dsts, int offset, int length, int timeoutMillis) throws IOException {
        Object ev = org.sdp4j.ops.Jfr.ioBegin(true); // null unless a recording takes it: ioEnd then does nothing
        long n = 0;
        try {
            return n = readImpl(dsts, offset, length, timeoutMillis);
        } finally {
            org.sdp4j.ops.Jfr.ioEnd(ev, "rsocket", remote, n);
        }
    }

    private long readImpl(ByteBuffer[] dsts, int offset, int length, int timeoutMillis) throws IOException {
        for (int i = offset; i < offset + length; i++) {
            if (dsts[i].isReadOnly()) {
                throw new IllegalArgumentException("Read-only buffer");
            }
        }
        readLock.lock();
        try {
            boolean blocking = isBlocking();
            int fd = enter();
            boolean completed = false;
            try {
                if (state != CONNECTED) {
                    throw new NotYetConnectedException();
                }
                if (blocking) {
                    begin();
                }
                long n = h.read(fd, dsts, offset, length, blocking, Deadline.afterMillis(timeoutMillis),
                        kept.busyPollMicros);
                if (n == RsocketHandle.TIMED_OUT) {
                    completed = true;
                    throw new SocketTimeoutException("Read timed out");
                }
                if (ended(n)) {
                    return 0; // end(false) throws AsynchronousCloseException / ClosedByInterruptException
                }
                completed = true;
                return n;
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
            readLock.unlock();
        }
    }

    /** True when a close or an interrupt ended the wait (after an interrupt, once the interruptor closed us). */
    private boolean ended(long outcome) {
        if (outcome == RsocketHandle.INTERRUPTED_WAITING) {
            h.awaitCloseByInterrupt();
            return true;
        }
        return outcome == RsocketHandle.CLOSED_WAITING;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        Objects.requireNonNull(src, "src");
        return (int) write(new ByteBuffer[] {src}, 0, 1);
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, srcs.length);
        Object ev = org.sdp4j.ops.Jfr.ioBegin(false);
        long n = 0;
        try {
            return n = writeImpl(srcs, offset, length);
        } finally {
            org.sdp4j.ops.Jfr.ioEnd(ev, "rsocket", remote, n);
        }
    }

    private long writeImpl(ByteBuffer[] srcs, int offset, int length) throws IOException {
        writeLock.lock();
        try {
            boolean blocking = isBlocking();
            int fd = enter();
            boolean completed = false;
            try {
                if (state != CONNECTED) {
                    throw new NotYetConnectedException();
                }
                if (h.isOutputShutdown()) {
                    throw new java.nio.channels.ClosedChannelException();
                }
                if (blocking) {
                    begin();
                }
                long n = h.write(fd, srcs, offset, length, blocking, kept.busyPollMicros);
                if (ended(n)) {
                    return 0; // end(false) throws AsynchronousCloseException / ClosedByInterruptException
                }
                completed = true;
                return n;
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
            writeLock.unlock();
        }
    }

    // ---- shutdown, options, addresses ----

    @Override
    public SocketChannel shutdownInput() throws IOException {
        int fd = enter();
        try {
            if (state != CONNECTED) {
                throw new NotYetConnectedException();
            }
            h.shutdownInput(fd);
        } finally {
            exit();
        }
        return this;
    }

    @Override
    public SocketChannel shutdownOutput() throws IOException {
        int fd = enter();
        try {
            if (state != CONNECTED) {
                throw new NotYetConnectedException();
            }
            h.shutdownOutput(fd);
        } finally {
            exit();
        }
        return this;
    }

    @Override
    public boolean isInputShutdown() {
        return h.isInputShutdown();
    }

    @Override
    public boolean isOutputShutdown() {
        return h.isOutputShutdown();
    }

    @Override
    public <T> SocketChannel setOption(SocketOption<T> name, T value) throws IOException {
        RsocketSockopts.check(RsocketSockopts.CLIENT, name, value);
        int fd = enter();
        try {
            RsocketSockopts.setExplicit(fd, kept, name, value);
        } finally {
            exit();
        }
        return this;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(SocketOption<T> name) throws IOException {
        RsocketSockopts.checkSupported(RsocketSockopts.CLIENT, name);
        int fd = enter();
        try {
            return (T) RsocketSockopts.get(fd, kept, name);
        } finally {
            exit();
        }
    }

    /** A tunable (global or per rule): set unless the application set this option on this channel itself. */
    void setTunable(SocketOption<Integer> name, Integer value) throws IOException {
        int fd = enter();
        try {
            RsocketSockopts.setTunable(fd, kept, RsocketSockopts.CLIENT, name, value);
        } finally {
            exit();
        }
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return RsocketSockopts.CLIENT;
    }

    @Override
    public SocketAddress getRemoteAddress() throws IOException {
        if (!isOpen()) {
            throw new ClosedChannelException();
        }
        return state == CONNECTED ? remote : null;
    }

    @Override
    public SocketAddress getLocalAddress() throws IOException {
        if (!isOpen()) {
            throw new ClosedChannelException();
        }
        return local;
    }

    /** The rsocket descriptor, -1 when closed (tests and logs). */
    int rsocketFd() {
        return pollFd();
    }

    @Override
    public Socket socket() {
        Socket s = adaptor;
        if (s == null) {
            synchronized (this) {
                s = adaptor;
                if (s == null) {
                    try {
                        adaptor = s = new TransportSocketAdaptor(this, "rsockets");
                    } catch (java.net.SocketException e) {
                        throw new IllegalStateException(e);
                    }
                }
            }
        }
        return s;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("RsocketSocketChannel[");
        if (!isOpen()) {
            sb.append("closed");
        } else {
            sb.append(state == CONNECTED ? "connected" : state == PENDING ? "connection-pending" : "unconnected");
            if (local != null) {
                sb.append(" local=").append(local);
            }
            if (state == CONNECTED && remote != null) {
                sb.append(" remote=").append(remote);
            }
        }
        return sb.append(']').toString();
    }
}
