package org.sdp4j.rsocket;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sdp4j.rsocket.RsocketSocketImplTest.RsServerSocket;
import org.sdp4j.rsocket.RsocketSocketImplTest.RsSocket;

/**
 * A close racing the drain of a shutdownInput wake-up (issue 23 item 4): a reader and a writer blocked on one
 * rsocket (the peer neither writes nor reads), then {@code shutdownInput()} and {@code close()} from a third thread,
 * a random few microseconds apart so that the rounds sweep the close across the writer's handling of the first
 * wake-up. The writer must leave within 2 s of the close every time: a close landing between the drain's "closing?"
 * check and its read of the eventfd was consumed, and the writer went back to rpoll with nothing left to wake it.
 * Rounds: {@code -Dsdp4j.test.raceRounds} (10,000; fewer in the VM, where a connection costs more).
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RsocketCloseRaceTest {
    static final int ROUNDS = Integer.getInteger("sdp4j.test.raceRounds", 10_000);
    static final long WOKEN_WITHIN_MS = 2_000;

    @BeforeAll
    static void available() {
        Assumptions.assumeTrue(Rsocket.isAvailable(), () -> "rsockets unavailable: " + Rsocket.unavailabilityCause());
    }

    @Test
    void aCloseAfterShutdownInputWakesTheBlockedWriterEveryTime() throws Exception {
        ExecutorService exec = Executors.newFixedThreadPool(3, r -> {
            Thread t = new Thread(r, "race");
            t.setDaemon(true);
            return t;
        });
        List<String> stuck = new ArrayList<>();
        int rounds = 0;
        try (RsServerSocket ss = RsServerSocket.bound()) {
            ss.setSoTimeout(10_000);
            byte[] big = new byte[1 << 20];
            for (int round = 0; round < ROUNDS && stuck.size() < 3; round++, rounds++) {
                Future<RsSocket> acc = exec.submit(ss::accept);
                RsSocket c = new RsSocket();
                c.setSendBufferSize(4096);
                c.connect(new InetSocketAddress(RsocketSocketImplTest.ADDRESS, ss.getLocalPort()), 10_000);
                try (RsSocket peer = acc.get(10, TimeUnit.SECONDS)) {
                    AtomicBoolean writing = new AtomicBoolean();
                    Future<Integer> reader = exec.submit(() -> c.getInputStream().read());
                    Future<?> writer = exec.submit(() -> {
                        writing.set(true);
                        c.getOutputStream().write(big); // the peer never reads: blocks once the buffers are full
                        return null;
                    });
                    while (!writing.get()) {
                        Thread.onSpinWait();
                    }
                    spinMicros(ThreadLocalRandom.current().nextInt(200));
                    c.shutdownInput();
                    spinMicros(ThreadLocalRandom.current().nextInt(60));
                    c.close();
                    if (!ends(writer)) {
                        stuck.add("round " + round + ": the writer still blocked " + WOKEN_WITHIN_MS
                                + " ms after close()");
                    }
                    if (!ends(reader)) {
                        stuck.add("round " + round + ": the reader still blocked " + WOKEN_WITHIN_MS
                                + " ms after shutdownInput() and close()");
                    }
                } finally {
                    c.close();
                }
                // the peer's close above releases a thread left blocked by a lost wake-up
            }
        } finally {
            exec.shutdownNow();
        }
        int ran = rounds;
        assertTrue(stuck.isEmpty(), () -> stuck.size() + " hung in " + ran + " rounds: " + stuck);
    }

    /** True when the task ended (normally or with an exception) within the bound. */
    private static boolean ends(Future<?> f) throws InterruptedException {
        try {
            f.get(WOKEN_WITHIN_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException expected) {
            // the writer's SocketException: the socket was closed under it
        } catch (TimeoutException e) {
            return false;
        }
        return true;
    }

    private static void spinMicros(int us) {
        long end = System.nanoTime() + us * 1000L;
        while (System.nanoTime() - end < 0) {
            Thread.onSpinWait();
        }
    }
}
