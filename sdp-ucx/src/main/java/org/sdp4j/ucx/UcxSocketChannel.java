package org.sdp4j.ucx;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.AlreadyBoundException;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NoConnectionPendingException;
import java.nio.channels.NotYetConnectedException;
import java.nio.channels.SocketChannel;
import java.nio.channels.UnresolvedAddressException;
import java.nio.channels.UnsupportedAddressTypeException;
import java.nio.channels.spi.SelectorProvider;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

import jdk.net.ExtendedSocketOptions;
import org.sdp4j.log.SdpLog;
import org.sdp4j.transport.Poller;
import org.sdp4j.transport.Transport;
import org.sdp4j.nio.TransportSocketAdaptor;
import org.sdp4j.transport.TransportChannel;

/**
 * A {@link SocketChannel} over a {@link UcxConnection}; in an sdp4j Selector its readiness comes from
 * {@link UcxPoller} (see there for the latency/CPU trade-off).
 *
 * <p><b>Connect is always blocking</b>, in non-blocking mode too ({@code connect} then returns true): the
 * rendezvous handshake is with a process on this host and bounded by {@link Rendezvous#HANDSHAKE_MILLIS} (5 s).
 * The peer's side of the handshake runs in its {@code accept}, so a client and a listener driven by the same
 * selector thread would wait out that bound (and a {@code ucx} rule then falls back to TCP).
 *
 * <p>Blocking reads and writes are the connection's own (busy poll, then asleep in the UCX worker); a close from
 * another thread (or an interrupt, which closes the channel) signals the worker and the blocked operation ends
 * with {@link java.nio.channels.AsynchronousCloseException} ({@link java.nio.channels.ClosedByInterruptException}).
 * Non-blocking writes leave at most one staging buffer ({@code sdp4j.ucx.buffer}, 256 KiB) in flight and report
 * OP_WRITE when it completed. TCP options are accepted and read back as {@link UcxSocketImpl} does.
 */
