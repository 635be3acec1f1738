package org.sdp4j.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * RdmaVsRstream against a remote {@link RstreamPeer} (here on loopback, plain TCP): the header is sent, checked and
 * confirmed, the exchanges move the right bytes, and a peer rejects a header it must not trust.
 */
class RstreamPeerTest {
    ServerSocket server;

    @AfterEach
    void tearDown() throws IOException {
        System.clearProperty(RdmaVsRstream.PEER_PROPERTY);
        if (server != null) server.close();
    }

    /** One connection served by RstreamPeer.serve on a thread; completes with its exchange count or its failure. */
    CompletableFuture<Long> peer() throws IOException {
        server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        CompletableFuture<Long> done = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try (Socket s = server.accept()) {
                done.complete(RstreamPeer.serve(1, s));
            } catch (Throwable e) {
                done.completeExceptionally(e);
            }
        }, "peer");
        t.setDaemon(true);
        t.start();
        System.setProperty(RdmaVsRstream.PEER_PROPERTY, "127.0.0.1:" + server.getLocalPort());
        return done;
    }

    @Test
    void roundTripAndStreamThroughARemotePeer() throws Exception {
        CompletableFuture<Long> done = peer();
        RdmaVsRstream.Latency lat = new RdmaVsRstream.Latency();
        lat.size = 64;
        lat.buffer = RdmaVsRstream.RSTREAM_BUFFER;
        lat.setup();   // one checked exchange
        for (int k = 0; k < 5; k++) assertEquals(lat.msg[63], lat.exchange());
        lat.tearDown();
        assertEquals(6, done.get(10, TimeUnit.SECONDS));

        done = peer();
        RdmaVsRstream.Bandwidth bw = new RdmaVsRstream.Bandwidth();
        bw.size = 65536;
        bw.count = 32;
        bw.buffer = RdmaVsRstream.RSTREAM_BUFFER;
        bw.setup();
        assertEquals(bw.msg[65535], bw.exchange());
        bw.tearDown();
        assertEquals(2, done.get(10, TimeUnit.SECONDS));
    }

    @Test
    void peerRejectsAnUntrustedHeader() throws Exception {
        assertBad(ByteBuffer.allocate(12).putInt(0x47455420).putInt(64).putInt(1).array(), "magic");
        assertBad(RstreamPeer.header(0, 1), "size 0");
        assertBad(RstreamPeer.header(RstreamPeer.MAX_SIZE + 1, 1), "size");
        assertBad(RstreamPeer.header(64, 0), "count 0");
        assertBad(RstreamPeer.header(1 << 20, Integer.MAX_VALUE), "count");   // 2^51 bytes: not multiplied in int
    }

    void assertBad(byte[] header, String what) throws Exception {
        CompletableFuture<Long> done = peer();
        try (Socket c = new Socket()) {
            c.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()), 5_000);
            c.getOutputStream().write(header);
            Exception e = assertThrows(Exception.class, () -> done.get(10, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof IOException && e.getCause().getMessage().contains(what), e.getCause().toString());
            assertEquals(-1, c.getInputStream().read(), "the peer closes without confirming");
        }
        server.close();
    }

    @Test
    void peerDropsAClientThatStopsExchanging() throws Exception {
        int saved = RstreamPeer.idleMs;
        RstreamPeer.idleMs = 1_000;
        try {
            CompletableFuture<Long> done = peer();
            try (Socket c = new Socket()) {
                c.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()), 5_000);
                RstreamPeer.handshake(c.getInputStream(), c.getOutputStream(), 64, 1);
                c.getOutputStream().write(new byte[64]);   // one exchange, then silence
                assertEquals(64, c.getInputStream().readNBytes(64).length);
                Exception e = assertThrows(Exception.class, () -> done.get(30, TimeUnit.SECONDS));
                assertTrue(e.getCause() instanceof IOException && e.getCause().getMessage().contains("no exchange for"),
                        e.getCause().toString());
                assertEquals(-1, c.getInputStream().read(), "the peer closed the connection");
            }
        } finally {
            RstreamPeer.idleMs = saved;
        }
    }

    @Test
    void clientFailsWhenThePeerDoesNotConfirm() throws Exception {
        server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        Thread t = new Thread(() -> {
            try (Socket s = server.accept()) {
                s.getInputStream().readNBytes(RstreamPeer.HEADER);
                s.getOutputStream().write(RstreamPeer.header(64, 2));   // confirms another exchange
                s.getInputStream().read();
            } catch (IOException ignored) {
                // the client gave up
            }
        }, "wrong-peer");
        t.setDaemon(true);
        t.start();
        System.setProperty(RdmaVsRstream.PEER_PROPERTY, "127.0.0.1:" + server.getLocalPort());
        RdmaVsRstream.Latency lat = new RdmaVsRstream.Latency();
        lat.size = 64;
        lat.buffer = 0;
        IOException e = assertThrows(IOException.class, lat::setup);
        assertTrue(e.getMessage().contains("did not confirm"), e.getMessage());
        lat.client.close();
    }

    @Test
    void peerAddressMustBeHostAndPort() {
        assertEquals(7480, RdmaVsRstream.peerAddress("10.9.9.2:7480").getPort());
        assertThrows(IllegalArgumentException.class, () -> RdmaVsRstream.peerAddress("10.9.9.2"));
        assertThrows(IllegalArgumentException.class, () -> RdmaVsRstream.peerAddress("10.9.9.2:0"));
        assertThrows(IllegalArgumentException.class, () -> RdmaVsRstream.peerAddress("10.9.9.2:x"));
    }
}
