package org.sdp4j.ucx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sdp4j.Sdp4j;
import org.sdp4j.conf.ConfigParser;
import org.sdp4j.conf.ProgramIdentity;

/**
 * Kept pairs ({@link Link}): a connection to a listener that this process reached before rides the endpoint pair of
 * a closed one, and is still a connection of its own — its bytes only, its own end-of-stream — whatever the last
 * connection left unread on either side; a listener's close and a control message out of place end the pair.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UcxKeptPairTest {
    @BeforeAll
    static void rules() throws Exception {
        assertTrue(Ucx.isAvailable(), () -> "UCX must be installed for these tests: " + Ucx.unavailabilityCause());
        System.setProperty("sdp4j.ucx.dir", Files.createTempDirectory("ucx-rv").toString());
        Sdp4j.installSocketFactories();
    }

    @BeforeEach
    void ucxRules() throws Exception {
        Sdp4j.configure(ConfigParser.parse("test.conf", "use ucx server * *:*\nuse ucx client * *:*\n"),
                ProgramIdentity.of("ucx-test"));
        // no parked end of an earlier test class's listeners: awaitParked takes the first parked end it finds (an
        // earlier test's streams left one, and a test here then ended that pair instead of its own)
        Links.drain();
    }

    /** Connects one after the other: after the first, no worker is made and the pair carries them, bytes exact. */
    @Test
    void connectsOneAfterTheOtherRideAKeptPair() throws Exception {
        int cycles = 60;
        try (ServerSocket ss = UcxSocketTest.listen()) {
            Future<?> echo = UcxSocketTest.EXEC.submit(() -> {
                for (int i = 0; i < cycles; i++) {
                    try (Socket s = ss.accept()) {
                        InputStream in = s.getInputStream();
                        OutputStream out = s.getOutputStream();
                        byte[] b = new byte[4096];
                        for (int n; (n = in.read(b)) > 0; ) {
                            out.write(b, 0, n);
                        }
                    }
                }
                return null;
            });
            try (Socket first = connect(ss, 0)) { // the first makes the pair (its echo: both ends made)
                first.getOutputStream().write(1);
                assertEquals(1, first.getInputStream().read());
            }
            long reusedBefore = Link.REUSED.get(), createdBefore = WorkerPool.CREATED.get();
            long establishedBefore = UcxConnection.ESTABLISHED.get();
            for (int i = 1; i < cycles; i++) {
                try (Socket c = connect(ss, 0)) {
                    byte[] msg = new byte[1000 + i];
                    Arrays.fill(msg, (byte) i);
                    c.getOutputStream().write(msg);
                    byte[] got = new byte[msg.length];
                    new DataInputStream(c.getInputStream()).readFully(got);
                    assertArrayEquals(msg, got, "connection " + i);
                    c.shutdownOutput();
                    assertEquals(-1, c.getInputStream().read(), "connection " + i + ": its own end-of-stream");
                }
            }
            echo.get(30, TimeUnit.SECONDS);
            long reused = Link.REUSED.get() - reusedBefore;
            long made = WorkerPool.CREATED.get() - createdBefore;
            assertEquals(2L * (cycles - 1), UcxConnection.ESTABLISHED.get() - establishedBefore, "both ends, all on UCX");
            // both ends count; a connect whose listener was slower than sdp4j.ucx.keep.wait to close makes a pair
            assertTrue(reused >= cycles, () -> "connections on a kept pair (both ends): " + reused + " of "
                    + 2 * (cycles - 1));
            assertTrue(made <= cycles / 2, () -> "workers made for " + (cycles - 1) + " connects: " + made);
        }
    }

    /**
     * Each side leaves bytes of the last connection unread: the server's greeting tail on the client, the client's
     * request on the server. The next connection on the pair starts with its own first byte on both sides.
     */
    @Test
    void bytesTheLastConnectionLeftUnreadNeverReachTheNext() throws Exception {
        int cycles = 40;
        // each side closes only once the other's writes are done, as on TCP (a close with bytes unread resets a
        // writer still sending): what is left unread is then all the last connection's
        java.util.concurrent.CountDownLatch[] serverWrote = new java.util.concurrent.CountDownLatch[cycles];
        java.util.concurrent.CountDownLatch[] clientWrote = new java.util.concurrent.CountDownLatch[cycles];
        for (int i = 0; i < cycles; i++) {
            serverWrote[i] = new java.util.concurrent.CountDownLatch(1);
            clientWrote[i] = new java.util.concurrent.CountDownLatch(1);
        }
        try (ServerSocket ss = UcxSocketTest.listen()) {
            Future<?> server = UcxSocketTest.EXEC.submit(() -> {
                for (int i = 0; i < cycles; i++) {
                    try (Socket s = ss.accept()) {
                        DataOutputStream out = new DataOutputStream(s.getOutputStream());
                        out.writeInt(i);
                        byte[] tail = new byte[5000 + 997 * i];
                        Arrays.fill(tail, (byte) i);
                        out.write(tail);
                        serverWrote[i].countDown();
                        assertEquals(i, new DataInputStream(s.getInputStream()).readInt(),
                                "the client's first bytes on connection " + i);
                        clientWrote[i].await(); // a hang fails by the class @Timeout
                        // closes with the rest of the client's request unread
                    }
                }
                return null;
            });
            long reusedBefore = Link.REUSED.get();
            for (int i = 0; i < cycles; i++) {
                try (Socket c = connect(ss, 0)) {
                    DataOutputStream out = new DataOutputStream(c.getOutputStream());
                    out.writeInt(i);
                    out.write(new byte[3000 + 501 * i]);
                    clientWrote[i].countDown();
                    assertEquals(i, new DataInputStream(c.getInputStream()).readInt(), "the server's first bytes");
                    serverWrote[i].await();
                    // closes with the rest of the server's greeting unread
                } catch (java.io.IOException e) {
                    if (server.isDone()) {
                        server.get(); // the server's failure, not the client's wait for it
                    }
                    throw e;
                }
            }
            server.get(30, TimeUnit.SECONDS);
            long reused = Link.REUSED.get() - reusedBefore;
            assertTrue(reused > 0, "no connection rode a kept pair: the test proved nothing");
        }
    }

    /** A listener that closes ends its kept pairs: the next listener on the port gets a new pair, and the bytes. */
    @Test
    void aListenerThatClosesEndsItsKeptPairs() throws Exception {
        int port;
        try (ServerSocket ss = UcxSocketTest.listen()) {
            port = ss.getLocalPort();
            exchangeOnce(ss, 7, 0);
            awaitParked(true);
        }
        long reusedBefore = Link.REUSED.get();
        try (ServerSocket ss2 = new ServerSocket(port, 50, InetAddress.getLoopbackAddress())) {
            exchangeOnce(ss2, 41, 1);
        }
        assertEquals(reusedBefore, Link.REUSED.get(), "a pair of the closed listener carried a connection");
    }

    /**
     * A connect on a kept pair does not wait for the listener's answer ({@link Link#reconnect}), so a listener's
     * close must end this process's client ends at once: a connect right after the close is refused, as on TCP,
     * rather than handed a connection that the listener's hang-up resets later.
     */
    @Test
    void aConnectAfterTheListenerClosedIsRefused() throws Exception {
        java.net.SocketAddress where;
        try (ServerSocket ss = UcxSocketTest.listen()) {
            where = ss.getLocalSocketAddress();
            exchangeOnce(ss, 5, 0);
            awaitPeerKept(awaitParked(true));
        }
        Socket s = new Socket();
        try {
            assertThrows(java.net.ConnectException.class, () -> s.connect(where, 5000),
                    "a connect after the listener's close was not refused");
        } finally {
            s.close();
        }
    }

    /**
     * A server that holds on to its side of the last connection: the next connect makes a new pair (it neither
     * waits for that server nor leaves it a connection to accept); once the server closes, the pair carries the
     * connect after.
     */
    @Test
    void aServerHoldingItsLastConnectionDelaysNoConnectAndQueuesNothing() throws Exception {
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        try (ServerSocket ss = UcxSocketTest.listen()) {
            Future<?> held = UcxSocketTest.EXEC.submit(() -> {
                try (Socket s = ss.accept()) {
                    s.getOutputStream().write(s.getInputStream().read());
                    assertEquals(-1, s.getInputStream().read());
                    release.await(); // open past the client's close
                }
                return null;
            });
            try (Socket c = connect(ss, 0)) {
                c.getOutputStream().write(3);
                assertEquals(3, c.getInputStream().read());
            }
            awaitParked(true);
            long reusedBefore = Link.REUSED.get();
            exchangeOnce(ss, 4, 1); // made while the server held the last connection
            assertEquals(reusedBefore, Link.REUSED.get(), "a connection rode the pair the server still held");
            ss.setSoTimeout(300);
            assertThrows(SocketTimeoutException.class, ss::accept, "a connection was queued on the held pair");
            ss.setSoTimeout(0);
            release.countDown();
            held.get(10, TimeUnit.SECONDS);
            Link kept = awaitParked(true);
            awaitPeerKept(kept);
            exchangeOnce(ss, 6, 2);
            assertTrue(Link.REUSED.get() > reusedBefore, "the pair kept once the server closed carried no connect");
        }
    }

    /**
     * The listener validates what comes on a kept pair: a CONNECT whose id is out of range (what a confused or
     * hostile peer could send) ends the pair; nothing reaches {@code accept}, and the next connect makes a new pair.
     */
    @Test
    void aControlMessageOutOfPlaceEndsThePairAndQueuesNothing() throws Exception {
        try (ServerSocket ss = UcxSocketTest.listen()) {
            exchangeOnce(ss, 1, 0);
            Link client = awaitParked(true);
            awaitPeerKept(client);
            Rendezvous.writeFully(client.control, Link.message(Rendezvous.CONNECT, 0x10000),
                    System.nanoTime() + 1_000_000_000L);
            while (Links.parkedEnds().contains(client)) { // ended by the listener's hang-up (else the @Timeout)
                Thread.sleep(5);
            }
            ss.setSoTimeout(300);
            assertThrows(SocketTimeoutException.class, ss::accept, "a bad CONNECT queued a connection");
            ss.setSoTimeout(0);
            long reusedBefore = Link.REUSED.get();
            exchangeOnce(ss, 9, 0);
            assertEquals(reusedBefore, Link.REUSED.get(), "the ended pair carried a connection");
        }
    }

    /**
     * One connection to {@code ss}: the client sends {@code b}, the server answers {@code b + add} and reads to the
     * end-of-stream, both close; every byte checked, the server's failure rethrown.
     */
    private static void exchangeOnce(ServerSocket ss, int b, int add) throws Exception {
        Future<?> server = UcxSocketTest.EXEC.submit(() -> {
            try (Socket s = ss.accept()) {
                s.getOutputStream().write(s.getInputStream().read() + add);
                assertEquals(-1, s.getInputStream().read(), "the client's end-of-stream");
            }
            return null;
        });
        try (Socket c = connect(ss, 0)) {
            c.getOutputStream().write(b);
            assertEquals(b + add, c.getInputStream().read());
        }
        server.get(10, TimeUnit.SECONDS);
    }

    private static Socket connect(ServerSocket ss, int timeout) throws Exception {
        Socket s = new Socket();
        s.connect(ss.getLocalSocketAddress(), timeout);
        s.setSoTimeout(20_000); // a server thread that failed leaves the client waiting: the test fails instead
        return s;
    }

    /** A parked client end (or listener end, {@code client} false), waiting for the closes to settle. */
    private static Link awaitParked(boolean client) throws Exception {
        while (true) { // an end never kept fails by the class @Timeout
            for (Link l : Links.parkedEnds()) {
                if ((l.key != null) == client) {
                    return l;
                }
            }
            Thread.sleep(5);
        }
    }

    private static void awaitPeerKept(Link l) throws Exception {
        assertNotNull(l);
        while (!l.peerKept) { // a listener that never keeps its end fails by the class @Timeout
            Thread.sleep(5);
        }
    }
}
