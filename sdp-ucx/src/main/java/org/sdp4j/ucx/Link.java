package org.sdp4j.ucx;

import java.io.IOException;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.openucx.jucx.UcxUtils;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpWorker;
import org.sdp4j.ucp.UcpNative;

/**
 * A UCX endpoint pair and its rendezvous socket, kept from one connection to the next between two processes of one
 * account. Making a pair is most of a local connect (the rendezvous, the checks, an endpoint and a wire-up exchange
 * each side: 0.8-1 ms where a TCP connect costs 0.13); carrying a new connection on a kept pair costs one message
 * and one answer on the Unix socket. The application sees a new connection either way: new ids, a new
 * {@link UcxConnection}, its own end-of-stream; nothing of the last connection's bytes reaches it.
 *
 * <p>After a connection's end-of-stream marker ({@link Rendezvous#FIN}), on the pair's rendezvous socket:
 * <ul>
 *   <li>a side whose connection closed cleanly, with no request left in flight, sends {@link Rendezvous#KEEP} and
 *       parks its end ({@link #park});</li>
 *   <li>a client connecting to the same listener again takes a parked end of its own whose listener kept its side
 *       too ({@link Links#connect}) and sends {@link Rendezvous#CONNECT} with its new id; with none (the server has
 *       not closed its side of the last connection yet, as right after a close) it makes a new pair: no connect
 *       waits for another connection's server;</li>
 *   <li>the listener, once its own end is parked and the client's KEEP came, queues a new connection for
 *       {@code accept} and answers {@link Rendezvous#ACCEPT} with its id ({@link #serveLocked}); a listener that closed,
 *       or whose end was not kept, hangs up instead, and the client makes a new pair as before;</li>
 *   <li>before a kept pair carries the next connection, each side discards what the peer sent on the last one that
 *       its application never read ({@link #drain}): the peer's marker counted it, and the peer flushed it first.</li>
 * </ul>
 * Either side ends a pair by hanging up (its idle bound, the cap, a protocol error); the other side's watchdog sees
 * the hang-up and closes its end. Only this process's own account can be at the other end: the pair was made by a
 * full rendezvous with its checks (docs/security-ucx.md), and a client still asks the kernel who owns the TCP
 * listener before it reuses one.
 */
final class Link extends Controlled {
    /** Ends kept at most in this process, both sides counted ({@code sdp4j.ucx.keep}; 0: no pair is kept). */
    static final int MAX_KEPT = org.sdp4j.transport.Props.intProperty("sdp4j.ucx.keep", 512, 0);
    /** How long a client keeps an idle end ({@code sdp4j.ucx.keep.idle}, ms); a listener keeps its ends twice that. */
    static final long IDLE_NANOS = org.sdp4j.transport.Props.intProperty("sdp4j.ucx.keep.idle", 5000, 1) * 1_000_000L;
    /** The most a side spends discarding the last connection's unread bytes (flushed before its marker: there). */
    private static final long DRAIN_NANOS = 50_000_000L;
    private static final AtomicInteger KEPT = new AtomicInteger();
    /** Connections carried by a kept pair, both sides counted (tests and the benchmarks' notes read it). */
    static final AtomicLong REUSED = new AtomicLong();

    final UcpWorker worker;
    final UcpEndpoint ep;
    /** The connection on the pair now, or its last one. */
    volatile UcxConnection conn;
    /** Listener side: the listener whose {@code accept} gets the pair's next connections; null on a client. */
    volatile HandshakeServer server;
    /** Client side: the listener's rendezvous path, the key its ends are kept under; null on a listener. */
    volatile Path key;
    /** The peer sent {@link Rendezvous#KEEP} for the last connection (read without the lock by {@link Links#take}). */
    volatile boolean peerKept;
    /** When this end was parked ({@link System#nanoTime}). */
    volatile long parkedAt;

    // guarded by this
    private UcxClose parked;
    private boolean hungUp, dead;
    private int pendingConnect = -1;
    /** Client side: the connector waiting for the answer to its CONNECT, and that CONNECT's id. */
    private CompletableFuture<UcxConnection> accepting;
    private int connecting;

    /** What {@link #drain} leaves the next connection: a receive posted into its staging, bytes already there. */
    private long adoptOp;
    private int adoptFrom, adoptTo;

    /** Threads asleep in the pair's worker ({@link UcxWait}). */
    final AtomicInteger sleepers = new AtomicInteger();

    Link(UcpWorker worker, UcpEndpoint ep, SocketChannel control) {
        super(control);
        this.worker = worker;
        this.ep = ep;
    }

    @Override
    int frame() {
        return 9;
    }

