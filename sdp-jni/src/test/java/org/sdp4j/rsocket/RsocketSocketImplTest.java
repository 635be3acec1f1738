package org.sdp4j.rsocket;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketImpl;
import java.net.SocketOption;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * RsocketSocketImpl under java.net.Socket and ServerSocket, client and server in this JVM.
 *
 * <p>On the host it runs over the TCP shim (native/test/tcpshim.c, {@code -Dsdp4j.rdmacm.lib}) on 127.0.0.1; in the
 * soft-RoCE VM (native/vm-tests/run-all.sh) over real rsockets on {@code -Dsdp4j.test.address=10.9.9.1}, where
 * {@code -Dsdp4j.test.blackhole} names an address no RDMA device answers, for the connect timeout.
 */
// SEPARATE_THREAD: a test stuck in a native wait fails at the timeout instead of hanging the run
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RsocketSocketImplTest {

    static final InetAddress ADDRESS = address(System.getProperty("sdp4j.test.address", "127.0.0.1"));

    private static InetAddress address(String s) {
        try {
            return InetAddress.getByName(s);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @BeforeAll
    static void available() {
        Assumptions.assumeTrue(Rsocket.isAvailable(), () -> "rsockets unavailable: " + Rsocket.unavailabilityCause());
        System.out.println("RsocketSocketImplTest on " + ADDRESS.getHostAddress() + " over "
                + System.getProperty("sdp4j.rdmacm.lib", NativeLibrary.RDMACM_DEFAULT));
    }

    // ---- java.net wrappers over the impl, as an application sees them ----

    static final class RsSocket extends Socket {
        final RsocketSocketImpl impl;

        RsSocket() throws SocketException {
            this(new RsocketSocketImpl(false));
        }

        private RsSocket(RsocketSocketImpl impl) throws SocketException {
            super(impl);
            this.impl = impl;
        }
    }

    static final class RsServerSocket extends ServerSocket {
        final RsocketSocketImpl impl;

        RsServerSocket() throws IOException {
            this(new RsocketSocketImpl(true));
        }

        private RsServerSocket(RsocketSocketImpl impl) throws IOException {
            super(impl);
            this.impl = impl;
        }

        /** ServerSocket.accept would make a platform SocketImpl for the new socket; sdp4j's net layer does this. */
        @Override
        public RsSocket accept() throws IOException {
            if (isClosed()) {
                throw new SocketException("Socket is closed");
            }
            RsSocket s = new RsSocket();
            implAccept(s);
            return s;
        }

        static RsServerSocket bound() throws IOException {
            RsServerSocket ss = new RsServerSocket();
            ss.bind(new InetSocketAddress(ADDRESS, 0), 16);
            return ss;
        }
    }

    /** A connected client/server pair and its listener. */
    static final class Pair implements AutoCloseable {
        final RsServerSocket listener;
        final RsSocket client;
        final RsSocket server;

        private Pair(RsServerSocket listener, RsSocket client, RsSocket server) {
            this.listener = listener;
            this.client = client;
            this.server = server;
        }

        static Pair open() throws Exception {
            RsServerSocket ss = RsServerSocket.bound();
            Future<RsSocket> acc = CompletableFuture.supplyAsync(() -> {
                try {
                    return ss.accept();
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            }, Tests.EXEC);
            RsSocket c = new RsSocket();
            c.connect(new InetSocketAddress(ADDRESS, ss.getLocalPort()), 10_000);
            return new Pair(ss, c, acc.get(10, TimeUnit.SECONDS));
        }

        @Override
        public void close() throws IOException {
            try (listener; client; server) {
                // closed in reverse order
            }
        }
    }

    private static byte[] pattern(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static <T> T get(Future<T> f) throws Exception {
        try {
            return f.get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception) {
                throw (Exception) e.getCause();
            }
            throw e;
        }
    }

    // ---- data ----

    @Test
    void oneMebibyteEchoedByteForByte() throws Exception {
        byte[] data = pattern(1 << 20, 1);
        try (Pair p = Pair.open()) {
            Future<Void> echo = CompletableFuture.supplyAsync(() -> {
                try {
                    InputStream in = p.server.getInputStream();
                    OutputStream out = p.server.getOutputStream();
                    byte[] buf = new byte[64 * 1024];
                    int total = 0;
                    for (int n; total < data.length && (n = in.read(buf)) > 0; total += n) {
                        out.write(buf, 0, n);
                    }
                    return null;
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            }, Tests.EXEC);
            Future<Void> send = CompletableFuture.supplyAsync(() -> {
                try {
                    p.client.getOutputStream().write(data);
                    return null;
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            }, Tests.EXEC);
            byte[] back = new byte[data.length];
            new DataInputStream(p.client.getInputStream()).readFully(back);
            get(send);
            get(echo);
            assertArrayEquals(data, back);
        }
    }

    @Test
    void randomSizeStreamInRandomChunks() throws Exception {
        long seed = Long.getLong("sdp4j.test.seed", System.nanoTime());
        Random r = new Random(seed);
        int size = 1 + r.nextInt(3 << 20);
        byte[] data = pattern(size, seed);
        System.out.println("randomSizeStreamInRandomChunks: seed " + seed + ", " + size + " bytes");
        try (Pair p = Pair.open()) {
            Future<Void> send = CompletableFuture.supplyAsync(() -> {
                try {
                    Random w = new Random(seed + 1);
                    OutputStream out = p.server.getOutputStream(); // the accepted side writes
                    for (int off = 0; off < size; ) {
                        int n = Math.min(size - off, 1 + w.nextInt(70_000));
                        out.write(data, off, n);
                        off += n;
                    }
                    p.server.shutdownOutput();
                    return null;
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            }, Tests.EXEC);
            Random rd = new Random(seed + 2);
            byte[] got = new byte[size + 1];
            InputStream in = p.client.getInputStream();
            int total = 0;
            for (int n; (n = in.read(got, total, Math.min(got.length - total, 1 + rd.nextInt(70_000)))) > 0; ) {
                total += n;
            }
            get(send);
            assertEquals(size, total, "seed " + seed);
            byte[] exact = new byte[size];
            System.arraycopy(got, 0, exact, 0, size);
            assertArrayEquals(data, exact, "seed " + seed);
            assertEquals(-1, in.read());
        }
    }

    @Test
    void singleBytesAndZeroLength() throws Exception {
        try (Pair p = Pair.open()) {
            OutputStream out = p.client.getOutputStream();
            InputStream in = p.server.getInputStream();
            out.write(0xAB);
            out.write(new byte[0]);
            assertEquals(0xAB, in.read());
            assertEquals(0, in.read(new byte[4], 0, 0));
        }
    }

    // ---- timeouts ----

    @Test
    void readHonoursSoTimeout() throws Exception {
        try (Pair p = Pair.open()) {
            p.client.setSoTimeout(300);
            assertEquals(300, p.client.getSoTimeout());
            InputStream in = p.client.getInputStream();
            long t = System.nanoTime();
            SocketTimeoutException e = assertThrows(SocketTimeoutException.class, () -> in.read());
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t);
            assertEquals("Read timed out", e.getMessage());
            assertTrue(ms >= 290 && ms < 5_000, "timed out after " + ms + " ms");
            // still usable after a timeout
            p.server.getOutputStream().write(7);
            assertEquals(7, in.read());
            p.client.setSoTimeout(0);
            assertEquals(0, p.client.getSoTimeout());
        }
    }

    @Test
    void acceptHonoursSoTimeout() throws Exception {
        try (RsServerSocket ss = RsServerSocket.bound()) {
            ss.setSoTimeout(250);
            long t = System.nanoTime();
            SocketTimeoutException e = assertThrows(SocketTimeoutException.class, ss::accept);
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t);
            assertEquals("Accept timed out", e.getMessage());
            assertTrue(ms >= 240 && ms < 5_000, "timed out after " + ms + " ms");
        }
    }

    @Test
    void connectTimeoutBoundsResolution() throws Exception {
        String blackhole = System.getProperty("sdp4j.test.blackhole");
        Assumptions.assumeTrue(blackhole != null, "no -Dsdp4j.test.blackhole address (only set in the VM)");
        RsSocket s = new RsSocket();
        long t = System.nanoTime();
        SocketTimeoutException e = assertThrows(SocketTimeoutException.class,
                () -> s.connect(new InetSocketAddress(InetAddress.getByName(blackhole), 50_000), 700));
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t);
        System.out.println("connect to " + blackhole + ": " + e.getMessage() + " after " + ms + " ms");
        assertTrue(ms >= 690 && ms < 5_000, "gave up after " + ms + " ms");
        assertTrue(e.getMessage().contains("rconnect " + blackhole + ":50000"), e.getMessage());
        assertTrue(s.impl.isClosed(), "a failed connect closes the impl");
        assertEquals(-1, s.impl.rsocketFd(), "the rsocket is released");
    }

    // ---- errors ----

    @Test
    void connectRefusedSaysWhere() throws Exception {
        int port;
        try (RsServerSocket ss = RsServerSocket.bound()) {
            port = ss.getLocalPort();
        }
        RsSocket s = new RsSocket();
        ConnectException e = assertThrows(ConnectException.class,
                () -> s.connect(new InetSocketAddress(ADDRESS, port), 10_000));
        assertEquals("rconnect " + ADDRESS.getHostAddress() + ":" + port + ": Connection refused", e.getMessage());
        assertTrue(s.impl.isClosed(), "a failed connect closes the impl");
        assertEquals(-1, s.impl.rsocketFd(), "the rsocket is released");
    }

    @Test
    void bindToAPortInUse() throws Exception {
        try (RsServerSocket ss = RsServerSocket.bound(); RsServerSocket other = new RsServerSocket()) {
            IOException e = assertThrows(IOException.class,
                    () -> other.bind(new InetSocketAddress(ADDRESS, ss.getLocalPort())));
            assertTrue(e.getMessage().startsWith("rbind " + ADDRESS.getHostAddress() + ":" + ss.getLocalPort() + ": "),
                    e.getMessage());
        }
    }

    @Test
    void sendUrgentDataIsNotSupported() throws Exception {
        try (Pair p = Pair.open()) {
            SocketException e = assertThrows(SocketException.class, () -> p.client.impl.sendUrgentData(1));
            assertEquals("sendUrgentData: not supported by rsockets", e.getMessage());
            assertFalse(p.client.impl.supportsUrgentData());
            assertThrows(SocketException.class, () -> p.client.sendUrgentData(1)); // java.net.Socket asks first
        }
    }

    @Test
    void acceptNeedsAnRsocketImpl() throws Exception {
        try (RsServerSocket ss = RsServerSocket.bound()) {
            SocketImpl foreign = new SocketImpl() {
                @Override protected void create(boolean stream) {}
                @Override protected void connect(String host, int port) {}
                @Override protected void connect(InetAddress address, int port) {}
                @Override protected void connect(java.net.SocketAddress address, int timeout) {}
                @Override protected void bind(InetAddress host, int port) {}
                @Override protected void listen(int backlog) {}
                @Override protected void accept(SocketImpl s) {}
                @Override protected InputStream getInputStream() { return null; }
                @Override protected OutputStream getOutputStream() { return null; }
                @Override protected int available() { return 0; }
                @Override protected void close() {}
                @Override protected void sendUrgentData(int data) {}
                @Override public void setOption(int optID, Object value) {}
                @Override public Object getOption(int optID) { return null; }
            };
            SocketException e = assertThrows(SocketException.class, () -> ss.impl.accept(foreign));
            assertTrue(e.getMessage().startsWith("accept: needs an RsocketSocketImpl"), e.getMessage());
        }
    }

    @Test
    void closedSocketBehaviour() throws Exception {
        Pair p = Pair.open();
        try {
            InputStream in = p.server.getInputStream();
            p.server.close();
            p.server.close(); // idempotent
            SocketException e = assertThrows(SocketException.class, () -> in.read());
            assertEquals("Socket closed", e.getMessage());
            assertEquals(-1, p.server.impl.rsocketFd());
            // the peer sees the end of the stream
            assertEquals(-1, p.client.getInputStream().read());
            // closing a stream closes the socket
            p.client.getOutputStream().close();
            assertTrue(p.client.isClosed());
            assertThrows(SocketException.class, () -> p.client.impl.setOption(SocketImpl.TCP_NODELAY, true));
        } finally {
            p.close();
        }
    }

    // ---- half close ----

    @Test
    void shutdownOutputAndInput() throws Exception {
        try (Pair p = Pair.open()) {
            p.client.getOutputStream().write(new byte[] {1, 2, 3});
            p.client.shutdownOutput();
            assertThrows(SocketException.class, () -> p.client.getOutputStream().write(4));
            InputStream sin = p.server.getInputStream();
            byte[] b = new byte[3];
            new DataInputStream(sin).readFully(b);
            assertArrayEquals(new byte[] {1, 2, 3}, b);
            assertEquals(-1, sin.read());
            // the other direction still works
            p.server.getOutputStream().write(9);
            assertEquals(9, p.client.getInputStream().read());
            p.server.shutdownInput();
            assertEquals(-1, sin.read());
            assertEquals(0, sin.available());
        }
    }

    /** As with TCP: shutdownInput from another thread ends a read that is already waiting (-1), the socket stays open. */
    @Test
    void shutdownInputWakesABlockedReader() throws Exception {
        try (Pair p = Pair.open()) {
            InputStream in = p.server.getInputStream();
            java.util.concurrent.Future<Integer> r = Tests.EXEC.submit(() -> in.read());
            Thread.sleep(300); // the reader is waiting in rpoll by now
            assertFalse(r.isDone());
            p.server.shutdownInput();
            assertEquals(-1, r.get(10, TimeUnit.SECONDS));
            assertFalse(p.server.isClosed());
            p.server.getOutputStream().write(7); // the other direction still works
            assertEquals(7, p.client.getInputStream().read());
        }
    }

    // ---- available ----

    @Test
    void availableCountsWithoutConsuming() throws Exception {
        try (Pair p = Pair.open()) {
            InputStream in = p.server.getInputStream();
            assertEquals(0, in.available());
            byte[] data = pattern(1000, 3);
            p.client.getOutputStream().write(data);
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (in.available() < data.length && System.nanoTime() < until) {
                Thread.sleep(5);
            }
            assertEquals(data.length, in.available());
            assertEquals(data.length, in.available(), "peeking again gives the same count");
            byte[] got = new byte[data.length];
            new DataInputStream(in).readFully(got);
            assertArrayEquals(data, got);
            assertEquals(0, in.available());
            // more than the peek window: a lower bound of at least 16 KiB
            p.client.getOutputStream().write(pattern(40_000, 4));
            until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (in.available() < 16_384 && System.nanoTime() < until) {
                Thread.sleep(5);
            }
            assertTrue(in.available() >= 16_384, "available " + in.available());
            p.client.close();
            new DataInputStream(in).readFully(new byte[40_000]);
            assertEquals(-1, in.read());
            assertEquals(0, in.available());
        }
    }

    // ---- async close ----

    private static void assertWokenByClose(Future<?> blocked, Socket toClose) throws Exception {
        Thread.sleep(300);
        assertFalse(blocked.isDone(), "should still be blocked");
        long t = System.nanoTime();
        toClose.close();
        ExecutionException e = assertThrows(ExecutionException.class, () -> blocked.get(10, TimeUnit.SECONDS));
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t);
        Throwable c = e.getCause() instanceof RuntimeException && e.getCause().getCause() != null
                ? e.getCause().getCause() : e.getCause();
        assertTrue(c instanceof SocketException, String.valueOf(c));
        assertEquals("Socket closed", c.getMessage());
        assertTrue(ms < 5_000, "woke after " + ms + " ms");
    }

    private static void assertWokenByClose(Future<?> blocked, ServerSocket toClose) throws Exception {
        Thread.sleep(300);
        assertFalse(blocked.isDone(), "should still be blocked");
        toClose.close();
        ExecutionException e = assertThrows(ExecutionException.class, () -> blocked.get(10, TimeUnit.SECONDS));
        Throwable c = e.getCause().getCause() != null ? e.getCause().getCause() : e.getCause();
        assertTrue(c instanceof SocketException, String.valueOf(c));
        assertEquals("Socket closed", c.getMessage());
    }

    @Test
    void asyncCloseWakesABlockedRead() throws Exception {
        try (Pair p = Pair.open()) {
            Future<Integer> r = CompletableFuture.supplyAsync(() -> {
                try {
                    return p.server.getInputStream().read();
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            }, Tests.EXEC);
            assertWokenByClose(r, p.server);
            assertEquals(-1, p.server.impl.rsocketFd(), "the last one out released the rsocket");
        }
    }

    @Test
    void asyncCloseWakesABlockedAccept() throws Exception {
        RsServerSocket ss = RsServerSocket.bound();
        Future<Socket> a = CompletableFuture.supplyAsync(() -> {
            try {
                return ss.accept();
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        }, Tests.EXEC);
        assertWokenByClose(a, ss);
        assertEquals(-1, ss.impl.rsocketFd());
    }

    @Test
    void asyncCloseWakesABlockedWrite() throws Exception {
        try (Pair p = Pair.open()) {
            byte[] chunk = new byte[1 << 20];
            Future<Void> w = CompletableFuture.supplyAsync(() -> {
                try {
                    OutputStream out = p.client.getOutputStream();
                    for (int i = 0; i < 1024; i++) { // the peer never reads: blocks once buffers are full
                        out.write(chunk);
                    }
                    return null;
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            }, Tests.EXEC);
            assertWokenByClose(w, p.client);
        }
    }

    // ---- options ----

    @Test
    void intOptions() throws Exception {
        try (Pair p = Pair.open()) {
            Socket s = p.client;
            s.setTcpNoDelay(true);
            assertTrue(s.getTcpNoDelay());
            s.setTcpNoDelay(false);
            assertFalse(s.getTcpNoDelay());
            assertEquals(-1, s.getSoLinger(), "off by default, as Java's sockets");
            s.setSoLinger(true, 5);
            assertEquals(5, s.getSoLinger());
            s.setSoLinger(false, 0);
            assertEquals(-1, s.getSoLinger());
            s.setKeepAlive(true);
            assertTrue(s.getKeepAlive());
            s.setKeepAlive(false);
            assertFalse(s.getKeepAlive());
            assertTrue(s.getSendBufferSize() > 0);
            assertTrue(s.getReceiveBufferSize() > 0);
            s.setTrafficClass(0x10);
            assertEquals(0x10, s.getTrafficClass());
            assertEquals(ADDRESS, s.getLocalAddress());
            assertThrows(IllegalArgumentException.class, () -> s.setSendBufferSize(0));
            assertThrows(IllegalArgumentException.class, () -> s.setSoTimeout(-1));
        }
    }

    @Test
    void bufferSizesBeforeConnect() throws Exception {
        try (RsServerSocket ss = new RsServerSocket()) {
            ss.setReuseAddress(true);
            assertTrue(ss.getReuseAddress());
            ss.setReceiveBufferSize(256 * 1024);
            ss.bind(new InetSocketAddress(ADDRESS, 0));
            assertTrue(ss.getReceiveBufferSize() >= 256 * 1024, "SO_RCVBUF " + ss.getReceiveBufferSize());
            RsSocket c = new RsSocket();
            c.setSendBufferSize(64 * 1024);
            c.setReceiveBufferSize(64 * 1024);
            Future<RsSocket> acc = CompletableFuture.supplyAsync(() -> {
                try {
                    return ss.accept();
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            }, Tests.EXEC);
            c.connect(new InetSocketAddress(ADDRESS, ss.getLocalPort()), 10_000);
            try (c; Socket a = get(acc)) {
                assertTrue(c.getSendBufferSize() >= 64 * 1024, "SO_SNDBUF " + c.getSendBufferSize());
                byte[] data = pattern(300_000, 5);
                Future<Void> w = CompletableFuture.supplyAsync(() -> {
                    try {
                        c.getOutputStream().write(data);
                        return null;
                    } catch (IOException e) {
                        throw new RuntimeException(e);
                    }
                }, Tests.EXEC);
                byte[] got = new byte[data.length];
                new DataInputStream(a.getInputStream()).readFully(got);
                get(w);
                assertArrayEquals(data, got);
            }
        }
    }

    @Test
    void socketOptionForm() throws Exception {
        try (Pair p = Pair.open()) {
            Socket s = p.client;
            assertTrue(s.supportedOptions().containsAll(java.util.Set.of(StandardSocketOptions.TCP_NODELAY,
                    StandardSocketOptions.SO_LINGER, StandardSocketOptions.SO_SNDBUF, StandardSocketOptions.SO_RCVBUF,
                    StandardSocketOptions.SO_KEEPALIVE, StandardSocketOptions.SO_REUSEADDR,
                    RsocketOptions.RDMA_INLINE)), s.supportedOptions().toString());
            s.setOption(StandardSocketOptions.TCP_NODELAY, true);
            assertTrue(s.getOption(StandardSocketOptions.TCP_NODELAY));
            s.setOption(StandardSocketOptions.SO_LINGER, 7);
            assertEquals(7, s.getOption(StandardSocketOptions.SO_LINGER));
            s.setOption(StandardSocketOptions.SO_LINGER, -1);
            assertEquals(-1, s.getOption(StandardSocketOptions.SO_LINGER));
            assertTrue(s.getOption(StandardSocketOptions.SO_RCVBUF) > 0);
            SocketOption<Boolean> unsupported = StandardSocketOptions.SO_BROADCAST;
            assertThrows(UnsupportedOperationException.class, () -> s.setOption(unsupported, true));
            assertTrue(p.listener.supportedOptions().contains(StandardSocketOptions.SO_REUSEADDR));
            assertFalse(p.listener.supportedOptions().contains(StandardSocketOptions.TCP_NODELAY));
            // jdk.net keep-alive options, as JDBC drivers set them (IBM JCC sets TCP_KEEPIDLE)
            s.setOption(jdk.net.ExtendedSocketOptions.TCP_KEEPIDLE, 300);
            assertEquals(300, s.getOption(jdk.net.ExtendedSocketOptions.TCP_KEEPIDLE));
            s.setOption(jdk.net.ExtendedSocketOptions.TCP_KEEPINTERVAL, 10);
            assertEquals(10, s.getOption(jdk.net.ExtendedSocketOptions.TCP_KEEPINTERVAL));
            s.setOption(jdk.net.ExtendedSocketOptions.TCP_KEEPCOUNT, 4);
            assertEquals(4, s.getOption(jdk.net.ExtendedSocketOptions.TCP_KEEPCOUNT));
            assertThrows(IllegalArgumentException.class,
                    () -> s.setOption(jdk.net.ExtendedSocketOptions.TCP_KEEPIDLE, 0));
            if (System.getProperty("sdp4j.test.address") != null) { // real rsockets: the RDMA options answer
                assertTrue(s.getOption(RsocketOptions.RDMA_INLINE) >= 0);
                assertTrue(s.getOption(RsocketOptions.RDMA_SQSIZE) > 0);
            }
        }
    }

    // ---- addresses ----

    @Test
    void addressesAndPorts() throws Exception {
        try (Pair p = Pair.open()) {
            assertEquals(ADDRESS, p.client.getInetAddress());
            assertEquals(p.listener.getLocalPort(), p.client.getPort());
            assertTrue(p.client.getLocalPort() > 0);
            assertEquals(ADDRESS, p.server.getInetAddress());
            assertEquals(p.client.getLocalPort(), p.server.getPort());
            assertEquals(p.listener.getLocalPort(), p.server.getLocalPort());
            assertEquals(ADDRESS, p.listener.getInetAddress());
            assertNotNull(p.client.impl.toString());
        }
    }

    // ---- the poller ----

    @Test
    void pollerWaitsOnRsocketsAndWakesUp() throws Exception {
        try (Pair p = Pair.open(); org.sdp4j.transport.Poller poller = new RsocketTransport().newPoller()) {
            int[] fds = {p.client.impl.rsocketFd(), -1};
            short[] ev = {Native.POLLIN, Native.POLLIN};
            short[] rev = new short[2];
            long t = System.nanoTime();
            assertEquals(0, poller.poll(fds, ev, rev, 2, 100));
            assertTrue(System.nanoTime() - t >= TimeUnit.MILLISECONDS.toNanos(90));
            p.server.getOutputStream().write(1);
            assertEquals(1, poller.poll(fds, ev, rev, 2, 10_000));
            assertTrue((rev[0] & Native.POLLIN) != 0);
            assertEquals(0, rev[1]);
            assertEquals(1, p.client.getInputStream().read());
            CompletableFuture.runAsync(() -> {
                try {
                    Thread.sleep(200);
                    poller.wakeup();
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            }, Tests.EXEC);
            t = System.nanoTime();
            assertEquals(0, poller.poll(fds, ev, rev, 1, 30_000));
            assertTrue(System.nanoTime() - t < TimeUnit.SECONDS.toNanos(10), "woken up");
        }
    }

    @Test
    void pollerSeesAConnectionRequestOnAListener() throws Exception {
        try (RsServerSocket ss = RsServerSocket.bound();
                org.sdp4j.transport.Poller poller = new RsocketTransport().newPoller()) {
            int[] fds = {ss.impl.rsocketFd()};
            short[] ev = {Native.POLLIN};
            short[] rev = new short[1];
            assertEquals(0, poller.poll(fds, ev, rev, 1, 50));
            Future<RsSocket> c = CompletableFuture.supplyAsync(() -> {
                try {
                    RsSocket s = new RsSocket();
                    s.connect(new InetSocketAddress(ADDRESS, ss.getLocalPort()), 10_000);
                    return s;
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            }, Tests.EXEC);
            long t = System.nanoTime();
            assertEquals(1, poller.poll(fds, ev, rev, 1, 20_000));
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t);
            assertTrue((rev[0] & Native.POLLIN) != 0);
            // rdma-core 44 alone would report it only at rpoll's 5 s wake-up interval
            assertTrue(ms < 4_000, "listener readable after " + ms + " ms");
            ss.setSoTimeout(10_000);
            try (Socket a = ss.accept(); Socket s = get(c)) {
                s.getOutputStream().write(5);
                assertEquals(5, a.getInputStream().read());
            }
        }
    }

    // ---- resources ----

    @Test
    void noDescriptorLeaks() throws Exception {
        // a warm-up round, then three equal rounds: a leak keeps growing round after round (Growth)
        java.util.List<Long> fds = new java.util.ArrayList<>();
        for (int round = 0; round < 4; round++) {
            for (int i = 0; i < 10; i++) {
                try (Pair p = Pair.open()) {
                    p.client.getOutputStream().write(i);
                    assertEquals(i, p.server.getInputStream().read());
                }
            }
            RsSocket refused = new RsSocket();
            assertThrows(IOException.class, () -> refused.connect(new InetSocketAddress(ADDRESS, 1), 5_000));
            Thread.sleep(200);
            fds.add(openFds());
        }
        String leak = org.sdp4j.testing.Growth.leak("fds", fds, 11, org.sdp4j.testing.Growth.usual("fds"));
        assertTrue(leak == null, leak);
    }

    private static long openFds() throws IOException {
        try (Stream<?> s = Files.list(Paths.get("/proc/self/fd"))) {
            return s.count();
        }
    }
}
