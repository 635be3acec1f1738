package org.sdp4j.ucx;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
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
 *       too ({@link Links#connect}), sends {@link Rendezvous#CONNECT} with its new id and returns the connection
 *       without waiting for an answer ({@link #reconnect}); with none (the server has not closed its side of the
 *       last connection yet, as right after a close) it makes a new pair: no connect waits for another
 *       connection's server;</li>
 *   <li>the listener's watchdog, on the CONNECT, queues a new connection for {@code accept} and answers
 *       {@link Rendezvous#ACCEPT} with its id ({@link #serveLocked}); a listener that closed or is full hangs up
 *       instead, and the client's connection fails as one reset in a closing TCP listener's backlog;</li>
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
    /** Client side: the id of the CONNECT whose ACCEPT has not come yet (its connection is in use already), or -1. */
    private int awaiting = -1;

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
     * and within the descriptor budget ({@link Descriptors#roomToKeep}: a kept end holds its worker's, about 8; an
     * application under a low {@code ulimit -n} must not run out for its own sockets because of them).
     */
    synchronized boolean keeps() {
        HandshakeServer s = server;
        return MAX_KEPT > 0 && !dead && !hungUp && KEPT.get() < MAX_KEPT && conn != null && !conn.remote
                && (key != null || s != null && s.isOpen()) && Descriptors.roomToKeep(KEPT.get());
    }

    /**
     * The closed connection's {@link UcxClose} after it sent KEEP: this end waits for the next connection. False
     * when the pair ended meanwhile (the close then goes on).
     */
    boolean park(UcxClose c) {
        synchronized (this) {
            if (dead || hungUp) {
                return false;
            }
            parked = c;
            parkedAt = System.nanoTime();
            KEPT.incrementAndGet();
            Links.parked(this);
            notifyAll(); // a CONNECT that came between our KEEP and this park waits for it (connectRequested)
            if (key != null) {
                Links.offer(this);
                return true;
            }
        }
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

    /**
     * Listener side: a client's CONNECT, served before the watchdog reads on. The client does not wait for our
     * ACCEPT, so what follows the CONNECT on this socket (its FIN, its KEEP) is the new connection's and must find it
     * made. The client sends CONNECT only after our KEEP, and our closing thread parks this end right after writing
     * that KEEP: the wait for the park is that moment (bounded; a pair whose end does not park ends).
     */
    private boolean connectRequested(long id) {
        UcxConnection next;
        synchronized (this) {
            if (dead || server == null || id < 0 || id > 0xFFFF || pendingConnect >= 0 || !peerKept) {
                return false;
            }
            long end = System.nanoTime() + UcxConnection.CLOSE_BOUND_NANOS;
            while (parked == null && !dead && !hungUp) {
                long left = end - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            if (parked == null) {
                return false;
            }
            pendingConnect = (int) id;
            next = serveLocked();
        }
        if (next == null) {
            // not taken (listener closed or full): the client already uses the connection and may send its FIN and
            // KEEP next, which must not reach the last one; false ends the pair and closes the socket now, so the
            // client learns at once
            return false;
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
            // what the client sent after its CONNECT is already the new connection's: drain left it in the adopt fields
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
     * Client side: the listener's ACCEPT (watchdog thread) for the CONNECT {@link #reconnect} sent; the connection
     * is in use already, the ACCEPT only confirms it (a listener that cannot take it hangs up instead).
     */
    private synchronized boolean accepted(long id) {
        if (awaiting < 0 || id < 0 || id > 0xFFFF) {
            return false;
        }
        awaiting = -1;
        return true;
    }

    /**
     * Client side, on an end taken from {@link Links} (its listener kept its side too): the next connection, on this
     * pair, at once. The last connection's unread bytes are discarded (the listener's marker and KEEP came, so they
     * are all here or on their way), then CONNECT goes out and the connection is returned without waiting for the
     * answer, as a TCP connect returns before the server's application accepts: the listener makes its side when the
     * CONNECT comes (its watchdog, at once), and what this side sends meanwhile waits in its worker. A listener that
     * closed or is full meanwhile hangs up instead of answering, and this connection then fails as a TCP connection
     * reset in a closing listener's backlog does. Null when the pair could not carry one (it is ended then); the
     * caller makes a new pair.
     */
    UcxConnection reconnect(long deadline) {
        int id = UcxConnection.IDS.incrementAndGet() & 0xFFFF;
        synchronized (this) {
            if (dead || hungUp || parked == null || !peerKept || awaiting >= 0) {
                return null;
            }
            String why = drain(parked.conn());
            if (why != null) {
                org.sdp4j.log.SdpLog.log(org.sdp4j.log.SdpLog.DEBUG, "sdp4j: ucx: a kept pair ends: " + why);
                teardownLocked();
                return null;
            }
            // the connection first: the watchdog may read the ACCEPT before the write below returns
            UcxConnection c = unpark(parked, id, -1);
            awaiting = id;
            try {
                Rendezvous.writeFully(control, message(Rendezvous.CONNECT, id), deadline);
                return c;
            } catch (IOException e) {
                // the listener hung up (closed, or its process is gone): nothing was sent, so its count is as ours
                c.peerGone(e.toString());
                c.close(); // never returned: its close ends the pair
                dead = true;
                return null;
            }
        }
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
        synchronized (this) {
            if (why == null && awaiting >= 0) { // it hung up instead of answering our CONNECT
                why = "the listener did not take this connection (it closed, or its queue was full)";
            }
        }
        conn.peerGone(why);
        synchronized (this) {
            hungUp = true;
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
