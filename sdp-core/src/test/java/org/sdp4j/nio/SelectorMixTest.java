package org.sdp4j.nio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.Pipe;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.sdp4j.Sdp4j;
import org.sdp4j.conf.Family;
import org.sdp4j.conf.ProgramIdentity;
import org.sdp4j.testing.Rules;

/** sdp4j's provider used directly: one selector multiplexing sdp4j channels with the JDK's own. */
class SelectorMixTest {
    private static final InetAddress LO = InetAddress.getLoopbackAddress();
    private final SdpSelectorProvider provider = new SdpSelectorProvider();

    @AfterEach
    void tcp() {
        Sdp4j.configure(Rules.all(Family.TCP), ProgramIdentity.of("test"));
    }

    @Test
    void oneSelectorForSocketsServerPipeAndDatagram() throws Exception {
        Sdp4j.configure(Rules.all(Family.BOTH, Family.TCP), ProgramIdentity.of("test"));
        try (Selector sel = provider.openSelector();
             ServerSocketChannel server = provider.openServerSocketChannel();
             DatagramChannel udp = provider.openDatagramChannel()) {
            server.bind(new InetSocketAddress(LO, 0));
            server.configureBlocking(false);
            server.register(sel, SelectionKey.OP_ACCEPT, "server");
            Pipe pipe = provider.openPipe();
            pipe.source().configureBlocking(false);
            pipe.source().register(sel, SelectionKey.OP_READ, "pipe");
            udp.bind(new InetSocketAddress(LO, 0));
            udp.configureBlocking(false);
            udp.register(sel, SelectionKey.OP_READ, "udp");

            int clients = 5;
            Map<String, Integer> seen = new HashMap<>();
            for (int i = 0; i < clients; i++) {
                SocketChannel c = provider.openSocketChannel();
                c.configureBlocking(false);
                if (!c.connect(server.getLocalAddress())) {
                    c.register(sel, SelectionKey.OP_CONNECT, "client");
                } else {
                    c.register(sel, SelectionKey.OP_WRITE, "client");
                }
            }
            pipe.sink().write(ByteBuffer.wrap(new byte[] {1, 2, 3}));
            try (DatagramChannel sender = DatagramChannel.open()) {
                sender.send(ByteBuffer.wrap(new byte[] {4}), udp.getLocalAddress());
            }
            int echoed = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while ((echoed < clients || !seen.containsKey("pipe") || !seen.containsKey("udp"))
                    && System.nanoTime() < deadline) {
                sel.select(500);
                for (var it = sel.selectedKeys().iterator(); it.hasNext(); ) {
                    SelectionKey k = it.next();
                    it.remove();
                    String what = (String) k.attachment();
                    seen.merge(what, 1, Integer::sum);
                    if (k.isAcceptable()) {
                        SocketChannel a = server.accept();
                        assertTrue(a instanceof SdpSocketChannel, a.getClass().getName());
                        a.configureBlocking(false);
                        a.register(sel, SelectionKey.OP_READ, "accepted");
                    } else if (k.isConnectable()) {
                        SocketChannel c = (SocketChannel) k.channel();
                        assertTrue(c.finishConnect());
                        k.interestOps(SelectionKey.OP_WRITE);
                    } else if (what.equals("client") && k.isWritable()) {
                        ((SocketChannel) k.channel()).write(ByteBuffer.wrap("ping".getBytes()));
                        k.interestOps(SelectionKey.OP_READ);
                    } else if (what.equals("accepted") && k.isReadable()) {
                        SocketChannel a = (SocketChannel) k.channel();
                        ByteBuffer b = ByteBuffer.allocate(16);
                        if (a.read(b) > 0) {
                            b.flip();
                            a.write(b);
                        }
                    } else if (what.equals("client") && k.isReadable()) {
                        ByteBuffer b = ByteBuffer.allocate(16);
                        int n = ((SocketChannel) k.channel()).read(b);
                        assertEquals(4, n);
                        echoed++;
                        k.channel().close();
                    } else if (what.equals("pipe")) {
                        ByteBuffer b = ByteBuffer.allocate(8);
                        assertEquals(3, pipe.source().read(b));
                    } else if (what.equals("udp")) {
                        ByteBuffer b = ByteBuffer.allocate(8);
                        udp.receive(b);
                        assertEquals(1, b.position());
                    }
                }
            }
            assertEquals(clients, echoed, "echoes seen " + seen);
            assertTrue(seen.containsKey("pipe") && seen.containsKey("udp"), seen.toString());
            pipe.sink().close();
            pipe.source().close();
        }
    }

    @Test
    void wakeupFromAnotherThread() throws Exception {
        try (Selector sel = provider.openSelector()) {
            CompletableFuture<Integer> f = CompletableFuture.supplyAsync(() -> {
                try {
                    return sel.select();
                } catch (IOException e) {
                    throw new AssertionError(e);
                }
            });
            Thread.sleep(200);
            sel.wakeup();
            assertEquals(0, f.get(5, TimeUnit.SECONDS));
        }
    }

    @Test
    void cancelThenBlockingWithoutSelecting() throws IOException {
        try (Selector sel = provider.openSelector(); SocketChannel c = provider.openSocketChannel()) {
            c.configureBlocking(false);
            SelectionKey k = c.register(sel, SelectionKey.OP_CONNECT);
            k.cancel();
            c.configureBlocking(true);
            assertTrue(c.isBlocking());
            sel.selectNow();
            assertFalse(sel.keys().contains(k));
        }
    }

    @Test
    void closingARegisteredChannelDeregistersIt() throws IOException {
        try (Selector sel = provider.openSelector()) {
            SocketChannel c = provider.openSocketChannel();
            c.configureBlocking(false);
            SelectionKey k = c.register(sel, SelectionKey.OP_READ);
            c.close();
            assertFalse(k.isValid());
            sel.selectNow();
            assertTrue(sel.keys().isEmpty());
        }
    }

