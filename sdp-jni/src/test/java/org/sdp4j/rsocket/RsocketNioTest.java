package org.sdp4j.rsocket;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.Pipe;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sdp4j.Sdp4j;
import org.sdp4j.conf.ConfigParser;
import org.sdp4j.conf.ProgramIdentity;
import org.sdp4j.jdk.JdkNio;
import org.sdp4j.nio.SdpSelectorProvider;
import org.sdp4j.transport.Transport;
import org.sdp4j.transport.TransportChannel;

/**
 * NIO over rsockets: the transport's own channels, and sdp4j's provider deciding by the rules ({@code sdp},
 * {@code both}) with one selector over rsocket channels, TCP channels and a pipe. Host: over the TCP shim; the VM
 * (run-all.sh) runs it over real rsockets with {@code -Dsdp4j.test.address}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RsocketNioTest {
    static final InetAddress ADDRESS = RsocketSocketImplTest.ADDRESS;
    private static final RsocketTransport RS = new RsocketTransport();
    private final SelectorProvider sdp = new SdpSelectorProvider();
    private final SelectorProvider jdk = JdkNio.defaultProvider();

    @BeforeAll
    static void available() {
        Assumptions.assumeTrue(Rsocket.isAvailable(), () -> "rsockets unavailable: " + Rsocket.unavailabilityCause());
    }

    @AfterEach
    void tcpAgain() throws Exception {
        rules("use tcp client * *:*\nuse tcp server * *:*\n");
    }

    static void rules(String text) throws Exception {
        Sdp4j.configure(ConfigParser.parse("test.conf", text), ProgramIdentity.of("test"));
    }

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static void readFully(SocketChannel c, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (c.read(b) < 0) {
                throw new IOException("EOF after " + b.position());
            }
        }
    }

    // ---- the transport's channels ----

    @Test
    void echoBlockingHeapDirectScatterGather() throws Exception {
        try (ServerSocketChannel server = RS.openServerSocketChannel(sdp)) {
            assertInstanceOf(TransportChannel.class, server);
            server.bind(new InetSocketAddress(ADDRESS, 0));
            InetSocketAddress at = (InetSocketAddress) server.getLocalAddress();
            assertTrue(at.getPort() > 0);
            Future<Long> echo = Tests.EXEC.submit(() -> {
                try (SocketChannel c = server.accept()) {
                    ByteBuffer buf = ByteBuffer.allocateDirect(8192);
                    long total = 0;
                    int n;
                    while ((n = c.read(buf)) >= 0) {
                        total += n;
                        buf.flip();
                        while (buf.hasRemaining()) {
                            c.write(buf);
                        }
                        buf.clear();
                    }
                    return total;
                }
            });
            try (SocketChannel c = RS.openSocketChannel(sdp)) {
                assertTrue(c.connect(at));
                assertTrue(c.isConnected());
                assertEquals(at, c.getRemoteAddress());
                assertNotNull(c.getLocalAddress());
                byte[] a = random(100_000, 1);
                ByteBuffer direct = ByteBuffer.allocateDirect(3000);
                direct.put(random(3000, 2)).flip();
                ByteBuffer ro = ByteBuffer.wrap(random(17, 3)).asReadOnlyBuffer();
                Future<byte[]> got = Tests.EXEC.submit(() -> {
                    ByteBuffer h = ByteBuffer.allocate(100_000 - 500);
                    ByteBuffer d = ByteBuffer.allocateDirect(500 + 3000 + 17);
                    long want = h.remaining() + d.remaining();
                    long r = 0;
                    while (r < want) {
                        long n = c.read(new ByteBuffer[] {h, d}, 0, 2);
                        assertTrue(n > 0, "read " + n);
                        r += n;
                    }
                    byte[] all = new byte[(int) want];
                    h.flip().get(all, 0, h.remaining());
                    d.flip().get(all, 100_000 - 500, d.remaining());
                    return all;
                });
                long w = c.write(new ByteBuffer[] {ByteBuffer.wrap(a), direct, ro}, 0, 3);
                assertEquals(100_000 + 3000 + 17, w);
                byte[] all = got.get(60, TimeUnit.SECONDS);
                byte[] expect = new byte[all.length];
                System.arraycopy(a, 0, expect, 0, a.length);
                System.arraycopy(random(3000, 2), 0, expect, a.length, 3000);
                System.arraycopy(random(17, 3), 0, expect, a.length + 3000, 17);
                assertArrayEquals(expect, all);
                c.shutdownOutput();
                assertEquals(-1, c.read(ByteBuffer.allocate(1)));
                assertEquals(all.length, echo.get(30, TimeUnit.SECONDS));
            }
        }
    }

    @Test
    void socketAdaptorsAndOptions() throws Exception {
        try (ServerSocketChannel server = RS.openServerSocketChannel(sdp)) {
            server.socket().bind(new InetSocketAddress(ADDRESS, 0));
            server.socket().setSoTimeout(200);
            assertThrows(java.net.SocketTimeoutException.class, () -> server.socket().accept());
            Future<Socket> acc = Tests.EXEC.submit(() -> {
                server.socket().setSoTimeout(0);
                return server.socket().accept();
            });
            try (SocketChannel c = RS.openSocketChannel(sdp)) {
                c.setOption(StandardSocketOptions.SO_RCVBUF, 65536);
                c.setOption(StandardSocketOptions.TCP_NODELAY, true);
                c.setOption(RsocketOptions.BUSY_POLL, 50);
                assertEquals(50, c.getOption(RsocketOptions.BUSY_POLL));
                assertTrue(c.supportedOptions().contains(RsocketOptions.RDMA_SQSIZE));
                Socket s = c.socket();
                assertEquals(c, s.getChannel());
                s.connect(server.getLocalAddress(), 10_000);
                assertTrue(s.isConnected());
                assertTrue(c.getOption(StandardSocketOptions.TCP_NODELAY));
                try (Socket peer = acc.get(30, TimeUnit.SECONDS)) {
                    assertInstanceOf(SocketChannel.class, peer.getChannel());
                    OutputStream out = s.getOutputStream();
                    out.write("hello".getBytes());
                    byte[] b = new byte[5];
                    InputStream in = peer.getInputStream();
                    int n = 0;
                    while (n < 5) {
                        n += in.read(b, n, 5 - n);
                    }
                    assertEquals("hello", new String(b));
                    peer.setSoTimeout(100);
                    assertThrows(java.net.SocketTimeoutException.class, () -> in.read());
                    assertEquals(s.getLocalPort(), peer.getPort());
                }
            }
        }
    }

    /** A connected pair: [client, accepted]. */
    private SocketChannel[] pair(ServerSocketChannel server) throws Exception {
        Future<SocketChannel> acc = Tests.EXEC.submit(() -> server.accept());
        SocketChannel c = RS.openSocketChannel(sdp);
        c.connect(server.getLocalAddress());
        return new SocketChannel[] {c, acc.get(30, TimeUnit.SECONDS)};
    }

    @Test
    void asyncCloseAndInterruptWakeABlockedRead() throws Exception {
        try (ServerSocketChannel server = RS.openServerSocketChannel(sdp)) {
            server.bind(new InetSocketAddress(ADDRESS, 0));
            SocketChannel[] p1 = pair(server);
            // a close from another thread wakes the reader: AsynchronousCloseException
            Future<Integer> reader = Tests.EXEC.submit(() -> p1[0].read(ByteBuffer.allocate(10)));
            Thread.sleep(300);
            assertFalse(reader.isDone());
            long t0 = System.nanoTime();
            p1[0].close();
            Exception e = assertThrows(Exception.class, () -> reader.get(10, TimeUnit.SECONDS));
            assertInstanceOf(AsynchronousCloseException.class, e.getCause());
            assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(5));
            p1[1].close();
            // an interrupted reader: the channel closes, ClosedByInterruptException
            SocketChannel[] p2 = pair(server);
            Thread[] t = new Thread[1];
            Future<Integer> r2 = Tests.EXEC.submit(() -> {
                t[0] = Thread.currentThread();
                return p2[0].read(ByteBuffer.allocate(10));
            });
            Thread.sleep(300);
            assertFalse(r2.isDone());
            t[0].interrupt();
            Exception e2 = assertThrows(Exception.class, () -> r2.get(10, TimeUnit.SECONDS));
            assertInstanceOf(ClosedByInterruptException.class, e2.getCause());
            assertFalse(p2[0].isOpen());
            p2[1].close();
            // shutdownInput wakes a reader waiting for data: it returns -1
            SocketChannel[] p3 = pair(server);
            Future<Integer> r3 = Tests.EXEC.submit(() -> p3[0].read(ByteBuffer.allocate(10)));
            Thread.sleep(300);
            p3[0].shutdownInput();
            assertEquals(-1, r3.get(10, TimeUnit.SECONDS));
            p3[1].write(ByteBuffer.wrap(new byte[] {1})); // the writer side is unaffected
            p3[0].close();
            p3[1].close();
        }
    }

    @Test
    void accepterWokenByClose() throws Exception {
        ServerSocketChannel server = RS.openServerSocketChannel(sdp);
        server.bind(new InetSocketAddress(ADDRESS, 0));
        Future<SocketChannel> acc = Tests.EXEC.submit(() -> server.accept());
        Thread.sleep(300);
        server.close();
        Exception e = assertThrows(Exception.class, () -> acc.get(10, TimeUnit.SECONDS));
        assertInstanceOf(AsynchronousCloseException.class, e.getCause());
    }

    // ---- sdp4j's provider: rules, one selector for everything ----

    @Test
    void sdpRuleEchoThroughTheProvider() throws Exception {
        rules("use sdp client * *:*\nuse sdp server * *:*\n");
        try (ServerSocketChannel server = sdp.openServerSocketChannel()) {
            server.bind(new InetSocketAddress(ADDRESS, 0));
            assertTrue(server.toString().startsWith("RsocketServerSocketChannel"), server.toString());
            Future<Object> echo = Tests.EXEC.submit(() -> {
                try (SocketChannel a = server.accept()) {
                    ByteBuffer b = ByteBuffer.allocate(4096);
                    while (a.read(b) >= 0) {
                        b.flip();
                        while (b.hasRemaining()) {
                            a.write(b);
                        }
                        b.clear();
                    }
                }
                return null;
            });
            try (SocketChannel c = sdp.openSocketChannel()) {
                c.setOption(RsocketOptions.RDMA_SQSIZE, 64); // before connect: handed to the rsocket
                assertEquals(64, c.getOption(RsocketOptions.RDMA_SQSIZE));
                assertTrue(c.connect(server.getLocalAddress()));
                assertTrue(c.toString().startsWith("RsocketSocketChannel"), c.toString());
                byte[] data = random(50_000, 7);
                Future<byte[]> got = Tests.EXEC.submit(() -> {
                    ByteBuffer b = ByteBuffer.allocate(data.length);
                    readFully(c, b);
                    return b.array();
                });
                c.write(ByteBuffer.wrap(data));
                assertArrayEquals(data, got.get(30, TimeUnit.SECONDS));
                assertEquals(c, c.socket().getChannel());
                assertTrue(c.socket().isConnected());
            }
            echo.get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void mixedSelectorRsocketTcpAndPipe() throws Exception {
        rules("use sdp client * *:*\nuse sdp server * *:*\n");
        try (Selector sel = sdp.openSelector();
             ServerSocketChannel rsServer = sdp.openServerSocketChannel();
             ServerSocketChannel tcpServer = jdk.openServerSocketChannel()) {
            rsServer.bind(new InetSocketAddress(ADDRESS, 0));
            rsServer.configureBlocking(false);
            rsServer.register(sel, SelectionKey.OP_ACCEPT, "rs-accept");
            tcpServer.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            tcpServer.configureBlocking(false);
            tcpServer.register(sel, SelectionKey.OP_ACCEPT, "tcp-accept");
            Pipe pipe = sdp.openPipe();
            pipe.source().configureBlocking(false);
            pipe.source().register(sel, SelectionKey.OP_READ, "pipe");

            // non-blocking connect over rsockets, registered before connecting (as Netty does)
            SocketChannel rsClient = sdp.openSocketChannel();
            rsClient.configureBlocking(false);
            SelectionKey ck = rsClient.register(sel, 0, "rs-connect");
            boolean now = rsClient.connect(rsServer.getLocalAddress());
            ck.interestOps(now ? SelectionKey.OP_WRITE : SelectionKey.OP_CONNECT);
            SocketChannel tcpClient = jdk.openSocketChannel();
            tcpClient.connect(tcpServer.getLocalAddress());
            Tests.EXEC.submit(() -> {
                Thread.sleep(200);
                return pipe.sink().write(ByteBuffer.wrap("p".getBytes()));
            });

            Set<String> seen = new HashSet<>();
            SocketChannel rsAccepted = null, tcpAccepted = null;
            byte[] msg = "over rsockets".getBytes();
            ByteBuffer echoed = ByteBuffer.allocate(msg.length);
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!(seen.contains("pipe") && seen.contains("tcp-accept") && seen.contains("tcp-read")
                    && !echoed.hasRemaining()) && System.nanoTime() < end) {
                sel.select(1000);
                for (var it = sel.selectedKeys().iterator(); it.hasNext(); ) {
                    SelectionKey k = it.next();
                    it.remove();
                    String what = (String) k.attachment();
                    seen.add(what);
                    switch (what) {
                        case "rs-accept" -> {
                            SocketChannel a = rsServer.accept();
                            if (a != null) {
                                rsAccepted = a;
                                a.configureBlocking(false);
                                a.register(sel, SelectionKey.OP_READ, "rs-server-read");
                            }
                        }
                        case "tcp-accept" -> {
                            SocketChannel a = tcpServer.accept();
                            if (a != null) {
                                tcpAccepted = a;
                                a.configureBlocking(false);
                                a.register(sel, SelectionKey.OP_READ, "tcp-read");
                                tcpClient.write(ByteBuffer.wrap("t".getBytes()));
                            }
                        }
                        case "tcp-read" -> {
                            ByteBuffer b = ByteBuffer.allocate(10);
                            ((SocketChannel) k.channel()).read(b);
                        }
                        case "pipe" -> pipe.source().read(ByteBuffer.allocate(10));
                        case "rs-connect" -> {
                            if (k.isConnectable()) {
                                assertTrue(rsClient.finishConnect());
                                k.interestOps(SelectionKey.OP_WRITE);
                            } else if (k.isWritable()) {
                                rsClient.write(ByteBuffer.wrap(msg));
                                k.interestOps(SelectionKey.OP_READ);
                            } else if (k.isReadable()) {
                                rsClient.read(echoed);
                            }
                        }
                        case "rs-server-read" -> {
                            ByteBuffer b = ByteBuffer.allocate(100);
                            int n = ((SocketChannel) k.channel()).read(b);
                            if (n > 0) {
                                b.flip();
                                ((SocketChannel) k.channel()).write(b);
                            }
                        }
                        default -> throw new AssertionError(what);
                    }
                }
            }
            assertTrue(seen.containsAll(Set.of("rs-accept", "rs-connect", "rs-server-read", "tcp-accept", "tcp-read",
                    "pipe")), seen.toString());
            assertArrayEquals(msg, echoed.array());
            assertTrue(rsClient.toString().startsWith("RsocketSocketChannel"), rsClient.toString());
            // a closed rsocket channel leaves the selector; the selector goes on
            rsClient.close();
            sel.selectNow();
            assertFalse(ck.isValid());
            // wakeup() reaches a select polling through rpoll
            Future<Integer> blocked = Tests.EXEC.submit(() -> sel.select());
            Thread.sleep(200);
            sel.wakeup();
            assertNotNull(blocked.get(10, TimeUnit.SECONDS));
            for (SocketChannel c : new SocketChannel[] {rsAccepted, tcpAccepted, tcpClient}) {
                if (c != null) {
                    c.close();
                }
            }
            pipe.sink().close();
            pipe.source().close();
        }
    }

    @Test
    void bothRuleNonBlockingConnectFallsBackWithoutBlocking() throws Exception {
        rules("use both client * *:*\nuse tcp server * *:*\n");
        int port;
        try (ServerSocketChannel s = jdk.openServerSocketChannel()) {
            s.bind(new InetSocketAddress(ADDRESS, 0));
            port = ((InetSocketAddress) s.getLocalAddress()).getPort();
        } // nothing listens there now: the rsocket attempt fails, then TCP
        InetSocketAddress dead = new InetSocketAddress(ADDRESS, port);
        try (Selector sel = sdp.openSelector(); SocketChannel c = sdp.openSocketChannel()) {
            c.configureBlocking(false);
            long t0 = System.nanoTime();
            boolean done;
            try {
                done = c.connect(dead);
            } catch (java.net.ConnectException e) {
                return; // refused at once by both (possible on loopback): nothing was pending
            }
            assertFalse(done);
            assertTrue(System.nanoTime() - t0 < TimeUnit.MILLISECONDS.toNanos(1500), "connect blocked");
            c.register(sel, SelectionKey.OP_CONNECT);
            IOException failure = null;
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (failure == null && System.nanoTime() < end) {
                sel.select(500);
                sel.selectedKeys().clear();
                try {
                    if (c.finishConnect()) {
                        break;
                    }
                } catch (IOException e) {
                    failure = e;
                }
            }
            assertInstanceOf(java.net.ConnectException.class, failure); // TCP refused too, after the fallback
        }
        // the Router remembered the failed rsocket attempt: the next connect goes to TCP at once
        try (SocketChannel c = sdp.openSocketChannel()) {
            c.configureBlocking(false);
            try {
                c.connect(dead);
            } catch (java.net.ConnectException expected) {
                // fine: refused by TCP directly
            }
            assertFalse(c.toString().startsWith("RsocketSocketChannel"), c.toString());
        }
    }

    @Test
    void bothRuleNonBlockingConnectToAnRsocketServer() throws Exception {
        rules("use both client * *:*\nuse sdp server * *:*\n");
        try (Selector sel = sdp.openSelector(); ServerSocketChannel server = sdp.openServerSocketChannel()) {
            server.bind(new InetSocketAddress(ADDRESS, 0));
            Future<SocketChannel> acc = Tests.EXEC.submit(() -> server.accept());
            SocketChannel c = sdp.openSocketChannel();
            c.configureBlocking(false);
            SelectionKey k = c.register(sel, SelectionKey.OP_CONNECT);
            boolean done = c.connect(server.getLocalAddress());
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!done && System.nanoTime() < end) {
                sel.select(500);
                sel.selectedKeys().clear();
                done = c.finishConnect();
            }
            assertTrue(done);
            assertTrue(c.toString().startsWith("RsocketSocketChannel"), c.toString());
            k.interestOps(SelectionKey.OP_READ);
            try (SocketChannel a = acc.get(20, TimeUnit.SECONDS)) {
                a.write(ByteBuffer.wrap("x".getBytes()));
                assertEquals(1, sel.select(10_000));
                assertEquals(1, c.read(ByteBuffer.allocate(4)));
            }
            c.close();
        }
    }

    /** Real rsockets only: over the TCP shim an rsocket and a TCP listener cannot share a port. */
    @Test
    void bothServerAcceptsAnRsocketAndATcpClientOnOnePort() throws Exception {
        Assumptions.assumeTrue(System.getProperty("sdp4j.rdmacm.lib") == null, "real rsockets only (VM)");
        rules("use both server * *:*\nuse tcp client * *:*\n");
        try (Selector sel = sdp.openSelector(); ServerSocketChannel server = sdp.openServerSocketChannel()) {
            server.bind(new InetSocketAddress(ADDRESS, 0));
            server.configureBlocking(false);
            server.register(sel, SelectionKey.OP_ACCEPT);
            SocketAddress at = server.getLocalAddress();
            SocketChannel rs = RS.openSocketChannel(sdp);
            rs.connect(at);
            SocketChannel tcp = jdk.openSocketChannel();
            tcp.connect(at);
            Set<String> kinds = new HashSet<>();
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (kinds.size() < 2 && System.nanoTime() < end) {
                sel.select(1000);
                sel.selectedKeys().clear();
                SocketChannel a;
                while ((a = server.accept()) != null) {
                    kinds.add(a.toString().startsWith("RsocketSocketChannel") ? "rsocket" : "tcp");
                    a.close();
                }
            }
            assertEquals(Set.of("rsocket", "tcp"), kinds);
            rs.close();
            tcp.close();
        }
    }

    @Test
    void noDescriptorLeaks() throws Exception {
        rules("use sdp client * *:*\nuse sdp server * *:*\n");
        // round 0 warms up (timerfds, librdmacm's own descriptors); a leak keeps growing over rounds 1 to 3
        java.util.List<Long> fds = new java.util.ArrayList<>();
        for (int round = 0; round < 4; round++) {
            for (int i = 0; i < 10; i++) {
                try (Selector sel = sdp.openSelector(); ServerSocketChannel server = sdp.openServerSocketChannel()) {
                    server.bind(new InetSocketAddress(ADDRESS, 0));
                    server.configureBlocking(false);
                    server.register(sel, SelectionKey.OP_ACCEPT);
                    SocketChannel c = sdp.openSocketChannel();
                    c.connect(server.getLocalAddress());
                    SocketChannel a = null;
                    while (a == null) {
                        sel.select(1000);
                        sel.selectedKeys().clear();
                        a = server.accept();
                    }
                    c.write(ByteBuffer.wrap(new byte[] {1}));
                    assertEquals(1, a.read(ByteBuffer.allocate(1)));
                    a.close();
                    c.close();
                }
            }
            fds.add(openFds());
        }
        String leak = org.sdp4j.testing.Growth.leak("fds", fds, 10, org.sdp4j.testing.Growth.usual("fds"));
        assertTrue(leak == null, leak);
    }

    private static long openFds() throws IOException {
        try (Stream<java.nio.file.Path> s = Files.list(Paths.get("/proc/self/fd"))) {
            return s.count();
        }
    }

    @Test
    void transportOptionsDeclared() {
        Transport t = RS;
        assertTrue(t.transportOptions().contains(RsocketOptions.RDMA_INLINE));
        assertNull(null);
    }
}
