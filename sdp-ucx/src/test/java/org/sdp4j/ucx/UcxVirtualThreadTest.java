package org.sdp4j.ucx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sdp4j.Sdp4j;
import org.sdp4j.conf.ConfigParser;
import org.sdp4j.conf.ProgramIdentity;

/**
 * Issue 13: with the virtual-thread scheduler's parallelism at 2 (surefire's argLine), virtual-thread clients and a
 * virtual-thread echo server complete on UCX with every byte checked, and a JFR recording of the run has no
 * {@code jdk.VirtualThreadPinned} event with an sdp4j frame. Before virtual threads parked instead of sleeping in
 * {@code ucp_worker_wait}, 16 such clients hung forever: every UCX wait held its carrier. 1,000 clients, as the
 * issue asks, connecting all at once, every one of them and every accepted socket on UCX (2,000 workers: one per end
 * of each connection).
 * Runs where virtual threads exist (JDK 21+: ./test.sh's Temurin 21 and 25 passes); skipped on 17.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class UcxVirtualThreadTest {
    static final int CLIENTS = 1000, ROUNDS = 20, SIZE = 100;
    /**
     * Connects in flight at once: all of them, the burst. Before the listener acknowledged queued connects
     * (Rendezvous.QUEUED) a UCX attempt had sdp4j.both.timeout (2 s) to complete, the wait behind other handshakes
     * included, and 116-217 of 1,000 landed on UCX, the rest on TCP (three runs); so this test connected 16 at a time.
     */
    static final int CONNECT_BURST = Integer.getInteger("sdp4j.test.burst", CLIENTS);

    @BeforeAll
    static void rules() throws Exception {
        UcxSocketTest.rules();
        Sdp4j.configure(ConfigParser.parse("test.conf", "use ucx server * *:*\nuse ucx client * *:*\n"),
                ProgramIdentity.of("ucx-test"));
    }

    static ExecutorService virtualThreads() {
        try {
            return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        } catch (ReflectiveOperationException e) {
            return null;
        }
    }

    /**
     * Pinned while the JVM linked an invokedynamic call site (a string concatenation's bootstrap, once per site and
     * process: a native frame of the VM's on the stack), not a wait of sdp4j's; seen once in about ten runs.
     */
    static boolean linksACallSite(RecordedEvent e) {
        return aboveSdp4j(e, (type, method) -> type.equals("java.lang.invoke.MethodHandleNatives")
                && method.startsWith("linkCallSite"));
    }

    /**
     * Pinned inside the commit of one of sdp4j's JFR events (org.sdp4j.ops, recorded by this very test): JFR's own
     * writing of the event ("Freeze or preempt failed", 78 µs, once in about ten runs), not a wait of sdp4j's.
     */
    static boolean commitsAJfrEvent(RecordedEvent e) {
        for (RecordedFrame f : e.getStackTrace().getFrames()) {
            String t = f.getMethod().getType().getName();
            if (t.startsWith("org.sdp4j")) {
                return t.startsWith("org.sdp4j.ops.") && f.getMethod().getName().equals("commit");
            }
        }
        return false;
    }

    /** Pinned while a class loader's lock was contended: lazy class loading, once per class and process. */
    static boolean loadsAClass(RecordedEvent e) {
        return aboveSdp4j(e, (type, method) -> type.endsWith("ClassLoader") && method.startsWith("loadClass"));
    }

    /** Whether a frame above the first sdp4j one (the JDK at work on sdp4j's behalf) is {@code frame}. */
    static boolean aboveSdp4j(RecordedEvent e, java.util.function.BiPredicate<String, String> frame) {
        for (RecordedFrame f : e.getStackTrace().getFrames()) {
            String t = f.getMethod().getType().getName();
            if (t.startsWith("org.sdp4j")) {
                return false;
            }
            if (frame.test(t, f.getMethod().getName())) {
                return true;
            }
        }
        return false;
    }

    /** The event with every frame (its toString stops at five, before the frame that held the carrier). */
    static String describe(RecordedEvent e) {
        StringBuilder b = new StringBuilder(e.getEventType().getName()).append(' ')
                .append(e.getDuration().toNanos() / 1000).append(" us, reason ")
                .append(e.hasField("pinnedReason") ? e.getValue("pinnedReason") : "(not recorded)");
        for (RecordedFrame f : e.getStackTrace().getFrames()) {
            b.append("\n    at ").append(f.getMethod().getType().getName()).append('.').append(f.getMethod().getName())
                    .append(':').append(f.getLineNumber());
        }
        return b.toString();
    }

    @Test
    void virtualThreadClientsAndAVirtualThreadServerOnTwoCarriersNoPinning() throws Exception {
        ExecutorService vts = virtualThreads();
        assumeTrue(vts != null, "no virtual threads on this JDK");
        assertEquals("2", System.getProperty("jdk.virtualThreadScheduler.parallelism"));
        Path jfr = Files.createTempFile("ucx-vt", ".jfr");
        long before = UcxConnection.ESTABLISHED.get();
        try (Recording rec = new Recording(); ServerSocket ss = UcxSocketTest.listen()) {
            rec.enable("jdk.VirtualThreadPinned").withStackTrace().withThreshold(Duration.ZERO);
            // one connection first, from a virtual thread, so that the JDK's lazily initialized classes (its NIO
            // poller: "waited for initialization of sun.nio.ch.Poller by another thread") are not counted
            Future<Socket> first = vts.submit(ss::accept); // the server's half of the handshake runs in accept
            vts.submit(() -> {
                try (Socket c = new Socket(InetAddress.getLoopbackAddress(), ss.getLocalPort());
                     Socket s = first.get(60, TimeUnit.SECONDS)) {
                    c.getOutputStream().write(1);
                    return s.getInputStream().read();
                }
            }).get(60, TimeUnit.SECONDS);
            before = UcxConnection.ESTABLISHED.get();
            rec.start();
            Future<?> acceptor = vts.submit(() -> {
                while (true) {
                    Socket s = ss.accept();
                    vts.submit(() -> {
                        try (s) {
                            InputStream in = s.getInputStream();
                            OutputStream out = s.getOutputStream();
                            byte[] b = new byte[SIZE];
                            for (int n; (n = in.read(b)) > 0; ) {
                                out.write(b, 0, n);
                            }
                        }
                        return null;
                    });
                }
            });
            Semaphore connecting = new Semaphore(CONNECT_BURST);
            List<Future<?>> clients = new ArrayList<>();
            for (int i = 0; i < CLIENTS; i++) {
                int id = i;
                clients.add(vts.submit(() -> {
                    Socket c;
                    connecting.acquire();
                    try {
                        c = new Socket(InetAddress.getLoopbackAddress(), ss.getLocalPort());
                    } finally {
                        connecting.release();
                    }
                    try (c) {
                        byte[] msg = new byte[SIZE], back = new byte[SIZE];
                        for (int r = 0; r < ROUNDS; r++) {
                            for (int k = 0; k < SIZE; k++) {
                                msg[k] = (byte) (id * 31 + r * 7 + k);
                            }
                            c.getOutputStream().write(msg);
                            int got = c.getInputStream().readNBytes(back, 0, SIZE);
                            assertEquals(SIZE, got, "client " + id + " round " + r);
                            assertArrayEquals(msg, back, "client " + id + " round " + r);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : clients) {
                f.get(240, TimeUnit.SECONDS);
            }
            ss.close();
            acceptor.cancel(true);
            rec.stop();
            rec.dump(jfr);
        }
        long established = UcxConnection.ESTABLISHED.get() - before;
        assertEquals(2L * CLIENTS, established, "every client and every accepted socket on UCX, none on TCP");
        List<String> pinned = new ArrayList<>();
        for (RecordedEvent e : RecordingFile.readAllEvents(jfr)) {
            if (e.getStackTrace() == null) {
                continue;
            }
            Object why = e.hasField("pinnedReason") ? e.getValue("pinnedReason") : null;
            String reason = String.valueOf(why);
            if (reason.startsWith("Waited for initialization") || loadsAClass(e) || linksACallSite(e)
                    || commitsAJfrEvent(e)) {
                // a class initialized lazily by the JDK (its NIO poller) while another virtual thread waited for
                // it: once per process, whatever the caller; not a wait of sdp4j's (seen in the rendezvous's
                // Selector.select on JDK 25, even after a warm-up connection)
                continue;
            }
            for (RecordedFrame f : e.getStackTrace().getFrames()) {
                String type = f.getMethod().getType().getName();
                // sdp4j's frames, not this test's own (a pin in JUnit's assertArrayEquals, "Freeze or preempt
                // failed", carried only the test's lambda below it: JUnit's, not sdp4j's)
                if (type.startsWith("org.sdp4j") && !type.startsWith(UcxVirtualThreadTest.class.getName())) {
                    pinned.add(describe(e));
                    break;
                }
            }
        }
        assertTrue(pinned.isEmpty(), () -> pinned.size() + " pinned virtual threads in sdp4j: " + pinned.get(0));
        Files.deleteIfExists(jfr);
    }

    /**
     * Two virtual-thread writers whose peers do not read yet, on two carriers: each fills its peer worker's
     * shared-memory FIFO and then waits for a send that only the peer's reader can let through. UCX's arm reports such
     * a worker busy (a send is pending) as long as it waits, so a waiter that took "busy" for "events due, progress
     * again" never parked: the two writers kept both carriers and the readers, virtual threads of this process, never
     * ran again (found with 32 connections on one worker pair, docs/ucx-links.md). A bounded wait, not a hang, is
     * what this asks: both streams arrive whole.
     */
    @Test
    void writersWaitingOnAFullPeerLeaveTheCarriersToItsReaders() throws Exception {
        ExecutorService vts = virtualThreads();
        assumeTrue(vts != null, "no virtual threads on this JDK");
        int streams = 2, size = 4 << 20;
        long before = UcxConnection.ESTABLISHED.get();
        try (ServerSocket ss = UcxSocketTest.listen()) {
            Socket[] clients = new Socket[streams], accepted = new Socket[streams];
            for (int i = 0; i < streams; i++) {
                clients[i] = new Socket(InetAddress.getLoopbackAddress(), ss.getLocalPort());
                accepted[i] = ss.accept();
            }
            assertEquals(2L * streams, UcxConnection.ESTABLISHED.get() - before, "every end on UCX");
            List<Future<?>> all = new ArrayList<>();
            for (int i = 0; i < streams; i++) {
                Socket out = clients[i], in = accepted[i];
                int seed = i;
                all.add(vts.submit(() -> {
                    byte[] chunk = new byte[64 << 10];
                    OutputStream os = out.getOutputStream();
                    for (int sent = 0; sent < size; sent += chunk.length) {
                        for (int k = 0; k < chunk.length; k++) {
                            chunk[k] = (byte) (seed + sent + k);
                        }
                        os.write(chunk);
                    }
                    os.flush();
                    return null;
                }));
                all.add(vts.submit(() -> {
                    Thread.sleep(300); // the writers fill the FIFOs first
                    byte[] buf = new byte[64 << 10];
                    InputStream is = in.getInputStream();
                    for (int got = 0; got < size; ) {
                        int n = is.read(buf, 0, Math.min(buf.length, size - got));
                        assertTrue(n > 0, "end of stream after " + got + " bytes");
                        for (int k = 0; k < n; k++) {
                            if (buf[k] != (byte) (seed + got + k)) {
                                throw new AssertionError("stream " + seed + ": byte " + (got + k) + " wrong");
                            }
                        }
                        got += n;
                    }
                    return null;
                }));
            }
            for (Future<?> f : all) {
                f.get(); // a hang fails by the class @Timeout
            }
            for (int i = 0; i < streams; i++) {
                clients[i].close();
                accepted[i].close();
            }
        } finally {
            vts.shutdownNow();
            WorkerPool.drain(); // leaves no kept pair or idle worker of its streams to the tests after it
        }
    }
}