    @Override
    boolean control(ByteBuffer b) {
        return control(b.get(), b.getLong());
    }

    /** Ends parked in this process now. */
    static int kept() {
        return KEPT.get();
    }

    /**
     * Whether this end may be kept when its connection closes (asked before the KEEP goes out): not beyond the cap,
     * and only while the process uses under a quarter of its descriptor limit (a kept end holds its worker's, about
     * 8; an application under a low {@code ulimit -n} must not run out for its own sockets because of them).
     */
    synchronized boolean keeps() {
        HandshakeServer s = server;
        return MAX_KEPT > 0 && !dead && !hungUp && KEPT.get() < MAX_KEPT && conn != null && !conn.remote
                && (key != null || s != null && s.isOpen()) && Descriptors.roomToKeep();
    }

    /**
     * The closed connection's {@link UcxClose} after it sent KEEP: this end waits for the next connection. False
     * when the pair ended meanwhile (the close then goes on).
     */
    boolean park(UcxClose c) {
        UcxConnection next;
        synchronized (this) {
            if (dead || hungUp) {
                return false;
            }
            parked = c;
            parkedAt = System.nanoTime();
            KEPT.incrementAndGet();
            Links.parked(this);
            if (key != null) {
                Links.offer(this);
                return true;
            }
            next = pendingConnect >= 0 ? serveLocked() : null;
        }
        queue(next);
        return true;
    }

    /** One control message (watchdog thread); false: not the protocol, the caller ends the pair. */
    boolean control(byte type, long v) {
        UcxConnection c = conn;
        switch (type) {
            case Rendezvous.FIN -> c.peerFinished(v);
            case Rendezvous.CLOSED -> {
                if (v != 0) {
                    return false;
                }
                c.peerClosed();
            }
            case Rendezvous.KEEP -> {
                if (v != 0 || peerKept || c.peerSent < 0) { // a KEEP follows the connection's marker
                    return false;
                }
                peerKept = true;
                c.peerClosed(); // it reads no more: writes fail as on a TCP socket whose peer closed
            }
            case Rendezvous.CONNECT -> {
                return connectRequested(v);
            }
            case Rendezvous.ACCEPT -> {
                return accepted(v);
            }
            default -> {
                return false;
            }
        }
        return true;
    }

    /** Listener side: a client's CONNECT; served at once if this end is parked, else when it is. */
    private boolean connectRequested(long id) {
        UcxConnection next;
        synchronized (this) {
            if (dead || server == null || id < 0 || id > 0xFFFF || pendingConnect >= 0 || !peerKept) {
                return false;
            }
            pendingConnect = (int) id;
            if (parked == null) {
                return true; // our side of the last connection is still open or closing
            }
            next = serveLocked();
        }
        queue(next);
        return true;
    }

    /**
     * Listener side, this end parked and a CONNECT pending: the new connection, answered with ACCEPT; or null, the
     * pair ended (the listener closed or is full, the last connection's bytes could not be discarded).
     */
    private UcxConnection serveLocked() {
        HandshakeServer s = server;
        UcxClose old = parked;
        String why = !s.isOpen() ? "listener closed" : !s.hasRoom() ? "listener's queue full" : drain(old.conn());
        if (why == null) {
            int id = UcxConnection.IDS.incrementAndGet() & 0xFFFF;
            // the connection first: what the client sends after our ACCEPT is the new connection's
            UcxConnection c = unpark(old, id, pendingConnect);
            pendingConnect = -1;
            try {
                Rendezvous.writeFully(control, message(Rendezvous.ACCEPT, id),
                        System.nanoTime() + UcxConnection.CLOSE_BOUND_NANOS);
                return c;
            } catch (IOException e) {
                c.peerGone(e.toString());
                c.close(); // never queued: its close ends the pair
                dead = true;
                return null;
            }
        }
        org.sdp4j.log.SdpLog.log(org.sdp4j.log.SdpLog.DEBUG, "sdp4j: ucx: a kept pair ends: " + why);
        teardownLocked();
        return null;
    }

    private void queue(UcxConnection next) {
        if (next != null) {
            server.completed(next); // outside our lock: a listener's close closes its queue under its own
        }
    }

    /**
     * Client side: the listener's ACCEPT (watchdog thread). The next connection is made here, before the watchdog
     * reads on: what follows the ACCEPT on this socket (the listener may already close it) is the new connection's.
     */
    private synchronized boolean accepted(long id) {
        if (accepting == null || id < 0 || id > 0xFFFF || !peerKept || parked == null) {
            return false;
        }
        CompletableFuture<UcxConnection> f = accepting;
        accepting = null;
        String why = drain(parked.conn());
        if (why != null) {
            f.completeExceptionally(new SocketException(why));
            return false; // the pair ends: the listener sees the hang-up
        }
        f.complete(unpark(parked, connecting, (int) id));
        return true;
    }

