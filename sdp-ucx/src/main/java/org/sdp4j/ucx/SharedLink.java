package org.sdp4j.ucx;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import org.openucx.jucx.UcxUtils;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpEndpointParams;
import org.openucx.jucx.ucp.UcpWorker;
import org.sdp4j.ucp.UcpNative;

/**
 * A UCX worker pair shared by many connections between two processes of one account, each connection on an
 * endpoint pair of its own (docs/ucx-links.md). Made by a full rendezvous (every check of docs/security-ucx.md),
 * whose Unix socket stays the link's control channel; its first connection is that rendezvous's. A later
 * connection costs one {@link Rendezvous#CONNECT} and one {@link Rendezvous#ACCEPT} on that socket and an endpoint
 * each side — no worker, no thread hand-off on the client, no new descriptor.
 *
 * <p>UCX pairs two endpoints made from worker addresses by their order: the n-th endpoint one worker makes to the
 * other meets the n-th the other makes back. So a connection is named by that number {@code n} in every message
 * (13-byte frames: type, n, a long), the client makes its endpoint and writes its CONNECT under one lock, the
 * listener's watchdog reads the CONNECTs in that order and makes its endpoint for each, and a CONNECT whose number
 * is not the next one, or any message for a number the link does not know, ends the link: its counts might be apart,
 * and the next endpoint would carry another connection's bytes. The client's first 8 bytes on a new endpoint
 * ({@link #HELLO}, posted before its CONNECT so that UCX's wire-up rides the one message and its answer) are
 * discarded by the listener's reader.
 *
 * <p>A closed endpoint stays in its worker until the worker is destroyed (UCX keeps it for the peer's sends), so a
 * link takes {@link #MAX} connections and then retires: the next connect makes a new link, and this one ends, worker
 * destroyed and socket closed, once its last connection is released. A client's idle link ends after
 * {@link Link#IDLE_NANOS}. Either side's hang-up (the peer process died, or ended the link) resets every connection
 * still open on it that has not seen its peer's end-of-stream.
 */
final class SharedLink extends Controlled {
    /** Connections a link carries before it retires ({@code sdp4j.ucx.link.max}): ~30 kB of mappings each. */
    static final int MAX = org.sdp4j.transport.Props.intProperty("sdp4j.ucx.link.max", 512, 1);
    static final int FRAME = LinkFrames.FRAME;
    /** The client's first bytes on a new connection's endpoint (read-only for UCX: one buffer serves all). */
    private static final ByteBuffer HELLO = ByteBuffer.allocateDirect(8).putLong(0, Rendezvous.MAGIC);
    private static final long HELLO_ADDR = UcxUtils.getAddress(HELLO);
    static final int HELLO_BYTES = 8;
    /** How long an ending link progresses its worker for requests that connections never made left running. */
    private static final long ORPHAN_GRACE_NANOS = 2_000_000;
    /** Connections made on links beyond their first, both sides counted (tests and the benchmarks' notes). */
    static final java.util.concurrent.atomic.AtomicLong CARRIED = new java.util.concurrent.atomic.AtomicLong();

    final UcpWorker worker;
    /** Threads asleep in the worker, every connection's ({@link UcxWait}). */
    final AtomicInteger sleepers = new AtomicInteger();
    /** The peer's worker address, validated at the rendezvous (direct: UCX reads it). */
    private final ByteBuffer peerAddress;
    final boolean client;
    /** Listener side: the listener whose {@code accept} gets the link's connections; null on a client. */
    volatile HandshakeServer server;
    /** Client side: the listener's rendezvous path, the key the link is found by. */
    volatile Path key;
    /** Client side: an endpoint made and its CONNECT written in one order. */
    private final ReentrantLock order = new ReentrantLock();
    /** The control socket's writing side. */
    private final LinkFrames frames;
    /** Virtual threads parked on the worker. */
    final LinkWaits waits;

