package org.sdp4j.contract;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * Waits until another thread is blocked in a socket or selector call, by looking at its stack, instead of sleeping
 * and hoping it is: a test that closes, interrupts or wakes a call that had not started yet passes while checking
 * nothing, and a loaded machine makes that likely.
 *
 * <p>A thread counts as blocked when it is inside the operation (a frame of {@code java.net}, {@code
 * java.nio.channels}, {@code sun.nio.ch}, sdp4j or jucx, called from the test's own frames) and its top frame
 * waits: parked ({@code Unsafe.park}, {@code LockSupport.park*}, a virtual thread's park), in {@code Object.wait},
 * blocked on a monitor, or in a native method that can wait. Transports wait differently: the JDK in native {@code
 * poll}, {@code read0}, {@code write0}, {@code accept}, {@code connect0} or {@code epoll_wait}; UCX busy-polls for
 * about 100 us, then sleeps in the native worker wait and wakes at its watchdog ticks; rsockets wait in native
 * {@code rpoll} or park and wake every 250 ms for a moment. So one sighting of the waiting state is enough ({@link
 * #awaitBlocked}); a writer that must have filled every buffer is watched until it stays put ({@link
 * #awaitStalled}).
 *
 * <p>The bound ({@link ContractBase#BOUND_S}) is against a hang, never a claim about speed.
 */
final class Blocked {
    /** How often the stack is sampled. */
    private static final long SAMPLE_MS = 2;
    /** Consecutive sightings, without progress, that make a writer "stalled" (buffers full) rather than copying. */
    private static final int STALLED_SIGHTINGS = 3;
    private static final AtomicInteger IDS = new AtomicInteger();

    private Blocked() {}

    /** A call on a thread of its own (so a test can watch that thread), and the call's result. */
    static final class Call<T> extends FutureTask<T> {
        final Thread thread;

        private Call(Callable<T> c) {
            super(c);
            thread = new Thread(this, "contract-blocking-" + IDS.incrementAndGet());
            thread.setDaemon(true); // a broken transport may leave it blocked: it must not keep the JVM alive
        }
    }

    /** Starts {@code c} on a new daemon thread. */
    static <T> Call<T> call(Callable<T> c) {
        Call<T> call = new Call<>(c);
        call.thread.start();
        return call;
    }

    /** Returns once {@code call}'s thread was seen blocked in its socket or selector call. */
    static void awaitBlocked(Call<?> call, String what) throws InterruptedException {
        awaitBlocked(call.thread, call, what);
    }

    /**
     * Returns once {@code t} was seen blocked in its socket or selector call; fails naming {@code what} and the stack
     * if it ends first ({@code outcome}, if not null, says how) or is not blocked within the bound.
     */
    static void awaitBlocked(Thread t, Future<?> outcome, String what) throws InterruptedException {
        await(t, outcome, null, 1, what);
    }

    /**
     * For a writer to a peer that reads nothing: returns once {@code call}'s thread was seen blocked in its write on
     * several consecutive samples while {@code progress} (bytes the writer got rid of, or any count that moves while
     * it writes) stayed the same: its buffers are full. One sighting could be a write still copying in native code.
     */
    static void awaitStalled(Call<?> call, LongSupplier progress, String what) throws InterruptedException {
        await(call.thread, call, progress, STALLED_SIGHTINGS, what);
    }

    private static void await(Thread t, Future<?> outcome, LongSupplier progress, int sightings, String what)
            throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(ContractBase.BOUND_S);
        int seen = 0;
        long before = 0;
        StackTraceElement[] stack = {};
        while (true) {
            Thread.State state = t.getState();
            if (state == Thread.State.TERMINATED) {
                throw new AssertionError(what + ": the call ended instead of blocking" + ended(outcome));
            }
            stack = t.getStackTrace(); // empty while the thread is not started yet
            long now = progress == null ? 0 : progress.getAsLong();
            if (!blocked(state, stack)) {
                seen = 0;
            } else if (seen == 0 || now == before) {
                seen++;
            } else {
                seen = 1; // blocked again, but it moved bytes since the last sighting: start counting anew
            }
            if (seen >= sightings) {
                return;
            }
            before = now;
            if (System.nanoTime() - end >= 0) {
                break;
            }
            Thread.sleep(SAMPLE_MS); // the sampling interval of this poll, not a settle
        }
        StringBuilder b = new StringBuilder(what).append(": not blocked in the call within ")
                .append(ContractBase.BOUND_S).append(" s (").append(t).append(", ").append(t.getState())
                .append("); its stack:");
        for (StackTraceElement e : stack) {
            b.append("\n\tat ").append(e);
        }
        throw new AssertionError(b.toString());
    }

    /** A state that can be read directly ({@code available()} and the like). */
    @FunctionalInterface
    interface Condition {
        boolean holds() throws java.io.IOException;
    }

    /** Polls {@code c} at the sampling interval until it holds; an AssertionError naming {@code what} at the bound. */
    static void until(Condition c, String what) throws java.io.IOException, InterruptedException {
        long end = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(ContractBase.BOUND_S);
        while (!c.holds()) {
            if (System.nanoTime() - end >= 0) {
                throw new AssertionError(what + ": not so within " + ContractBase.BOUND_S + " s");
            }
            java.util.concurrent.locks.LockSupport.parkNanos(SAMPLE_MS * 1_000_000L);
        }
    }

    private static String ended(Future<?> outcome) {
        if (outcome == null || !outcome.isDone()) {
            return "";
        }
        try {
            return ": it returned " + outcome.get();
        } catch (ExecutionException e) {
            return ": it threw " + e.getCause();
        } catch (Exception e) {
            return ": " + e;
        }
    }

    /** Waiting at the top, and inside the operation below the test's own frames. */
    static boolean blocked(Thread.State state, StackTraceElement[] stack) {
        if (stack.length == 0) {
            return false;
        }
        if (state != Thread.State.BLOCKED && !waits(stack[0])) {
            return false;
        }
        for (StackTraceElement e : stack) {
            String c = e.getClassName();
            if (isTest(c)) {
                return false; // reached the test's own code without passing through the operation
            }
            if (c.startsWith("java.net.") || c.startsWith("java.nio.channels.") || c.startsWith("sun.nio.ch.")
                    || c.startsWith("org.sdp4j.") || c.startsWith("org.openucx.")) {
                return true;
            }
        }
        return false;
    }

    /** The contract suite and its per-transport subclasses and fixtures (org.sdp4j.contract, org.sdp4j.*.contract). */
    private static boolean isTest(String className) {
        return className.startsWith("org.sdp4j.") && className.contains(".contract.");
    }

    /** A top frame that waits: parked, in Object.wait or Thread.sleep, or in a native method that can block. */
    private static boolean waits(StackTraceElement top) {
        String c = top.getClassName();
        String m = top.getMethodName();
        switch (c) {
            case "jdk.internal.misc.Unsafe":
                return m.equals("park");
            case "java.util.concurrent.locks.LockSupport":
                return m.startsWith("park");
            case "java.lang.VirtualThread":
                return m.startsWith("park") || m.startsWith("yield"); // an unmounted virtual thread
            case "jdk.internal.vm.Continuation":
                return m.startsWith("yield");
            case "java.lang.Object":
                return m.startsWith("wait");
            case "java.lang.Thread":
                return m.startsWith("sleep"); // native in 17; a transport may nap between polls
            default:
                break;
        }
        if (!top.isNativeMethod()) {
            return false;
        }
        if (c.startsWith("sun.nio.ch.")) {
            // the JDK's blocking natives (Net.poll, Net.accept, Net.connect0, SocketDispatcher.read0/write0,
            // EPoll.wait, ...), not the quick ones met on the way in (NativeThread.current, IOUtil.fdVal, Net.socket0)
            return !c.equals("sun.nio.ch.NativeThread") && !c.equals("sun.nio.ch.IOUtil")
                    && m.matches("(?i)(poll|accept|connect|read|write|wait|select).*");
        }
        if (c.startsWith("java.") || c.startsWith("jdk.") || c.startsWith("sun.")) {
            return false; // Unsafe's memory natives, Thread.yield, Object.hashCode...: never a wait
        }
        // a transport's own native wait (jucx's worker wait and progress, rsockets' rpoll): names differ per transport
        return true;
    }
}
