package org.sdp4j.rsocket;

import java.io.FileDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketImpl;
import java.net.SocketOption;
import java.net.SocketOptions;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.net.UnknownHostException;
import java.util.Objects;
import java.util.Set;

import jdk.net.ExtendedSocketOptions;

import org.sdp4j.transport.Deadline;
import org.sdp4j.transport.Transport;
import org.sdp4j.transport.TransportChannel;

/**
 * A {@link SocketImpl} over an rsocket (rdma-core librdmacm), for {@code java.net.Socket} and {@code ServerSocket}.
 *
 * <p><b>Waiting.</b> The rsocket is non-blocking; every wait is an {@code rpoll} on the rsocket and this impl's
 * wakeup eventfd. So {@code SO_TIMEOUT} bounds reads and accept exactly, a connect timeout bounds address and
 * route resolution as well as the handshake (rsockets' own blocking rconnect retries resolution for minutes
 * against a destination no RDMA device reaches), and {@link #close()} from another thread wakes any thread blocked
 * in read, write, accept or connect, which then throws {@code SocketException("Socket closed")}.
 *
 * <p><b>Closing.</b> Operations count themselves in and out; close marks the impl closed and signals the eventfd;
 * the rsocket is rclose'd by whoever leaves last, so librdmacm never sees a descriptor freed under a running call.
 *
 * <p><b>Data.</b> Streams read and write the caller's array directly (JNI critical region around one non-blocking
 * rrecv/rsend: no copy but the one into rsockets' registered buffers). {@link #available()} peeks without consuming
 * (rsockets has no FIONREAD).
 *
 * <p>A concurrent {@link #shutdownInput()} wakes a reader already waiting (rsockets gives no event for a local
 * SHUT_RD: the handle signals its eventfd), which returns -1, as with TCP.
 */
final class RsocketSocketImpl extends SocketImpl implements TransportChannel {

    private final boolean server;
    private final Object stateLock = new Object();

    // guarded by stateLock
    private boolean closed;
    private RsocketHandle h; // the rsocket, once created or accepted
    private InputStream in;
    private OutputStream out;

    private volatile boolean bound, listening, connected;
    private volatile int timeout; // SO_TIMEOUT, ms
    /** Java-side option values and the options the application set itself (RsocketSockopts: one table). */
    final RsocketSockopts.Kept kept = new RsocketSockopts.Kept();

    RsocketSocketImpl(boolean server) {
        this.server = server;
    }

    // ---- lifecycle of operations ----

    /** Counts an operation in; returns the rsocket. */
    private int begin() throws SocketException {
        RsocketHandle hh;
        synchronized (stateLock) {
            if (closed) {
                throw new SocketException("Socket closed");
            }
            if (h == null) {
                throw new SocketException("Socket not created");
            }
            hh = h;
        }
        int fd = hh.enter();
        if (fd < 0) {
            throw new SocketException("Socket closed");
        }
        return fd;
    }

    private void end() {
        handle().exit();
    }

    private RsocketHandle handle() {
        synchronized (stateLock) {
            return h;
        }
    }

    @Override
    protected void create(boolean stream) throws IOException {
        if (!stream) {
            throw new SocketException("rsockets: datagram sockets are not supported by this SocketImpl");
        }
        Rsocket.ensureAvailability();
        synchronized (stateLock) {
            if (closed) {
                throw new SocketException("Socket closed");
            }
            if (h != null) {
                throw new SocketException("Already created");
            }
            h = server ? RsocketHandle.openListener() : RsocketHandle.open();
            this.fd = new FileDescriptor(); // not a kernel socket: a marker only, never handed to the JDK
        }
        RsocketTunables.applyGlobal(this::setTunable); // -Dsdp4j.rsocket.*: before anything else is set
    }

    /** A tunable (global or per rule): applied unless the application set this option itself. */
    private void setTunable(SocketOption<Integer> name, Integer value) throws IOException {
        int fd = begin();
        try {
            RsocketSockopts.setTunable(fd, kept, server ? RsocketSockopts.SERVER_TUNABLES : RsocketSockopts.CLIENT,
                    name, value);
        } finally {
            end();
        }
    }

