package org.sdp4j.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.concurrent.ExecutionException;
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
 * Data-path behaviours where UCX once differed from the JDK's TCP socket (issue 11): each of these hung before its
 * fix. The waits are bounded generously (seconds): what is tested is that they end, not how fast.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UcxDataPathTest {

    @BeforeAll
    static void setUp() throws Exception {
        UcxSocketTest.rules();
    }

    @BeforeEach
    void ucxRules() throws Exception {
        Sdp4j.configure(ConfigParser.parse("test.conf", "use ucx server * *:*\nuse ucx client * *:*\n"),
                ProgramIdentity.of("ucx-test"));
    }

    @Test
    void shutdownInputWakesABlockedReaderWithEndOfStream() throws Exception {
        try (ServerSocket ss = UcxSocketTest.listen();
             Socket c = new Socket(InetAddress.getLoopbackAddress(), ss.getLocalPort());
             Socket s = ss.accept()) {
            InputStream in = c.getInputStream();
            Future<Integer> reader = UcxSocketTest.EXEC.submit(() -> in.read());
            Thread.sleep(200);
            assertFalse(reader.isDone());
            Future<?> shut = UcxSocketTest.EXEC.submit(() -> {
                c.shutdownInput();
                return null;
            });
            shut.get(5, TimeUnit.SECONDS); // TCP: returns at once
            assertEquals(-1, reader.get(5, TimeUnit.SECONDS), "TCP: the blocked reader sees end-of-stream");
            assertEquals(-1, in.read());
            assertTrue(c.isInputShutdown());
            // the other direction still works
            c.getOutputStream().write(7);
            assertEquals(7, s.getInputStream().read());
        }
    }

    @Test
    void writingToAPeerThatClosedFailsInsteadOfBlocking() throws Exception {
        for (int closeAfterMillis : new int[] {0, 500}) { // closed before the first write, and while one waits
            try (ServerSocket ss = UcxSocketTest.listen();
                 Socket c = new Socket(InetAddress.getLoopbackAddress(), ss.getLocalPort());
                 Socket s = ss.accept()) {
                OutputStream out = c.getOutputStream();
                byte[] chunk = new byte[64 * 1024];
                if (closeAfterMillis == 0) {
                    s.close();
                }
                Future<Integer> writer = UcxSocketTest.EXEC.submit(() -> {
                    int n = 0;
                    try {
                        for (; n < 100_000; n++) { // 6 GiB: no transport buffers that much
                            out.write(chunk);
                        }
                    } catch (IOException e) {
                        return n;
                    }
                    return -1;
                });
                Thread.sleep(closeAfterMillis);
                s.close(); // unread data: TCP resets, the writer fails
                int chunks = writer.get(30, TimeUnit.SECONDS);
                assertTrue(chunks >= 0, "TCP: an IOException once the buffers fill, never a 6 GiB success");
            }
        }
    }

    @Test
    void operationsAfterCloseFailFromEveryThreadAndNeverHang() throws Exception {
        try (ServerSocket ss = UcxSocketTest.listen();
             Socket c = new Socket(InetAddress.getLoopbackAddress(), ss.getLocalPort());
             Socket s = ss.accept()) {
            InputStream in = c.getInputStream();
            OutputStream out = c.getOutputStream();
            c.close();
            for (int round = 0; round < 3; round++) { // a lock left held by one thread would block the next
                Future<?> r = UcxSocketTest.EXEC.submit(() -> in.read(new byte[8]));
                Future<?> w = UcxSocketTest.EXEC.submit(() -> {
                    out.write(new byte[8]);
                    return null;
                });
                Future<?> a = UcxSocketTest.EXEC.submit(() -> in.available());
                for (Future<?> f : new Future<?>[] {r, w, a}) {
                    ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(5, TimeUnit.SECONDS));
                    assertTrue(e.getCause() instanceof SocketException, e::toString);
                }
            }
            assertEquals(-1, s.getInputStream().read());
        }
    }

    /** One option table: the old int ids (setTcpNoDelay ...) and SocketOption read one value, as on the JDK. */
    @Test
    void legacyAndSocketOptionSettersShareOneValue() throws Exception {
        try (ServerSocket ss = UcxSocketTest.listen();
             Socket c = new Socket(InetAddress.getLoopbackAddress(), ss.getLocalPort());
             Socket s = ss.accept()) {
            assertTrue(c.getTcpNoDelay());
            c.setTcpNoDelay(false);
            assertEquals(Boolean.FALSE, c.getOption(java.net.StandardSocketOptions.TCP_NODELAY));
            c.setOption(java.net.StandardSocketOptions.TCP_NODELAY, true);
            assertTrue(c.getTcpNoDelay());
            assertEquals(-1, c.getSoLinger());
            c.setSoLinger(true, 5);
            assertEquals(5, c.getOption(java.net.StandardSocketOptions.SO_LINGER));
            c.setSoLinger(false, 0);
            assertEquals(-1, c.getSoLinger());
            c.setSendBufferSize(4096);
            assertEquals(4096, c.getOption(java.net.StandardSocketOptions.SO_SNDBUF));
            assertThrows(IllegalArgumentException.class,
                    () -> c.setOption(java.net.StandardSocketOptions.SO_RCVBUF, 0));
            assertThrows(IllegalArgumentException.class, () -> c.setOption(java.net.StandardSocketOptions.IP_TOS, 256));
        }
    }
}
