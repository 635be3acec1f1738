package org.sdp4j.ucx;

import java.io.IOException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpWorker;
import org.sdp4j.ucp.UcpNative;

/**
 * One connection's calls into its UCX worker and how it waits for them: the data path's stream sends and receives,
 * progress and sleeps, through libsdp4j's own libucp calls ({@link UcpNative}) on the handles jucx made, so that a
 * round trip allocates nothing and UCX never calls back into Java; and {@link #await}: busy progress for
 * {@code sdp4j.ucx.poll} microseconds, adapted per wait, then asleep in the worker (or parked, on a virtual thread).
 *
 * <p>An operation is a {@code long}: a request handle while it runs ({@link #completed}, then {@link #sent} or
 * {@link #received}, which give it back to UCX), or {@link UcpNative#DONE} plus its byte count when it completed at
 * once (most sends and receives over shared memory).
 */
final class UcxWait {
    static final long SPIN_NANOS = org.sdp4j.transport.Props.intProperty("sdp4j.ucx.poll", 100, 0) * 1000L;
    /**
     * The busy-poll bound of a connection on this host (shared memory): {@link #SPIN_NANOS}, except on one CPU, where
     * the peer cannot answer while this thread spins. From issue 18's third pass to its eleventh a local connection
     * did not spin on fewer than 4 CPUs: on two, H2's INSERTs over UCX then had millisecond stalls (spinning threads
     * off their CPU for a time slice). Measured again on the eleventh pass's code (benchmarks/README.md) the spin
     * made H2 2-3x as fast as TCP on an idle machine, with no stall, and a 64 B round trip 2.3x {@code
     * ucx_perftest}'s; under two busy JVMs the stalls came back (whole 100 ms iterations at 0.5-2.4 ms a statement).
     * So a local spin is bounded three ways: none while more threads are runnable than CPUs ({@link #await}), at most
     * {@link #LOCAL_SPINNERS} at once, and the budget {@link #adapt}s. {@code sdp4j.ucx.poll=0} turns it off.
     */
    static final long LOCAL_SPIN_NANOS = Runtime.getRuntime().availableProcessors() >= 2
            || System.getProperty("sdp4j.ucx.poll") != null ? SPIN_NANOS : 0;
    /**
     * Threads of this process that may busy-poll local connections at once ({@code sdp4j.ucx.spinners}, default the
     * CPUs); a wait that finds them all spinning sleeps at once. Ten Derby server threads that each spun for their
     * pooled connection's next request took the CPUs their clients needed (a HikariCP pool 1.3x as slow as TCP).
     */
    static final int LOCAL_SPINNERS = org.sdp4j.transport.Props.intProperty("sdp4j.ucx.spinners",
            Runtime.getRuntime().availableProcessors(), 1);
    private static final AtomicInteger SPINNERS = new AtomicInteger();

