package org.sdp4j.net;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketImpl;
import java.net.SocketOptions;
import java.net.SocketTimeoutException;

import org.sdp4j.Sdp4j;
import org.sdp4j.jdk.JdkNet;
import org.sdp4j.jdk.JdkNio;
import org.sdp4j.log.SdpLog;
import org.sdp4j.transport.Poller;
import org.sdp4j.transport.Router;
import org.sdp4j.transport.TcpTransport;
import org.sdp4j.transport.Transport;
import org.sdp4j.transport.TransportChannel;

/**
 * The listener every {@code new ServerSocket()} gets. Bound as the JDK's own implementation, it is decided at
 * {@code listen}, when the actual address and port are known (an ephemeral port is matched as the port it got):
 * {@code server} rules keep it on TCP or move it to a transport's listener on the same address and port.
 */
final class SdpServerSocketImpl extends ForwardingSocketImpl {
    private volatile Transport transport = TcpTransport.INSTANCE;
    /** Set when a {@code both} rule listens on a transport and TCP at once. */
    private volatile DualListener dual;
    /** Set when it does so with a transport no poller can wait on together with TCP (UCX). */
    private volatile AcceptThreads threads;
    /** How long a {@code both} listener's accept waits on the transport's side once its poll said readable. */
    static final int RDMA_ACCEPT_SLICE_MS = 1_000;

    @Override
    protected SocketImpl newDefaultDelegate() throws IOException {
        return TcpTransport.INSTANCE.newSocketImpl(true);
    }

    @Override
    protected void create(boolean stream) throws IOException {
        if (!stream) {
            throw new SocketException("a server socket is a stream socket");
        }
        SocketImpl d = newDefaultDelegate();
        JdkNet.create(d, true);
        delegate = d;
    }

    @Override
    protected void bind(InetAddress host, int port) throws IOException {
        JdkNet.bind(delegate(), host, port);
    }

    @Override
    protected void listen(int backlog) throws IOException {
        SocketImpl tcp = delegate();
        InetSocketAddress local = new InetSocketAddress(boundAddress(), JdkNet.localPort(tcp));
        try {
            transport = Sdp4j.router().listen(local, new Router.ListenPaths() {
                @Override
                public void tcp() throws IOException {
                    JdkNet.listen(tcp, backlog);
                }

                @Override
                public void rdma(Transport t) throws IOException {
                    SocketImpl r = t.newSocketImpl(true);
                    try {
                        t.create(r);
                        options.replay(r, t.name());
                        JdkNet.closeQuietly(tcp); // before the transport binds the same port (a shared port space)
                        JdkNet.bind(r, local.getAddress(), local.getPort());
                        JdkNet.listen(r, backlog);
                    } catch (IOException | RuntimeException e) {
                        JdkNet.closeQuietly(r);
                        throw e;
                    }
                    synchronized (SdpServerSocketImpl.this) {
                        if (closed) {
                            JdkNet.closeQuietly(r);
                            throw new SocketException("Socket closed");
                        }
                        delegate = r;
                    }
                    JdkNet.closeQuietly(tcp);
                }

                @Override
                public void both(Transport t) throws IOException {
                    listenBoth(t, tcp, local, backlog);
                }
            });
        } finally {
            decided = true;
        }
    }

    private void listenBoth(Transport t, SocketImpl tcp, InetSocketAddress local, int backlog) throws IOException {
        SocketImpl r = t.newSocketImpl(true);
        Poller p = r instanceof TransportChannel ? t.newPoller() : null;
        if (p == null) {
            // no descriptor a poller could wait on with TCP's (UCX's java.net listener): a thread per listener
            listenThreaded(t, r, tcp, local, backlog);
            return;
        }
        try {
            t.create(r);
            options.replay(r, t.name());
            JdkNet.bind(r, local.getAddress(), local.getPort());
            JdkNet.listen(r, backlog);
            if (!(r instanceof TransportChannel tc)) {
                throw new IOException(t.name() + "'s listener has no descriptor to poll");
            }
            int tcpFd = JdkNio.fdVal(JdkNet.fileDescriptor(tcp));
            JdkNet.listen(tcp, backlog);
            DualListener d = new DualListener(tcp, tcpFd, r, tc, t, p);
            synchronized (this) {
                if (closed) {
                    d.close();
                    throw new SocketException("Socket closed");
                }
                dual = d;
            }
        } catch (IOException | RuntimeException e) {
            JdkNet.closeQuietly(r);
            p.close();
            throw e;
        }
    }

