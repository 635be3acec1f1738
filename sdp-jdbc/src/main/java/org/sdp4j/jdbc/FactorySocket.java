package org.sdp4j.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketImpl;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import org.sdp4j.log.SdpLog;
import org.sdp4j.transport.Router;
import org.sdp4j.transport.Transport;

/**
 * The socket a factory hands a driver. Until {@code connect} it is a plain JDK {@code Socket} (bind and options
 * behave, and fail, exactly as the JDK's); at {@code connect} the {@link Router} decides, and on an RDMA decision a
 * socket over the transport's own {@code SocketImpl} connects, gets the recorded bind and options, and takes the
 * plain one's place. Every method forwards to the socket in place: a driver never sees which one it is.
 *
 * <p>No JDK internals: the transport's {@code SocketImpl} is driven by {@code java.net.Socket} itself, through its
 * protected {@code Socket(SocketImpl)} constructor ({@link TransportSocket}); the superclass state of this object
 * is never used (it is built with no implementation at all).
 */
final class FactorySocket extends Socket {
    /** Sets one option on a socket, to replay it on the transport that finally carries the connection. */
    private interface Setter {
        void apply(Socket s) throws IOException;
    }

    private final Router router;
    private final Object lock = new Object();
    /** The socket in place: the plain TCP one until an RDMA connect replaces it. */
    private volatile Socket s = new Socket();
    /** An RDMA attempt in progress, so that close can abort it. */
    private volatile Socket attempt;
    private volatile boolean closed;
    /** True once connect chose a transport (or failed); from then on nothing is recorded. */
    private volatile boolean decided;
    /** Options set before the decision, by name, in order: a later set of one replaces the earlier. */
    private final Map<String, Setter> options = new LinkedHashMap<>();
    private final Map<SocketOption<?>, Object> transportOnly = new LinkedHashMap<>();
    private SocketAddress boundLocal;

    FactorySocket(Router router) throws SocketException {
        super((SocketImpl) null);
        this.router = router;
    }

    /** A socket over a transport's implementation; java.net.Socket calls its protected methods itself. */
    private static final class TransportSocket extends Socket {
        TransportSocket(SocketImpl impl) throws SocketException {
            super(impl);
        }
    }

    @Override
    public void connect(SocketAddress endpoint) throws IOException {
        connect(endpoint, 0);
    }

    @Override
    public void connect(SocketAddress endpoint, int timeout) throws IOException {
        if (endpoint == null) {
            throw new IllegalArgumentException("connect: The address can't be null");
        }
        if (timeout < 0) {
            throw new IllegalArgumentException("connect: timeout can't be negative");
        }
        if (closed) {
            throw new SocketException("Socket is closed");
        }
        if (decided) {
            throw new SocketException(s.isConnected() ? "already connected" : "a connect was attempted already");
        }
        Socket tcp = s;
        try {
            if (endpoint instanceof InetSocketAddress remote) {
                router.connect(remote, timeout, (t, bounded) -> connectOver(t, remote, bounded),
                        t -> tcp.connect(remote, t));
            } else {
                tcp.connect(endpoint, timeout);
            }
        } catch (IOException | RuntimeException e) {
            try {
                close(); // as the JDK's socket is after a failed connect
            } catch (IOException ignored) {
                // the connect's exception says what went wrong
            }
            throw e;
        } finally {
            decided = true;
        }
    }

    private void connectOver(Transport t, InetSocketAddress remote, int timeout) throws IOException {
        Socket r = new TransportSocket(t.newSocketImpl(false));
        attempt = r;
        try {
            if (closed) {
                throw new SocketException("Socket is closed");
            }
            replay(r, t.name());
            if (boundLocal != null) {
                r.bind(boundLocal);
            }
            r.connect(remote, timeout);
            Socket tcp;
            synchronized (lock) {
                if (closed) {
                    throw new SocketException("Socket is closed");
                }
                tcp = s;
                s = r;
                attempt = null;
            }
            closeQuietly(tcp);
        } catch (IOException | RuntimeException e) {
            attempt = null;
            closeQuietly(r);
            throw e;
        }
    }