    /** Places of {@link #LOCAL_SPINNERS} taken now (tests: every wait gives its place back, however it ends). */
    static int spinning() {
        return SPINNERS.get();
    }
    /** A virtual thread's busy-poll bound: its carrier serves other virtual threads after that. */
    static final long VIRTUAL_SPIN_NANOS = Math.min(SPIN_NANOS,
            org.sdp4j.transport.Props.intProperty("sdp4j.ucx.poll.virtual", 20, 0) * 1000L);
    /**
     * A sleep in the worker never outlasts this (doubling per sleep of one wait, from the first): UCX 1.13 can
     * leave every side of a connection asleep with data still to move (an 8 MiB NIO echo over posix/cma hung so,
     * one run in ten, each side in ucp_worker_wait), so each sleep is a timed poll on the worker's descriptor. A
     * lost wake-up is rare: sdp-ucx's suites with a 1 s bound saw one in two million sleeps; it costs this bound.
     * The first bound is 100 ms ({@code sdp4j.ucx.tick}, µs). Every bound that ends on an idle connection is a
     * wake-up, a progress and an arm for nothing: with 10 ms, 1,000 echo threads idle between bursts of requests
     * woke three to four times in each 145 ms gap, and 1,000 connections' round trips went 1.3-1.7x as fast with 100
     * ms (benchmarks/README.md, issue 18, fourteenth pass); a database connection idle between requests pays the
     * same. Shorter was dearer still: each sleep arms a timer that is then the CPU's next, and arming and
     * cancelling it reprograms a hardware timer (on this VM a trap to the host): with 50 µs, as before the ninth
     * pass, a 64 B ping-pong of platform threads cost 4x TCP's CPU per round trip.
     */
    static final long FIRST_TICK_NANOS = org.sdp4j.transport.Props.intProperty("sdp4j.ucx.tick", 100_000, 1) * 1000L;
    /** A thread's nap when UCX will not let it sleep or park (await): short, it waits for a peer's reader to run. */
    private static final long BUSY_NAP_NANOS = 50_000;
    /** Turns in a row a thread yields when UCX will not let it sleep or park, before it naps instead (await). */
    private static final int BUSY_TURNS = 64;
    /**
     * Turns in a row a platform thread goes straight round when UCX will not let it sleep, before it yields (await;
     * {@code sdp4j.ucx.busy.retries}): a refusal is mostly data that came between the progress and the arm, which the
     * next progress takes. Yielding at the first one made the Db2 driver's pool 1.24x as slow (Derby's server
     * threads are platform threads); going round 8 times made 256-1,000 platform threads' round trips slower
     * (benchmarks/README.md, issue 18, eleventh pass).
     */
    static final int BUSY_RETRIES = org.sdp4j.transport.Props.intProperty("sdp4j.ucx.busy.retries", 1, 0);
    private static final long LAST_TICK_NANOS = 1_000_000_000;

    private final UcxConnection conn;
    /** jucx's worker and endpoint as UCX's own handles (ucp_worker_h, ucp_ep_h), for {@link UcpNative}. */
    private final long worker, ep;
    /**
     * Threads asleep in this connection's worker ({@link #sleep}): the worker's count, shared by every connection
     * on it (a shared link's), since one's progress can consume the event another sleeps for.
     */
    private final AtomicInteger sleepers;
    /** This connection's current busy-poll budget, adapted per wait (readers and writers, under their locks). */
    private volatile long spinNanos = SPIN_NANOS;
    /** Waits counted while the budget is spent (its probes: {@link #budget}); a race loses a count, no more. */
    private int waits;
    /** A spent budget spins in full once per this many waits (a power of two). */
    static final int PROBE_WAITS = 64;

    UcxWait(UcxConnection conn, UcpWorker worker, UcpEndpoint ep, AtomicInteger sleepers) {
        this.conn = conn;
        this.sleepers = sleepers;
        this.worker = worker.getNativeId();
        this.ep = ep.getNativeId();
    }

    /**
     * A UCX status in words ({@code ucs/type/status.h}): a program's log should say "connection reset by the peer's
     * UCX", not "-25". Across hosts a peer whose device or queue pair died resets the stream this way.
     */
    static String status(int s) {
        String name = switch (s) {
            case -3 -> "UCS_ERR_IO_ERROR";
            case -6 -> "UCS_ERR_UNREACHABLE";
            case -14 -> "UCS_ERR_NO_DEVICE";
            case -16 -> "UCS_ERR_CANCELED";
            case -20 -> "UCS_ERR_TIMED_OUT";
            case -23 -> "UCS_ERR_REJECTED";
            case -24 -> "UCS_ERR_NOT_CONNECTED";
            case -25 -> "UCS_ERR_CONNECTION_RESET (the peer's side of the connection was torn down)";
            case -80 -> "UCS_ERR_ENDPOINT_TIMEOUT (the transport gave up on the peer)";
            default -> s <= -40 && s >= -59 ? "a link failure" : s <= -60 && s >= -89 ? "an endpoint failure" : null;
        };
        return "status " + s + (name != null ? " " + name : "");
    }

    void signal() {
        SharedLink shared = conn.shared;
        if (shared != null) {
            shared.waits.wake(conn); // its virtual threads parked on the link
        }
        UcpNative.signal(worker); // a destroyed worker is never signalled: close signals before release
    }

