package org.sdp4j.ucx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sdp4j.Sdp4j;
import org.sdp4j.conf.ConfigParser;
import org.sdp4j.conf.ProgramIdentity;

/**
 * Shared links ({@link SharedLink}): connections to a listener this process reached before share one worker pair,
 * each on an endpoint pair of its own — its bytes only, its own end-of-stream, in order and at once; a link retires
 * after its bound; and a control message out of place (what a confused or hostile peer could send: a CONNECT out of
 * order or twice, a message for a connection the link does not know, one in the wrong direction) ends the link,
 * resets what was open on it and queues nothing. Connects share in this class whatever the thread
 * ({@code sdp4j.ucx.links=always}); by default only virtual threads' do.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UcxSharedLinkTest {
    private static String before;

    @BeforeAll
    static void rules() throws Exception {
        assertTrue(Ucx.isAvailable(), () -> "UCX must be installed for these tests: " + Ucx.unavailabilityCause());
        System.setProperty("sdp4j.ucx.dir", Files.createTempDirectory("ucx-rv").toString());
        Sdp4j.installSocketFactories();
        before = System.getProperty("sdp4j.ucx.links");
        System.setProperty("sdp4j.ucx.links", "always");
    }

    @AfterAll
    static void restore() {
        if (before == null) {
            System.clearProperty("sdp4j.ucx.links");
        } else {
            System.setProperty("sdp4j.ucx.links", before);
        }
        Links.drain();
    }

    @BeforeEach
    void ucxRules() throws Exception {
        Sdp4j.configure(ConfigParser.parse("test.conf", "use ucx server * *:*\nuse ucx client * *:*\n"),
                ProgramIdentity.of("ucx-test"));
        Links.drain();
    }

    /** One after the other: after the first, no worker is made; every connection's bytes and end-of-stream its own. */
    @Test
    void connectsOneAfterTheOtherShareOneLink() throws Exception {
        int cycles = 100;
        try (ServerSocket ss = UcxSocketTest.listen()) {
            Future<?> echo = UcxSocketTest.EXEC.submit(() -> echo(ss, cycles));
            exchange(ss, 0);
            long carried = SharedLink.CARRIED.get(), created = WorkerPool.CREATED.get();
            long established = UcxConnection.ESTABLISHED.get();
            for (int i = 1; i < cycles; i++) {
                exchange(ss, i);
            }
            echo.get(30, TimeUnit.SECONDS);
            assertEquals(2L * (cycles - 1), UcxConnection.ESTABLISHED.get() - established, "both ends, all on UCX");
            long onLink = SharedLink.CARRIED.get() - carried;
            assertEquals(2L * (cycles - 1), onLink, "connections carried by the link (both ends)");
            long made = WorkerPool.CREATED.get() - created;
            assertTrue(made <= 2, () -> "workers made for " + (cycles - 1) + " connects on a link: " + made);
        }
    }

    /** Connects at once from many threads: pipelined on the one link (its first made by one of them), bytes exact. */
    @Test
    void aBurstOfConnectsSharesTheLinkItsFirstMade() throws Exception {
        int n = 200;
        try (ServerSocket ss = UcxSocketTest.listen()) {
            Future<?> server = UcxSocketTest.EXEC.submit(() -> {
                List<Future<?>> echoes = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    Socket s = ss.accept();
                    echoes.add(UcxSocketTest.EXEC.submit(() -> echoAll(s)));
                }
                for (Future<?> f : echoes) {
                    f.get(60, TimeUnit.SECONDS);
                }
                return null;
            });
            long carried = SharedLink.CARRIED.get(), established = UcxConnection.ESTABLISHED.get();
            List<Future<?>> clients = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int k = i;
                clients.add(UcxSocketTest.EXEC.submit(() -> {
                    exchange(ss, k);
                    return null;
                }));
            }
            for (Future<?> f : clients) {
                f.get(60, TimeUnit.SECONDS);
            }
            server.get(60, TimeUnit.SECONDS);
            assertEquals(2L * n, UcxConnection.ESTABLISHED.get() - established, "both ends, all on UCX");
            long onLink = SharedLink.CARRIED.get() - carried;
            assertTrue(onLink >= n, () -> "connections of the burst carried by a link (both ends): " + onLink);
        }
    }

    /**
     * Virtual threads on two carriers, 200 connections open at once on one link, each echoing 20 messages: a
     * thread parked on the link's worker is woken for its own data ({@link SharedLink#park}) and none waits for
     * ever — every byte arrives, in time.
     */
    @Test
    void virtualThreadsParkedOnALinkEachGetTheirOwnData() throws Exception {
        java.util.concurrent.ExecutorService vts = UcxVirtualThreadTest.virtualThreads();
        org.junit.jupiter.api.Assumptions.assumeTrue(vts != null, "no virtual threads on this JDK");
        int n = 200, rounds = 20, size = 100;
        try (ServerSocket ss = UcxSocketTest.listen()) {
            Future<?> acceptor = vts.submit(() -> {
                for (int i = 0; i < n; i++) {
                    Socket s = ss.accept();
                    vts.submit(() -> echoAll(s));
                }
                return null;
            });
            long carried = SharedLink.CARRIED.get();
            List<Future<?>> clients = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int id = i;
                clients.add(vts.submit(() -> {
                    try (Socket c = connect(ss)) {
                        byte[] msg = new byte[size], back = new byte[size];
                        for (int r = 0; r < rounds; r++) {
                            Arrays.fill(msg, (byte) (id * 31 + r));
                            c.getOutputStream().write(msg);
                            new DataInputStream(c.getInputStream()).readFully(back);
                            assertArrayEquals(msg, back, "client " + id + " round " + r);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : clients) {
                f.get(60, TimeUnit.SECONDS);
            }
            acceptor.get(10, TimeUnit.SECONDS);
            long onLink = SharedLink.CARRIED.get() - carried;
            assertTrue(onLink >= n, () -> "connections carried by a link (both ends): " + onLink);
        }
    }

    /** A link takes {@link SharedLink#MAX} connections, then a new one is made and the old ends with its last. */
    @Test
    void aLinkRetiresAfterItsBoundAndEndsWithItsLastConnection() throws Exception {
        int cycles = SharedLink.MAX + 20;
        try (ServerSocket ss = UcxSocketTest.listen()) {
            Future<?> echo = UcxSocketTest.EXEC.submit(() -> echo(ss, cycles));
            exchange(ss, 0);
            SharedLink first = clientLink();
            for (int i = 1; i < cycles; i++) {
                exchange(ss, i);
            }
            echo.get(60, TimeUnit.SECONDS);
            while (!first.ended()) { // its worker destroyed, its socket closed (else the @Timeout)
                Thread.sleep(5);
            }
            assertTrue(clientLink() != first, "a new link carries the connects after the bound");
        }
    }

    /**
     * A listener that closes while a connection it accepted is open on a link: that connection lives on (as a TCP
     * connection outlives its listener), and a connect over the link is refused by the listener's side
     * ({@code ACCEPT} -1): it fails as a connect to a closed port does, and does not wait.
     */
    @Test
    void aClosedListenerRefusesConnectsOnItsLinkAndItsOpenConnectionLivesOn() throws Exception {
        ServerSocket ss = UcxSocketTest.listen();
        java.net.SocketAddress where = ss.getLocalSocketAddress();
        Future<Socket> accepted = UcxSocketTest.EXEC.submit(() -> ss.accept());
        try (Socket open = connect(ss); Socket server = accepted.get(10, TimeUnit.SECONDS)) {
            SharedLink l = clientLink();
            ss.close();
            assertThrows(IOException.class, () -> {
                try (Socket late = new Socket()) {
                    late.connect(where, 5000);
                }
            }, "a connect to the closed listener");
            assertTrue(!l.usable(), "the link refused once is not asked again");
            open.getOutputStream().write(7);
            assertEquals(7, server.getInputStream().read(), "the open connection, after its listener closed");
            server.getOutputStream().write(8);
            assertEquals(8, open.getInputStream().read());
        }
    }

    @Test
    void aConnectOutOfOrderEndsTheLink() throws Exception {
        outOfPlace(l -> frame(Rendezvous.CONNECT, 5, 7));
    }

    @Test
    void aConnectTwiceEndsTheLink() throws Exception {
        outOfPlace(l -> frame(Rendezvous.CONNECT, 1, 7)); // number 1 is the rendezvous's own connection
    }

    @Test
    void aMessageForAConnectionTheLinkDoesNotKnowEndsTheLink() throws Exception {
        outOfPlace(l -> frame(Rendezvous.FIN, 999, 0));
    }

    @Test
    void anAnswerSentToTheListenerEndsTheLink() throws Exception {
        outOfPlace(l -> frame(Rendezvous.ACCEPT, 2, 7));
    }

    @Test
    void aConnectWithAnIdOutOfRangeEndsTheLink() throws Exception {
        outOfPlace(l -> frame(Rendezvous.CONNECT, 2, 0x10000));
    }

    /**
     * A connection is open on a link when {@code bad} comes from the client's side: the listener ends the link, the
     * open connection is reset on both sides (no end-of-stream came), nothing reaches {@code accept}, and the next
     * connect works on a new link.
     */
    private void outOfPlace(java.util.function.Function<SharedLink, ByteBuffer> bad) throws Exception {
        try (ServerSocket ss = UcxSocketTest.listen()) {
            Future<Socket> accepted = UcxSocketTest.EXEC.submit(() -> ss.accept());
            try (Socket open = connect(ss)) {
                Socket server = accepted.get(10, TimeUnit.SECONDS);
                open.getOutputStream().write(1);
                assertEquals(1, server.getInputStream().read());
                SharedLink l = clientLink();
                Rendezvous.writeFully(l.control, bad.apply(l), System.nanoTime() + 1_000_000_000L);
                IOException reset = assertThrows(IOException.class, () -> server.getInputStream().read(),
                        "the open connection on the ended link, listener side");
                assertTrue(reset.getMessage().contains("reset") || reset.getMessage().contains("Broken"),
                        reset::getMessage);
                assertThrows(IOException.class, () -> open.getInputStream().read(), "client side");
                while (!l.ended() && SharedLinks.links().contains(l)) {
                    Thread.sleep(5);
                }
                ss.setSoTimeout(300);
                assertThrows(SocketTimeoutException.class, ss::accept, "a bad message queued a connection");
                ss.setSoTimeout(0);
                server.close();
            }
            Future<?> echo = UcxSocketTest.EXEC.submit(() -> echo(ss, 1));
            exchange(ss, 42);
            echo.get(10, TimeUnit.SECONDS);
        }
    }

    private static ByteBuffer frame(byte type, int n, long v) {
        return ByteBuffer.allocate(SharedLink.FRAME).put(type).putInt(n).putLong(v).flip();
    }

    private static SharedLink clientLink() {
        SharedLink found = null;
        for (SharedLink l : SharedLinks.links()) {
            if (l.client && l.usable()) {
                found = l;
            }
        }
        assertTrue(found != null, "no client link");
        return found;
    }

    private static Void echo(ServerSocket ss, int cycles) throws IOException {
        for (int i = 0; i < cycles; i++) {
            echoAll(ss.accept());
        }
        return null;
    }

    private static Void echoAll(Socket s) throws IOException {
        try (s) {
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            byte[] b = new byte[4096];
            for (int n; (n = in.read(b)) > 0; ) {
                out.write(b, 0, n);
            }
        }
        return null;
    }

    /** One connection: {@code 100 + i} bytes of {@code i} out, the same back, its own end-of-stream, closed. */
    private static void exchange(ServerSocket ss, int i) throws Exception {
        try (Socket c = connect(ss)) {
            byte[] msg = new byte[100 + i];
            Arrays.fill(msg, (byte) i);
            c.getOutputStream().write(msg);
            byte[] got = new byte[msg.length];
            new DataInputStream(c.getInputStream()).readFully(got);
            assertArrayEquals(msg, got, "connection " + i);
            c.shutdownOutput();
            assertEquals(-1, c.getInputStream().read(), "connection " + i + ": its own end-of-stream");
        }
    }

    private static Socket connect(ServerSocket ss) throws Exception {
        Socket s = new Socket();
        s.connect(ss.getLocalSocketAddress());
        s.setSoTimeout(20_000);
        return s;
    }
}
