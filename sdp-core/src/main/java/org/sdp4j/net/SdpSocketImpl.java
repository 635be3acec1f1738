package org.sdp4j.net;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketImpl;

import org.sdp4j.Sdp4j;
import org.sdp4j.jdk.JdkNet;
import org.sdp4j.transport.TcpTransport;
import org.sdp4j.transport.Transport;

/**
 * The client socket every {@code new Socket()} gets. It starts as the JDK's own implementation (so options, bind
 * and a TCP connect behave exactly as without sdp4j) and is decided at {@code connect}: the {@code Router} either
 * lets the TCP implementation connect, or connects a transport's implementation, applies the recorded options
 * and bind to it, and makes it the delegate (closing the unused TCP socket).
 */
final class SdpSocketImpl extends ForwardingSocketImpl {
    private boolean stream = true;
    private InetSocketAddress boundLocal;
    /** An RDMA attempt in progress, so that an asynchronous close can abort it. */
    private volatile SocketImpl attempt;
    private volatile String transport = "tcp";

    @Override
    protected SocketImpl newDefaultDelegate() throws IOException {
        return TcpTransport.INSTANCE.newSocketImpl(false);
    }

    @Override
    protected void create(boolean stream) throws IOException {
        SocketImpl d = newDefaultDelegate();
        JdkNet.create(d, stream);
        this.stream = stream;
        this.delegate = d;
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
    protected void connect(SocketAddress address, int timeout) throws IOException {
        SocketImpl tcp = delegate();
        if (!stream || !(address instanceof InetSocketAddress remote)) {
            // datagram sockets (the deprecated Socket(..., false)) and foreign address types: the JDK decides
            JdkNet.connect(tcp, address, timeout);
            decided = true;
            return;
        }
        try {
            Transport used = Sdp4j.router().connect(remote, timeout,
                    (t, bounded) -> connectOver(t, remote, bounded),
                    t -> JdkNet.connect(tcp, remote, t));
            transport = used.name();
        } finally {
            decided = true;
        }
    }

    private void connectOver(Transport t, InetSocketAddress remote, int timeout) throws IOException {
        SocketImpl r = t.newSocketImpl(false);
        attempt = r;
        try {
            if (closed) {
                throw new SocketException("Socket closed");
            }
            t.create(r);
            options.replay(r, t.name());
            if (boundLocal != null) {
                JdkNet.bind(r, boundLocal.getAddress(), boundLocal.getPort());
            }
            JdkNet.connect(r, remote, timeout);
            SocketImpl tcp;
            synchronized (this) {
                if (closed) {
                    throw new SocketException("Socket closed");
                }
                tcp = delegate;
                delegate = r;
                attempt = null;
            }
            JdkNet.closeQuietly(tcp);
            t.established(r, remote, false);
        } catch (IOException | RuntimeException e) {
            attempt = null;
            JdkNet.closeQuietly(r);
            throw e;
        }
    }

    @Override
    protected void bind(InetAddress host, int port) throws IOException {
        JdkNet.bind(delegate(), host, port);
        // an explicit local address or port is carried over to another transport; the wildcard is its default
        if ((host != null && !host.isAnyLocalAddress()) || port != 0) {
            boundLocal = new InetSocketAddress(host, port);
        }
    }

    @Override
    protected void listen(int backlog) throws IOException {
        throw new SocketException("listen on a client socket");
    }

    @Override
    protected void accept(SocketImpl s) throws IOException {
        throw new SocketException("accept on a client socket");
    }

    /** Called by the server impl: {@code accepted} is connected and becomes this socket's implementation. */
    void adoptAccepted(SocketImpl accepted, String transportName) {
        this.delegate = accepted;
        this.transport = transportName;
        this.decided = true;
    }

    /** The transport carrying this socket: {@code tcp}, {@code rsocket}, ... */
    String transport() {
        return transport;
    }

    @Override
    protected void close() throws IOException {
        SocketImpl d, a;
        synchronized (this) {
            closed = true;
            d = delegate;
            a = attempt;
        }
        JdkNet.closeQuietly(a);
        if (d != null) {
            JdkNet.close(d);
        }
    }
}
