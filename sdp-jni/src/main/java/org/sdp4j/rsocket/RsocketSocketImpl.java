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

    private volatile boolean bound, listening, connected, inputShutdown, outputShutdown;
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

    /** Waits for events on the rsocket or a close ({@link RsocketHandle#await}): revents | Native.WOKEN, 0 on timeout. */
    private int await(int fd, int events, int wait) throws IOException {
        return interruptible(handle().await(fd, events, wait, kept.busyPollMicros));
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
        InetSocketAddress peer = decode(Native.sockname(nfd, true));
        InetSocketAddress me = decode(Native.sockname(nfd, false));
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
        InetAddress ia = isa.getAddress();
        if (ia.isAnyLocalAddress()) {
            ia = InetAddress.getLocalHost();
        }
        byte[] addr = ia.getAddress();
        int scope = ia instanceof Inet6Address ? ((Inet6Address) ia).getScopeId() : 0;
        int rport = isa.getPort();
        int fd = begin();
        try {
            if (connected) {
                throw new SocketException("Already connected");
            }
            if (listening) {
                throw new SocketException("Socket is listening");
            }
            RsocketTunables.applyRule(true, new InetSocketAddress(ia, rport), this::setTunable); // before rconnect
            Deadline deadline = Deadline.afterMillis(timeoutMillis);
            if (!Native.connect(fd, addr, scope, rport)) {
                int r = handle().awaitConnect(fd, deadline, addr, scope, rport, "rconnect " + hostPort(ia, rport)
                        + ": connect timed out after " + timeoutMillis + " ms", kept.busyPollMicros);
                if (r == RsocketHandle.INTERRUPTED) {
                    interruptible(RsocketParker.INTERRUPTED);
                }
                if (r != 0) {
                    throw new SocketException("Socket closed");
                }
            }
            address = ia;
            port = rport;
            InetSocketAddress me = decode(Native.sockname(fd, false));
            localport = me.getPort();
            handle().track("client", me, new InetSocketAddress(ia, rport));
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
        int scope = h instanceof Inet6Address ? ((Inet6Address) h).getScopeId() : 0;
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
            localport = decode(Native.sockname(fd, false)).getPort();
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
            RsocketTunables.applyRule(false, decode(Native.sockname(fd, false)), this::setTunable);
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
            if (inputShutdown) {
                return -1;
            }
            Deadline deadline = Deadline.afterMillis(timeout);
            RsocketHandle hh = handle();
            for (;;) {
                int n = Native.read(fd, b, off, len);
                if (n != Native.UNAVAILABLE) {
                    if (n > 0) {
                        hh.bytesIn.addAndGet(n);
                    }
                    return n; // > 0, or EOF (-1)
                }
                int wait = deadline.pollMillis();
                if (wait == 0) {
                    throw new SocketTimeoutException("Read timed out");
                }
                int r = interruptible(hh.awaitReadable(fd, wait, kept.busyPollMicros));
                if ((r & Native.WOKEN) != 0) {
                    throw new SocketException("Socket closed");
                }
                if ((r & RsocketHandle.PEER_GONE) != 0) {
                    return -1; // the peer's disconnect, which librdmacm left unread (CmStallWatch)
                }
                if (inputShutdown) {
                    return -1; // woken by shutdownInput: end of stream, as TCP gives
                }
            }
        } finally {
            end();
        }
    }

    void write(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        int fd = begin();
        try {
            if (outputShutdown) {
                throw new SocketException("Socket output is shutdown");
            }
            RsocketHandle hh = handle();
            while (len > 0) {
                int n = Native.write(fd, b, off, len);
                if (n > 0) {
                    hh.bytesOut.addAndGet(n);
                    off += n;
                    len -= n;
                    continue;
                }
                int r = await(fd, Native.POLLOUT, -1);
                if ((r & Native.WOKEN) != 0) {
                    if (handle().isClosing()) {
                        throw new SocketException("Socket closed");
                    }
                    handle().drainWakeup(); // a shutdownInput's signal meant for a reader
                }
                if ((r & RsocketHandle.PEER_GONE) != 0) {
                    throw new SocketException(RsocketHandle.PEER_GONE_MESSAGE);
                }
            }
        } finally {
            end();
        }
    }

    @Override
    protected int available() throws IOException {
        int fd = begin();
        try {
            if (!connected) {
                throw new SocketException("Socket is not connected");
            }
            return inputShutdown ? 0 : Native.available(fd);
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
                in = new RsocketInputStream();
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
                out = new RsocketOutputStream();
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
            if (!inputShutdown) {
                Native.shutdown(fd, Native.SHUT_RD);
                inputShutdown = true;
                handle().wakeReader(); // rsockets gives no event for a local SHUT_RD: a blocked reader gets -1
            }
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
            if (!outputShutdown) {
                Native.shutdown(fd, Native.SHUT_WR);
                outputShutdown = true;
            }
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
        Object v = value;
        if (optID == SO_LINGER && value instanceof Boolean) { // Socket.setSoLinger: FALSE for off, an Integer for on
            if ((Boolean) value) {
                throw new SocketException("SO_LINGER: on needs a time in seconds");
            }
            v = -1;
        }
        int fd = begin();
        try {
            if (optID == SO_OOBINLINE) { // no SocketOption form; rsockets keeps the flag
                Native.setOption(fd, Native.OPT_SO_OOBINLINE, bool(optID, value) ? 1 : 0);
                return;
            }
            SocketOption<?> name = option(optID);
            if (!name.type().isInstance(v)) {
                throw new SocketException(name + ": needs " + name.type().getSimpleName() + ", got " + value);
            }
            RsocketSockopts.set(fd, kept, name, v);
            kept.explicit.add(name);
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
            if (optID == SO_OOBINLINE) {
                return Native.getOption(fd, Native.OPT_SO_OOBINLINE) != 0;
            }
            if (optID == SO_BINDADDR) {
                return bound ? decode(Native.sockname(fd, false)).getAddress() : new InetSocketAddress(0).getAddress();
            }
            Object v = RsocketSockopts.get(fd, kept, option(optID));
            if (optID == SO_LINGER) {
                return (Integer) v < 0 ? (Object) Boolean.FALSE : v;
            }
            return v;
        } catch (SocketException e) {
            throw e;
        } catch (IOException e) {
            throw wrap(e);
        } finally {
            end();
        }
    }

    /** The SocketOption of a java.net.SocketOptions id, as the table knows it. */
    private static SocketOption<?> option(int optID) throws SocketException {
        switch (optID) {
            case TCP_NODELAY: return StandardSocketOptions.TCP_NODELAY;
            case SO_SNDBUF: return StandardSocketOptions.SO_SNDBUF;
            case SO_RCVBUF: return StandardSocketOptions.SO_RCVBUF;
            case SO_KEEPALIVE: return StandardSocketOptions.SO_KEEPALIVE;
            case SO_REUSEADDR: return StandardSocketOptions.SO_REUSEADDR;
            case SO_LINGER: return StandardSocketOptions.SO_LINGER;
            case IP_TOS: return StandardSocketOptions.IP_TOS;
            default: throw new SocketException("rsockets: option 0x" + Integer.toHexString(optID) + " not supported");
        }
    }

    private static boolean bool(int optID, Object value) throws SocketException {
        if (value instanceof Boolean) {
            return (Boolean) value;
        }
        throw new SocketException("option 0x" + Integer.toHexString(optID) + ": needs a Boolean, got " + value);
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
            RsocketSockopts.set(fd, kept, name, value);
            kept.explicit.add(name);
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

    // ---- addresses ----

    static InetSocketAddress decode(byte[] b) throws UnknownHostException {
        if (b.length == 6) {
            return new InetSocketAddress(InetAddress.getByAddress(new byte[] {b[0], b[1], b[2], b[3]}),
                    (b[4] & 0xFF) << 8 | (b[5] & 0xFF));
        }
        byte[] a = new byte[16];
        System.arraycopy(b, 0, a, 0, 16);
        int p = (b[16] & 0xFF) << 8 | (b[17] & 0xFF);
        int scope = (b[18] & 0xFF) << 24 | (b[19] & 0xFF) << 16 | (b[20] & 0xFF) << 8 | (b[21] & 0xFF);
        InetAddress ia = scope != 0 ? Inet6Address.getByAddress(null, a, scope) : InetAddress.getByAddress(a);
        return new InetSocketAddress(ia, p);
    }

    static String hostPort(InetAddress a, int port) {
        String h = a.getHostAddress();
        return (a instanceof Inet6Address ? "[" + h + "]" : h) + ":" + port;
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

    // ---- streams ----

    private final class RsocketInputStream extends InputStream {
        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = RsocketSocketImpl.this.read(one, 0, 1);
            return n <= 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            return RsocketSocketImpl.this.read(b, off, len);
        }

        @Override
        public int available() throws IOException {
            return RsocketSocketImpl.this.available();
        }

        @Override
        public void close() throws IOException {
            RsocketSocketImpl.this.close(); // as the JDK's socket streams: closing one closes the socket
        }
    }

    private final class RsocketOutputStream extends OutputStream {
        @Override
        public void write(int b) throws IOException {
            RsocketSocketImpl.this.write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            RsocketSocketImpl.this.write(b, off, len);
        }

        @Override
        public void close() throws IOException {
            RsocketSocketImpl.this.close();
        }
    }
}