    /**
     * As the JDK's NioSocketImpl on a virtual thread: an interrupt during a wait closes the socket and throws
     * InterruptedIOException, which java.net.Socket/ServerSocket (JDK 21+) turn into closing themselves and
     * {@code SocketException("Closed by interrupt")}.
     */
    private int interruptible(int r) throws IOException {
        if ((r & RsocketParker.INTERRUPTED) != 0) {
            close();
            throw new java.io.InterruptedIOException("Closed by interrupt");
        }
        return r;
    }

    /** Fills this (not created) impl with an accepted rsocket; on failure nothing of it is kept (the caller closes nfd). */
    private void accepted(int nfd) throws IOException {
        InetSocketAddress peer = RsocketAddresses.peer(nfd);
        InetSocketAddress me = RsocketAddresses.local(nfd);
        int lport = me.getPort();
        synchronized (stateLock) {
            if (h != null || closed) {
                throw new SocketException("accept: the SocketImpl to fill is already in use or closed");
            }
            h = RsocketHandle.accepted(nfd);
            h.track("accepted", me, peer);
            connected = true;
            bound = true;
            this.fd = new FileDescriptor();
            address = peer.getAddress();
            port = peer.getPort();
            localport = lport;
        }
    }

    @Override
    protected void close() throws IOException {
        RsocketHandle hh;
        synchronized (stateLock) {
            if (closed) {
                return;
            }
            closed = true;
            hh = h;
        }
        if (hh != null) {
            hh.close(); // now, or by the last operation to leave
        }
    }

    boolean isClosed() {
        synchronized (stateLock) {
            return closed;
        }
    }

    // ---- connect / bind / listen / accept ----

    @Override
    protected void connect(String host, int port) throws IOException {
        connect(new InetSocketAddress(InetAddress.getByName(host), port), 0);
    }

    @Override
    protected void connect(InetAddress address, int port) throws IOException {
        connect(new InetSocketAddress(address, port), 0);
    }