    /** One connection of the link, by its number. */
    private static final class Slot {
        UcxConnection conn;
        /** Client: the connect waiting for the listener's answer; its endpoint, id, staging and hello send. */
        CompletableFuture<UcxConnection> waiting;
        UcpEndpoint ep;
        int id;
        ByteBuffer[] staging;
        long hello;
        /** Client: its CONNECT went out (or failed); until then only the connecting thread settles the slot. */
        boolean asked;
        boolean released, peerClosed, sentClosed;
    }

    // guarded by this
    private int made;
    private final HashMap<Integer, Slot> slots = new HashMap<>();
    /** Connections made or being made, not yet released: the worker stays while there are any. */
    private int live;
    private boolean dead, retiring, abandonWorker, ended;
    private long idleSince = System.nanoTime();
    /** Requests left running on the worker by connections that never came to be; the worker waits for them. */
    private final List<Long> orphans = new ArrayList<>();
    /** Closes of endpoints whose connection never came to be (refused): the worker waits for them too. */
    private final List<org.openucx.jucx.ucp.UcpRequest> closing = new ArrayList<>();
    /** Receive staging a closed connection left a receive posted into: UCX may write there until the worker goes. */
    private final List<ByteBuffer> held = new ArrayList<>();

    SharedLink(UcpWorker worker, java.nio.channels.SocketChannel control, ByteBuffer peerAddress, boolean client) {
        super(control);
        this.worker = worker;
        this.peerAddress = peerAddress;
        this.client = client;
        this.frames = new LinkFrames(this);
        this.waits = new LinkWaits(worker);
    }

    /** The rendezvous's own connection, number 1. */
    synchronized UcxConnection first(UcpEndpoint ep, int id, int peerId, ByteBuffer[] staging) {
        UcxConnection c = new UcxConnection(this, ep, 1, id, peerId, staging);
        Slot s = new Slot();
        s.conn = c;
        slots.put(1, s);
        made = 1;
        live = 1;
        return c;
    }

    /** Client: whether a connect may still try this link. */
    synchronized boolean usable() {
        return !dead && !retiring && made < MAX;
    }

    @Override
    int frame() {
        return FRAME;
    }

    // ---- connect (client) ----

    /**
     * A new connection on this link, or null when the link could not carry it (ended, retired, refused by the
     * listener, or no answer by {@code deadline}: then the link ends). The caller makes a new link.
     */
    UcxConnection connect(long deadline) {
        if (!Staging.directRoom(2L * Staging.STAGING_INITIAL)) {
            return null;
        }
        ByteBuffer[] staging = {Staging.staging(), Staging.staging()};
        CompletableFuture<UcxConnection> f = new CompletableFuture<>();
        Slot s = new Slot();
        s.waiting = f;
        s.staging = staging;
        s.id = UcxConnection.IDS.incrementAndGet() & 0xFFFF;
        int n;
        order.lock();
        try {
            synchronized (this) {
                if (dead || retiring || made >= MAX) {
                    recycle(staging);
                    return null;
                }
                n = ++made;
                if (made >= MAX) {
                    retiring = true; // its last connection: the next connect makes a new link
                }
                live++;
                slots.put(n, s);
            }
            Exception failed = null;
            try {
                s.ep = worker.newEndpoint(new UcpEndpointParams().setUcpAddress(peerAddress));
                long op = UcpNative.send(s.ep.getNativeId(), HELLO_ADDR, HELLO_BYTES);
                if (op < 0) {
                    throw new IOException("hello: " + UcxWait.status((int) op));
                }
                s.hello = UcxWait.request(op);
                send(Rendezvous.CONNECT, n, s.id);
            } catch (IOException | RuntimeException e) {
                failed = e;
            }
            boolean gone;
            synchronized (this) {
                // from now on a hang-up settles this slot (hangUp); before, only this thread may: it was using
                // the worker, which the link's end must not destroy under it
                s.asked = true;
                gone = failed != null || dead;
                if (gone) {
                    slots.remove(n);
                    live--;
                    if (s.hello != 0) {
                        orphans.add(s.hello);
                        s.hello = 0;
                    }
                    recycle(staging);
                }
            }
            if (failed != null) {
                end("connection " + n + " could not be asked for: " + failed); // the counts may be apart now
                return null;
            }
            if (gone) {
                maybeEnd();
                return null;
            }
        } finally {
            order.unlock();
        }
        try {
            return f.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            if (!f.completeExceptionally(e)) {
                return f.getNow(null); // it came just now
            }
            end("no answer to connection " + n + " by the connect's deadline");
        } catch (ExecutionException e) {
            // the link ended meanwhile
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            if (!f.completeExceptionally(e)) {
                return f.getNow(null);
            }
            end("a connect was interrupted while its answer was due");
        }
        return null;
    }

