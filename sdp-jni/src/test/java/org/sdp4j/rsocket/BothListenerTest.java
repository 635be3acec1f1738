package org.sdp4j.rsocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sdp4j.Sdp4j;
import org.sdp4j.conf.ConfigParser;
import org.sdp4j.conf.ProgramIdentity;
import org.sdp4j.contract.Transport;

/**
 * The java.net {@code both} listener (TCP and an rsocket listener on one port, waited on together in rpoll; issue
 * 23 item 2). On the host over the TCP shim, which aborts an rclose of a descriptor another thread is inside rpoll
 * with (the use after free librdmacm would suffer) and gives the rsocket side an ephemeral port; in the VM over
 * real rsockets, where an RDMA-CM client that is not an rsocket ({@code rping}) must not starve TCP clients.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class BothListenerTest {
    static final int CLOSE_ROUNDS = Integer.getInteger("sdp4j.test.bothCloseRounds", 2_000);
    static final ExecutorService EXEC = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "both-test");
        t.setDaemon(true);
        return t;
    });

    @BeforeAll
    static void available() throws Exception {
        Assumptions.assumeTrue(Rsocket.isAvailable(), () -> "rsockets unavailable: " + Rsocket.unavailabilityCause());
        Sdp4j.installSocketFactories();
    }

    @BeforeEach
    void bothRules() throws Exception {
        Sdp4j.configure(ConfigParser.parse("both.conf", "use both server * *:*\nuse tcp client * *:*\n"),
                ProgramIdentity.of("both-test"));
    }

    /** The factories stay installed in this JVM: later test classes get plain TCP, as with no sdp4j at all. */
    @AfterAll
    static void tcpRules() throws Exception {
        Sdp4j.configure(ConfigParser.parse("tcp.conf", "use tcp server * *:*\nuse tcp client * *:*\n"),
                ProgramIdentity.of("both-test"));
    }

    static ServerSocket listen() throws IOException {
        ServerSocket ss = new ServerSocket();
        ss.bind(new InetSocketAddress(RsocketSocketImplTest.ADDRESS, 0), 50);
        assertTrue(dual(ss) != null, () -> "not a both listener: " + Transport.describe(ss));
        return ss;
    }

    /** The listener's DualListener (sdp-core's SdpServerSocketImpl.dual): null unless TCP and rsockets listen. */
    static Object dual(ServerSocket ss) {
        try {
            java.lang.reflect.Field f = ServerSocket.class.getDeclaredField("impl");
            f.setAccessible(true); // java.net is opened to the tests (surefire argLine)
            Object impl = f.get(ss);
            java.lang.reflect.Field d = impl.getClass().getDeclaredField("dual");
            d.setAccessible(true);
            return d.get(impl);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    /** One thread in accept() (inside rpoll on both listeners), close() from another: 2,000 rounds, no abort. */
    @Test
    void closeUnderAcceptNeverFreesTheRsocketListenerInsideRpoll() throws Exception {
        for (int round = 0; round < CLOSE_ROUNDS; round++) {
            ServerSocket ss = listen();
            Future<Socket> acc = EXEC.submit(ss::accept);
            long end = System.nanoTime() + ThreadLocalRandom.current().nextInt(300) * 1000L;
            while (System.nanoTime() - end < 0) {
                Thread.onSpinWait();
            }
            ss.close();
            try {
                Socket s = acc.get(5, TimeUnit.SECONDS);
                s.close();
                throw new AssertionError("round " + round + ": accept() returned " + s + " with no client");
            } catch (ExecutionException e) {
                assertTrue(e.getCause() instanceof SocketException, () -> "round: " + e.getCause());
            }
        }
    }

    /**
     * VM only: rping's connection request reaches the rsocket listener, which librdmacm rejects (not an rsocket);
     * a TCP client that connects next is accepted within 2 s. Before the bound on the rsocket side's accept, the
     * accept waited on the rsocket alone (SO_TIMEOUT 0) once the poll had reported the rejected request readable:
     * this timed out (20 s) in 3 of 5 VM runs; with the bound it passed 4 of 4 (2026-11-26).
     */
    @Test
    void aRejectedRdmaConnectionRequestDoesNotStarveTcpClients() throws Exception {
        Assumptions.assumeTrue(System.getProperty("sdp4j.rdmacm.lib") == null, "real rsockets only (VM)");
        Path rping = Path.of("/usr/bin/rping");
        Assumptions.assumeTrue(Files.isExecutable(rping), "rping (rdmacm-utils) missing");
        try (ServerSocket ss = listen()) {
            Future<Socket> acc = EXEC.submit(ss::accept);
            int port = ss.getLocalPort();
            Path log = Files.createTempFile("rping", ".log");
            Process p = new ProcessBuilder(rping.toString(), "-c", "-a",
                    RsocketSocketImplTest.ADDRESS.getHostAddress(), "-p", Integer.toString(port), "-C", "1")
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            try {
                p.waitFor(10, TimeUnit.SECONDS);
            } finally {
                p.destroyForcibly();
            }
            String said = Files.readString(log);
            try (SocketChannel tcp = SelectorProvider.provider().openSocketChannel()) {
                tcp.connect(new InetSocketAddress(RsocketSocketImplTest.ADDRESS, port));
                long start = System.nanoTime();
                try (Socket a = acc.get(20, TimeUnit.SECONDS)) {
                    long ms = (System.nanoTime() - start) / 1_000_000;
                    assertEquals(tcp.getLocalAddress(), a.getRemoteSocketAddress(), "the TCP client was accepted");
                    assertTrue(ms < 2_000, "the TCP client waited " + ms + " ms behind a rejected RDMA request"
                            + " (rping said: " + said.trim() + ")");
                }
            }
        }
    }
}