    @Override
    protected void connect(SocketAddress remote, int timeoutMillis) throws IOException {
        if (!(remote instanceof InetSocketAddress)) {
            throw new IllegalArgumentException("Unsupported address type: " + remote);
        }
        InetSocketAddress isa = (InetSocketAddress) remote;
        if (isa.isUnresolved()) {
            throw new UnknownHostException(isa.getHostName());
        }
        if (timeoutMillis < 0) {
            throw new IllegalArgumentException("connect: timeout can't be negative");
        }
        RsocketAddresses.Destination d = RsocketAddresses.Destination.of(isa);
        int fd = begin();
        try {
            if (connected) {
                throw new SocketException("Already connected");
            }
            if (listening) {
                throw new SocketException("Socket is listening");
            }
            RsocketHandle hh = handle();
            RsocketTunables.applyRule(true, d.socketAddress(), this::setTunable); // before rconnect
            if (!hh.connect(fd, d)) {
                int r = hh.awaitConnect(fd, d, timeoutMillis, kept.busyPollMicros);
                if (r == RsocketHandle.INTERRUPTED) {
                    interruptible(RsocketParker.INTERRUPTED);
                }
                if (r != 0) {
                    throw new SocketException("Socket closed");
                }
            }
            address = d.address();
            port = d.port();
            localport = hh.connected(fd, d).getPort();
            bound = true;
            connected = true;
        } catch (IOException | RuntimeException e) {
            // as java.net.Socket does: a failed connect closes the socket
            try {
                close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        } finally {
            end();
        }
    }

    @Override
    protected void bind(InetAddress host, int lport) throws IOException {
        if (lport < 0 || lport > 0xFFFF) {
            throw new IllegalArgumentException("port out of range: " + lport);
        }
        InetAddress h = host != null ? host : new InetSocketAddress(0).getAddress();
        int scope = RsocketAddresses.scope(h);
        int fd = begin();
        try {
            if (bound) {
                throw new SocketException("Already bound");
            }
            Native.bind(fd, h.getAddress(), scope, lport);
            bound = true;
            if (server) {
                address = h; // ServerSocket.getInetAddress() reads this, as with the JDK's own impl
            }
            localport = RsocketAddresses.local(fd).getPort();
        } finally {
            end();
        }
    }

    @Override
    protected void listen(int backlog) throws IOException {
        int fd = begin();
        try {
            if (!bound) {
                throw new SocketException("listen: the socket is not bound");
            }
            // before rlisten: the accepted rsockets inherit the queue and buffer sizes
            RsocketTunables.applyRule(false, RsocketAddresses.local(fd), this::setTunable);
            Native.listen(fd, backlog < 1 ? 50 : backlog);
            listening = true;
        } finally {
            end();
        }
    }

    @Override
    protected void accept(SocketImpl si) throws IOException {
        if (!(si instanceof RsocketSocketImpl)) {
            throw new SocketException("accept: needs an " + RsocketSocketImpl.class.getSimpleName()
                    + " to fill, got " + (si == null ? "null" : si.getClass().getName()));
        }
        RsocketSocketImpl target = (RsocketSocketImpl) si;
        int fd = begin();
        try {
            if (!listening) {
                throw new SocketException("accept: the socket is not listening");
            }
            int nfd = handle().accept(fd, Deadline.afterMillis(timeout));
            if (nfd == RsocketHandle.INTERRUPTED) {
                interruptible(RsocketParker.INTERRUPTED);
            }
            if (nfd < 0) {
                throw new SocketException("Socket closed");
            }
            try {
                target.accepted(nfd);
                target.kept.busyPollMicros = kept.busyPollMicros;
            } catch (IOException | RuntimeException e) {
                RsocketHandle.discard(nfd, e);
                throw e;
            }
        } finally {
            end();
        }
    }

    // ---- data ----

    int read(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        int fd = begin();
        try {
            if (len == 0) {
                return 0;
            }
            RsocketHandle hh = handle();
            long n = hh.read(fd, b, off, len, true, Deadline.afterMillis(timeout), kept.busyPollMicros);
            if (n == RsocketHandle.TIMED_OUT) {
                throw new SocketTimeoutException("Read timed out");
            }
            failed(n);
            return (int) n;
        } finally {
            end();
        }
    }

    void write(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        int fd = begin();
        try {
            RsocketHandle hh = handle();
            if (hh.isOutputShutdown()) {
                throw new SocketException("Socket output is shutdown");
            }
            failed(hh.write(fd, b, off, len, kept.busyPollMicros));
        } finally {
            end();
        }
    }

    /**
     * A read or write that a close or an interrupt ended: as the JDK's NioSocketImpl, an interrupt of a virtual
     * thread closes the socket and throws InterruptedIOException (java.net.Socket then says "Closed by interrupt").
     */
    private void failed(long outcome) throws IOException {
        if (outcome == RsocketHandle.INTERRUPTED_WAITING) {
            interruptible(RsocketParker.INTERRUPTED);
        }
        if (outcome == RsocketHandle.CLOSED_WAITING) {
            throw new SocketException("Socket closed");
        }
    }

    @Override
    protected int available() throws IOException {
        int fd = begin();
        try {
            if (!connected) {
                throw new SocketException("Socket is not connected");
            }
            return handle().available(fd);
        } finally {
            end();
        }
    }

    @Override
    protected InputStream getInputStream() throws IOException {
        synchronized (stateLock) {
            if (closed) {
                throw new SocketException("Socket closed");
            }
            if (!connected) {
                throw new SocketException("Socket is not connected");
            }
            if (in == null) {
                in = new RsocketStreams.In(this);
            }
            return in;
        }
    }

    @Override
    protected OutputStream getOutputStream() throws IOException {
        synchronized (stateLock) {
            if (closed) {
                throw new SocketException("Socket closed");
            }
            if (!connected) {
                throw new SocketException("Socket is not connected");
            }
            if (out == null) {
                out = new RsocketStreams.Out(this);
            }
            return out;
        }
    }

    @Override
    protected void shutdownInput() throws IOException {
        int fd = begin();
        try {
            if (!connected) {
                throw new SocketException("Socket is not connected");
            }
            handle().shutdownInput(fd);
        } finally {
            end();
        }
    }

    @Override
    protected void shutdownOutput() throws IOException {
        int fd = begin();
        try {
            if (!connected) {
                throw new SocketException("Socket is not connected");
            }
            handle().shutdownOutput(fd);
        } finally {
            end();
        }
    }

    @Override
    protected boolean supportsUrgentData() {
        return false;
    }

    @Override
    protected void sendUrgentData(int data) throws IOException {
        throw new SocketException("sendUrgentData: not supported by rsockets");
    }

    // ---- options: one table (RsocketSockopts) for both forms and for the channels ----

    @Override
    public void setOption(int optID, Object value) throws SocketException {
        if (optID == SO_TIMEOUT) { // Java-side only: allowed before create(), as on the JDK's own impl
            if (!(value instanceof Integer)) {
                throw new SocketException("SO_TIMEOUT: needs an Integer, got " + value);
            }
            if ((Integer) value < 0) {
                throw new IllegalArgumentException("SO_TIMEOUT: timeout < 0");
            }
            if (isClosed()) {
                throw new SocketException("Socket closed");
            }
            timeout = (Integer) value;
            return;
        }
        int fd = begin();
        try {
            RsocketSockopts.setById(fd, kept, optID, value);
        } catch (SocketException e) {
            throw e;
        } catch (IOException e) {
            throw wrap(e);
        } finally {
            end();
        }
    }

    @Override
    public Object getOption(int optID) throws SocketException {
        if (optID == SO_TIMEOUT) {
            if (isClosed()) {
                throw new SocketException("Socket closed");
            }
            return timeout;
        }
        int fd = begin();
        try {
            if (optID == SO_BINDADDR) {
                return bound ? RsocketAddresses.local(fd).getAddress() : new InetSocketAddress(0).getAddress();
            }
            return RsocketSockopts.getById(fd, kept, optID);
        } catch (SocketException e) {
            throw e;
        } catch (IOException e) {
            throw wrap(e);
        } finally {
            end();
        }
    }

    @Override
    protected Set<SocketOption<?>> supportedOptions() {
        return server ? RsocketSockopts.SERVER : RsocketSockopts.CLIENT;
    }

    @Override
    protected <T> void setOption(SocketOption<T> name, T value) throws IOException {
        RsocketSockopts.check(supportedOptions(), name, value);
        int fd = begin(); // fails on a closed socket, as the others do
        try {
            RsocketSockopts.setExplicit(fd, kept, name, value);
        } finally {
            end();
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    protected <T> T getOption(SocketOption<T> name) throws IOException {
        RsocketSockopts.checkSupported(supportedOptions(), name);
        int fd = begin();
        try {
            return (T) RsocketSockopts.get(fd, kept, name);
        } finally {
            end();
        }
    }

    private static SocketException wrap(IOException e) {
        SocketException se = new SocketException(e.getMessage());
        se.initCause(e);
        return se;
    }

    private volatile Transport owner;

    void owner(Transport t) {
        owner = t;
    }

    @Override
    public Transport transport() {
        return owner;
    }

    /** For a {@code both} listener: the descriptor its transport's {@link RsocketPoller} waits on. */
    @Override
    public int pollFd() {
        return rsocketFd();
    }

    /**
     * A {@code both} listener's poll counts itself in on the handle, as a selector's does: a close from another
     * thread then only marks it closing and wakes the poll, and the last one out rcloses (the default, the bare
     * descriptor, let an rclose run under rpoll: issue 23).
     */
    @Override
    public int pollBegin(org.sdp4j.transport.Poller poller) {
        RsocketHandle hh = handle();
        return hh == null ? -1 : hh.pollBegin(poller);
    }

    @Override
    public void pollEnd(org.sdp4j.transport.Poller poller) {
        handle().pollEnd(poller);
    }

    /** The rsocket descriptor, -1 when none (for logs and tests). */
    public int rsocketFd() {
        RsocketHandle hh = handle();
        return hh == null ? -1 : hh.fd();
    }

    @Override
    public String toString() {
        return "RsocketSocketImpl[fd=" + rsocketFd() + (address != null ? ", addr=" + address : "")
                + ", port=" + port + ", localport=" + localport + (isClosed() ? ", closed" : "") + "]";
    }
}