final class UcxSocketChannel extends SocketChannel
        implements TransportChannel, UcxPoller.Pollable, TransportSocketAdaptor.Channel {
    private final Transport owner;
    final int pseudoFd = UcxPoller.newPseudoFd();
    private final Object stateLock = new Object();
    private final ReentrantLock readLock = new ReentrantLock(), writeLock = new ReentrantLock();
    /** The buffer of a single-buffer read or write, under its lock: the hot path allocates no array. */
    private final ByteBuffer[] readOne = new ByteBuffer[1], writeOne = new ByteBuffer[1];
    private final Map<Poller, UcxConnection> polls = new IdentityHashMap<>(); // guarded by stateLock
    private final Map<SocketOption<?>, Object> options = new ConcurrentHashMap<>();

    private volatile UcxConnection conn;
    private volatile InetSocketAddress local, remote;
    private volatile InetSocketAddress bindRequest;
    private volatile boolean inputShutdown, outputShutdown;
    private volatile Socket adaptor;

    UcxSocketChannel(SelectorProvider provider, Transport owner) {
        super(provider);
        this.owner = owner;
    }

    /** Accepted on a listener: already connected. */
    UcxSocketChannel(SelectorProvider provider, Transport owner, UcxConnection c, InetSocketAddress local,
            InetSocketAddress remote) {
        super(provider);
        this.owner = owner;
        this.conn = c;
        this.local = local;
        this.remote = remote;
        c.track("accepted", local, remote);
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
            if (!isOpen()) {
                return -1;
            }
            UcxConnection c = conn;
            if (c != null && !c.enter()) {
                return -1;
            }
            polls.put(poller, c);
            up.attach(pseudoFd, this);
        }
        return pseudoFd;
    }

    @Override
    public void pollEnd(Poller poller) {
        UcxConnection c;
        synchronized (stateLock) {
            if (!polls.containsKey(poller)) {
                return;
            }
            c = polls.remove(poller);
            ((UcxPoller) poller).detach(pseudoFd);
        }
        if (c != null) {
            c.exit(); // releases the worker if the channel was closed during the poll
        }
    }

    @Override
    public int kernelFd() {
        return -1;
    }

    @Override
    public short readyOps(short events) {
        UcxConnection c = conn;
        if (c == null) {
            return 0;
        }
        return (short) c.readyOps((events & Poller.POLLIN) != 0, (events & Poller.POLLOUT) != 0);
    }

    // ---- life cycle ----

    @Override
    protected void implCloseSelectableChannel() throws IOException {
        UcxConnection c;
        Poller[] ps;
        synchronized (stateLock) {
            c = conn;
            ps = polls.keySet().toArray(new Poller[0]);
        }
        if (c != null) {
            c.close(); // wakes blocked operations; the last user out (an operation, a poll) releases
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
        // the connection has no mode: each operation says whether it waits
    }

    // ---- connect ----

    @Override
    public SocketChannel bind(SocketAddress localAddress) throws IOException {
        synchronized (stateLock) {
            ensureOpen();
            if (conn != null) {
                throw new AlreadyConnectedException();
            }
            if (bindRequest != null) {
                throw new AlreadyBoundException();
            }
            // no local TCP endpoint exists: the address is kept and read back
            bindRequest = localAddress == null ? new InetSocketAddress(0) : check(localAddress);
            local = bindRequest;
        }
        return this;
    }

    private static InetSocketAddress check(SocketAddress sa) {
        if (!(sa instanceof InetSocketAddress isa)) {
            throw new UnsupportedAddressTypeException();
        }
        if (isa.isUnresolved()) {
            throw new UnresolvedAddressException();
        }
        return isa;
    }

    private void ensureOpen() throws ClosedChannelException {
        if (!isOpen()) {
            throw new ClosedChannelException();
        }
    }

    @Override
    public boolean connect(SocketAddress remoteAddress) throws IOException {
        return connect(remoteAddress, 0);
    }

    /** Blocking in either mode, within {@code timeoutMillis} (0: the handshake bound). */
    @Override
    public boolean connect(SocketAddress remoteAddress, int timeoutMillis) throws IOException {
        InetSocketAddress isa = check(Objects.requireNonNull(remoteAddress, "remote"));
        readLock.lock();
        try {
            writeLock.lock();
            try {
                synchronized (stateLock) {
                    ensureOpen();
                    if (conn != null) {
                        throw new AlreadyConnectedException();
                    }
                }
                boolean completed = false;
                UcxConnection c = null;
                try {
                    begin();
                    c = Handshake.connect(isa.getAddress(), isa.getPort(), timeoutMillis);
                    synchronized (stateLock) {
                        if (!isOpen()) {
                            c.close();
                            return false; // end(false) throws AsynchronousClose/ClosedByInterrupt
                        }
                        conn = c;
                        c.keepAlive(options);
                        InetSocketAddress b = bindRequest;
                        InetAddress la = b != null && !b.getAddress().isAnyLocalAddress() ? b.getAddress()
                                : isa.getAddress();
                        local = new InetSocketAddress(la, c.id);
                        c.track("client", local, isa);
                        remote = isa;
                    }
                    completed = true;
                    if (SdpLog.enabled(SdpLog.DEBUG)) {
                        SdpLog.log(SdpLog.DEBUG, "ucx: channel connected to " + Rendezvous.hostPort(isa.getAddress(),
                                isa.getPort()) + " (tls=" + Ucx.transports() + "), connection " + c.id);
                    }
                    return true;
                } finally {
                    end(completed);
                }
            } catch (IOException | RuntimeException e) {
                if (!(e instanceof AlreadyConnectedException)) {
                    try {
                        close(); // a failed connect closes the channel, as the JDK's does
                    } catch (IOException suppressed) {
                        e.addSuppressed(suppressed);
                    }
                }
                throw e;
            } finally {
                writeLock.unlock();
            }
        } finally {
            readLock.unlock();
        }
    }

    @Override
    public boolean finishConnect() throws IOException {
        ensureOpen();
        if (conn == null) {
            throw new NoConnectionPendingException();
        }
        return true;
    }

    @Override
    public boolean isConnected() {
        return conn != null;
    }

    @Override
    public boolean isConnectionPending() {
        return false;
    }

    // ---- data ----

    private UcxConnection connected() throws IOException {
        ensureOpen();
        UcxConnection c = conn;
        if (c == null) {
            throw new NotYetConnectedException();
        }
        return c;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        Objects.requireNonNull(dst, "dst");
        return (int) read(dst, null, 0, 1, 0);
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, dsts.length);
        return read(dsts, offset, length, 0);
    }

    /** Blocking mode waits at most {@code timeoutMillis} (0: no limit): the socket adaptor's SO_TIMEOUT. */
    @Override
    public long read(ByteBuffer[] dsts, int offset, int length, int timeoutMillis) throws IOException {
        return read(null, dsts, offset, length, timeoutMillis);
    }

    /** Every read: into {@code one} ({@code dsts} null: no array per call) or {@code dsts}, recorded for JFR. */
    private long read(ByteBuffer one, ByteBuffer[] dsts, int offset, int length, int timeoutMillis)
            throws IOException {
        Object ev = org.sdp4j.ops.Jfr.ioBegin(true); // null unless a recording takes it: ioEnd then does nothing
        long n = 0;
        try {
            for (int i = offset; i < offset + length; i++) {
                if ((one != null ? one : dsts[i]).isReadOnly()) {
                    throw new IllegalArgumentException("Read-only buffer");
                }
            }
            return n = readImpl(one, dsts, offset, length, timeoutMillis);
        } finally {
            org.sdp4j.ops.Jfr.ioEnd(ev, "ucx", remote, n);
        }
    }

    /** Reads into {@code one} (then {@code dsts} is null: no array allocated per read) or {@code dsts}. */
    private long readImpl(ByteBuffer one, ByteBuffer[] dsts, int offset, int length, int timeoutMillis)
            throws IOException {
        readLock.lock();
        if (one != null) {
            readOne[0] = one;
            dsts = readOne;
        }
        try {
            UcxConnection c = connected();
            if (inputShutdown) {
                return -1;
            }
            boolean blocking = isBlocking();
            boolean completed = false;
            try {
                if (blocking) {
                    begin();
                }
                long n = c.in.read(dsts, offset, length, blocking, timeoutMillis);
                completed = true;
                return n;
            } catch (IOException e) {
                if (!isOpen()) {
                    return 0; // closed meanwhile: end(false) throws AsynchronousClose/ClosedByInterrupt
                }
                throw e;
            } finally {
                if (blocking) {
                    end(completed);
                }
            }
        } finally {
            readOne[0] = null;
            readLock.unlock();
        }
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        Objects.requireNonNull(src, "src");
        return (int) write(src, null, 0, 1);
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, srcs.length);
        return write(null, srcs, offset, length);
    }

    /** Every write: from {@code one} ({@code srcs} null: no array per call) or {@code srcs}, recorded for JFR. */
    private long write(ByteBuffer one, ByteBuffer[] srcs, int offset, int length) throws IOException {
        Object ev = org.sdp4j.ops.Jfr.ioBegin(false);
        long n = 0;
        try {
            return n = writeImpl(one, srcs, offset, length);
        } finally {
            org.sdp4j.ops.Jfr.ioEnd(ev, "ucx", remote, n);
        }
    }

    /** Writes from {@code one} (then {@code srcs} is null: no array allocated per write) or {@code srcs}. */
    private long writeImpl(ByteBuffer one, ByteBuffer[] srcs, int offset, int length) throws IOException {
        writeLock.lock();
        if (one != null) {
            writeOne[0] = one;
            srcs = writeOne;
        }
        try {
            UcxConnection c = connected();
            if (outputShutdown) {
                throw new ClosedChannelException();
            }
            boolean blocking = isBlocking();
            boolean completed = false;
            try {
                if (blocking) {
                    begin();
                }
                long n = c.out.write(srcs, offset, length, blocking);
                completed = true;
                return n;
            } catch (IOException e) {
                if (!isOpen()) {
                    return 0; // end(false) throws
                }
                throw e;
            } finally {
                if (blocking) {
                    end(completed);
                }
            }
        } finally {
            writeOne[0] = null;
            writeLock.unlock();
        }
    }

    // ---- shutdown, options, addresses ----

    @Override
    public SocketChannel shutdownInput() throws IOException {
        UcxConnection c = connected();
        if (!inputShutdown) {
            inputShutdown = true; // reads from now on see end-of-stream
            c.in.shutdown(); // takes no lock: a blocked reader wakes with end-of-stream, as on TCP
        }
        return this;
    }

    @Override
    public SocketChannel shutdownOutput() throws IOException {
        UcxConnection c = connected();
        if (!outputShutdown) {
            c.out.shutdown(); // the end-of-stream marker, counting a send still in flight (a close delivers it)
            outputShutdown = true;
        }
        return this;
    }

    @Override
    public boolean isInputShutdown() {
        return inputShutdown;
    }

    @Override
    public boolean isOutputShutdown() {
        return outputShutdown;
    }

    @Override
    public <T> SocketChannel setOption(SocketOption<T> name, T value) throws IOException {
        Objects.requireNonNull(name, "name");
        UcxOptions.check(UcxOptions.SOCKET, name, value);
        ensureOpen();
        options.put(name, value); // kept and read back: a UCX stream has no kernel socket to apply them to
        UcxConnection c = conn;
        if (c != null && UcxConnection.KEEPALIVE.contains(name)) {
            c.keepAlive(java.util.Map.of(name, value)); // but its rendezvous socket takes the keep-alive options
        }
        return this;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(SocketOption<T> name) throws IOException {
        Objects.requireNonNull(name, "name");
        if (!UcxOptions.SOCKET.contains(name)) {
            throw new UnsupportedOperationException("'" + name + "' not supported");
        }
        ensureOpen();
        Object v = options.get(name);
        if (v != null) {
            return (T) v;
        }
        return (T) UcxOptions.defaultValue(name);
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return UcxOptions.SOCKET;
    }

    @Override
    public SocketAddress getRemoteAddress() throws IOException {
        ensureOpen();
        return conn != null ? remote : null;
    }

    @Override
    public SocketAddress getLocalAddress() throws IOException {
        ensureOpen();
        return local;
    }

    @Override
    public Socket socket() {
        Socket s = adaptor;
        if (s == null) {
            synchronized (this) {
                s = adaptor;
                if (s == null) {
                    try {
                        adaptor = s = new TransportSocketAdaptor(this, "UCX");
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
        StringBuilder sb = new StringBuilder("UcxSocketChannel[");
        if (!isOpen()) {
            sb.append("closed");
        } else if (conn == null) {
            sb.append("unconnected");
        } else {
            sb.append("connected local=").append(local).append(" remote=").append(remote).append(" connection ")
                    .append(conn.id);
        }
        return sb.append(']').toString();
    }
}