    // ---- control messages (watchdog thread) ----

    @Override
    boolean control(ByteBuffer b) {
        byte type = b.get();
        int n = b.getInt();
        long v = b.getLong();
        return switch (type) {
            case Rendezvous.CONNECT -> !client && connectRequested(n, v);
            case Rendezvous.ACCEPT -> client && accepted(n, v);
            case Rendezvous.FIN -> finished(n, v);
            case Rendezvous.CLOSED -> v == 0 && peerClosed(n);
            default -> false;
        };
    }

    /** Listener: connection {@code n} asked for, the client's id {@code id}. */
    private boolean connectRequested(int n, long id) {
        HandshakeServer s = server;
        synchronized (this) {
            if (dead || s == null || n != made + 1 || n > MAX || id < 0 || id > 0xFFFF) {
                return false;
            }
            made = n;
            live++; // held while this thread uses the worker: a listener's close meanwhile must not destroy it
        }
        boolean taken = false; // the hold became the connection's
        try {
            UcpEndpoint ep;
            try {
                ep = worker.newEndpoint(new UcpEndpointParams().setUcpAddress(peerAddress));
                UcpNative.progress(worker.getNativeId()); // the client's wire-up, answered now
            } catch (RuntimeException e) {
                return false; // the counts are apart: the link ends
            }
            if (!s.isOpen() || !s.hasRoom() || !Staging.directRoom(2L * Staging.STAGING_INITIAL)) {
                try {
                    closeEndpoint(ep);
                    send(Rendezvous.ACCEPT, n, -1);
                    return true;
                } catch (IOException | RuntimeException e) {
                    return false;
                }
            }
            int myId = UcxConnection.IDS.incrementAndGet() & 0xFFFF;
            UcxConnection c = new UcxConnection(this, ep, n, myId, (int) id,
                    new ByteBuffer[] {Staging.staging(), Staging.staging()});
            c.in.skipHello(HELLO_BYTES);
            Slot slot = new Slot();
            slot.conn = c;
            synchronized (this) {
                if (dead) {
                    c.peerGone("the link ended");
                }
                slots.put(n, slot);
            }
            taken = true;
            CARRIED.incrementAndGet();
            try {
                send(Rendezvous.ACCEPT, n, myId);
            } catch (IOException e) {
                c.peerGone(e.toString());
                c.close();
                return false;
            }
            s.completed(c);
            return true;
        } finally {
            if (!taken) {
                synchronized (this) {
                    if (--live == 0) {
                        idleSince = System.nanoTime();
                    }
                }
                maybeEnd();
            }
        }
    }

