package org.sdp4j.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A non-blocking writer whose last send is still in flight (its peer not reading) shuts its output and closes at
 * once: the peer, reading later, gets every byte and then end of stream, and the close cancelled no send (issue 23
 * item 3). Before the fix the close force-closed the endpoint under that send in every round, though the end-of-stream
 * marker had counted it; in one JVM the bytes still arrived (UCX 1.13's forced close left the rendezvous send posted
 * and Linger waited for it), across hosts the peer's fetch would find the endpoint gone.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UcxShutdownInFlightTest {
    @BeforeAll
    static void rules() throws Exception {
        UcxNioTest.rules();
    }

    @BeforeEach
    void ucxRules() throws Exception {
        new UcxNioTest().ucxRules();
    }

    @Test
    void bytesInFlightAtShutdownOutputAndCloseAllArrive() throws Exception {
        long cancelled = UcxConnection.SENDS_CANCELLED.get();
        for (int round = 0; round < 10; round++) {
            try (ServerSocketChannel ss = UcxNioTest.listen()) {
                SocketChannel c = UcxNioTest.provider.openSocketChannel();
                c.connect(new InetSocketAddress(UcxNioTest.LO, UcxNioTest.port(ss)));
                try (SocketChannel a = ss.accept()) {
                    assertTrue(UcxNioTest.overUcx(c) && UcxNioTest.overUcx(a), c + " " + a);
                    c.configureBlocking(false);
                    ByteBuffer chunk = ByteBuffer.allocateDirect(1 << 20);
                    long written = 0;
                    int n;
                    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                    do {
                        chunk.clear();
                        n = c.write(chunk);
                        written += n;
                    } while (n > 0 && System.nanoTime() < end);
                    c.shutdownOutput();
                    c.close();
                    Thread.sleep(200); // the peer reads late, after the close ran
                    a.socket().setSoTimeout(10_000);
                    java.io.InputStream in = a.socket().getInputStream();
                    byte[] b = new byte[1 << 16];
                    long got = 0;
                    for (int k; (k = in.read(b)) >= 0; ) {
                        got += k;
                    }
                    assertEquals(written, got, "round " + round + ": bytes written before shutdownOutput and close");
                }
            }
        }
        // the close ran while the last send was in flight (10 of 10 rounds here): it must have waited for it
        assertTrue(Linger.await(30_000), "closes still lingering");
        assertEquals(cancelled, UcxConnection.SENDS_CANCELLED.get(), "sends a close cancelled under a reading peer");
    }
}
