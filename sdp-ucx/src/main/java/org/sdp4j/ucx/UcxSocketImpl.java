package org.sdp4j.ucx;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketImpl;
import java.net.SocketOption;
import java.net.UnknownHostException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.sdp4j.log.SdpLog;

/**
 * A connected {@code java.net.Socket} over UCX. TCP options are accepted and read back (a UCX stream has no Nagle,
 * keep-alive or buffer sizes of the kernel's; JDBC drivers set them anyway); {@code SO_TIMEOUT} is exact. There is
 * no TCP port: the local port (client) and the remote port (server) report the connection's number in its process.
 */
final class UcxSocketImpl extends SocketImpl {
    private volatile UcxConnection conn;
    private volatile boolean closed;
    private volatile int timeout;
    private InetSocketAddress boundLocal;
    private InputStream in;
    private OutputStream out;
    private final ConcurrentHashMap<SocketOption<?>, Object> options = new ConcurrentHashMap<>();
    private volatile boolean oobInline;

    @Override
    protected void create(boolean stream) throws IOException {
        if (!stream) {
            throw new SocketException("UCX carries stream sockets only");
        }
    }

    @Override
    protected void connect(String host, int port) throws IOException {
        connect(new InetSocketAddress(host, port), 0);
    }

    @Override
    protected void connect(InetAddress address, int port) throws IOException {
        connect(new InetSocketAddress(address, port), 0);
    }

    @Override
    protected void connect(SocketAddress remote, int timeoutMillis) throws IOException {
        if (!(remote instanceof InetSocketAddress r) || r.isUnresolved()) {
            throw new UnknownHostException("UCX: " + remote);
        }
        if (closed) {
            throw new SocketException("Socket closed");
        }
        UcxConnection c = Handshake.connect(r.getAddress(), r.getPort(), timeoutMillis);
        synchronized (this) {
            if (closed) {
                c.close();
                throw new SocketException("Socket closed");
            }
            conn = c;
        }
        c.keepAlive(options);
        c.track("client", new InetSocketAddress(r.getAddress(), c.id), r);
        address = r.getAddress();
        port = r.getPort();
        localport = c.id;
        if (SdpLog.enabled(SdpLog.DECISION)) {
            // with the decision line: which UCX transports carry it (the rendezvous only reaches this host)
            SdpLog.log(SdpLog.DECISION, "ucx connection " + c.id + " to " + Rendezvous.hostPort(address, port)
                    + ": " + c.carrier());
        }
    }

    /** Server side: {@code c} was accepted on the listener at {@code local}. */
    void accepted(UcxConnection c, InetAddress peer, int localPort) {
        conn = c;
        c.keepAlive(options);
        c.track("accepted", new InetSocketAddress(peer, localPort), new InetSocketAddress(peer, c.peerId));
        address = peer;
        port = c.peerId;
        localport = localPort;
    }

    @Override
    protected void bind(InetAddress host, int lport) throws IOException {
        // no local TCP endpoint exists; the address is kept to be read back
        boundLocal = new InetSocketAddress(host, lport);
    }

    @Override
    protected void listen(int backlog) throws IOException {
        throw new SocketException("listen on a client socket");
    }

    @Override
    protected void accept(SocketImpl s) throws IOException {
        throw new SocketException("accept on a client socket");
    }

    private UcxConnection conn() throws SocketException {
        UcxConnection c = conn;
        if (closed) {
            throw new SocketException("Socket closed");
        }
        if (c == null) {
            throw new SocketException("Socket is not connected");
        }
        return c;
    }

    @Override
    protected synchronized InputStream getInputStream() throws IOException {
        UcxConnection c = conn();
        if (in == null) {
            in = new InputStream() {
                @Override
                public int read() throws IOException {
                    byte[] one = new byte[1];
                    int n = read(one, 0, 1);
                    return n <= 0 ? -1 : one[0] & 0xFF;
                }

                @Override
                public int read(byte[] b, int off, int len) throws IOException {
                    return c.in.read(b, off, len, timeout);
                }

                @Override
                public int available() throws IOException {
                    return c.in.available();
                }

                @Override
                public void close() throws IOException {
                    UcxSocketImpl.this.close();
                }
            };
        }
        return in;
    }