    /** Client: the listener's answer to connection {@code n}: its id, or -1 (refused: closed or full). */
    private boolean accepted(int n, long v) {
        Slot s;
        UcxConnection c = null;
        synchronized (this) {
            s = slots.get(n);
            if (s == null || s.conn != null || s.waiting == null || v < -1 || v > 0xFFFF) {
                return false;
            }
            if (v < 0) {
                retiring = true; // its listener closed or is full: the next connect asks by a new rendezvous
                slots.remove(n);
                closeEndpoint(s.ep); // before the slot lets go of the worker: a release may end the link next
                live--;
                if (s.hello != 0) {
                    orphans.add(s.hello);
                }
                recycle(s.staging);
            } else {
                c = new UcxConnection(this, s.ep, n, s.id, (int) v, s.staging);
                c.out.pending = s.hello; // the first write, and the close, wait for it
                s.conn = c;
            }
        }
        if (c == null) {
            s.waiting.complete(null);
            maybeEnd();
            return true;
        }
        CARRIED.incrementAndGet();
        if (!s.waiting.complete(c)) {
            c.close(); // its connect gave up a moment ago
        }
        return true;
    }

    private boolean finished(int n, long total) {
        Slot s;
        synchronized (this) {
            s = slots.get(n);
        }
        if (s == null || s.conn == null || total < 0 || s.conn.peerSent >= 0) {
            return false;
        }
        s.conn.peerFinished(total);
        return true;
    }

    private boolean peerClosed(int n) {
        Slot s;
        synchronized (this) {
            s = slots.get(n);
            if (s == null || s.conn == null || s.peerClosed) {
                return false;
            }
            s.peerClosed = true;
            if (s.released) {
                slots.remove(n);
            }
        }
        s.conn.peerClosed();
        return true;
    }

    @Override
    void hangUp(String why) {
        if (why != null) {
            org.sdp4j.log.SdpLog.log(org.sdp4j.log.SdpLog.WARN, "sdp4j: ucx: a shared link ended (" + why + "); its "
                    + "open connections that had not seen their peer's end-of-stream are reset");
        }
        List<Slot> all;
        synchronized (this) {
            dead = true;
            all = new ArrayList<>(slots.values());
            // connects still waiting for their answer never get a connection: they count no more, and what they
            // left running (the hello) must complete before the worker goes
            for (java.util.Iterator<Slot> i = slots.values().iterator(); i.hasNext(); ) {
                Slot s = i.next();
                if (s.conn == null && s.asked) {
                    i.remove();
                    live--;
                    if (s.hello != 0) {
                        orphans.add(s.hello);
                        s.hello = 0;
                    }
                    recycle(s.staging);
                }
            }
        }
        SharedLinks.remove(this); // no new connection; it ends with the last one open on it
        for (Slot s : all) {
            if (s.conn != null) {
                s.conn.peerGone(why);
            } else if (s.waiting != null) {
                s.waiting.completeExceptionally(new java.net.SocketException("the link ended"));
            }
        }
        maybeEnd();
    }

    @Override
    void teardown() {
        synchronized (this) {
            dead = true;
        }
        SharedLinks.remove(this);
        maybeEnd();
    }

    // ---- closing ----

    /** A connection closed: the peer's writes to it fail from now on ({@link Rendezvous#CLOSED}), once. */
    void closed(UcxConnection c) throws IOException {
        Slot s;
        synchronized (this) {
            s = slots.get(c.n);
            if (s == null || s.sentClosed || dead) {
                return;
            }
            s.sentClosed = true;
        }
        send(Rendezvous.CLOSED, c.n, 0);
    }

    /** End-of-stream: how many bytes connection {@code c} sent in all ({@link Rendezvous#FIN}). */
    void fin(UcxConnection c) throws IOException {
        send(Rendezvous.FIN, c.n, c.bytesSent());
    }

    /**
     * A connection's close is done ({@link UcxClose}): {@code receiving}, a receive is still posted into its staging
     * (kept until the worker goes); {@code abandon}, a request of it never completed (the worker must not be
     * destroyed under it). The link ends once it is dead or retired and this was its last connection.
     */
    void released(UcxConnection c, boolean receiving, boolean abandon) {
        try {
            closed(c);
        } catch (IOException e) {
            synchronized (this) {
                dead = true;
            }
        }
        synchronized (this) {
            Slot s = slots.get(c.n);
            if (s != null) {
                s.released = true;
                if (s.peerClosed || dead) {
                    slots.remove(c.n);
                }
            }
            live--;
            if (live == 0) {
                idleSince = System.nanoTime();
            }
            if (receiving) {
                held.add(c.in.staging());
            }
            abandonWorker |= abandon;
        }
        maybeEnd();
    }