    @Test
    void closingTheSelectorInvalidatesKeys() throws IOException {
        Selector sel = provider.openSelector();
        try (SocketChannel c = provider.openSocketChannel()) {
            c.configureBlocking(false);
            SelectionKey k = c.register(sel, SelectionKey.OP_READ);
            sel.close();
            assertFalse(k.isValid());
            c.configureBlocking(true);
        }
    }

    @Test
    void sdpRuleFailsTheConnectWithTheReason() throws IOException {
        Sdp4j.configure(Rules.all(Family.SDP, Family.TCP), ProgramIdentity.of("test"));
        try (ServerSocketChannel server = provider.openServerSocketChannel()) {
            server.bind(new InetSocketAddress(LO, 0));
            try (SocketChannel c = provider.openSocketChannel()) {
                ConnectException e = assertThrows(ConnectException.class, () -> c.connect(server.getLocalAddress()));
                assertTrue(e.getMessage().contains("RDMA"), e.getMessage());
            }
        }
    }

    @Test
    void sdpServerRuleClosesTheChannel() throws IOException {
        Sdp4j.configure(Rules.all(Family.TCP, Family.SDP), ProgramIdentity.of("test"));
        ServerSocketChannel server = provider.openServerSocketChannel();
        assertThrows(java.net.SocketException.class, () -> server.bind(new InetSocketAddress(LO, 0)));
        assertFalse(server.isOpen());
    }

    @Test
    void asyncCloseWakesABlockedReader() throws Exception {
        try (ServerSocketChannel server = provider.openServerSocketChannel()) {
            server.bind(new InetSocketAddress(LO, 0));
            SocketChannel c = provider.openSocketChannel();
            c.connect(server.getLocalAddress());
            try (SocketChannel a = server.accept()) {
                CompletableFuture<Throwable> reader = CompletableFuture.supplyAsync(() -> {
                    try {
                        c.read(ByteBuffer.allocate(1));
                        return null;
                    } catch (IOException e) {
                        return e;
                    }
                });
                Thread.sleep(200);
                c.close();
                assertTrue(reader.get(5, TimeUnit.SECONDS) instanceof AsynchronousCloseException);
                assertFalse(c.isOpen());
            }
        }
    }

    @Test
    void adaptorsBelongToTheSdp4jChannelsAndAreDecidedByTheRules() throws IOException {
        try (ServerSocketChannel server = provider.openServerSocketChannel();
             SocketChannel c = provider.openSocketChannel()) {
            assertTrue(server.socket().getChannel() == server);
            assertTrue(c.socket().getChannel() == c);
            server.socket().bind(new InetSocketAddress(LO, 0));
            c.socket().connect(server.getLocalAddress(), 2000);
            assertTrue(c.isConnected());
            try (java.net.Socket a = server.socket().accept()) {
                assertTrue(a.getChannel() instanceof SdpSocketChannel);
                c.socket().getOutputStream().write(3);
                assertEquals(3, a.getInputStream().read());
            }
        }
        Sdp4j.configure(Rules.all(Family.SDP, Family.SDP), ProgramIdentity.of("test"));
        ServerSocketChannel refused = provider.openServerSocketChannel();
        assertThrows(java.net.SocketException.class, () -> refused.socket().bind(new InetSocketAddress(LO, 0)));
        assertFalse(refused.isOpen());
        SocketChannel c = provider.openSocketChannel();
        assertThrows(ConnectException.class, () -> c.socket().connect(new InetSocketAddress(LO, 9), 1000));
        c.close();
    }

    @Test
    void aFailedConnectClosesTheChannelAsTheJdkDoes() throws IOException {
        Sdp4j.configure(Rules.all(Family.TCP), ProgramIdentity.of("test")); // not whatever an earlier test left
        int port;
        try (ServerSocketChannel probe = provider.openServerSocketChannel()) {
            probe.bind(new InetSocketAddress(LO, 0));
            port = ((InetSocketAddress) probe.getLocalAddress()).getPort();
        }
        SocketChannel c = provider.openSocketChannel();
        assertThrows(ConnectException.class, () -> c.connect(new InetSocketAddress(LO, port)));
        assertFalse(c.isOpen());
        SocketChannel nb = provider.openSocketChannel();
        nb.configureBlocking(false);
        if (!nb.connect(new InetSocketAddress(LO, port))) {
            assertThrows(ConnectException.class, () -> {
                while (!nb.finishConnect()) {
                    Thread.onSpinWait();
                }
            });
        }
        assertFalse(nb.isOpen());
    }

    /**
     * A channel closed while registered keeps its descriptor until no selector holds it (the JDK defers the close);
     * closing the selector afterwards must free it, as the JDK's own selector does. Each of these cases once leaked.
     */
    @Test
    void aChannelClosedWhileRegisteredIsFreedWhenTheSelectorCloses() throws Exception {
        java.nio.file.Path fds = java.nio.file.Path.of("/proc/self/fd");
        long before;
        try (var l = java.nio.file.Files.list(fds)) {
            before = l.count();
        }
        for (int i = 0; i < 50; i++) {
            java.nio.channels.Pipe p = java.nio.channels.Pipe.open(); // JDK channels, the foreign kind
            Selector sel = provider.openSelector();
            p.source().configureBlocking(false);
            p.source().register(sel, SelectionKey.OP_READ);
            sel.selectNow();
            p.source().close();
            p.sink().close();
            sel.close();
        }
        long after;
        try (var l = java.nio.file.Files.list(fds)) {
            after = l.count();
        }
        assertEquals(before, after, "descriptors left by 50 pipes closed while registered, then their selector");
    }
}
