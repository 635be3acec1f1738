package org.sdp4j.rsocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sdp4j.rsocket.RsocketSocketImplTest.Pair;

/**
 * Many platform threads blocked on rsockets at once (issue 13): a lone reader waits in its own rpoll (the fast path);
 * beyond {@link RsocketParker#DIRECT_WAITERS} of them further waits park on the poller, and then the direct ones
 * move there too (librdmacm wakes every rpoll-ing thread whenever one leaves: 1,000 threads each in its own rpoll
 * did not finish in the soft-RoCE VM). A parked platform waiter keeps the
 * semantics of the JDK's sockets on a platform thread: an interrupt neither ends the wait nor closes the socket (the
 * flag stays set), a close wakes it with "Socket closed", SO_TIMEOUT bounds it, and data reaches it. Over the TCP
 * shim on the host, over rsockets in the VM (run-all.sh step a).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RsocketPlatformParkTest {
    private static final int N = RsocketParker.DIRECT_WAITERS + 6;

    @BeforeAll
    static void available() {
        Assumptions.assumeTrue(Rsocket.isAvailable(), () -> "rsockets unavailable: " + Rsocket.unavailabilityCause());
    }

    /** The reader threads whose wait is parked on RsocketParker's poller (not in their own rpoll). */
    private static List<Integer> parked(Thread[] readers) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < readers.length; i++) {
            if (Arrays.stream(readers[i].getStackTrace()).anyMatch(f -> f.getClassName().equals(
                    RsocketParker.class.getName()) && f.getMethodName().equals("awaitMany"))
                    && readers[i].getState() != Thread.State.RUNNABLE) {
                out.add(i);
            }
        }
        return out;
    }

    private static List<Integer> awaitParked(Thread[] readers) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        List<Integer> p = parked(readers);
        while (p.size() < readers.length && System.nanoTime() - end < 0) {
            Thread.sleep(20);
            p = parked(readers);
        }
        assertEquals(readers.length, p.size(), "all readers parked, the " + RsocketParker.DIRECT_WAITERS
                + " direct ones included");
        return p;
    }

    /** A lone platform reader: in its own rpoll (Native.poll), not parked. */
    private static void assertDirect(Thread reader) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        boolean inPoll = false;
        while (!inPoll && System.nanoTime() - end < 0) {
            Thread.sleep(20);
            StackTraceElement[] st = reader.getStackTrace();
            inPoll = st.length > 0 && st[0].getClassName().equals(Native.class.getName())
                    && st[0].getMethodName().equals("poll");
        }
        assertTrue(inPoll, "a lone reader waits in its own rpoll: " + Arrays.toString(reader.getStackTrace()));
        assertTrue(parked(new Thread[] {reader}).isEmpty(), "and is not parked");
    }

    @Test
    void platformWaitsBeyondTheDirectOnesParkAndKeepTheirSemantics() throws Exception {
        List<Pair> pairs = new ArrayList<>();
        try {
            for (int i = 0; i < N; i++) {
                pairs.add(Pair.open());
            }
            AtomicReferenceArray<Object> got = new AtomicReferenceArray<>(N);
            boolean[] flagAfter = new boolean[N];
            Thread[] readers = new Thread[N];
            for (int i = 0; i < N; i++) {
                int k = i;
                readers[i] = new Thread(() -> {
                    try {
                        got.set(k, pairs.get(k).client.getInputStream().read());
                    } catch (IOException | RuntimeException e) {
                        got.set(k, e);
                    }
                    flagAfter[k] = Thread.currentThread().isInterrupted();
                }, "reader-" + i);
                readers[i].setDaemon(true);
                readers[i].start();
                if (i == 0) {
                    assertDirect(readers[0]);
                }
            }
            List<Integer> p = awaitParked(readers);
            int interrupted = p.get(0), closed = p.get(1);
            readers[interrupted].interrupt();
            pairs.get(closed).client.close();
            readers[closed].join(10_000);
            assertFalse(readers[closed].isAlive(), "a close wakes a parked reader");
            assertTrue(got.get(closed) instanceof SocketException, "closed: " + got.get(closed));
            assertEquals("Socket closed", ((SocketException) got.get(closed)).getMessage());
            readers[interrupted].join(300);
            assertTrue(readers[interrupted].isAlive(), "an interrupt does not end a platform thread's read");
            assertFalse(pairs.get(interrupted).client.isClosed(), "nor closes its socket");
            for (int i = 0; i < N; i++) {
                if (i != closed) {
                    pairs.get(i).server.getOutputStream().write(i + 1);
                }
            }
            for (int i = 0; i < N; i++) {
                readers[i].join(30_000);
                assertFalse(readers[i].isAlive(), "reader " + i + " got its byte");
                if (i != closed) {
                    assertEquals(i + 1, got.get(i), "reader " + i);
                }
            }
            assertTrue(flagAfter[interrupted], "the interrupt flag is kept");

            // SO_TIMEOUT bounds a parked wait as it bounds an rpoll
            for (int i = 0; i < N; i++) {
                if (i == closed) {
                    continue;
                }
                pairs.get(i).client.setSoTimeout(i < N / 2 ? 1_500 : 4_000);
                int k = i;
                readers[i] = new Thread(() -> {
                    try {
                        got.set(k, pairs.get(k).client.getInputStream().read());
                    } catch (IOException | RuntimeException e) {
                        got.set(k, e);
                    }
                }, "timed-reader-" + i);
                readers[i].setDaemon(true);
                readers[i].start();
            }
            readers[closed] = new Thread(() -> { }); // not started: never parked, never alive
            for (int i = 0; i < N; i++) {
                readers[i].join(30_000);
                assertFalse(readers[i].isAlive(), "reader " + i + " timed out");
                if (i != closed) {
                    assertTrue(got.get(i) instanceof SocketTimeoutException, "reader " + i + ": " + got.get(i));
                    assertFalse(pairs.get(i).client.isClosed());
                }
            }
            pairs.get(interrupted).server.getOutputStream().write(99);
            assertEquals(99, pairs.get(interrupted).client.getInputStream().read(), "usable after the timeout");
        } finally {
            for (Pair pr : pairs) {
                pr.close();
            }
        }
    }
}