    /** Ends the link now, with {@code why} logged: no new connection; the worker goes with the last one. */
    private void end(String why) {
        org.sdp4j.log.SdpLog.log(org.sdp4j.log.SdpLog.DEBUG, "sdp4j: ucx: a shared link ends: " + why);
        synchronized (this) {
            dead = true;
        }
        SharedLinks.remove(this);
        try {
            control.shutdownOutput(); // the peer's watchdog sees the hang-up: its side ends too
        } catch (IOException ignore) {
            // closed already
        }
        hangUp(why);
    }

    /** Client: idle longer than its bound (watchdog thread): it ends if still without a connection. */
    void sweep(long now) {
        synchronized (this) {
            if (live != 0 || dead || now - idleSince < Link.IDLE_NANOS) {
                return;
            }
            retiring = true;
        }
        SharedLinks.remove(this);
        maybeEnd();
    }

    /** The listener closed: no new connection (each would be refused); an idle link ends now. */
    void listenerClosed() {
        synchronized (this) {
            retiring = true;
        }
        maybeEnd();
    }

    /** Ends everything (tests measure descriptors against no link): idle links end now, busy ones when released. */
    void drain() {
        synchronized (this) {
            retiring = true;
        }
        SharedLinks.remove(this);
        maybeEnd();
    }

    private void maybeEnd() {
        synchronized (this) {
            if (ended || live != 0 || !(dead || retiring)) {
                return;
            }
            ended = true;
        }
        SharedLinks.remove(this);
        // what connections that never came to be left running (a hello, a refused endpoint's close) completes
        // with a few turns of progress; the worker is destroyed only without any left (UCX aborts the process)
        long until = System.nanoTime() + ORPHAN_GRACE_NANOS;
        boolean abandon;
        while (true) {
            boolean running = false;
            synchronized (this) {
                for (long op : orphans) {
                    running |= !UcxWait.completed(op);
                }
                for (org.openucx.jucx.ucp.UcpRequest r : closing) {
                    running |= !r.isCompleted();
                }
                abandon = abandonWorker || running && System.nanoTime() - until > 0;
            }
            if (!running || abandon) {
                break;
            }
            if (UcpNative.progress(worker.getNativeId()) == 0) {
                Thread.onSpinWait();
            }
        }
        synchronized (this) {
            if (!abandon) {
                for (long op : orphans) {
                    UcxWait.abandon(op);
                }
            }
            orphans.clear();
            closing.clear();
        }
        waits.destroyed(); // the poller progresses the worker no more
        if (abandon) {
            Linger.abandoned(worker); // destroying it would abort the process under a posted request
        } else {
            WorkerPool.destroy(worker); // never pooled: its closed endpoints stay in it
        }
        synchronized (this) {
            held.clear();
        }
        Watchdog.retire(control);
    }

    private void closeEndpoint(UcpEndpoint ep) {
        if (ep == null) {
            return;
        }
        try {
            org.openucx.jucx.ucp.UcpRequest r = ep.closeNonBlockingFlush();
            synchronized (this) {
                closing.add(r);
            }
        } catch (RuntimeException e) {
            // the worker's destroy closes it
        }
    }

    private void send(byte type, int n, long v) throws IOException {
        frames.send(type, n, v);
    }

    @Override
    boolean wantsWrite() {
        return frames.wantsWrite();
    }

    @Override
    void writable() {
        frames.writable();
    }

    private static void recycle(ByteBuffer[] staging) {
        Staging.recycle(staging[0]);
        Staging.recycle(staging[1]);
    }

    /** Connections open or being made on this link now (tests). */
    synchronized int live() {
        return live;
    }

    synchronized boolean ended() {
        return ended;
    }
}
