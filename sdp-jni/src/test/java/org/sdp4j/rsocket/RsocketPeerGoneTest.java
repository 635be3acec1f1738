package org.sdp4j.rsocket;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A killed peer whose disconnect librdmacm leaves unread: the blocked reader still ends (-1) and writes fail
 * ({@link CmStallWatch}). librdmacm's connection service thread of this JVM is stopped with ptrace
 * (native/vm-tests/stop-cm-service.py) while the peer, the C rsocket server rs_echo, is killed, which is how CI's one
 * hang of the transport contract looked from inside (the kernel's cm_id in DISCONNECT, the rsocket connected). Before
 * CmStallWatch the read waited as long as the thread stayed stopped (3 of 3 rounds, 60 s each). In the soft-RoCE VM
 * only: {@code -Dsdp4j.test.rsEcho} and {@code -Dsdp4j.test.stopCmService} name the two programs. While the thread
 * is stopped, every rclose, raccept and non-blocking rconnect of the process waits for it: the test lets it go
 * before it closes anything.
 */
class RsocketPeerGoneTest {
    private static final int PORT = 7496;

    @Test
    @Timeout(120)
    void aReaderAndAWriterEndWhenLibrdmacmLeavesTheKilledPeersDisconnectUnread() throws Exception {
        String rsEcho = System.getProperty("sdp4j.test.rsEcho");
        String stopper = System.getProperty("sdp4j.test.stopCmService");
        Assumptions.assumeTrue(rsEcho != null && stopper != null && Files.isExecutable(Path.of(rsEcho)),
                "soft-RoCE VM only (-Dsdp4j.test.rsEcho, -Dsdp4j.test.stopCmService)");
        Assumptions.assumeTrue(Rsocket.isAvailable(), () -> "rsockets unavailable: " + Rsocket.unavailabilityCause());
        String addr = RsocketSocketImplTest.ADDRESS.getHostAddress();
        Process echo = new ProcessBuilder(rsEcho, addr, Integer.toString(PORT), "1").redirectErrorStream(true).start();
        Process stop = null;
        RsocketSocketImplTest.RsSocket s = new RsocketSocketImplTest.RsSocket();
        try {
            BufferedReader echoOut = new BufferedReader(new InputStreamReader(echo.getInputStream(),
                    StandardCharsets.UTF_8));
            String line = CompletableFuture.supplyAsync(() -> readLine(echoOut)).get(30, TimeUnit.SECONDS);
            assertTrue(line != null && line.contains("listening"), "rs_echo said: " + line);
            s.connect(new InetSocketAddress(addr, PORT), 20_000);
            s.getOutputStream().write("ping".getBytes(StandardCharsets.US_ASCII));
            assertArrayEquals("ping".getBytes(StandardCharsets.US_ASCII), s.getInputStream().readNBytes(4));

            stop = new ProcessBuilder("python3", stopper, Long.toString(ProcessHandle.current().pid()),
                    Integer.toString(s.impl.rsocketFd())).redirectErrorStream(true).start();
            BufferedReader stopOut = new BufferedReader(new InputStreamReader(stop.getInputStream(),
                    StandardCharsets.UTF_8));
            String stopped = stopOut.readLine();
            assertTrue(stopped != null && stopped.startsWith("STOPPED"), "stop-cm-service.py: " + stopped);

            echo.destroyForcibly();
            assertTrue(echo.waitFor(20, TimeUnit.SECONDS), "rs_echo survived SIGKILL");
            long t0 = System.nanoTime();
            CompletableFuture<Integer> read = CompletableFuture.supplyAsync(() -> {
                try {
                    return s.getInputStream().read();
                } catch (IOException e) {
                    return -2;
                }
            });
            int n;
            try {
                n = read.get(30, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                throw new AssertionError("the read from the killed peer still waits after 30 s");
            }
            long readMs = (System.nanoTime() - t0) / 1_000_000;
            assertEquals(-1, n, "end of stream, as rsockets' own disconnect gives");

            OutputStream out = s.getOutputStream();
            long t1 = System.nanoTime();
            CompletableFuture<String> write = CompletableFuture.supplyAsync(() -> {
                byte[] chunk = new byte[64 * 1024];
                try {
                    for (;;) {
                        out.write(chunk);
                    }
                } catch (SocketException e) {
                    return e.getMessage();
                } catch (IOException e) {
                    return "IOException " + e;
                }
            });
            String failed;
            try {
                failed = write.get(30, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                throw new AssertionError("writes to the killed peer still block after 30 s");
            }
            System.out.println("RsocketPeerGoneTest: read ended after " + readMs + " ms (-1); writes failed after "
                    + (System.nanoTime() - t1) / 1_000_000 + " ms: " + failed);
            assertTrue(failed.startsWith("Connection reset"), failed);
        } finally {
            // the thread goes on before the close: rclose waits for it (librdmacm's service round trip)
            if (stop != null) {
                stop.getOutputStream().close();
                stop.waitFor(20, TimeUnit.SECONDS);
            }
            s.close();
            echo.destroyForcibly();
        }
    }

    private static String readLine(BufferedReader r) {
        try {
            return r.readLine();
        } catch (IOException e) {
            return "(" + e + ")";
        }
    }
}