    /**
     * Client side, on an end taken from {@link Links} (its listener kept its side too): asks the listener for a new
     * connection on this pair and waits for the answer, which the listener's watchdog makes at once: ACCEPT, or a
     * hang-up (listener closed, queue full). Null when the pair could not carry one (it is ended then); the caller
     * makes a new pair. The wait ends by {@code deadline} (the caller's connect bound).
     */
    UcxConnection reconnect(long deadline) {
        CompletableFuture<UcxConnection> f = new CompletableFuture<>();
        int id = UcxConnection.IDS.incrementAndGet() & 0xFFFF;
        synchronized (this) {
            if (dead || hungUp || parked == null || !peerKept || accepting != null) {
                return null;
            }
            accepting = f;
            connecting = id;
        }
        try {
            Rendezvous.writeFully(control, message(Rendezvous.CONNECT, id), deadline);
            return f.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (IOException | java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            // the listener hung up, or did not answer within the connect's bound: the pair ends
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        teardown();
        return null;
    }

    /** The pair's next connection, on the last one's staging buffers (under the lock, this end parked). */
    private UcxConnection unpark(UcxClose old, int id, int peerId) {
        parked = null;
        peerKept = false;
        KEPT.decrementAndGet();
        Links.unparked(this);
        REUSED.incrementAndGet();
        UcxConnection c = new UcxConnection(this, id, peerId, old.staging());
        c.in.adopt(adoptOp, adoptFrom, adoptTo);
        adoptOp = 0;
        return c;
    }

    /**
     * Discards what the peer sent on {@code last} that this side never read: the peer's marker counted it and it
     * was flushed before the marker, so it is in this worker's FIFO or on its way. A receive {@code last} left
     * posted takes part: bytes it brings beyond the last connection's are the next one's ({@link #adoptFrom}), and
     * one still waiting goes to the next connection as its own ({@link #adoptOp}). Null when done, else why not.
     */
    private String drain(UcxConnection last) {
        long left = last.peerSent - last.in.received;
        if (last.peerSent < 0 || left < 0) {
            return "the peer's byte count " + last.peerSent + " does not match the " + last.in.received + " received";
        }
        ByteBuffer b = last.in.staging();
        long addr = UcxUtils.getAddress(b);
        long end = System.nanoTime() + DRAIN_NANOS;
        long op = last.in.pending;
        adoptOp = 0;
        adoptFrom = adoptTo = 0;
        while (left > 0) {
            if (op == 0) {
                op = UcpNative.recv(ep.getNativeId(), addr, Math.min(left, b.capacity()));
                if (op < 0) {
                    return "discarding the last connection's unread bytes: " + UcxWait.status((int) op);
                }
                last.in.pending = UcxWait.request(op);
            }
            while (!UcxWait.completed(op)) {
                if (System.nanoTime() - end > 0) {
                    return "the last connection's unread bytes did not arrive"; // in.pending: the close sees it
                }
                if (UcpNative.progress(worker.getNativeId()) == 0) {
                    Thread.onSpinWait();
                }
            }
            last.in.pending = 0;
            long n = UcxWait.received(op);
            op = 0;
            if (n <= 0) {
                return "discarding the last connection's unread bytes: " + UcxWait.status((int) n);
            }
            if (n > left) { // the rest is the next connection's
                adoptFrom = (int) left;
                adoptTo = (int) n;
                n = left;
            }
            last.in.received += n;
            left -= n;
        }
        adoptOp = op;
        last.in.pending = 0;
        return null;
    }

    @Override
    void hangUp(String why) {
        conn.peerGone(why);
        synchronized (this) {
            hungUp = true;
            if (accepting != null) {
                accepting.completeExceptionally(new SocketException("the listener hung up"));
                accepting = null;
            }
            if (parked != null) {
                teardownLocked();
            }
        }
    }

    /** Ends the pair: a parked end closes now (the peer sees the hang-up); a connection on it closes as usual. */
    @Override
    synchronized void teardown() {
        teardownLocked();
    }

    private void teardownLocked() {
        if (dead) {
            return;
        }
        dead = true;
        Links.remove(this);
        UcxClose p = parked;
        if (p != null) {
            parked = null;
            KEPT.decrementAndGet();
            p.resume();
        }
    }

    static ByteBuffer message(byte type, long v) {
        return ByteBuffer.allocate(9).put(type).putLong(v).flip();
    }
}
