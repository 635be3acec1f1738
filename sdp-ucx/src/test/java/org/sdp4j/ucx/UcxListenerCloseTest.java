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
 * <p><b>On request only</b> ({@code -Dsdp4j.test.listenerCloseStress=true}): about one run in ten (TCP clients
 * only; UCX clients too with {@code -Dsdp4j.test.ucxClients=true}) one client still hears nothing within the bound,
 * which a plain TCP listener never showed in 15 runs; not yet explained
 * (docs/ucx.md, known limits). The bug it was written for (issue 23 item 5: a connection handed over behind the
 * close marker stayed queued for ever) is fixed and tested deterministically by sdp-core's
 * {@code AcceptThreadsCloseTest}; this stress failed 3 of 3 runs before that fix.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class UcxListenerCloseTest {
    /** How long a client may wait for its end once the listener closed (a leaked connection never ends). */
    static final int CLIENT_BOUND_MS = 5_000;
    static final int CLIENTS = 4;
    static final int LISTENERS_PER_ROUND = 6;
    static final boolean ENABLED = Boolean.getBoolean("sdp4j.test.listenerCloseStress");
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
        org.junit.jupiter.api.Assumptions.assumeTrue(ENABLED, "a stress on request (-Dsdp4j.test.listenerCloseStress="
                + "true): about one run in ten a client still hears nothing, not yet explained (docs/ucx.md, known limits)");
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
                s.getInputStream().read(); // a blocking channel's stream honours SO_TIMEOUT
            } catch (SocketTimeoutException e) {
                silent.add("a TCP client on port " + port);
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
            silent.add("a UCX client on port " + port);
        } catch (IOException endedByReset) {
            // heard its end
        }
    }
}
