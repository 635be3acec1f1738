package org.sdp4j.ucx;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import org.openucx.jucx.ucp.UcpWorker;

/**
 * Workers of failed handshakes whose address the peer may still use. UCX's shared memory names a worker's receive
 * FIFO by process and descriptor number ({@code /proc/PID/fd/N}, posix with its default proc link), so a peer that
 * makes its endpoint from the address after the worker is gone attaches to whatever took descriptor N next: the
 * next connection's worker. Its messages then carry endpoint ids of another connection (raw pointers, without peer
 * error handling): a message for a freed endpoint aborted a benchmark JVM in {@code ucp_worker_progress}
 * ({@code (*ep_p)->worker == worker}), and bytes could reach the wrong connection. A listener that dequeues a
 * handshake late, after its client gave up, does exactly that.
 *
 * <p>So each side checks, right before it makes its endpoint, that the other has not given up (no end-of-stream on
 * the rendezvous socket: {@link Rendezvous#expectSilence}); and a worker whose hello went out is not destroyed at
 * once when its handshake fails: it is held, its rendezvous socket half-closed (the peer's check sees end-of-stream),
 * until the peer closes its end — it has then done all it will with the address — or {@link #MILLIS} passed, which
 * covers a peer thread preempted between its check and its attach. Held workers are swept whenever a new worker
 * is about to be made, the only moment a descriptor number can be taken again; nothing progresses them, so nothing
 * they receive is read. The bound is short because held workers hold descriptors: in a burst of failing handshakes
 * (a listener out of descriptors, its connects left in the kernel's backlog) a long hold fed the shortage.
 */
final class Quarantine {
    /** How long a worker is held at most (ms): a peer's check-to-attach, however descheduled. */
    static final long MILLIS = org.sdp4j.transport.Props.intProperty("sdp4j.ucx.quarantine", 5000, 0);

    private record Held(UcpWorker worker, SocketChannel control, long untilNanos) {}

    private static final List<Held> HELD = new ArrayList<>();

    private Quarantine() {}

    /** Takes {@code worker} and {@code control} over: both are closed once the peer is done with the address. */
    static void hold(UcpWorker worker, SocketChannel control) {
        try {
            control.shutdownOutput(); // the peer's next read ends: it gives up and closes its end
            control.configureBlocking(false);
        } catch (IOException e) {
            // already broken: the next sweep sees it
        }
        synchronized (HELD) {
            HELD.add(new Held(worker, control, System.nanoTime() + MILLIS * 1_000_000L));
        }
    }

    /** Releases the workers whose peer closed its end or whose time is up. */
    static void sweep() {
        List<Held> done = new ArrayList<>();
        synchronized (HELD) {
            if (HELD.isEmpty()) {
                return;
            }
            long now = System.nanoTime();
            for (Iterator<Held> it = HELD.iterator(); it.hasNext(); ) {
                Held h = it.next();
                if (peerClosed(h.control) || now - h.untilNanos > 0) {
                    it.remove();
                    done.add(h);
                }
            }
        }
        for (Held h : done) {
            WorkerPool.destroy(h.worker);
            try {
                h.control.close();
            } catch (IOException ignore) {
                // closed either way
            }
        }
    }

    static int held() {
        synchronized (HELD) {
            return HELD.size();
        }
    }

    /** The peer closed its end (or the socket broke); what it sent meanwhile is dropped, a few KiB at most. */
    private static boolean peerClosed(SocketChannel ch) {
        ByteBuffer b = ByteBuffer.allocate(512);
        try {
            for (int i = 0; i < 8; i++) {
                b.clear();
                int n = ch.read(b);
                if (n < 0) {
                    return true;
                }
                if (n == 0) {
                    return false;
                }
            }
            return false; // a peer that keeps talking waits for the time bound
        } catch (IOException e) {
            return true;
        }
    }
}
