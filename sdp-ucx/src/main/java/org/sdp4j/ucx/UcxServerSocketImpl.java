package org.sdp4j.ucx;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketImpl;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A UCX listener for {@code addr:port}: the rendezvous socket {@link Rendezvous#path} (never a TCP port, so the
 * application's own TCP listener on the same port is untouched). {@code accept()} completes the handshake and hands
 * over a connected {@link UcxSocketImpl}; {@code SO_TIMEOUT} and a close from another thread end a waiting accept.
 */
final class UcxServerSocketImpl extends SocketImpl {
    private InetAddress bindAddr;
    private ServerSocketChannel channel;
    private Selector selector;
    private Path path;
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
        Ucx.context(); // unavailable UCX fails here, with the reason
        Path p = Rendezvous.path(bindAddr, localport);
        Rendezvous.ensureDir(p.getParent());
        if (Files.exists(p)) {
            try {
                Rendezvous.connect(p).close();
                throw new SocketException("UCX rendezvous " + p + " is served by another live listener");
            } catch (IOException stale) {
                Files.deleteIfExists(p); // left by a process that died; its TCP port is ours now
            }
        }
        ServerSocketChannel ch = Rendezvous.JDK.openServerSocketChannel(StandardProtocolFamily.UNIX);
        try {
            ch.bind(UnixDomainSocketAddress.of(p), backlog > 0 ? backlog : 50);
            p.toFile().setWritable(true, false); // any local user may connect, as to a TCP port
            ch.configureBlocking(false);
            selector = Rendezvous.JDK.openSelector();
            ch.register(selector, SelectionKey.OP_ACCEPT);
        } catch (IOException e) {
            ch.close();
            Files.deleteIfExists(p);
            throw new IOException("UCX listener " + p + ": " + e.getMessage(), e);
        }
        channel = ch;
        path = p;
    }

    @Override
    protected void accept(SocketImpl s) throws IOException {
        if (!(s instanceof UcxSocketImpl into)) {
            throw new SocketException("a UCX listener accepts into a UCX socket, not " + s.getClass().getName());
        }
        ServerSocketChannel ch;
        Selector sel;
        synchronized (this) {
            if (closed) {
                throw new SocketException("Socket closed");
            }
            if (channel == null) {
                throw new SocketException("Socket is not listening");
            }
            ch = channel;
            sel = selector;
        }
        int t = timeout;
        long deadline = t > 0 ? System.nanoTime() + t * 1_000_000L : 0;
        String where = Rendezvous.hostPort(bindAddr != null ? bindAddr : new InetSocketAddress(0).getAddress(),
                localport);
        synchronized (sel) { // one acceptor at a time on the selector; others queue here
            while (true) {
                if (closed) {
                    throw new SocketException("Socket closed");
                }
                UcxConnection c;
                try {
                    c = Handshake.accept(ch, where);
                } catch (ClosedChannelException e) {
                    throw new SocketException("Socket closed");
                } catch (IOException e) {
                    // a client that failed its handshake costs only itself; keep listening
                    org.sdp4j.log.SdpLog.log(org.sdp4j.log.SdpLog.WARN, "ucx: listener " + where + ": " + e);
                    continue;
                }
                if (c != null) {
                    InetAddress peer = bindAddr == null || bindAddr.isAnyLocalAddress()
                            ? InetAddress.getLoopbackAddress() : bindAddr;
                    into.accepted(c, peer, localport);
                    if (org.sdp4j.log.SdpLog.enabled(org.sdp4j.log.SdpLog.DECISION)) {
                        org.sdp4j.log.SdpLog.log(org.sdp4j.log.SdpLog.DECISION, "ucx connection " + c.id
                                + " accepted on " + where + ": UCX shared memory (tls=" + Ucx.transports() + ")");
                    }
                    return;
                }
                long wait = 0;
                if (deadline != 0) {
                    wait = (deadline - System.nanoTime()) / 1_000_000L;
                    if (wait <= 0) {
                        throw new SocketTimeoutException("Accept timed out");
                    }
                }
                sel.select(wait);
                sel.selectedKeys().clear();
            }
        }
    }

    @Override
    protected void close() throws IOException {
        ServerSocketChannel ch;
        Selector sel;
        Path p;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            ch = channel;
            sel = selector;
            p = path;
        }
        if (ch != null) {
            ch.close();
            sel.wakeup();
            synchronized (sel) { // after a waiting accept has left
                sel.close();
            }
            Files.deleteIfExists(p);
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
                return UcxConnection.STAGING;
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
        return "UcxServerSocketImpl[" + path + (closed ? ", closed" : "") + "]";
    }
}