    @SuppressWarnings("unchecked")
    private void replay(Socket r, String transport) {
        Map<String, Setter> copy;
        Map<SocketOption<?>, Object> own;
        synchronized (lock) {
            copy = new LinkedHashMap<>(options);
            own = new LinkedHashMap<>(transportOnly);
        }
        for (Map.Entry<String, Setter> e : copy.entrySet()) {
            try {
                e.getValue().apply(r);
            } catch (IOException | RuntimeException x) {
                SdpLog.log(SdpLog.WARN, "socket option " + e.getKey() + " not applied on " + transport + ": "
                        + x.getMessage());
            }
        }
        for (Map.Entry<SocketOption<?>, Object> e : own.entrySet()) {
            try {
                r.setOption((SocketOption<Object>) e.getKey(), e.getValue());
            } catch (IOException | RuntimeException x) {
                SdpLog.log(SdpLog.WARN, "socket option " + e.getKey() + "=" + e.getValue() + " not applied on "
                        + transport + ": " + x.getMessage());
            }
        }
    }

    /** Applies an option to the socket in place and, before the decision, records it for a transport switch. */
    private void set(String name, Setter setter) throws IOException {
        synchronized (lock) {
            setter.apply(s);
            if (!decided) {
                options.put(name, setter);
            }
        }
    }

    private static void closeQuietly(Socket x) {
        if (x != null) {
            try {
                x.close();
            } catch (IOException ignored) {
                // the socket is gone either way
            }
        }
    }

    @Override
    public void bind(SocketAddress local) throws IOException {
        s.bind(local);
        // an explicit address or port is carried over to another transport; the wildcard is its default
        if (local instanceof InetSocketAddress a && (!a.getAddress().isAnyLocalAddress() || a.getPort() != 0)) {
            boundLocal = a;
        }
    }

    @Override
    public void close() throws IOException {
        Socket cur, a;
        synchronized (lock) {
            closed = true;
            cur = s;
            a = attempt;
        }
        closeQuietly(a);
        cur.close();
    }

    // ---- options: recorded until the decision ----

    @Override
    public void setTcpNoDelay(boolean on) throws SocketException {
        setSocketOption("TCP_NODELAY=" + on, x -> x.setTcpNoDelay(on));
    }

    @Override
    public void setSoLinger(boolean on, int linger) throws SocketException {
        setSocketOption("SO_LINGER=" + (on ? linger : -1), x -> x.setSoLinger(on, linger));
    }

    @Override
    public void setOOBInline(boolean on) throws SocketException {
        setSocketOption("SO_OOBINLINE=" + on, x -> x.setOOBInline(on));
    }

    @Override
    public void setSoTimeout(int timeout) throws SocketException {
        setSocketOption("SO_TIMEOUT=" + timeout, x -> x.setSoTimeout(timeout));
    }

    @Override
    public void setSendBufferSize(int size) throws SocketException {
        setSocketOption("SO_SNDBUF=" + size, x -> x.setSendBufferSize(size));
    }

    @Override
    public void setReceiveBufferSize(int size) throws SocketException {
        setSocketOption("SO_RCVBUF=" + size, x -> x.setReceiveBufferSize(size));
    }

    @Override
    public void setKeepAlive(boolean on) throws SocketException {
        setSocketOption("SO_KEEPALIVE=" + on, x -> x.setKeepAlive(on));
    }

    @Override
    public void setTrafficClass(int tc) throws SocketException {
        setSocketOption("IP_TOS=" + tc, x -> x.setTrafficClass(tc));
    }

    @Override
    public void setReuseAddress(boolean on) throws SocketException {
        setSocketOption("SO_REUSEADDR=" + on, x -> x.setReuseAddress(on));
    }

    @Override
    public void setPerformancePreferences(int connectionTime, int latency, int bandwidth) {
        s.setPerformancePreferences(connectionTime, latency, bandwidth);
    }