    /** Posts a stream send of [addr, addr+n): a request handle, or {@link UcpNative#DONE} + n when it completed. */
    long send(long addr, long n) throws IOException {
        long op = UcpNative.send(ep, addr, n);
        if (op < 0) {
            throw new SocketException("UCX stream send failed: " + status((int) op));
        }
        return op;
    }

    /** Posts a stream receive into [addr, addr+n): a request handle, or {@link UcpNative#DONE} + bytes received. */
    long recv(long addr, long n) throws IOException {
        long op = UcpNative.recv(ep, addr, n);
        if (op < 0) {
            throw new SocketException("UCX stream receive failed: " + status((int) op));
        }
        return op;
    }

    /** Whether operation {@code op} (a handle or a DONE result) has completed. */
    static boolean completed(long op) {
        return (op & UcpNative.DONE) != 0 || UcpNative.status(op) != UcpNative.IN_PROGRESS;
    }

    /** A completed send: 0, or the UCX status it failed with; its request, if any, goes back to UCX. */
    static int sent(long op) {
        if ((op & UcpNative.DONE) != 0) {
            return 0;
        }
        int s = UcpNative.status(op);
        UcpNative.free(op);
        return s;
    }

    /** A completed receive: the bytes it received, or the UCX status it failed with (negative); request freed. */
    static long received(long op) {
        if ((op & UcpNative.DONE) != 0) {
            return op & ~UcpNative.DONE;
        }
        long n = UcpNative.received(op); // its length, or its failure: the status test is in there
        UcpNative.free(op);
        return n;
    }

    /** The request an operation left running, or 0 when it completed at once (nothing to test or free). */
    static long request(long op) {
        return (op & UcpNative.DONE) == 0 ? op : 0;
    }

    /** Gives a request back to UCX whatever its state (one still running is released when it completes). */
    static void abandon(long op) {
        if (request(op) != 0) {
            UcpNative.free(op);
        }
    }

    /**
     * Sleeps in the worker unless {@code op} completed meanwhile, at most {@code nanos}; a virtual thread parks
     * instead ({@link UcxParker}: its poller watches the worker's descriptor). A reader and a writer of
     * one connection may both be in the worker: one's progress can complete the other's request and consume the
     * event that would have woken it (an 8 MiB echo hung so), so a progress that did something signals the worker
     * while anyone sleeps in it, and a sleeper re-checks its request after announcing itself: one of the two always
     * sees the other. The sleep is bounded here, in the poll on the worker's event descriptor: UCX 1.13 can lose a
     * wake-up, and the deadline of a read is this thread's to keep. False when it could not sleep or park because
     * UCX would not arm the worker (events due, or a send pending: {@link #await} decides).
     */
    private boolean sleep(long op, long nanos, boolean virtual, boolean reading, boolean exact) throws IOException {
        SharedLink shared = conn.shared;
        if (virtual && shared != null) {
            return shared.waits.park(conn, op, Math.max(1, nanos), reading); // woken for its own request only (see there)
        }
        sleepers.incrementAndGet();
        try {
            if (completed(op)) {
                return true;
            }
            if (virtual) {
                return UcxParker.park(conn, worker, Math.max(1, nanos), exact);
            }
            int s = UcpNative.await(worker, (int) Math.max(1, (nanos + 999) / 1000));
            if (s < 0) {
                throw new SocketException("UCX worker wait failed: " + status(s));
            }
            return s != 2; // 2: not armed (busy), as a virtual thread's park that could not happen
        } finally {
            sleepers.decrementAndGet();
        }
    }

    int progress() {
        int n = UcpNative.progress(worker);
        if (n != 0) {
            if (sleepers.get() > 0) {
                UcpNative.signal(worker); // see sleep(): the event this progress consumed may have been another's
            }
            SharedLink shared = conn.shared;
            if (shared != null) {
                shared.waits.wakeCompleted(); // the virtual threads parked on the link whose requests this completed
            }
        }
        return n;
    }