    private void listenThreaded(Transport t, SocketImpl r, SocketImpl tcp, InetSocketAddress local, int backlog)
            throws IOException {
        try {
            t.create(r);
            options.replay(r, t.name());
            JdkNet.bind(r, local.getAddress(), local.getPort());
            JdkNet.listen(r, backlog);
            JdkNet.listen(tcp, backlog);
        } catch (IOException | RuntimeException e) {
            JdkNet.closeQuietly(r);
            throw e;
        }
        synchronized (this) {
            if (closed) {
                JdkNet.closeQuietly(r);
                throw new SocketException("Socket closed");
            }
            threads = new AcceptThreads(tcp, r, t, local.getPort());
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
    protected void accept(SocketImpl s) throws IOException {
        if (!(s instanceof SdpSocketImpl client)) {
            throw new SocketException("sdp4j cannot accept into a " + s.getClass().getName()
                    + " (a Socket whose SocketImpl is not sdp4j's)");
        }
        Transport t = transport;
        SocketImpl from = delegate();
        AcceptThreads q = threads;
        if (q != null) {
            Object timeout = JdkNet.getOption(from, SocketOptions.SO_TIMEOUT);
            AcceptThreads.Accepted a = q.take(timeout instanceof Integer i ? i : 0);
            adopt(client, a.impl(), a.transport());
            return;
        }
        DualListener d = dual;
        if (d != null) {
            Object timeout = JdkNet.getOption(from, SocketOptions.SO_TIMEOUT);
            if (acceptBoth(client, d, timeout instanceof Integer i ? i : 0)) {
                return;
            }
            t = TcpTransport.INSTANCE;
        }
        SocketImpl into = t == TcpTransport.INSTANCE ? JdkNet.newPlatformImpl(false) : t.newSocketImpl(false);
        try {
            JdkNet.accept(from, into);
        } catch (IOException | RuntimeException e) {
            JdkNet.closeQuietly(into);
            throw e;
        }
        if (t != TcpTransport.INSTANCE) {
            t.established(into, null, true);
        }
        adopt(client, into, t);
    }

    /**
     * The {@code both} listener's accept: true when {@code client} took a connection of the transport's, false when
     * a TCP connection waits on the caller's listener. A transport listener reported readable may hold a connection
     * request that librdmacm's background accept then rejects (the server out of locked memory or queue pairs, an
     * RDMA-CM client that is not an rsocket: rping, a ucx client), and the poller reports it readable after its
     * settle bound regardless: its accept is bounded by {@link #RDMA_ACCEPT_SLICE_MS}, then both listeners are
     * watched again, so TCP clients (the fallback) are never starved behind it (issue 23).
     */
    private boolean acceptBoth(SdpSocketImpl client, DualListener d, int timeoutMillis) throws IOException {
        long deadline = timeoutMillis > 0 ? System.nanoTime() + timeoutMillis * 1_000_000L : 0;
        while (true) {
            int left = 0;
            if (deadline != 0) {
                left = (int) Math.max(1, (deadline - System.nanoTime() + 999_999) / 1_000_000L);
            }
            if (d.await(left, () -> closed) == DualListener.TCP) {
                return false;
            }
            SocketImpl into = d.transport.newSocketImpl(false);
            try {
                JdkNet.setOption(d.rdma, SocketOptions.SO_TIMEOUT, left > 0 ? Math.min(left, RDMA_ACCEPT_SLICE_MS)
                        : RDMA_ACCEPT_SLICE_MS);
                JdkNet.accept(d.rdma, into);
            } catch (SocketTimeoutException rejected) {
                JdkNet.closeQuietly(into);
                if (deadline != 0 && deadline - System.nanoTime() <= 0) {
                    throw rejected;
                }
                continue;
            } catch (IOException | RuntimeException e) {
                JdkNet.closeQuietly(into);
                throw e;
            }
            adopt(client, into, d.transport);
            return true;
        }
    }

    private static void adopt(SdpSocketImpl client, SocketImpl into, Transport t) {
        client.adoptAccepted(into, t.name());
        org.sdp4j.ops.Counters.accepted(t.name(), () -> JdkNet.inetAddress(into).getHostAddress() + ":"
                + JdkNet.port(into));
        if (SdpLog.enabled(SdpLog.DEBUG)) {
            SdpLog.log(SdpLog.DEBUG, "accepted " + JdkNet.inetAddress(into) + ":" + JdkNet.port(into)
                    + " on port " + JdkNet.localPort(into) + " transport=" + t.name());
        }
    }

    @Override
    protected void close() throws IOException {
        SocketImpl d;
        DualListener both;
        AcceptThreads q;
        synchronized (this) {
            closed = true;
            d = delegate;
            both = dual;
            q = threads;
        }
        if (both != null) {
            both.close();
        }
        try {
            if (d != null) {
                JdkNet.close(d); // first: the queued connections are closed after it (AcceptThreads.close says why)
            }
        } finally {
            if (q != null) {
                q.close();
                q.awaitExit(); // the TCP acceptor leaves only now, and with it the port
            }
        }
    }
}
