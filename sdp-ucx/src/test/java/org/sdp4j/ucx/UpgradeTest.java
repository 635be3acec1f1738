package org.sdp4j.ucx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpEndpointParams;
import org.openucx.jucx.ucp.UcpWorker;

/**
 * The TCP half of {@code use ucx} across hosts ({@link Upgrade}) and the checks of its rendezvous messages, on this
 * host: real TCP connections and real UCX workers (shared memory here; the RDMA context needs a device, which the
 * two-host VM suite has). The listener side and the client side are the production code; a forging peer is a plain
 * TCP socket.
 */
class UpgradeTest {
    private static final long BOUND = 10_000_000_000L;

    @BeforeAll
    static void ucx() throws IOException {
        Ucx.context();
    }

    /** Two workers with endpoints to each other, as the rendezvous leaves them on both sides. */
    private record Pair(UcpWorker ws, UcpEndpoint es, UcpWorker wc, UcpEndpoint ec) {}

    private static Pair pair() throws IOException {
        UcpWorker ws = WorkerPool.take(), wc = WorkerPool.take();
        UcpEndpoint es = ws.newEndpoint(new UcpEndpointParams().setUcpAddress(wc.getAddress()));
        UcpEndpoint ec = wc.newEndpoint(new UcpEndpointParams().setUcpAddress(ws.getAddress()));
        return new Pair(ws, es, wc, ec);
    }

    private static ByteBuffer[] staging() {
        return new ByteBuffer[] {Staging.staging(), Staging.staging()};
    }

    /** A connected TCP pair: [0] the client's end, [1] the listener's. */
    private static SocketChannel[] tcp() throws IOException {
        try (ServerSocketChannel l = Rendezvous.JDK.openServerSocketChannel()) {
            l.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            SocketChannel c = Rendezvous.JDK.openSocketChannel();
            c.connect(l.getLocalAddress());
            return new SocketChannel[] {c, l.accept()};
        }
    }

    private static RemoteRendezvous.Pending pending(Pair p, SocketChannel client, byte[] nonce, byte[] clientNonce)
            throws IOException {
        return new RemoteRendezvous.Pending((InetSocketAddress) client.getLocalAddress(), nonce, clientNonce, p.ws(),
                p.es(), 1, 2, staging(), System.nanoTime() + BOUND, new Upgrade.EndpointFailure());
    }

    private static Upgrade.Message reply(byte[] nonce) throws IOException {
        return Upgrade.parse(Upgrade.message(Upgrade.REPLY, null, 0, nonce, 1), Upgrade.REPLY, "test");
    }

