package org.sdp4j.ucx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.util.Random;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sdp4j.Sdp4j;
import org.sdp4j.conf.ConfigParser;
import org.sdp4j.conf.ProgramIdentity;

/**
 * A closed connection finishes in the background ({@link Linger}): what was written before the close arrives, and
 * the connection then releases everything. Across hosts a flush waits for RC acknowledgements (the two-host step
 * ucx-lossy drops frames to make it wait); here, on shared memory, these tests hold the other kind of close to
 * account: a connection whose peer closed first keeps a receive posted that completes only with its worker, and
 * such closes once stayed in Linger for its whole bound, a worker and a rendezvous socket each (LeakTest saw
 * descriptors grow by one per cycle).
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class UcxLingerTest {
    @BeforeAll
    static void rules() throws Exception {
        assertTrue(Ucx.isAvailable(), () -> "UCX must be installed for these tests: " + Ucx.unavailabilityCause());
        System.setProperty("sdp4j.ucx.dir", Files.createTempDirectory("ucx-rv").toString());
        Sdp4j.installSocketFactories();
        Sdp4j.configure(ConfigParser.parse("test.conf", "use ucx server * *:*\nuse ucx client * *:*\n"),
                ProgramIdentity.of("ucx-test"));
    }

    /** Write, close at once, then the peer reads it all and closes; round after round, nothing is left lingering. */
    @Test
    void closesWithDataInFlightAndPeersClosingFirstAllSettle() throws Exception {
        long established = UcxConnection.ESTABLISHED.get();
        int abandoned = Linger.abandonedCount();
        Random rnd = new Random(42);
        try (ServerSocket ss = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            for (int round = 0; round < 200; round++) {
                byte[] data = new byte[1 + rnd.nextInt(200_000)];
                rnd.nextBytes(data);
                boolean serverFirst = (round & 1) == 0;
                Future<byte[]> reader = UcxSocketTest.EXEC.submit(() -> {
                    try (Socket s = ss.accept()) {
                        byte[] got = new byte[data.length];
                        new DataInputStream(s.getInputStream()).readFully(got);
                        assertEquals(-1, s.getInputStream().read(), "end-of-stream after the data");
                        if (serverFirst) {
                            return got; // closes first: the writer's close finds its peer gone in order
                        }
                        Thread.sleep(2); // the writer closes first, its last bytes maybe still on their way
                        return got;
                    }
                });
                Socket c = new Socket(ss.getInetAddress(), ss.getLocalPort());
                OutputStream out = c.getOutputStream();
                out.write(data);
                long t0 = System.nanoTime();
                if (serverFirst) {
                    c.shutdownOutput();
                    InputStream in = c.getInputStream();
                    assertEquals(-1, in.read(), "the peer closed");
                }
                c.close();
                long closeNanos = System.nanoTime() - t0;
                assertArrayEquals(data, reader.get(60, TimeUnit.SECONDS), "round " + round);
                assertTrue(closeNanos < 2_000_000_000L, "a close returns without waiting out a bound: " + closeNanos);
            }
        }
        assertEquals(established + 400, UcxConnection.ESTABLISHED.get(), "every connection (both ends) rode UCX");
        assertTrue(Linger.await(10_000), () -> Linger.lingering() + " closed connections still lingering 10 s later");
        assertEquals(abandoned, Linger.abandonedCount(), "no worker left to the process");
    }
}
