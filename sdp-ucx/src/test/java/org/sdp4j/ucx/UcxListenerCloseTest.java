package org.sdp4j.ucx;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sdp4j.testing.Growth;

/**
 * A {@code use ucx} java.net listener (UCX and TCP on one port, each served by an accepting thread of sdp4j's)
 * closed while clients keep connecting: every client must hear its end (end of stream or a reset) within 5 s, and
 * descriptors stay flat over the rounds.
 *
 * <p>It found (one run in five, 12 of 85 runs on 2026-12-02) a client connected to nothing: the listener drained its
 * queued connections (each client hears end of stream and, in this test as in a refilling pool, reconnects at once)
 * <em>before</em> closing the kernel's TCP listener, and a reconnect whose handshake ACK raced the listener's close
 * in the kernel was dropped without a reset (a capture: the client's SYN, the SYN-ACK, the client's ACK, then
 * nothing). The TCP listener now closes first ({@code SdpServerSocketImpl.close}, {@code AcceptThreads.close}): 110
 * runs of 110 passed, on JDK 17 and Temurin 25. With UCX clients too ({@code -Dsdp4j.test.ucxClients=true}, on
 * request) one run in 20 still had a TCP client hear nothing; a connect that races any listener's close in the
 * kernel can meet the same drop (docs/ucx.md, known limits). The bug it was first written for (issue 23 item 5: a
 * connection handed over behind the close marker stayed queued for ever) is tested deterministically by sdp-core's
 * {@code AcceptThreadsCloseTest}. {@code -Dsdp4j.test.listenerCloseStress=false} skips it.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class UcxListenerCloseTest {
    /** How long a client may wait for its end once the listener closed (a leaked connection never ends). */
    static final int CLIENT_BOUND_MS = 5_000;
    static final int CLIENTS = 4;
    static final int LISTENERS_PER_ROUND = 6;
    static final boolean ENABLED = !"false".equals(System.getProperty("sdp4j.test.listenerCloseStress"));
    static final boolean UCX_CLIENTS = Boolean.getBoolean("sdp4j.test.ucxClients");

    @BeforeAll
    static void rules() throws Exception {
        UcxSocketTest.rules();
    }

    @BeforeEach
    void ucxRules() throws Exception {
        new UcxSocketTest().ucxRules();
    }

    @Test
    void connectionsAcceptedWhileTheListenerClosesAreClosedWithIt() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(ENABLED, "-Dsdp4j.test.listenerCloseStress=false");
        ConcurrentLinkedQueue<String> silent = new ConcurrentLinkedQueue<>();
        Map<String, List<Long>> samples = Growth.rounds(3, LISTENERS_PER_ROUND,
                Map.of("fds", UcxSocketTest::fdCount), i -> listenerLife(silent), r -> UcxSocketTest.quiesce());
        assertTrue(silent.isEmpty(), () -> silent.size() + " clients heard nothing " + CLIENT_BOUND_MS
                + " ms after their listener closed: " + silent.peek());
        List<String> leaks = Growth.leaks(samples, LISTENERS_PER_ROUND);
        assertTrue(leaks.isEmpty(), () -> String.join("\n", leaks));
    }

    /**
     * One listener: clients (TCP through the JDK's own provider; UCX through sdp4j on request) connect in a loop while the
     * application accepts three connections and closes the listener; the accepting threads are then blocked
     * handing over more, as an application that stops accepting leaves them.
     */
    private static void listenerLife(ConcurrentLinkedQueue<String> silent) throws Exception {
        ServerSocket ss = UcxSocketTest.listen();
        int port = ss.getLocalPort();
        AtomicBoolean stop = new AtomicBoolean();
        List<Future<?>> clients = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
            boolean tcp = !UCX_CLIENTS || c % 2 == 1;
            clients.add(UcxSocketTest.EXEC.submit(() -> {
                while (!stop.get()) {
                    client(port, tcp, silent);
                }
                return null;
            }));
        }
        try {
            for (int i = 0; i < 3; i++) {
                ss.accept().close();
            }
            // let the accepting threads fill the hand-over queue and block on it
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
            while (System.nanoTime() < end) {
                Thread.onSpinWait();
            }
        } finally {
            ss.close();
            stop.set(true);
        }
        for (Future<?> f : clients) {
            f.get(CLIENT_BOUND_MS * 4L, TimeUnit.MILLISECONDS);
        }
    }

    /** One client connection: connected, it must hear its end (EOF or an error) within the bound. */
    private static void client(int port, boolean tcp, ConcurrentLinkedQueue<String> silent) {
        InetSocketAddress to = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        if (tcp) {
            SocketChannel ch;
            try {
                ch = SelectorProvider.provider().openSocketChannel();
                ch.connect(to);
            } catch (IOException refused) {
                return;
            }
            try (ch; Socket s = ch.socket()) {
                s.setSoTimeout(CLIENT_BOUND_MS);
                try {
                    s.getInputStream().read(); // a blocking channel's stream honours SO_TIMEOUT
                } catch (SocketTimeoutException e) {
                    // while the client is still open: its own socket is in the kernel's view too
                    silent.add("a TCP client on port " + port + " (" + localPort(ch) + "); the kernel's view of the port:\n"
                            + sockets(port));
                }
            } catch (IOException endedByReset) {
                // heard its end
            }
            return;
        }
        try (Socket s = new Socket()) {
            try {
                s.connect(to, CLIENT_BOUND_MS);
            } catch (IOException refused) {
                return;
            }
            s.setSoTimeout(CLIENT_BOUND_MS);
            s.getInputStream().read();
        } catch (SocketTimeoutException e) {
            silent.add("a UCX client on port " + port + "; the kernel's view of the port:\n" + sockets(port));
        } catch (IOException endedByReset) {
            // heard its end
        }
    }

    private static String localPort(SocketChannel ch) {
        try {
            return String.valueOf(ch.getLocalAddress());
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    /**
     * {@code ss} on the port (both directions, with timers) and the kernel's listen-overflow counters, for a failure
     * report: whether the silent client's server side ever existed, and whether an accept-queue overflow (which also
     * leaves a client ESTABLISHED against nothing) played a part. They found the 2026-12-02 defect (no server socket,
     * no overflow; see the class comment).
     */
    static String sockets(int port) {
        StringBuilder b = new StringBuilder();
        for (List<String> cmd : List.of(List.of("ss", "-tanoei", "( sport = :" + port + " or dport = :" + port + " )"),
                List.of("nstat", "-az", "TcpExtListenOverflows", "TcpExtListenDrops", "TcpExtTCPReqQFullDrop"))) {
            try {
                Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
                String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
                p.waitFor(5, TimeUnit.SECONDS);
                b.append(String.join(" ", cmd)).append(":\n").append(out);
            } catch (IOException | InterruptedException e) {
                b.append(cmd.get(0)).append(": ").append(e).append('\n');
            }
        }
        return b.toString();
    }
}
