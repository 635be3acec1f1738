package org.sdp4j.ucx;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.openucx.jucx.ucp.UcpWorker;

/**
 * Closed connections still delivering what was written before the close ({@link UcxClose#settle}), each
 * worker progressed by one daemon thread that exists while any is left, so that a close returns at once, as a TCP
 * socket's does, on platform and virtual threads alike. A connection lingers until its peer acknowledged every byte
 * and the endpoint closed, its peer hung up, or {@code sdp4j.ucx.linger} milliseconds (default 30,000: RC's
 * retransmissions over a lossy wire) passed. At exit the JVM waits for them up to {@link #EXIT_MILLIS}.
 */
final class Linger {
    static final long MILLIS = org.sdp4j.transport.Props.intProperty("sdp4j.ucx.linger", 30_000, 0);
    /** The most a JVM's exit waits for connections still delivering (ms). */
    static final long EXIT_MILLIS = Math.min(MILLIS, 10_000);
    /** Idle rounds nap this long: a flush across hosts waits on acknowledgements, not on this thread. */
    private static final long NAP_NANOS = 200_000;

    private static final List<UcxClose> CLOSING = new ArrayList<>();
    private static final AtomicInteger ABANDONED = new AtomicInteger();
    private static Thread thread;
    private static boolean hooked;

    /** The lingering thread's name; it ends once no closed connection is left to settle. */
    static final String THREAD_NAME = Rendezvous.PREFIX + "linger";

    private Linger() {}

    static void add(UcxClose c) {
        synchronized (CLOSING) {
            CLOSING.add(c);
            if (thread == null) {
                thread = new Thread(Linger::run, THREAD_NAME);
                thread.setDaemon(true);
                thread.start();
            }
            if (!hooked) {
                hooked = true;
                try {
                    Runtime.getRuntime().addShutdownHook(new Thread(() -> await(EXIT_MILLIS), "sdp4j-ucx-linger-exit"));
                } catch (IllegalStateException exiting) {
                    // the JVM is already on its way out: nothing waits
                }
            }
        }
    }

    private static void run() {
        List<UcxClose> round = new ArrayList<>();
        while (true) {
            synchronized (CLOSING) {
                if (CLOSING.isEmpty()) {
                    thread = null;
                    CLOSING.notifyAll();
                    return;
                }
                round.clear();
                round.addAll(CLOSING);
            }
            for (UcxClose c : round) {
                boolean done;
                try {
                    done = c.settle();
                } catch (RuntimeException | Error e) {
                    done = true; // not expected; a connection that cannot settle must not stop the others
                }
                if (done) {
                    synchronized (CLOSING) {
                        CLOSING.remove(c);
                    }
                }
            }
            LockSupport.parkNanos(NAP_NANOS);
        }
    }

    /** Waits until no connection lingers, at most {@code millis}; true when none does. */
    static boolean await(long millis) {
        long end = System.nanoTime() + millis * 1_000_000L;
        synchronized (CLOSING) {
            while (!CLOSING.isEmpty()) {
                long left = end - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    CLOSING.wait(Math.max(1, left / 1_000_000L));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return CLOSING.isEmpty();
                }
            }
            return true;
        }
    }

    static int lingering() {
        synchronized (CLOSING) {
            return CLOSING.size();
        }
    }

    /** A worker whose forced endpoint close never completed: destroying it would abort the process, so it stays. */
    static void abandoned(UcpWorker w) {
        WorkerPool.forget(w);
        ABANDONED.incrementAndGet();
    }

    static int abandonedCount() {
        return ABANDONED.get();
    }
}
