package org.sdp4j.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.SocketImpl;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.sdp4j.conf.Family;
import org.sdp4j.jdk.JdkNet;
import org.sdp4j.jdk.JdkNio;
import org.sdp4j.transport.TcpUpgrade;
import org.sdp4j.transport.Transport;

/**
 * The accept path's upgrade hook (UCX across hosts) with real TCP connections on a real JDK listener: a connection
 * the transport's listener does not claim reaches the application at once with no byte consumed; a claimed one is
 * handed to the transport as a JDK channel on the same descriptor, and never to the application. The claimant here
 * is a stand-in for UCX's listener (which needs an RDMA device): it claims one source port.
 */
class TcpUpgradeHookTest {
    private static final InetAddress LO = InetAddress.getLoopbackAddress();

    /** The transport's listener: claims connections from one source port; its own accept waits until closed. */
    static final class Claimer extends StubSocketImpl implements TcpUpgrade {
        volatile int claimed = -1;
        final LinkedBlockingQueue<SocketChannel> upgraded = new LinkedBlockingQueue<>();
        final List<SocketImpl> kept = new CopyOnWriteArrayList<>();
        final CountDownLatch closed = new CountDownLatch(1);

        @Override
        public boolean claims(InetAddress peer, int peerPort) {
            return peerPort == claimed;
        }

        @Override
        public void upgrade(SocketChannel ch, SocketImpl impl) {
            kept.add(impl);
            upgraded.add(ch);
        }

        @Override
        protected void accept(SocketImpl s) throws IOException {
            try {
                closed.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new SocketException("Socket closed");
        }

        @Override
        protected void close() {
            closed.countDown();
        }

    }

    private static final Transport TEST = new Transport() {
        @Override public String name() { return "test"; }
        @Override public Family family() { return Family.UCX; }
        @Override public boolean isAvailable() { return true; }
        @Override public Throwable unavailabilityCause() { return null; }
        @Override public SocketImpl newSocketImpl(boolean server) { return new Claimer(); }
        @Override public SocketChannel openSocketChannel(SelectorProvider p) { throw new UnsupportedOperationException(); }
        @Override public ServerSocketChannel openServerSocketChannel(SelectorProvider p) {
            throw new UnsupportedOperationException();
        }
    };

    private SocketImpl tcp;
    private Claimer claimer;
    private AcceptThreads threads;
    private int port;

    @BeforeEach
    void listen() throws IOException {
        tcp = JdkNet.newPlatformImpl(true);
        JdkNet.create(tcp, true);
        JdkNet.bind(tcp, LO, 0);
        JdkNet.listen(tcp, 50);
        port = JdkNet.localPort(tcp);
        claimer = new Claimer();
        threads = new AcceptThreads(tcp, claimer, TEST, port);
    }

    @AfterEach
    void close() throws IOException {
        threads.close();
        JdkNet.close(tcp);
        threads.awaitExit();
    }

    private static SocketChannel client(int fromPort) throws IOException {
        SocketChannel c = JdkNio.defaultProvider().openSocketChannel();
        if (fromPort > 0) {
            c.bind(new InetSocketAddress(LO, fromPort));
        }
        return c;
    }

    @Test
    void anUnclaimedConnectionReachesTheApplicationAtOnceUntouched() throws Exception {
        claimer.claimed = 1; // a pending upgrade for some other source
        try (SocketChannel c = client(0)) {
            c.connect(new InetSocketAddress(LO, port));
            // reaches the application: an accept held back for the pending upgrade fails take's bound (it throws)
            AcceptThreads.Accepted a = threads.take(10_000);
            assertEquals("tcp", a.transport().name());
            // the server speaks first and the client's first bytes are all there: nothing was read or written
            JdkNet.outputStream(a.impl()).write("220 ready\r\n".getBytes());
            ByteBuffer greet = ByteBuffer.allocate(11);
            while (greet.hasRemaining()) {
                c.read(greet);
            }
            assertArrayEquals("220 ready\r\n".getBytes(), greet.array());
            c.write(ByteBuffer.wrap("QUIT".getBytes()));
            byte[] in = JdkNet.inputStream(a.impl()).readNBytes(4);
            assertArrayEquals("QUIT".getBytes(), in);
            assertTrue(claimer.upgraded.isEmpty());
            JdkNet.close(a.impl());
        }
    }

    @Test
    void aClaimedConnectionGoesToTheTransportAsAChannelAndNeverToTheApplication() throws Exception {
        try (SocketChannel probe = client(0)) {
            probe.bind(new InetSocketAddress(LO, 0));
            int from = ((InetSocketAddress) probe.getLocalAddress()).getPort();
            probe.close();
            claimer.claimed = from;
            try (SocketChannel c = client(from)) {
                c.connect(new InetSocketAddress(LO, port));
                SocketChannel ch = claimer.upgraded.poll(10, TimeUnit.SECONDS);
                assertNotNull(ch, "the claimed connection was not handed to the transport");
                assertEquals(from, ((InetSocketAddress) ch.getRemoteAddress()).getPort());
                c.write(ByteBuffer.wrap("nonce-from-client".getBytes()));
                ByteBuffer got = ByteBuffer.allocate(17);
                while (got.hasRemaining()) {
                    assertTrue(ch.read(got) >= 0);
                }
                assertArrayEquals("nonce-from-client".getBytes(), got.array());
                ch.write(ByteBuffer.wrap("ok".getBytes()));
                ByteBuffer ok = ByteBuffer.allocate(2);
                while (ok.hasRemaining()) {
                    c.read(ok);
                }
                assertArrayEquals("ok".getBytes(), ok.array());
                assertThrows(SocketTimeoutException.class, () -> threads.take(300),
                        "the application must not see a claimed connection");
                int fd = JdkNio.channelFd(ch);
                ch.close(); // the channel owns the descriptor now: closing it closes the connection
                assertEquals(-1, c.read(ByteBuffer.allocate(1)));
                assertEquals(1, claimer.kept.size());
                // the JDK socket that accepted it must never close that descriptor number again (its cleaner would,
                // once it is unreachable): the number, reused by a pipe now, must stay the pipe's
                java.nio.channels.Pipe pipe = JdkNio.defaultProvider().openPipe();
                try {
                    int reused = JdkNio.channelFd(pipe.sink()) == fd ? fd : JdkNio.channelFd(pipe.source());
                    claimer.kept.clear();
                    for (int i = 0; i < 10; i++) {
                        System.gc();
                        Thread.sleep(50);
                    }
                    assertEquals(1, pipe.sink().write(ByteBuffer.wrap(new byte[] {7})),
                            "descriptor " + reused + " (was the upgraded socket's " + fd + ") closed under the pipe");
                    ByteBuffer one = ByteBuffer.allocate(1);
                    assertEquals(1, pipe.source().read(one));
                } finally {
                    pipe.sink().close();
                    pipe.source().close();
                }
            }
        }
    }
}
