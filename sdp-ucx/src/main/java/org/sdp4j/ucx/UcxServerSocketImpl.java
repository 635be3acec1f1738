package org.sdp4j.ucx;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketImpl;

/**
 * A UCX listener for {@code addr:port}: a {@link HandshakeServer} on its rendezvous socket (never a TCP port, so the
 * application's own TCP listener on the same port is untouched). {@code accept()} takes a completed handshake and hands
 * over a connected {@link UcxSocketImpl}; {@code SO_TIMEOUT} and a close from another thread end a waiting accept.
 */
final class UcxServerSocketImpl extends SocketImpl implements org.sdp4j.transport.TcpUpgrade {
    private InetAddress bindAddr;
    private HandshakeServer server;
    /** The cross-host rendezvous (RDMA-CM port space), or null when this host has no RDMA for UCX. */
    private volatile RemoteRendezvous remote;
    private volatile boolean closed;
    private volatile int timeout;

    @Override
    protected void create(boolean stream) throws IOException {
        if (!stream) {
            throw new SocketException("a server socket is a stream socket");
        }
    }

    @Override
    protected void bind(InetAddress host, int lport) throws IOException {
        if (lport <= 0) {
            throw new SocketException("a UCX listener takes the port of the TCP listener it shadows, not " + lport);
        }
        bindAddr = host;
        localport = lport;
        address = host;
    }

    @Override
    protected synchronized void listen(int backlog) throws IOException {
        if (closed) {
            throw new SocketException("Socket closed");
        }
        if (localport <= 0) {
            throw new SocketException("listen before bind");
        }
        server = HandshakeServer.bind(bindAddr, localport, backlog);
        if (!Boolean.getBoolean("sdp4j.ucx.remote.disable")) {
            remote = RemoteRendezvous.open(bindAddr, localport, server.where());
        }
    }

    /** A TCP connection of the application's listener from a source a cross-host client announced. */
    @Override
    public boolean claims(InetAddress peer, int peerPort) {
        RemoteRendezvous r = remote;
        return r != null && r.claims(peer, peerPort);
    }

    @Override
    public void upgrade(java.nio.channels.SocketChannel ch, SocketImpl impl) {
        RemoteRendezvous r = remote;
        HandshakeServer hs = server;
        RemoteRendezvous.Pending p = r != null ? r.take(ch.socket().getInetAddress(), ch.socket().getPort()) : null;
        if (p == null || hs == null) { // expired meanwhile, or closed
            RemoteRendezvous.drop(ch, p);
            return;
        }
        hs.serveUpgrade(ch, () -> Upgrade.serve(ch, impl, p, hs.where()));
    }

    @Override
    protected void accept(SocketImpl s) throws IOException {
        if (!(s instanceof UcxSocketImpl into)) {
            throw new SocketException("a UCX listener accepts into a UCX socket, not " + s.getClass().getName());
        }
        HandshakeServer hs;
        synchronized (this) {
            if (closed) {
                throw new SocketException("Socket closed");
            }
            if (server == null) {
                throw new SocketException("Socket is not listening");
            }
            hs = server;
        }
        // handshakes are served by the listener's own threads; accept takes a completed one
        UcxConnection c = hs.take(timeout);
        InetAddress peer = c.peerAddress != null ? c.peerAddress : bindAddr == null || bindAddr.isAnyLocalAddress()
                ? InetAddress.getLoopbackAddress() : bindAddr;
        into.accepted(c, peer, localport);
        if (org.sdp4j.log.SdpLog.enabled(org.sdp4j.log.SdpLog.DECISION)) {
            org.sdp4j.log.SdpLog.log(org.sdp4j.log.SdpLog.DECISION, "ucx connection " + c.id
                    + " accepted on " + hs.where() + ": " + c.carrier());
        }
    }

    @Override
    protected void close() throws IOException {
        HandshakeServer hs;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            hs = server;
        }
        if (hs != null) {
            hs.close();
            hs.closeSource();
        }
        RemoteRendezvous r = remote;
        if (r != null) {
            r.close();
        }
    }

    @Override
    public void setOption(int optID, Object value) throws SocketException {
        if (optID == SO_TIMEOUT) {
            if (!(value instanceof Integer t) || t < 0) {
                throw new IllegalArgumentException("SO_TIMEOUT: " + value);
            }
            timeout = t;
        }
        // SO_RCVBUF, SO_REUSEADDR ...: the TCP listener this one shadows has them
    }

    @Override
    public Object getOption(int optID) throws SocketException {
        switch (optID) {
            case SO_TIMEOUT:
                return timeout;
            case SO_BINDADDR:
                return bindAddr != null ? bindAddr : new InetSocketAddress(0).getAddress();
            case SO_REUSEADDR:
                return Boolean.TRUE;
            case SO_RCVBUF:
                return Staging.STAGING;
            default:
                throw new SocketException("UCX listener: option 0x" + Integer.toHexString(optID) + " not supported");
        }
    }

    @Override
    protected void connect(String host, int port) throws IOException {
        throw new SocketException("connect on a server socket");
    }

    @Override
    protected void connect(InetAddress address, int port) throws IOException {
        throw new SocketException("connect on a server socket");
    }

    @Override
    protected void connect(SocketAddress address, int timeout) throws IOException {
        throw new SocketException("connect on a server socket");
    }

    @Override
    protected java.io.InputStream getInputStream() throws IOException {
        throw new SocketException("a listener has no stream");
    }

    @Override
    protected java.io.OutputStream getOutputStream() throws IOException {
        throw new SocketException("a listener has no stream");
    }

    @Override
    protected int available() throws IOException {
        return 0;
    }

    @Override
    protected void sendUrgentData(int data) throws IOException {
        throw new SocketException("a listener sends nothing");
    }

    @Override
    public String toString() {
        return "UcxServerSocketImpl[" + (server != null ? server.path() : null) + (closed ? ", closed" : "") + "]";
    }
}