    /** A connection upgraded over TCP pair {@code t}: [the client's, the listener's]. */
    private static UcxConnection[] upgraded(SocketChannel[] t) throws Exception {
        Pair p = pair();
        byte[] ns = Upgrade.nonce(), nc = Upgrade.nonce();
        RemoteRendezvous.Pending pend = pending(p, t[0], ns, nc);
        CompletableFuture<UcxConnection> server = CompletableFuture.supplyAsync(() -> {
            try {
                return Upgrade.serve(t[1], null, pend, "test");
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        UcxConnection c = Upgrade.prove(p.wc(), p.ec(), t[0], 2, reply(ns), nc, staging(),
                System.nanoTime() + BOUND, "test");
        return new UcxConnection[] {c, server.get(10, TimeUnit.SECONDS)};
    }

    @Test
    void upgradeCarriesTheStreamAndKeepsTcpForEndOfStream() throws Exception {
        SocketChannel[] t = tcp();
        UcxConnection[] cs = upgraded(t);
        UcxConnection c = cs[0], s = cs[1];
        try {
            assertTrue(c.remote && s.remote);
            byte[] data = new byte[100_000];
            new Random(1).nextBytes(data);
            CompletableFuture<Void> w = CompletableFuture.runAsync(() -> {
                try {
                    c.out.write(data, 0, data.length);
                    c.out.shutdown(); // the end-of-stream marker over the TCP connection
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            byte[] got = new byte[data.length + 1];
            int n = 0;
            while (true) {
                int r = s.in.read(got, n, Math.min(got.length - n, 65536), 10_000);
                if (r < 0) {
                    break;
                }
                n += r;
            }
            w.get(10, TimeUnit.SECONDS);
            assertEquals(data.length, n);
            assertArrayEquals(data, java.util.Arrays.copyOf(got, data.length));
        } finally {
            c.close();
            s.close();
        }
    }

    /**
     * setKeepAlive on a ucx socket across hosts reaches its rendezvous TCP connection, whose keep-alive is then what
     * reports a dead peer host (the UCX endpoint on soft-RoCE never gives up: two-host step host-crash).
     */
    @Test
    void keepAliveOptionsReachTheRendezvousConnection() throws Exception {
        SocketChannel[] t = tcp();
        UcxConnection[] cs = upgraded(t);
        UcxConnection c = cs[0], s = cs[1];
        try {
            assertEquals(false, t[0].getOption(java.net.StandardSocketOptions.SO_KEEPALIVE));
            boolean nodelay = t[0].getOption(java.net.StandardSocketOptions.TCP_NODELAY);
            c.keepAlive(java.util.Map.of(java.net.StandardSocketOptions.SO_KEEPALIVE, true,
                    jdk.net.ExtendedSocketOptions.TCP_KEEPIDLE, 7, jdk.net.ExtendedSocketOptions.TCP_KEEPINTERVAL, 2,
                    jdk.net.ExtendedSocketOptions.TCP_KEEPCOUNT, 3, java.net.StandardSocketOptions.TCP_NODELAY,
                    !nodelay));
            assertEquals(true, t[0].getOption(java.net.StandardSocketOptions.SO_KEEPALIVE));
            assertEquals(7, t[0].getOption(jdk.net.ExtendedSocketOptions.TCP_KEEPIDLE));
            assertEquals(2, t[0].getOption(jdk.net.ExtendedSocketOptions.TCP_KEEPINTERVAL));
            assertEquals(3, t[0].getOption(jdk.net.ExtendedSocketOptions.TCP_KEEPCOUNT));
            assertEquals(nodelay, t[0].getOption(java.net.StandardSocketOptions.TCP_NODELAY),
                    "only the keep-alive options are handed on");
            c.keepAlive(java.util.Map.of(java.net.StandardSocketOptions.SO_KEEPALIVE, false));
            assertEquals(false, t[0].getOption(java.net.StandardSocketOptions.SO_KEEPALIVE));
        } finally {
            c.close();
            s.close();
        }
    }

    @Test
    void aListenerThatDoesNotKnowTheNonceGetsNothingFromTheClient() throws Exception {
        Pair p = pair();
        SocketChannel[] t = tcp();
        // the TCP listener reached is not the rendezvous' process: it speaks first, as a database server does
        t[1].write(ByteBuffer.wrap("HELLO I AM A DATABASE SERVER....".getBytes()));
        SocketException e = assertThrows(SocketException.class, () -> Upgrade.prove(p.wc(), p.ec(), t[0], 2,
                reply(Upgrade.nonce()), Upgrade.nonce(), staging(), System.nanoTime() + BOUND, "test"));
        assertTrue(e.getMessage().contains("nonce mismatch"), e::getMessage);
        Handshake.release(e, t[0], p.ec(), p.wc(), "test");
        // the client wrote nothing before it hung up (a reset: it left part of the banner unread)
        t[1].socket().setSoTimeout(5000);
        int first;
        try {
            first = t[1].socket().getInputStream().read();
        } catch (SocketException reset) {
            first = -1;
        }
        assertEquals(-1, first);
        Handshake.release(new IOException(), t[1], p.es(), p.ws(), "test");
    }

    @Test
    void aTcpClientWithTheWrongNonceIsRefusedAndClosed() throws Exception {
        Pair p = pair();
        SocketChannel[] t = tcp();
        byte[] ns = Upgrade.nonce();
        RemoteRendezvous.Pending pend = pending(p, t[0], ns, Upgrade.nonce());
        CompletableFuture<Object> server = CompletableFuture.supplyAsync(() -> {
            try {
                return Upgrade.serve(t[1], null, pend, "test");
            } catch (IOException e) {
                return e;
            }
        });
        // a forger on the claimed source: reads the listener's nonce, answers with its own guess
        ByteBuffer got = ByteBuffer.allocate(Upgrade.NONCE);
        while (got.hasRemaining()) {
            t[0].read(got);
        }
        assertArrayEquals(ns, got.array());
        t[0].write(ByteBuffer.wrap(Upgrade.nonce()));
        Object r = server.get(10, TimeUnit.SECONDS);
        assertTrue(r instanceof SocketException && ((SocketException) r).getMessage().contains("nonce mismatch"),
                () -> String.valueOf(r));
        t[0].socket().setSoTimeout(5000);
        assertEquals(-1, t[0].socket().getInputStream().read(), "the listener closed the forger's connection");
        Handshake.release(new IOException(), t[0], p.ec(), p.wc(), "test");
    }

    @Test
    void aClaimForAnotherAddressThanTheRdmaCmPeersIsRefused() throws Exception {
        Upgrade.Message m = Upgrade.parse(Upgrade.message(Upgrade.CLAIM, InetAddress.getByName("10.9.9.7"), 40000,
                Upgrade.nonce(), 3), Upgrade.CLAIM, "test");
        SocketException e = assertThrows(SocketException.class,
                () -> RemoteRendezvous.source(m, InetAddress.getByName("10.9.9.1")));
        assertTrue(e.getMessage().contains("claims TCP source 10.9.9.7"), e::getMessage);
        assertEquals(new InetSocketAddress("10.9.9.7", 40000),
                RemoteRendezvous.source(m, InetAddress.getByName("10.9.9.7")));
    }

    /** Random mutations of a valid claim: each is parsed or refused with a SocketException, nothing else. */
    @Test
    void mutatedClaimsAreRefusedCleanly() throws Exception {
        ByteBuffer good = Upgrade.message(Upgrade.CLAIM, InetAddress.getByName("10.9.9.1"), 40000, Upgrade.nonce(),
                3);
        Random rnd = new Random(42);
        int refused = 0;
        for (int i = 0; i < 5000; i++) {
            ByteBuffer m = ByteBuffer.allocateDirect(Upgrade.MESSAGE);
            m.put(good.duplicate().clear()).clear();
            for (int f = 1 + rnd.nextInt(4); f > 0; f--) {
                m.put(rnd.nextInt(Upgrade.MESSAGE), (byte) rnd.nextInt(256));
            }
            try {
                Upgrade.Message p = Upgrade.parse(m, Upgrade.CLAIM, "fuzz");
                assertTrue(p.port() > 0 && p.port() <= 65535 && p.id() >= 0 && p.id() <= 0xFFFF);
            } catch (SocketException e) {
                refused++;
            }
        }
        assertTrue(refused > 0, "no mutation refused");
        assertThrows(SocketException.class, () -> Upgrade.parse(good, Upgrade.REPLY, "kind"));
        ByteBuffer shortOne = ByteBuffer.allocateDirect(Upgrade.MESSAGE - 1);
        assertThrows(SocketException.class, () -> Upgrade.parse(shortOne, Upgrade.CLAIM, "short"));
    }
}