    /**
     * Waits (naps, at most {@link #VERDICT_NANOS} and not past {@code deadline}) until the control channel said how
     * the peer ended: its end-of-stream marker, or a hang-up. True when it did.
     */
    boolean peerVerdict(long deadline) {
        long end = System.nanoTime() + VERDICT_NANOS;
        if (deadline != 0 && deadline - end < 0) {
            end = deadline;
        }
        while (conn.peerSent < 0 && conn.gone == null) {
            if (System.nanoTime() - end > 0 || conn.isClosed()) {
                return false;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L);
        }
        return true;
    }

    /** How long a failed receive across hosts waits for the peer's end-of-stream marker (its TCP may lag UCX). */
    private static final long VERDICT_NANOS = 10_000_000_000L;

    /**
     * Waits for {@code r}: busy progress for the poll time, then asleep in the worker until UCX, the watchdog
     * (end-of-stream, hang-up) or close wakes it, or the sleep's bound (the deadline, or a tick of 100 ms doubling to
     * 1 s) ends it. Returns false when a read cannot complete: the peer
     * finished or is gone (after a last look for data already on its way).
     *
     * <p>A virtual thread never sleeps in the worker (the poll is native and would pin its carrier:
     * with two carriers, two blocked readers starved the writers they waited for). It spins for at most
     * {@link #VIRTUAL_SPIN_NANOS}, then parks ({@link UcxParker}) with the same bounds, so its carrier serves other
     * virtual threads; an interrupt then closes the socket, as the JDK's sockets do.
     */
    boolean await(long r, boolean reading, long deadline) throws IOException {
        long start = System.nanoTime();
        boolean virtual = org.sdp4j.transport.Threads.onVirtualThread();
        long max = conn.remote ? SPIN_NANOS : LOCAL_SPIN_NANOS;
        long budget = max == 0 ? 0 : budget();
        long spin = Math.min(max, virtual ? Math.min(budget, VIRTUAL_SPIN_NANOS) : budget);
        boolean token = false; // one of the process's LOCAL_SPINNERS, held while this wait spins
        if (spin > 0 && !conn.remote) {
            // no spin while more threads are runnable than CPUs: a spinner then holds a CPU its peer or another
            // thread needs, and yielding it does not give it back for long (under two busy JVMs H2 had whole
            // 100 ms iterations at 0.5-2.4 ms a statement; with this, none above 0.12 ms: benchmarks/README.md,
            // issue 18, eleventh pass); asleep, it is woken by its data
            if (org.sdp4j.transport.SpinPolicy.oversubscribed()) {
                spin = 0;
            } else if (SPINNERS.incrementAndGet() <= LOCAL_SPINNERS) {
                token = true;
            } else {
                SPINNERS.decrementAndGet();
                spin = 0;
            }
        }
        long spinEnd = start + spin;
        long tick = FIRST_TICK_NANOS;
        boolean slept = false;
        int busy = 0; // turns in a row, with no progress, that UCX would not let this thread sleep or park
        try {
            while (!completed(r)) {
                if (conn.isClosed()) {
                    throw new SocketException("Socket closed");
                }
                if (progress() != 0) {
                    busy = 0;
                    continue;
                }
                if (reading && (conn.in.shutdown || conn.finished())) {
                    return false;
                }
                if (!reading && (conn.closedByPeer || conn.peerClosed)) {
                    throw new SocketException("Broken pipe: the peer closed the connection");
                }
                if (conn.gone != null) {
                    for (int i = 0; i < 64 && !completed(r); i++) {
                        progress();
                    }
                    if (completed(r)) {
                        return true;
                    }
                    if (reading) {
                        return false;
                    }
                    throw new SocketException("Broken pipe: " + conn.gone);
                }
                String failed = conn.endpointError;
                if (failed != null) {
                    for (int i = 0; i < 64 && !completed(r); i++) {
                        progress();
                    }
                    if (completed(r)) {
                        return true;
                    }
                    if (reading && peerVerdict(deadline) && conn.finished()) {
                        return false; // the peer closed in order: its marker says all its bytes are here
                    }
                    conn.peerGone("the UCX endpoint failed: " + failed);
                    if (reading) {
                        return false;
                    }
                    throw new SocketException("Connection reset: the UCX endpoint failed: " + failed);
                }
                long now = System.nanoTime();
                if (deadline != 0 && now - deadline >= 0) {
                    throw new SocketTimeoutException("Read timed out");
                }
                if (now - spinEnd < 0 && (conn.remote || !org.sdp4j.transport.SpinPolicy.oversubscribed(now))) {
                    // a local connection's spin ends while more threads are runnable than CPUs (below); it has
                    // just asked, so its turn is the one of a spin that need not give its CPU away
                    org.sdp4j.transport.SpinPolicy.pause(false, true);
                    continue;
                }
                slept = true;
                if (token) {
                    token = false;
                    SPINNERS.decrementAndGet();
                }
                // woken by UCX, by close, by the watchdog (end-of-stream, hang-up), at the deadline or at the tick
                boolean exact = deadline != 0 && deadline - now < tick; // else the tick: see UcxParker.park
                long bound = exact ? deadline - now : tick;
                if (sleep(r, bound, virtual, reading, exact)) {
                    busy = 0;
                } else if (++busy <= BUSY_RETRIES && !virtual) {
                    continue; // the events that kept it awake, most likely: progress them (a carrier yields at once)
                } else if (busy < BUSY_TURNS) {
                    Thread.yield(); // other threads first: the peer's reader may be one of them
                } else {
                    // UCX's arm says "busy" when events are due, and also for as long as any send of the worker is
                    // pending, as one is while the peer's FIFO is full, which only the peer's reader clears: after a
                    // few turns, nap rather than take the CPU or carrier round again (two such virtual writers kept
                    // both carriers, and their readers, virtual threads of this process, never ran:
                    // UcxVirtualThreadTest.writersWaitingOnAFullPeerLeaveTheCarriersToItsReaders; a platform writer
                    // went round arm and progress on a CPU of two that the peer's reader needed)
                    java.util.concurrent.locks.LockSupport.parkNanos(conn, Math.min(bound, BUSY_NAP_NANOS));
                }
                tick = Math.min(2 * tick, LAST_TICK_NANOS);
                if (virtual && Thread.currentThread().isInterrupted() && !conn.isClosed()) {
                    // the JDK closes a socket whose virtual thread is interrupted in I/O: java.net.Socket does
                    // that itself (and says "Closed by interrupt") on an InterruptedIOException from its impl
                    conn.close();
                    throw new java.io.InterruptedIOException("Closed by interrupt");
                }
            }
        } finally {
            if (token) {
                SPINNERS.decrementAndGet();
            }
        }
        if (spin > 0) {
            adapt(slept, System.nanoTime() - start);
        }
        return true;
    }

