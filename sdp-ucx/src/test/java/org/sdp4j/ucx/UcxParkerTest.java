package org.sdp4j.ucx;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openucx.jucx.ucp.UcpWorker;
import org.sdp4j.ucp.UcpNative;

/**
 * {@link UcxParker}'s parks on a real UCX worker with nothing to deliver: a park bounded by the wait's tick is
 * untimed and only the poller's sweep ends it; a signal ends any park at once; a descriptor's stack of waiters does
 * not outlive its worker. On a virtual thread where the JDK has them (the parks are theirs), else a platform thread.
 * The {@code Future.get} bounds are hang guards, far above the bounds under test.
 */
@Timeout(120)
class UcxParkerTest {
    private static final long GUARD_S = 30;
    private ExecutorService threads;
    private UcpWorker worker;

    @BeforeEach
    void setUp() throws Exception {
        assertTrue(Ucx.isAvailable(), () -> "UCX: " + Ucx.unavailabilityCause());
        ExecutorService vts = UcxVirtualThreadTest.virtualThreads();
        threads = vts != null ? vts : Executors.newCachedThreadPool();
        worker = WorkerPool.take();
    }

    @AfterEach
    void tearDown() {
        threads.shutdownNow();
        if (worker != null) {
            WorkerPool.destroy(worker);
        }
    }

    /** Parks until a park happened (UCX may say "busy" first: progress, as UcxWait does); the worker's fd. */
    private int parkOnce(long nanos, boolean exact) throws Exception {
        long w = worker.getNativeId();
        for (int i = 0; i < 1000; i++) {
            int fd = UcpNative.arm(w); // the descriptor park arms (again: UCX allows it)
            if (fd >= 0 && UcxParker.park(this, w, nanos, exact)) {
                return fd;
            }
            UcpNative.progress(w);
        }
        throw new AssertionError("UCX said busy 1,000 times on an idle worker");
    }

    private <T> T within(Callable<T> c, String what) throws Exception {
        Future<T> f = threads.submit(c);
        try {
            return f.get(GUARD_S, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            f.cancel(true);
            throw new AssertionError(what + " still parked after " + GUARD_S + " s");
        }
    }

    @Test
    void aParkBoundedByTheTickEndsByThePollersSweep() throws Exception {
        // nothing will ever signal this worker: without the sweep the untimed park never ends
        within(() -> parkOnce(20_000_000L, false), "a park whose tick (20 ms) passed");
    }

    @Test
    void anExactParkEndsAtItsDeadline() throws Exception {
        within(() -> parkOnce(20_000_000L, true), "a park whose deadline (20 ms) passed");
    }

    @Test
    void aSignalEndsAParkLongBeforeItsBound() throws Exception {
        Future<Integer> parked = threads.submit(() -> parkOnce(3_600_000_000_000L, false)); // an hour
        Thread.sleep(200); // parked by then, most likely; a signal before the park makes the arm say busy: also ends it
        while (!parked.isDone()) { // ends when the park does; the test's @Timeout guards a park no signal ends
            UcpNative.signal(worker.getNativeId());
            Thread.sleep(50);
        }
        parked.get();
    }

    @Test
    void noStackOfWaitersOutlivesItsWorker() throws Exception {
        int fd = within(() -> parkOnce(20_000_000L, false), "a park whose tick (20 ms) passed");
        WorkerPool.destroy(worker); // its descriptor never turns ready again
        worker = null;
        long end = System.nanoTime() + GUARD_S * 1_000_000_000L;
        while (UcxParker.holds(fd) && System.nanoTime() - end < 0) {
            Thread.sleep(20);
        }
        assertFalse(UcxParker.holds(fd), "the poller still keeps the waiters of a destroyed worker's descriptor " + fd);
    }
}