    @Override
    protected synchronized OutputStream getOutputStream() throws IOException {
        UcxConnection c = conn();
        if (out == null) {
            out = new OutputStream() {
                @Override
                public void write(int b) throws IOException {
                    c.out.write(new byte[] {(byte) b}, 0, 1);
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    c.out.write(b, off, len);
                }

                @Override
                public void close() throws IOException {
                    UcxSocketImpl.this.close();
                }
            };
        }
        return out;
    }

    @Override
    protected int available() throws IOException {
        return conn().in.available();
    }

    @Override
    protected void shutdownInput() throws IOException {
        conn().in.shutdown();
    }

    @Override
    protected void shutdownOutput() throws IOException {
        conn().out.shutdown();
    }

    @Override
    protected void close() throws IOException {
        UcxConnection c;
        synchronized (this) {
            closed = true;
            c = conn;
        }
        if (c != null) {
            c.close();
        }
    }

    @Override
    protected boolean supportsUrgentData() {
        return false;
    }

    @Override
    protected void sendUrgentData(int data) throws IOException {
        throw new SocketException("sendUrgentData: not supported over UCX");
    }

    // ---- options: kept and read back, SO_TIMEOUT applied ----

    @Override
    public void setOption(int optID, Object value) throws SocketException {
        if (closed) {
            throw new SocketException("Socket closed");
        }
        if (optID == SO_TIMEOUT) {
            if (!(value instanceof Integer t) || t < 0) {
                throw new IllegalArgumentException("SO_TIMEOUT: " + value);
            }
            timeout = t;
            return;
        }
        if (optID == SO_OOBINLINE) {
            oobInline = Boolean.TRUE.equals(value);
            return;
        }
        SocketOption<?> name = UcxOptions.byId(optID);
        if (name == null) {
            throw new SocketException("UCX: option 0x" + Integer.toHexString(optID) + " not supported");
        }
        Object v = UcxOptions.fromLegacy(name, value);
        UcxOptions.check(UcxOptions.SOCKET, name, v);
        options.put(name, v);
        keepAliveChanged(name, v);
    }

    @Override
    public Object getOption(int optID) throws SocketException {
        if (closed) {
            throw new SocketException("Socket closed");
        }
        switch (optID) {
            case SO_TIMEOUT:
                return timeout;
            case SO_BINDADDR:
                // both ends are on this host: the address connected to is this host's too
                return boundLocal != null && !boundLocal.getAddress().isAnyLocalAddress() ? boundLocal.getAddress()
                        : address != null ? address : new InetSocketAddress(0).getAddress();
            case SO_OOBINLINE:
                return oobInline;
            default:
                SocketOption<?> name = UcxOptions.byId(optID);
                if (name == null) {
                    throw new SocketException("UCX: option 0x" + Integer.toHexString(optID) + " not supported");
                }
                return UcxOptions.legacyValue(name, options.getOrDefault(name, UcxOptions.defaultValue(name)));
        }
    }

    @Override
    protected Set<SocketOption<?>> supportedOptions() {
        return UcxOptions.SOCKET;
    }

    @Override
    protected <T> void setOption(SocketOption<T> name, T value) throws IOException {
        UcxOptions.check(UcxOptions.SOCKET, name, value);
        if (closed) {
            throw new SocketException("Socket closed");
        }
        options.put(name, value);
        keepAliveChanged(name, value);
    }

    /** A keep-alive option set on a connected socket reaches its rendezvous socket at once. */
    private void keepAliveChanged(SocketOption<?> name, Object value) {
        UcxConnection c = conn;
        if (c != null && UcxConnection.KEEPALIVE.contains(name)) {
            c.keepAlive(java.util.Map.of(name, value));
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    protected <T> T getOption(SocketOption<T> name) throws IOException {
        if (!UcxOptions.SOCKET.contains(name)) {
            throw new UnsupportedOperationException("'" + name + "' not supported");
        }
        if (closed) {
            throw new SocketException("Socket closed");
        }
        return (T) options.getOrDefault(name, UcxOptions.defaultValue(name));
    }

    @Override
    public String toString() {
        UcxConnection c = conn;
        return "UcxSocketImpl[" + (address != null ? Rendezvous.hostPort(address, port) : "unconnected")
                + (c != null ? ", connection " + c.id : "") + (closed ? ", closed" : "") + "]";
    }
}