    /**
     * Adaptive busy-poll, as the JVM spins on a lock: a wait the spin ended keeps (and grows back) the budget, a
     * wait that outlasted it halves it, so request/response traffic with long server think times (a JDBC INSERT, a
     * pooled connection's next request) stops burning a CPU the peer needs, while a ping-pong keeps the full {@code
     * sdp4j.ucx.poll}. A budget halved to nothing spins in full once every {@link #PROBE_WAITS} waits, to notice
     * that the traffic changed. (Until issue 18's eleventh pass a wait that came within two spins reset the budget
     * to the full spin, so a pooled connection whose next request comes a little later spun in full before each;
     * measured only together with {@link #LOCAL_SPINNERS}, which is what made the pool TCP's equal again.)
     */
    private void adapt(boolean slept, long waitedNanos) {
        long s = spinNanos;
        if (!slept) {
            spinNanos = Math.min(SPIN_NANOS, Math.max(2 * s, waitedNanos * 2 + 1000));
        } else {
            spinNanos = s / 2;
        }
    }

    /** The spin budget of this wait: the adapted one, or the full one every {@link #PROBE_WAITS} waits. */
    private long budget() {
        long s = spinNanos;
        return s < 1000 && (++waits & (PROBE_WAITS - 1)) == 0 ? SPIN_NANOS : s;
    }
}
