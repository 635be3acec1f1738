package org.sdp4j.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.sdp4j.Sdp4j;
import org.sdp4j.conf.Family;
import org.sdp4j.conf.ProgramIdentity;
import org.sdp4j.testing.Rules;

/**
 * java.net through sdp4j's factories in this JVM: the decision at connect and listen, the TCP path staying the
 * JDK's own, and what a rule that cannot be followed does. No RDMA transport is on sdp-core's class path, so
 * {@code sdp} must fail cleanly and {@code both} must fall back.
 */
class SocketInterpositionTest {
    private static final InetAddress LO = InetAddress.getLoopbackAddress();

    @BeforeAll
    static void install() throws IOException {
        Sdp4j.installSocketFactories();
    }

    @AfterAll
    static void restore() {
        Sdp4j.configure(Rules.all(Family.TCP), ProgramIdentity.of("test"));
    }

    private static void rules(Family client, Family server) {
        Sdp4j.configure(Rules.all(client, server), ProgramIdentity.of("test"));
    }

    private static ServerSocket echoServer() throws IOException {
        ServerSocket ss = new ServerSocket(0, 50, LO);
        Thread t = new Thread(() -> {
            try {
                while (true) {
                    Socket s = ss.accept();
                    Thread w = new Thread(() -> {
                        try (s) {
                            s.getInputStream().transferTo(s.getOutputStream());
                        } catch (IOException ignore) {
                            // peer gone
                        }
                    });
                    w.setDaemon(true);
                    w.start();
                }
            } catch (IOException closed) {
                // server closed
            }
        });
        t.setDaemon(true);
        t.start();
        return ss;
    }

    private static void echo(Socket s, int n) throws IOException {
        byte[] out = new byte[n];
        for (int i = 0; i < n; i++) {
            out[i] = (byte) (i * 31 + 7);
        }
        s.getOutputStream().write(out);
        byte[] in = s.getInputStream().readNBytes(n);
        assertTrue(java.util.Arrays.equals(out, in), "echoed bytes differ");
    }

    @Test
    void tcpRuleEchoes() throws IOException {
        rules(Family.TCP, Family.TCP);
        try (ServerSocket ss = echoServer(); Socket s = new Socket(LO, ss.getLocalPort())) {
            echo(s, 100_000);
            assertTrue(s.isConnected());
            assertEquals(ss.getLocalPort(), s.getPort());
            assertEquals(new InetSocketAddress(LO, ss.getLocalPort()), s.getRemoteSocketAddress());
        }
    }

    @Test
    void bothFallsBackToTcpWithoutRdma() throws IOException {
        rules(Family.BOTH, Family.BOTH);
        try (ServerSocket ss = echoServer(); Socket s = new Socket(LO, ss.getLocalPort())) {
            echo(s, 10_000);
        }
    }

    @Test
    void sdpFailsWithTheReasonAndLeaksNothing() throws IOException {
        rules(Family.TCP, Family.TCP);
        try (ServerSocket ss = echoServer()) {
            rules(Family.SDP, Family.TCP);
            long fds = openFds();
            for (int i = 0; i < 200; i++) {
                try (Socket s = new Socket()) {
                    ConnectException e = assertThrows(ConnectException.class,
                            () -> s.connect(new InetSocketAddress(LO, ss.getLocalPort())));
                    assertTrue(e.getMessage().contains("RDMA"), e.getMessage());
                }
            }
            assertEquals(fds, openFds(), "file descriptors after 200 refused sdp connects");
        }
    }

