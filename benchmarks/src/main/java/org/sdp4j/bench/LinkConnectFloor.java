package org.sdp4j.bench;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openucx.jucx.UcxUtils;
import org.openucx.jucx.ucp.UcpConstants;
import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpEndpointParams;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;

/**
 * The floor of a local UCX connect done the cheapest way issue 18's design allows, against a TCP connect, side by
 * side: both a client thread and a server thread of one JVM, each connection connected, one 8-byte message each
 * way, closed. No sdp4j code: jucx, a Unix socket and the JDK.
 * <ul>
 *   <li>{@link #link}: two workers paired once (as a first connection between two processes would), then per
 *       connection: the client makes its next endpoint and sends {@code CONNECT(id)} on the pair's Unix socket; the
 *       listener thread, blocked reading that socket, makes its next endpoint (UCX pairs the n-th of each side),
 *       answers {@code ACCEPT(id)} and serves the connection (reads 8 bytes, echoes them, closes). The worker pair
 *       is retired after 512 connections (UCX 1.13 keeps closed endpoints until their worker goes:
 *       {@link JucxConnect}). Waits spin (progress) on UCX and block on the socket, as cheap as it gets.</li>
 *   <li>{@link #tcp}: {@code new Socket}, connect, 8 bytes each way, close; the server thread accepts, reads, echoes
 *       and closes.</li>
 * </ul>
 * What it answers: whether a connect made of user-space messages (two thread wake-ups and an endpoint each side)
 * can come within issue 18's 2x of a TCP connect, whose handshake the kernel does inside {@code connect()}.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 500, timeUnit = TimeUnit.MILLISECONDS)
@Measurement(iterations = 5, time = 500, timeUnit = TimeUnit.MILLISECONDS)
@Fork(1)
@Threads(1)
public class LinkConnectFloor {
    private static final int RETIRE_AFTER = 512;
    private static final byte CONNECT = 4, ACCEPT = 5;

    @State(Scope.Benchmark)
    public static class Link {
        UcpContext context;
        UcpWorker client, listener;
        ByteBuffer clientAddress;
        ByteBuffer listenerAddress;
        SocketChannel clientEnd, listenerEnd;
        Thread serving;
        volatile Throwable failure;
        final ByteBuffer message = ByteBuffer.allocate(9);
        ByteBuffer data; // a field: UCX writes into it until the operation completes
        long dataAddress;
        int carried;
        long next;

        @Setup(Level.Trial)
        public void setup() throws IOException {
            context = JucxSettings.context();
            data = ByteBuffer.allocateDirect(16);
            dataAddress = UcxUtils.getAddress(data);
            Path dir = Files.createTempDirectory("sdp4j-linkfloor");
            Path p = dir.resolve("s");
            try (ServerSocketChannel ss = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
                ss.bind(UnixDomainSocketAddress.of(p));
                clientEnd = SocketChannel.open(UnixDomainSocketAddress.of(p));
                listenerEnd = ss.accept();
            } finally {
                Files.deleteIfExists(p);
                Files.deleteIfExists(dir);
            }
            pair();
        }

        private void pair() {
            client = worker();
            listener = worker();
            clientAddress = client.getAddress();
            listenerAddress = listener.getAddress();
            carried = 0;
            serving = new Thread(this::serve, "link-listener");
            serving.setDaemon(true);
            serving.start();
        }

        private UcpWorker worker() {
            return JucxSettings.worker(context);
        }

        /** The listener: per CONNECT, its next endpoint, ACCEPT, then the connection served; ends at id -1. */
        private void serve() {
            ByteBuffer m = ByteBuffer.allocate(9);
            ByteBuffer buf = ByteBuffer.allocateDirect(8);
            long addr = UcxUtils.getAddress(buf);
            try {
                while (true) {
                    m.clear();
                    readFully(listenerEnd, m);
                    long id = m.getLong(1);
                    if (m.get(0) != CONNECT) {
                        throw new IllegalStateException("not a CONNECT: " + m.get(0));
                    }
                    if (id < 0) {
                        return;
                    }
                    UcpEndpoint ep = listener.newEndpoint(new UcpEndpointParams().setUcpAddress(clientAddress));
                    m.clear();
                    m.put(ACCEPT).putLong(id).flip();
                    writeFully(listenerEnd, m);
                    await(listener, ep.recvStreamNonBlocking(addr, 8, UcpConstants.UCP_STREAM_RECV_FLAG_WAITALL,
                            null));
                    if (buf.getLong(0) != id) {
                        throw new IllegalStateException("endpoint pair " + id + " crossed: got " + buf.getLong(0));
                    }
                    await(listener, ep.sendStreamNonBlocking(addr, 8, null));
                    await(listener, ep.closeNonBlockingFlush());
                }
            } catch (Throwable t) {
                failure = t;
            }
        }

        /** Stops the listener thread and destroys the worker pair. */
        private void unpair() throws Exception {
            message.clear();
            message.put(CONNECT).putLong(-1).flip();
            writeFully(clientEnd, message);
            serving.join(10_000);
            if (failure != null) {
                throw new IllegalStateException("the listener failed", failure);
            }
            client.close();
            listener.close();
        }

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            unpair();
            clientEnd.close();
            listenerEnd.close();
            context.close();
        }
    }

    @State(Scope.Benchmark)
    public static class Tcp {
        ServerSocket server;
        Thread serving;
        volatile boolean stop;
        volatile Throwable failure;
        final byte[] buf = new byte[8];

        @Setup(Level.Trial)
        public void setup() throws IOException {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            serving = new Thread(() -> {
                byte[] b = new byte[8];
                try {
                    while (!stop) {
                        try (Socket s = server.accept()) {
                            s.setTcpNoDelay(true);
                            new DataInputStream(s.getInputStream()).readFully(b);
                            s.getOutputStream().write(b);
                        }
                    }
                } catch (Throwable t) {
                    if (!stop) {
                        failure = t;
                    }
                }
            }, "tcp-listener");
            serving.setDaemon(true);
            serving.start();
        }

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            stop = true;
            server.close();
            serving.join(10_000);
            if (failure != null) {
                throw new IllegalStateException("the TCP server failed", failure);
            }
        }
    }

    /** One connection on the link: endpoint, CONNECT/ACCEPT, 8 bytes each way, close. */
    @Benchmark
    public long link(Link l) throws Exception {
        if (l.carried == RETIRE_AFTER) {
            l.unpair();
            l.pair();
        }
        l.carried++;
        long id = l.next++;
        UcpEndpoint ep = l.client.newEndpoint(new UcpEndpointParams().setUcpAddress(l.listenerAddress));
        ByteBuffer m = l.message;
        m.clear();
        m.put(CONNECT).putLong(id).flip();
        writeFully(l.clientEnd, m);
        m.clear();
        readFully(l.clientEnd, m);
        if (m.get(0) != ACCEPT || m.getLong(1) != id) {
            throw new IllegalStateException("no ACCEPT for " + id);
        }
        l.data.putLong(0, id);
        await(l.client, ep.sendStreamNonBlocking(l.dataAddress, 8, null));
        await(l.client, ep.recvStreamNonBlocking(l.dataAddress + 8, 8, UcpConstants.UCP_STREAM_RECV_FLAG_WAITALL,
                null));
        if (l.data.getLong(8) != id) {
            throw new IllegalStateException("echo " + l.data.getLong(8) + " for " + id);
        }
        await(l.client, ep.closeNonBlockingFlush());
        return id;
    }

    /** One TCP connection: connect, 8 bytes each way, close. */
    @Benchmark
    public int tcp(Tcp t) throws IOException {
        try (Socket s = new Socket()) {
            s.setTcpNoDelay(true);
            s.connect(t.server.getLocalSocketAddress());
            s.getOutputStream().write(t.buf);
            new DataInputStream(s.getInputStream()).readFully(t.buf);
            return t.buf[0];
        }
    }

    static void await(UcpWorker w, UcpRequest r) throws Exception {
        long end = System.nanoTime() + 10_000_000_000L;
        while (!r.isCompleted()) {
            if (w.progress() == 0) {
                Thread.onSpinWait();
            }
            if (System.nanoTime() - end > 0) {
                throw new IllegalStateException("UCX did not complete a request in 10 s");
            }
        }
    }

    static void readFully(SocketChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (ch.read(b) < 0) {
                throw new EOFException("the link's socket closed");
            }
        }
    }

    static void writeFully(SocketChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            ch.write(b);
        }
    }
}
