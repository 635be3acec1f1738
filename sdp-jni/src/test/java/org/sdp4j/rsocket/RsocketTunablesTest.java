package org.sdp4j.rsocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sdp4j.nio.SdpSelectorProvider;

/**
 * The rsocket tunables reach rsetsockopt: global ({@code -Dsdp4j.rsocket.inline=96}, set by sdp-jni's surefire
 * configuration and by run-all.sh step h), per rule ({@code #sdp4j:} directives), per socket (RsocketOptions), with
 * a socket's own setting winning over its rule's and a rule's over the global one. On the host the TCP shim keeps
 * SOL_RDMA values per descriptor and refuses them after connect, as rsockets does; rgetsockopt reads them back.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RsocketTunablesTest {
    private static final RsocketTransport RS = new RsocketTransport();
    private final SelectorProvider sdp = new SdpSelectorProvider();

    @BeforeAll
    static void available() {
        Assumptions.assumeTrue(Rsocket.isAvailable(), () -> "rsockets unavailable: " + Rsocket.unavailabilityCause());
    }

    @AfterEach
    void tcpAgain() throws Exception {
        RsocketNioTest.rules("use tcp client * *:*\nuse tcp server * *:*\n");
    }

    @Test
    void globalTunableOnEveryNewRsocket() throws Exception {
        String v = System.getProperty("sdp4j.rsocket.inline");
        Assumptions.assumeTrue(v != null, "-Dsdp4j.rsocket.inline not set");
        try (SocketChannel c = RS.openSocketChannel(sdp); ServerSocketChannel s = RS.openServerSocketChannel(sdp)) {
            assertEquals(Integer.parseInt(v), c.getOption(RsocketOptions.RDMA_INLINE));
            assertEquals(Integer.parseInt(v), s.getOption(RsocketOptions.RDMA_INLINE));
        }
        RsocketSocketImpl impl = new RsocketSocketImpl(false);
        impl.create(true);
        try {
            assertEquals(Integer.parseInt(v), impl.getOption(RsocketOptions.RDMA_INLINE));
        } finally {
            impl.close();
        }
    }

    @Test
    void perSocketBeforeConnectOnlyAndBusyPoll() throws Exception {
        try (ServerSocketChannel s = RS.openServerSocketChannel(sdp)) {
            s.bind(new InetSocketAddress(RsocketNioTest.ADDRESS, 0));
            Future<SocketChannel> acc = Tests.EXEC.submit(() -> s.accept());
            try (SocketChannel c = RS.openSocketChannel(sdp)) {
                c.setOption(RsocketOptions.RDMA_SQSIZE, 100);
                c.setOption(RsocketOptions.RDMA_RQSIZE, 120);
                c.setOption(RsocketOptions.BUSY_POLL, 20);
                assertEquals(100, c.getOption(RsocketOptions.RDMA_SQSIZE));
                assertThrows(IllegalArgumentException.class, () -> c.setOption(RsocketOptions.RDMA_SQSIZE, 0));
                assertThrows(IllegalArgumentException.class, () -> c.setOption(RsocketOptions.BUSY_POLL, -1));
                c.connect(s.getLocalAddress());
                // rsockets refuses the queue sizes once the connection is set up (rsocket.c: state >= rs_opening)
                IOException e = assertThrows(IOException.class, () -> c.setOption(RsocketOptions.RDMA_SQSIZE, 200));
                assertTrue(e.getMessage().contains("RDMA_SQSIZE"), e.getMessage());
                c.setOption(RsocketOptions.BUSY_POLL, 0); // sdp4j's own: any time
                acc.get(20, TimeUnit.SECONDS).close();
            }
        }
    }

    @Test
    void perRuleThroughTheProviderAndSocketWins() throws Exception {
        RsocketNioTest.rules("#sdp4j: rsocket sqsize=200 inline=128 busypoll=30\n"
                + "use sdp client * *:*\n"
                + "#sdp4j: rqsize=300 sndbuf=64k\n"
                + "use sdp server * *:*\n");
        try (ServerSocketChannel s = sdp.openServerSocketChannel()) {
            s.bind(new InetSocketAddress(RsocketNioTest.ADDRESS, 0));
            assertEquals(300, s.getOption(RsocketOptions.RDMA_RQSIZE)); // set before rlisten
            Future<SocketChannel> acc = Tests.EXEC.submit(() -> s.accept());
            try (SocketChannel c = sdp.openSocketChannel()) {
                c.setOption(RsocketOptions.RDMA_INLINE, 99); // the socket's own setting wins over the rule's
                c.connect(s.getLocalAddress());
                assertEquals(200, c.getOption(RsocketOptions.RDMA_SQSIZE));
                assertEquals(99, c.getOption(RsocketOptions.RDMA_INLINE));
                assertEquals(30, c.getOption(RsocketOptions.BUSY_POLL));
                try (SocketChannel a = acc.get(20, TimeUnit.SECONDS)) {
                    assertEquals(300, a.getOption(RsocketOptions.RDMA_RQSIZE)); // inherited from the listener
                }
            }
        }
    }

    @Test
    void perRuleOnTheJavaNetImpl() throws Exception {
        RsocketNioTest.rules("#sdp4j: sqsize=222\nuse sdp client * *:*\nuse sdp server * *:*\n");
        try (RsocketSocketImplTest.RsServerSocket server = new RsocketSocketImplTest.RsServerSocket()) {
            server.bind(new InetSocketAddress(RsocketNioTest.ADDRESS, 0));
            Future<java.net.Socket> acc = Tests.EXEC.submit(() -> server.accept());
            try (RsocketSocketImplTest.RsSocket c = new RsocketSocketImplTest.RsSocket()) {
                c.setOption(StandardSocketOptions.SO_RCVBUF, 65536);
                c.connect(server.getLocalSocketAddress(), 10_000);
                assertEquals(222, c.getOption(RsocketOptions.RDMA_SQSIZE));
                acc.get(20, TimeUnit.SECONDS).close();
            }
        }
    }

    /**
     * busypoll spins on the rsocket alone (no eventfd): data arriving during the spin is read, and a close from
     * another thread ends a read that is still spinning (10 s of busy-poll) at once, for the java.net impl and for
     * a blocking channel.
     */
    @Test
    void busyPollSeesDataAndClose() throws Exception {
        try (RsocketSocketImplTest.RsServerSocket server = new RsocketSocketImplTest.RsServerSocket()) {
            server.bind(new InetSocketAddress(RsocketNioTest.ADDRESS, 0));
            Future<java.net.Socket> acc = Tests.EXEC.submit(() -> server.accept());
            try (RsocketSocketImplTest.RsSocket c = new RsocketSocketImplTest.RsSocket()) {
                c.setOption(RsocketOptions.BUSY_POLL, 10_000_000);
                c.connect(server.getLocalSocketAddress(), 10_000);
                try (java.net.Socket a = acc.get(20, TimeUnit.SECONDS)) {
                    Future<?> w = Tests.EXEC.submit(() -> {
                        Thread.sleep(100);
                        a.getOutputStream().write(42);
                        return null;
                    });
                    assertEquals(42, c.getInputStream().read()); // arrives while the reader spins
                    w.get(20, TimeUnit.SECONDS);
                    Future<Integer> r = Tests.EXEC.submit(() -> c.getInputStream().read());
                    Thread.sleep(300); // the reader is spinning now
                    long t0 = System.nanoTime();
                    c.close();
                    java.util.concurrent.ExecutionException e =
                            assertThrows(java.util.concurrent.ExecutionException.class, () -> r.get(20, TimeUnit.SECONDS));
                    assertTrue(e.getCause() instanceof IOException, e.getCause().toString());
                    assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(5), "close seen only after the spin");
                }
            }
        }
        try (ServerSocketChannel s = RS.openServerSocketChannel(sdp)) {
            s.bind(new InetSocketAddress(RsocketNioTest.ADDRESS, 0));
            Future<SocketChannel> acc = Tests.EXEC.submit(() -> s.accept());
            try (SocketChannel c = RS.openSocketChannel(sdp)) {
                c.setOption(RsocketOptions.BUSY_POLL, 10_000_000);
                c.connect(s.getLocalAddress());
                try (SocketChannel a = acc.get(20, TimeUnit.SECONDS)) {
                    Future<Integer> r = Tests.EXEC.submit(() -> c.read(java.nio.ByteBuffer.allocate(8)));
                    Thread.sleep(300);
                    long t0 = System.nanoTime();
                    c.close();
                    java.util.concurrent.ExecutionException e =
                            assertThrows(java.util.concurrent.ExecutionException.class, () -> r.get(20, TimeUnit.SECONDS));
                    assertTrue(e.getCause() instanceof java.nio.channels.AsynchronousCloseException,
                            e.getCause().toString());
                    assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(5), "close seen only after the spin");
                }
            }
        }
    }
}