    @Test
    void sdpServerRuleRefusesToListenAndFreesThePort() throws IOException {
        rules(Family.TCP, Family.TCP);
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, LO)) {
            port = probe.getLocalPort();
        }
        rules(Family.TCP, Family.SDP);
        SocketException e = assertThrows(SocketException.class, () -> new ServerSocket(port, 50, LO));
        assertTrue(e.getMessage().contains("RDMA") && e.getMessage().contains(":" + port), e.getMessage());
        rules(Family.TCP, Family.TCP);
        try (ServerSocket again = new ServerSocket(port, 50, LO)) {
            assertEquals(port, again.getLocalPort());
        }
    }

    @Test
    void optionsAndBindSetBeforeConnectSurvive() throws IOException {
        rules(Family.BOTH, Family.TCP);
        try (ServerSocket ss = echoServer(); Socket s = new Socket()) {
            s.setTcpNoDelay(true);
            s.setSoTimeout(1234);
            s.setKeepAlive(true);
            s.bind(new InetSocketAddress(LO, 0));
            int local = s.getLocalPort();
            s.connect(new InetSocketAddress(LO, ss.getLocalPort()), 2000);
            assertTrue(s.getTcpNoDelay());
            assertTrue(s.getKeepAlive());
            assertEquals(1234, s.getSoTimeout());
            assertEquals(local, s.getLocalPort());
            echo(s, 10);
        }
    }

    @Test
    void soTimeoutAndAvailable() throws IOException {
        rules(Family.TCP, Family.TCP);
        try (ServerSocket ss = new ServerSocket(0, 1, LO); Socket c = new Socket(LO, ss.getLocalPort());
             Socket a = ss.accept()) {
            c.setSoTimeout(100);
            assertThrows(SocketTimeoutException.class, () -> c.getInputStream().read());
            a.getOutputStream().write(new byte[17]);
            a.getOutputStream().flush();
            InputStream in = c.getInputStream();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (in.available() < 17 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertEquals(17, in.available());
            assertEquals(17, in.readNBytes(17).length);
            a.shutdownOutput();
            assertEquals(-1, in.read());
            assertTrue(a.isOutputShutdown());
            c.getOutputStream().write(5);
            assertEquals(5, a.getInputStream().read());
        }
    }

    @Test
    void asyncCloseWakesReaderAndAcceptor() throws Exception {
        rules(Family.TCP, Family.TCP);
        try (ServerSocket ss = new ServerSocket(0, 1, LO); Socket c = new Socket(LO, ss.getLocalPort());
             Socket a = ss.accept()) {
            CompletableFuture<Throwable> reader = CompletableFuture.supplyAsync(() -> {
                try {
                    c.getInputStream().read();
                    return null;
                } catch (IOException e) {
                    return e;
                }
            });
            Thread.sleep(200);
            c.close();
            assertTrue(reader.get(5, TimeUnit.SECONDS) instanceof SocketException);
        }
        ServerSocket ss = new ServerSocket(0, 1, LO);
        CompletableFuture<Throwable> acceptor = CompletableFuture.supplyAsync(() -> {
            try {
                ss.accept();
                return null;
            } catch (IOException e) {
                return e;
            }
        });
        Thread.sleep(200);
        ss.close();
        assertTrue(acceptor.get(5, TimeUnit.SECONDS) instanceof SocketException);
    }

    @Test
    void acceptedSocketsAreDecidedAndConnected() throws IOException {
        rules(Family.TCP, Family.BOTH);
        try (ServerSocket ss = new ServerSocket(0, 1, LO); Socket c = new Socket(LO, ss.getLocalPort());
             Socket a = ss.accept()) {
            assertTrue(a.isConnected() && a.isBound() && !a.isClosed());
            assertEquals(c.getLocalPort(), a.getPort());
            assertEquals(ss.getLocalPort(), a.getLocalPort());
            a.getOutputStream().write(9);
            assertEquals(9, c.getInputStream().read());
        }
    }

    @Test
    void closedPortIsRefusedAsWithoutSdp4j() throws IOException {
        rules(Family.BOTH, Family.TCP);
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, LO)) {
            port = probe.getLocalPort();
        }
        assertThrows(ConnectException.class, () -> new Socket(LO, port));
    }

    @Test
    void socketsAreSdp4js() throws IOException {
        try (Socket s = new Socket()) {
            s.setReuseAddress(true);
            assertTrue(s.getReuseAddress());
            assertFalse(s.isConnected());
        }
    }

    static long openFds() throws IOException {
        try (var s = Files.list(Path.of("/proc/self/fd"))) {
            return s.count();
        }
    }
}
