package org.sdp4j.ucx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.Pipe;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.sdp4j.testing.Growth;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sdp4j.Sdp4j;
import org.sdp4j.conf.ConfigParser;
import org.sdp4j.conf.ProgramIdentity;
import org.sdp4j.jdk.JdkNio;
import org.sdp4j.nio.SdpSelectorProvider;

/**
 * NIO over the UCX transport in one JVM: sdp4j's provider with "use ucx" rules, both ends really on UCX shared
 * memory, one sdp4j Selector multiplexing UCX channels with TCP channels and pipes (through {@link UcxPoller}).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UcxNioTest {
    static final InetAddress LO = InetAddress.getLoopbackAddress();
    static final ExecutorService EXEC = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "ucx-nio-test");
        t.setDaemon(true);
        return t;
    });
    static SdpSelectorProvider provider;

    @BeforeAll
    static void rules() throws Exception {
        assertTrue(Ucx.isAvailable(), () -> "UCX must be installed for these tests: " + Ucx.unavailabilityCause());
        if (System.getProperty("sdp4j.ucx.dir") == null) {
            System.setProperty("sdp4j.ucx.dir", Files.createTempDirectory("ucx-rv").toString());
        }
        Sdp4j.installSocketFactories();
        provider = new SdpSelectorProvider();
    }

    /**
     * Every test its own rules, and so its own Router: a Router remembers a destination whose UCX connect failed
     * (60 s), and a test's TCP-only server port, taken again by the kernel for a later test's UCX listener, sent that
     * test's UCX connect straight to TCP (CI, Temurin 21, once).
     */
    @org.junit.jupiter.api.BeforeEach
    void ucxRules() throws Exception {
        Sdp4j.configure(ConfigParser.parse("test.conf", "use tcp client * *:1\nuse ucx server * *:*\n"
                + "use ucx client * *:*\n"), ProgramIdentity.of("ucx-test"));
    }

    static boolean overUcx(Object ch) {
        return ch.toString().startsWith("UcxSocketChannel[");
    }

    /** A ucx server channel (UCX rendezvous + TCP on one port) on the loopback address. */
    static ServerSocketChannel listen() throws IOException {
        ServerSocketChannel s = provider.openServerSocketChannel();
        s.bind(new InetSocketAddress(LO, 0));
        return s;
    }

    static int port(ServerSocketChannel s) throws IOException {
        return ((InetSocketAddress) s.getLocalAddress()).getPort();
    }

    /** Accepts one connection (blocking, on UCX or TCP) and echoes it until end-of-stream, with a direct buffer. */
    static Future<String> blockingEcho(ServerSocketChannel ss) {
        return EXEC.submit(() -> {
            try (SocketChannel s = ss.accept()) {
                ByteBuffer b = ByteBuffer.allocateDirect(50_000);
                while (s.read(b) >= 0) {
                    b.flip();
                    while (b.hasRemaining()) {
                        s.write(b);
                    }
                    b.clear();
                }
                return s.toString();
            }
        });
    }

    static byte[] random(int n, long seed) {
        byte[] d = new byte[n];
        new Random(seed).nextBytes(d);
        return d;
    }

    /** Issue 11: this waited until data or the peer's end-of-stream came; TCP wakes the reader with -1 at once. */
    @Test
    void channelShutdownInputWakesABlockedReaderWithEndOfStream() throws Exception {
        try (ServerSocketChannel ss = listen();
             SocketChannel c = provider.openSocketChannel()) {
            Future<SocketChannel> accepted = EXEC.submit(() -> ss.accept()); // the handshake runs in accept
            c.connect(new InetSocketAddress(LO, port(ss)));
            try (SocketChannel s = accepted.get(30, TimeUnit.SECONDS)) {
                assertTrue(overUcx(c), c::toString);
                Future<Integer> reader = EXEC.submit(() -> c.read(ByteBuffer.allocate(8)));
                Thread.sleep(200);
                assertFalse(reader.isDone());
                c.shutdownInput();
                assertEquals(-1, reader.get(5, TimeUnit.SECONDS), "TCP: the blocked reader sees end-of-stream");
                c.write(ByteBuffer.wrap(new byte[] {9}));
                ByteBuffer one = ByteBuffer.allocate(1);
                s.read(one);
                assertEquals(9, one.get(0));
            }
        }
    }

    @Test
    void blockingChannelsEchoOneMebibyteWithScatterGather() throws Exception {
        try (ServerSocketChannel ss = listen()) {
            Future<String> server = blockingEcho(ss);
            try (SocketChannel c = provider.openSocketChannel()) {
                assertTrue(c.connect(new InetSocketAddress(LO, port(ss))));
                assertTrue(overUcx(c), c::toString);
                assertTrue(c.isConnected());
                assertEquals(LO, ((InetSocketAddress) c.getRemoteAddress()).getAddress());
                assertEquals(port(ss), ((InetSocketAddress) c.getRemoteAddress()).getPort());
                byte[] data = random(1 << 20, 7);
                Future<?> writer = EXEC.submit(() -> {
                    Random sizes = new Random(3);
                    for (int off = 0; off < data.length; ) {
                        int n = Math.min(data.length - off, 1 + sizes.nextInt(90_000));
                        int h = n / 2;
                        // gather: a heap buffer and a direct one
                        ByteBuffer a = ByteBuffer.wrap(data, off, h);
                        ByteBuffer d = ByteBuffer.allocateDirect(n - h).put(data, off + h, n - h).flip();
                        ByteBuffer[] bufs = {a, d};
                        while (a.hasRemaining() || d.hasRemaining()) {
                            c.write(bufs);
                        }
                        off += n;
                    }
                    return null;
                });
                byte[] got = new byte[data.length];
                int have = 0;
                while (have < got.length) {
                    // scatter: a direct buffer then a heap one
                    ByteBuffer d = ByteBuffer.allocateDirect(Math.min(7000, got.length - have));
                    ByteBuffer h = ByteBuffer.wrap(got, have + d.capacity(), Math.min(30_000,
                            got.length - have - d.capacity()));
                    long n = c.read(new ByteBuffer[] {d, h});
                    assertTrue(n > 0);
                    d.flip().get(got, have, d.remaining());
                    have += n;
                }
                writer.get(30, TimeUnit.SECONDS);
                assertArrayEquals(data, got);
                c.shutdownOutput();
                assertEquals(-1, c.read(ByteBuffer.allocate(1)), "end-of-stream after the echo side closes");
                assertTrue(overUcx(server.get(30, TimeUnit.SECONDS)));
                // the socket adaptor reads and writes the same connection
                assertEquals(c, c.socket().getChannel());
                assertTrue(c.socket().getTcpNoDelay());
            }
        }
    }

    @Test
    void nonBlockingEchoOfOneMebibyteThroughSelectorsOnBothSides() throws Exception {
        try (ServerSocketChannel ss = listen()) {
            ss.configureBlocking(false);
            Future<Integer> server = EXEC.submit(() -> selectorEchoServer(ss, 1));
            try (Selector sel = provider.openSelector(); SocketChannel c = provider.openSocketChannel()) {
                c.configureBlocking(false);
                assertTrue(c.connect(new InetSocketAddress(LO, port(ss))), "UCX connects at once (blocking handshake)");
                assertTrue(overUcx(c), c::toString);
                byte[] data = random(1 << 20, 11);
                ByteBuffer out = ByteBuffer.wrap(data);
                ByteBuffer in = ByteBuffer.allocateDirect(data.length);
                SelectionKey k = c.register(sel, SelectionKey.OP_READ | SelectionKey.OP_WRITE);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (in.hasRemaining()) {
                    assertTrue(System.nanoTime() < deadline, "echo did not complete: " + in);
                    sel.select(1000);
                    sel.selectedKeys().clear();
                    if (k.isWritable() && out.hasRemaining()) {
                        c.write(out);
                        if (!out.hasRemaining()) {
                            k.interestOps(SelectionKey.OP_READ);
                        }
                    }
                    if (k.isReadable()) {
                        assertTrue(c.read(in) >= 0);
                    }
                }
                in.flip();
                byte[] got = new byte[data.length];
                in.get(got);
                assertArrayEquals(data, got);
            }
            assertEquals(1, server.get(30, TimeUnit.SECONDS));
        }
    }

    /** Accepts {@code n} connections through a selector and echoes each until it ends; returns how many were UCX. */
    static int selectorEchoServer(ServerSocketChannel ss, int n) throws IOException {
        int ucx = 0, done = 0;
        try (Selector sel = provider.openSelector()) {
            ss.register(sel, SelectionKey.OP_ACCEPT);
            while (done < n) {
                sel.select(1000);
                for (Iterator<SelectionKey> it = sel.selectedKeys().iterator(); it.hasNext(); ) {
                    SelectionKey k = it.next();
                    it.remove();
                    if (!k.isValid()) {
                        continue;
                    }
                    if (k.isAcceptable()) {
                        SocketChannel s = ss.accept();
                        if (s != null) {
                            ucx += overUcx(s) ? 1 : 0;
                            s.configureBlocking(false);
                            s.register(sel, SelectionKey.OP_READ, ByteBuffer.allocate(100_000));
                        }
                        continue;
                    }
                    SocketChannel s = (SocketChannel) k.channel();
                    ByteBuffer b = (ByteBuffer) k.attachment();
                    if (k.isReadable() && b.hasRemaining()) {
                        if (s.read(b) < 0) {
                            s.close();
                            done++;
                            continue;
                        }
                    }
                    b.flip();
                    s.write(b);
                    b.compact();
                    k.interestOps(b.position() > 0 ? SelectionKey.OP_WRITE | (b.hasRemaining() ? SelectionKey.OP_READ
                            : 0) : SelectionKey.OP_READ);
                }
            }
        }
        return ucx;
    }

    @Test
    void oneSelectorForAUcxChannelATcpChannelAndAPipe() throws Exception {
        try (ServerSocketChannel ucxServer = listen();
             ServerSocketChannel tcpServer = JdkNio.defaultProvider().openServerSocketChannel()) {
            tcpServer.bind(new InetSocketAddress(LO, 0));
            Future<String> ucxEcho = blockingEcho(ucxServer);
            Future<String> tcpEcho = blockingEcho(tcpServer);
            Pipe pipe = provider.openPipe();
            try (Selector sel = provider.openSelector();
                 SocketChannel u = provider.openSocketChannel();
                 SocketChannel t = provider.openSocketChannel()) {
                u.connect(new InetSocketAddress(LO, port(ucxServer)));
                t.connect(new InetSocketAddress(LO, port(tcpServer))); // no UCX listener there: TCP
                assertTrue(overUcx(u), u::toString);
                assertFalse(overUcx(t), t::toString);
                for (SocketChannel c : new SocketChannel[] {u, t}) {
                    c.configureBlocking(false);
                    c.register(sel, SelectionKey.OP_READ, c == u ? "ucx" : "tcp");
                }
                pipe.source().configureBlocking(false);
                pipe.source().register(sel, SelectionKey.OP_READ, "pipe");

                // nothing ready: a timed select waits its time, and wakeup ends a select at once
                long t0 = System.nanoTime();
                assertEquals(0, sel.select(50));
                assertTrue(System.nanoTime() - t0 >= 45_000_000L);
                Future<?> waker = EXEC.submit(() -> {
                    Thread.sleep(200);
                    sel.wakeup();
                    return null;
                });
                // an untimed select: only the wakeup can end it (one that never does fails by the class @Timeout)
                assertEquals(0, sel.select());
                waker.get();

                Map<String, String> seen = new HashMap<>();
                for (int round = 0; round < 20; round++) {
                    seen.clear();
                    u.write(ByteBuffer.wrap(("ucx" + round).getBytes()));
                    t.write(ByteBuffer.wrap(("tcp" + round).getBytes()));
                    pipe.sink().write(ByteBuffer.wrap(("pipe" + round).getBytes()));
                    Map<String, String> expected = Map.of("ucx", "ucx" + round, "tcp", "tcp" + round, "pipe",
                            "pipe" + round);
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    while (!seen.equals(expected)) {
                        assertTrue(System.nanoTime() < deadline, "round " + round + ": " + seen);
                        sel.select(1000);
                        for (Iterator<SelectionKey> it = sel.selectedKeys().iterator(); it.hasNext(); ) {
                            SelectionKey k = it.next();
                            it.remove();
                            ByteBuffer b = ByteBuffer.allocate(100);
                            int n = ((java.nio.channels.ReadableByteChannel) k.channel()).read(b);
                            assertTrue(n > 0, k.attachment() + " reported readable, read " + n);
                            seen.merge((String) k.attachment(), new String(b.array(), 0, n), String::concat);
                        }
                    }
                }
                // end-of-stream on the UCX channel is readiness too
                u.shutdownOutput();
                boolean eof = false;
                for (int i = 0; i < 50 && !eof; i++) {
                    sel.select(200);
                    for (Iterator<SelectionKey> it = sel.selectedKeys().iterator(); it.hasNext(); ) {
                        SelectionKey k = it.next();
                        it.remove();
                        if ("ucx".equals(k.attachment())) {
                            eof = u.read(ByteBuffer.allocate(10)) < 0;
                        }
                    }
                }
                assertTrue(eof, "the UCX channel reported end-of-stream through the selector");
            } finally {
                pipe.sink().close();
                pipe.source().close();
            }
            assertTrue(overUcx(ucxEcho.get(30, TimeUnit.SECONDS)));
            tcpEcho.get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void aUcxServerChannelAcceptsUcxAndPlainTcpClientsOnOnePort() throws Exception {
        int port;
        try (ServerSocketChannel ss = listen()) {
            port = port(ss);
            assertTrue(Files.exists(Rendezvous.path(LO, port)), "the UCX rendezvous socket of the listener");
            ss.configureBlocking(false);
            Future<Integer> server = EXEC.submit(() -> selectorEchoServer(ss, 3));
            // a client that is not sdp4j: the JDK's own SocketChannel, plain TCP to the same port
            try (SocketChannel tcp = open(JdkNio.defaultProvider().openSocketChannel(), port);
                 SocketChannel ucx = open(provider.openSocketChannel(), port);
                 Socket ucxSocket = new Socket(LO, port)) { // and java.net over UCX
                assertTrue(overUcx(ucx), ucx::toString);
                for (int i = 0; i < 3; i++) {
                    tcp.write(ByteBuffer.wrap(("tcp" + i).getBytes()));
                    ucx.write(ByteBuffer.wrap(("ucx" + i).getBytes()));
                    ucxSocket.getOutputStream().write(("net" + i).getBytes());
                    assertEquals("tcp" + i, readN(tcp, 4));
                    assertEquals("ucx" + i, readN(ucx, 4));
                    assertEquals("net" + i, new String(ucxSocket.getInputStream().readNBytes(4)));
                }
            }
            assertEquals(2, server.get(30, TimeUnit.SECONDS), "UCX connections among the 3 accepted");
        }
        assertFalse(Files.exists(Rendezvous.path(LO, port)), "closing the server channel removes its rendezvous socket");
    }

    static SocketChannel open(SocketChannel c, int port) throws IOException {
        c.connect(new InetSocketAddress(LO, port));
        return c;
    }

    static String readN(SocketChannel c, int n) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(n);
        while (b.hasRemaining()) {
            if (c.read(b) < 0) {
                break;
            }
        }
        return new String(b.array(), 0, b.position());
    }

    @Test
    void fallsBackToTcpWhenTheDestinationHasNoUcxListener() throws Exception {
        try (ServerSocketChannel plain = JdkNio.defaultProvider().openServerSocketChannel()) {
            plain.bind(new InetSocketAddress(LO, 0));
            Future<String> echo = blockingEcho(plain);
            try (SocketChannel c = provider.openSocketChannel()) {
                c.configureBlocking(false);
                boolean done = c.connect(plain.getLocalAddress());
                try (Selector sel = provider.openSelector()) {
                    SelectionKey k = c.register(sel, SelectionKey.OP_CONNECT);
                    while (!done) {
                        sel.select(1000);
                        if (k.isConnectable()) {
                            done = c.finishConnect();
                        }
                    }
                    assertFalse(overUcx(c), c::toString);
                    k.interestOps(SelectionKey.OP_READ);
                    c.write(ByteBuffer.wrap("fallback".getBytes()));
                    ByteBuffer b = ByteBuffer.allocate(8);
                    while (b.hasRemaining()) {
                        sel.select(1000);
                        c.read(b);
                    }
                    assertEquals("fallback", new String(b.array()));
                }
            }
            echo.get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void closeFromAnotherThreadWakesABlockedRead() throws Exception {
        try (ServerSocketChannel ss = listen()) {
            Future<SocketChannel> acc = EXEC.submit(() -> ss.accept());
            try (SocketChannel c = open(provider.openSocketChannel(), port(ss));
                 SocketChannel s = acc.get(30, TimeUnit.SECONDS)) {
                assertTrue(overUcx(c) && overUcx(s));
                Future<Integer> reader = EXEC.submit(() -> c.read(ByteBuffer.allocateDirect(100)));
                Thread.sleep(300);
                assertFalse(reader.isDone());
                c.close();
                // the close ends the read (a read the close never ends fails the bounded get)
                ExecutionException e = assertThrows(ExecutionException.class, () -> reader.get(10, TimeUnit.SECONDS));
                assertTrue(e.getCause() instanceof AsynchronousCloseException, e::toString);
                // the peer sees end-of-stream: the close sent the marker
                assertEquals(-1, s.read(ByteBuffer.allocate(1)));
            }
        }
    }

    @Test
    void connectCloseCyclesLeakNoFdsOrThreads() throws Exception {
        try (ServerSocketChannel ss = listen()) {
            Future<?> acceptor = EXEC.submit(() -> {
                ByteBuffer b = ByteBuffer.allocate(1);
                while (ss.isOpen()) {
                    try (SocketChannel s = ss.accept()) {
                        b.clear();
                        s.read(b);
                        b.flip();
                        s.write(b);
                    } catch (IOException closed) {
                        return null;
                    }
                }
                return null;
            });
            // a warm-up round, then three equal rounds; a leak keeps growing round after round (Growth)
            int perRound = 150;
            Map<String, List<Long>> samples = Growth.rounds(3, perRound,
                    Map.of("fds", UcxNioTest::fdCount, "java-threads", () -> (long) Thread.activeCount()),
                    i -> cycle(port(ss), 1), r -> UcxSocketTest.quiesce());
            List<String> leaks = Growth.leaks(samples, perRound);
            assertTrue(leaks.isEmpty(), () -> String.join("\n", leaks));
            ss.close();
            acceptor.get(10, TimeUnit.SECONDS);
        }
    }

    private static void cycle(int port, int n) throws Exception {
        for (int i = 0; i < n; i++) {
            try (Selector sel = provider.openSelector(); SocketChannel c = provider.openSocketChannel()) {
                c.connect(new InetSocketAddress(LO, port));
                assertTrue(overUcx(c), c::toString);
                c.write(ByteBuffer.wrap(new byte[] {(byte) i}));
                c.configureBlocking(false);
                c.register(sel, SelectionKey.OP_READ);
                ByteBuffer b = ByteBuffer.allocate(1);
                while (b.hasRemaining()) {
                    sel.select(1000);
                    assertTrue(c.read(b) >= 0);
                }
                assertEquals((byte) i, b.get(0));
            }
        }
    }

    static long fdCount() throws Exception {
        WorkerPool.drain(); // idle workers hold descriptors by design; a leak is what is left after draining
        Thread.sleep(100); // a watchdog deregistration closes the last descriptor on its next loop
        try (var s = Files.list(Path.of("/proc/self/fd"))) {
            return s.count();
        }
    }
}