    /** The SocketException-only setters keep their signature: a failure is the JDK's own exception. */
    private void setSocketOption(String name, Setter setter) throws SocketException {
        try {
            set(name.substring(0, name.indexOf('=')), setter);
        } catch (SocketException | RuntimeException e) {
            throw e;
        } catch (IOException e) {
            throw new SocketException(e.getMessage());
        }
    }

    @Override
    public <T> Socket setOption(SocketOption<T> name, T value) throws IOException {
        if (name == null) {
            throw new NullPointerException("name");
        }
        synchronized (lock) {
            if (!decided && !s.supportedOptions().contains(name) && org.sdp4j.transport.TransportOptions.of(router.rules()).contains(name)) {
                transportOnly.put(name, value); // rsockets' own options, before it is known which transport
                return this;
            }
            set(name.name(), x -> x.setOption(name, value));
        }
        return this;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(SocketOption<T> name) throws IOException {
        synchronized (lock) {
            if (!decided && transportOnly.containsKey(name)) {
                return (T) transportOnly.get(name);
            }
        }
        return s.getOption(name);
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        if (decided) {
            return s.supportedOptions();
        }
        Set<SocketOption<?>> all = new java.util.HashSet<>(s.supportedOptions());
        all.addAll(org.sdp4j.transport.TransportOptions.of(router.rules()));
        return Set.copyOf(all);
    }

    // ---- everything else: the socket in place ----

    @Override
    public InetAddress getInetAddress() {
        return s.getInetAddress();
    }

    @Override
    public InetAddress getLocalAddress() {
        return s.getLocalAddress();
    }

    @Override
    public int getPort() {
        return s.getPort();
    }

    @Override
    public int getLocalPort() {
        return s.getLocalPort();
    }

    @Override
    public SocketAddress getRemoteSocketAddress() {
        return s.getRemoteSocketAddress();
    }

    @Override
    public SocketAddress getLocalSocketAddress() {
        return s.getLocalSocketAddress();
    }

    /** None: a factory's socket is a stream socket only, as a {@code Socket} from {@code new Socket()} is. */
    @Override
    public SocketChannel getChannel() {
        return null;
    }

    @Override
    public InputStream getInputStream() throws IOException {
        return s.getInputStream();
    }

    @Override
    public OutputStream getOutputStream() throws IOException {
        return s.getOutputStream();
    }

    @Override
    public boolean getTcpNoDelay() throws SocketException {
        return s.getTcpNoDelay();
    }

    @Override
    public int getSoLinger() throws SocketException {
        return s.getSoLinger();
    }

    @Override
    public void sendUrgentData(int data) throws IOException {
        s.sendUrgentData(data);
    }

    @Override
    public boolean getOOBInline() throws SocketException {
        return s.getOOBInline();
    }

    @Override
    public int getSoTimeout() throws SocketException {
        return s.getSoTimeout();
    }

    @Override
    public int getSendBufferSize() throws SocketException {
        return s.getSendBufferSize();
    }

    @Override
    public int getReceiveBufferSize() throws SocketException {
        return s.getReceiveBufferSize();
    }

    @Override
    public boolean getKeepAlive() throws SocketException {
        return s.getKeepAlive();
    }

    @Override
    public int getTrafficClass() throws SocketException {
        return s.getTrafficClass();
    }

    @Override
    public boolean getReuseAddress() throws SocketException {
        return s.getReuseAddress();
    }

    @Override
    public void shutdownInput() throws IOException {
        s.shutdownInput();
    }

    @Override
    public void shutdownOutput() throws IOException {
        s.shutdownOutput();
    }

    @Override
    public String toString() {
        return s.toString();
    }

    @Override
    public boolean isConnected() {
        return s.isConnected();
    }

    @Override
    public boolean isBound() {
        return s.isBound();
    }

    @Override
    public boolean isClosed() {
        return closed || s.isClosed();
    }

    @Override
    public boolean isInputShutdown() {
        return s.isInputShutdown();
    }

    @Override
    public boolean isOutputShutdown() {
        return s.isOutputShutdown();
    }
}
