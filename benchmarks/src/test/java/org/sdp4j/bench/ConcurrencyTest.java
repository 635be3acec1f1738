package org.sdp4j.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** The many-connections benchmark's machinery on the JDK's own sockets (no agent): real echo servers, real bytes. */
class ConcurrencyTest {

    @Test
    void everyConnectionDoesItsRoundTripsAndTheBytesAreChecked() throws Exception {
        try (EchoServer echo = new EchoServer(ThreadKind.PLATFORM)) {
            InetSocketAddress a = new InetSocketAddress(DerbyDrdaServer.benchHost(), echo.port());
            try (Concurrency.Fleet f = new Concurrency.Fleet("t", 16, ThreadKind.PLATFORM, a)) {
                assertEquals(16 * Concurrency.perConnection(16), f.go());
                assertEquals(16 * Concurrency.perConnection(16), f.go(), "the same connections serve the next operation");
            }
        }
    }

    @Test
    void aServerThatCorruptsAByteFailsTheOperation() throws Exception {
        // an "echo" server that flips the last byte of every 64 B message it echoes
        try (ServerSocket ss = new ServerSocket(0, 50, DerbyDrdaServer.benchHost())) {
            Thread t = new Thread(() -> {
                try (Socket s = ss.accept(); InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                    byte[] b = new byte[64];
                    while (in.readNBytes(b, 0, 64) == 64) {
                        b[63] ^= 1;
                        out.write(b);
                    }
                } catch (IOException ignored) {
                    // the test closes it
                }
            });
            t.setDaemon(true);
            t.start();
            InetSocketAddress a = new InetSocketAddress(ss.getInetAddress(), ss.getLocalPort());
            try (Concurrency.Fleet f = new Concurrency.Fleet("t", 1, ThreadKind.PLATFORM, a)) {
                IOException e = assertThrows(IOException.class, f::go);
                assertTrue(e.getMessage().contains("echoed byte 63"), e.getMessage());
            }
        }
    }

    @Test
    void aServerThatNeverAnswersTimesOutInsteadOfHanging() throws Exception {
        assertTrue(Concurrency.TIMEOUT_S <= 120, "bounded");
        try (ServerSocket ss = new ServerSocket(0, 50, DerbyDrdaServer.benchHost())) {
            InetSocketAddress a = new InetSocketAddress(ss.getInetAddress(), ss.getLocalPort());
            // connections are accepted by the kernel's backlog; nobody reads: a connect burst still completes its connects,
            // the round trip cannot: the client's read times out (SO_TIMEOUT) and the operation names it
            Concurrency c = new Concurrency();
            c.connections = 1;
            c.kind = ThreadKind.PLATFORM;
            c.address = a;
            long t0 = System.nanoTime();
            Exception e = assertThrows(Exception.class, c::connectBurst);
            assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(Concurrency.TIMEOUT_S + 30), "bounded by the timeout");
            assertTrue(e.getMessage().contains("connect burst"), e.getMessage());
        }
    }

    @Test
    void connectWorkCloseDoesTwelveThousandEightHundredRoundTripsSplitOverItsConnections() throws Exception {
        assertEquals(12_800, Concurrency.workPerConnection(1));
        assertEquals(800, Concurrency.workPerConnection(16));
        assertEquals(12, Concurrency.workPerConnection(1000));
        assertEquals(1, Concurrency.workPerConnection(20_000), "at least one round trip");
        // an echo server that counts the messages it echoes: the workload does the round trips it says it does
        java.util.concurrent.atomic.AtomicLong echoed = new java.util.concurrent.atomic.AtomicLong();
        try (ServerSocket ss = new ServerSocket(0, 50, DerbyDrdaServer.benchHost())) {
            Thread t = new Thread(() -> {
                while (!ss.isClosed()) {
                    try {
                        Socket s = ss.accept();
                        Thread e = new Thread(() -> {
                            try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                                byte[] b = new byte[64];
                                while (in.readNBytes(b, 0, 64) == 64) {
                                    echoed.incrementAndGet();
                                    out.write(b);
                                }
                            } catch (IOException ignored) {
                                // the client closed
                            }
                        });
                        e.setDaemon(true);
                        e.start();
                    } catch (IOException closed) {
                        return;
                    }
                }
            });
            t.setDaemon(true);
            t.start();
            Concurrency c = new Concurrency();
            c.connections = 16;
            c.kind = ThreadKind.PLATFORM;
            c.address = new InetSocketAddress(ss.getInetAddress(), ss.getLocalPort());
            assertEquals(16, c.connectWorkClose());
            assertEquals(12_800, echoed.get());
        }
    }

    @Test
    void threadKinds() throws Exception {
        assertThrows(IllegalArgumentException.class, () -> ThreadKind.of("green"));
        CountDownLatch ran = new CountDownLatch(1);
        if (Runtime.version().feature() >= 21) {
            Thread t = ThreadKind.VIRTUAL.start("v", ran::countDown);
            assertTrue(ran.await(30, TimeUnit.SECONDS));
            assertTrue((Boolean) Thread.class.getMethod("isVirtual").invoke(t));
        } else {
            UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, () -> ThreadKind.VIRTUAL.start("v", ran::countDown));
            assertTrue(e.getMessage().contains("Java 21"), e.getMessage());
        }
    }

    @Test
    void ucxPerftestOutputIsParsedWithAndWithoutFinalPrefix() {
        String f = "|     Test     | # iterations | 50.0%ile | average | overall |\n"
                + "+--------------+\n                       100000      0.641     8.218    45.751        7.43       1.33      121688       21858\n";
        java.util.regex.Matcher m = UcxPerftest.FINAL.matcher(f);
        assertTrue(m.find());
        assertEquals("0.641", m.group(2));
        m = UcxPerftest.FINAL.matcher("[thread 0]  43195  0.191  11.760  11.760  5.19\nFinal:                100000      0.186     1.386    10.886       44.04\n");
        assertTrue(m.find());
        assertEquals("100000", m.group(1));
        assertEquals("0.186", m.group(2));
    }

    @Test
    void reportPlansPlatformBeforeVirtualAndPairsUcxPerftestWithThe64ByteSocketPingPong() {
        ReportSettings.Settings s = ReportSettings.parse(new String[] {"--groups", "conc,perftest", "--conc-threads", "virtual,platform", "--conc-n", "1,16",
            "--agent", "/a"});
        java.util.List<Report.Step> steps = Report.plan(s);
        int lastPlatform = -1, firstVirtual = Integer.MAX_VALUE;
        for (int i = 0; i < steps.size(); i++) {
            if (steps.get(i).label.endsWith("threads=platform")) lastPlatform = i;
            if (steps.get(i).label.endsWith("threads=virtual")) firstVirtual = Math.min(firstVirtual, i);
        }
        assertTrue(lastPlatform >= 0 && lastPlatform < firstVirtual, "a pinned carrier can only hang the steps after it");
        assertTrue(steps.stream().anyMatch(x -> x.perftest && x.label.equals("NetPipe.socketLatency size=64")));
        assertThrows(IllegalArgumentException.class, () -> ReportSettings.parse(new String[] {"--conc-server", "elsewhere", "--agent", "/a"}));

        ReportModel.Series r = new ReportModel.Series("Concurrency.roundTrips", "connections=16 server=jvm threads=platform", "ucx");
        r.addIteration(1, 0, 10, "ms/op");
        ReportMath.Quantity q = ReportMath.quantity(r);
        assertTrue(q.higherIsBetter);
        assertEquals(Concurrency.roundTripsPerOp(16) / 0.010, q.value, 1e-6);
    }
}
