package org.sdp4j.ucx;

import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The parked ends of kept UCX pairs ({@link Link}) in this process: a client's, by the listener they lead to, for
 * the next connect there ({@link #connect}); and every parked end, for the idle bound ({@link #sweep}), a listener's
 * close ({@link #closeFor}) and a shortage of descriptors ({@link #shed}). Lock order: a {@link Link}'s monitor,
 * then this class's; nothing here takes a link's monitor while holding this class's.
 */
final class Links {
    /** A client's parked ends by rendezvous path, the most recently parked first. */
    private static final Map<Path, ArrayDeque<Link>> POOL = new HashMap<>();
    private static final Set<Link> PARKED = ConcurrentHashMap.newKeySet();

    private Links() {}

    /**
     * A connection to the listener at rendezvous path {@code key} on a kept pair, or null (none kept, or none could
     * carry it: the caller makes a new pair). A few are tried: an end whose listener closed ends at the first word.
     */
    static UcxConnection connect(Path key, long deadline) {
        for (int i = 0; i < 4; i++) {
            Link l = take(key);
            if (l == null) {
                return null;
            }
            UcxConnection c = l.reconnect(deadline);
            if (c != null) {
                return c;
            }
        }
        return null;
    }

    /** A client end offered for the next connect (its connection closed and it sent KEEP). */
    static synchronized void offer(Link l) {
        POOL.computeIfAbsent(l.key, k -> new ArrayDeque<>()).addFirst(l);
    }

    /**
     * Takes a parked client end for {@code key} whose listener kept its side too (the most recently parked first),
     * or null: an end whose server has not closed its side of the last connection is not waited for.
     */
    private static synchronized Link take(Path key) {
        ArrayDeque<Link> q = POOL.get(key);
        if (q == null) {
            return null;
        }
        for (Iterator<Link> i = q.iterator(); i.hasNext(); ) {
            Link l = i.next();
            if (l.peerKept) {
                i.remove();
                if (q.isEmpty()) {
                    POOL.remove(key);
                }
                return l;
            }
        }
        return null;
    }

    static synchronized void remove(Link l) {
        PARKED.remove(l);
        if (l.key != null) {
            ArrayDeque<Link> q = POOL.get(l.key);
            if (q != null && q.remove(l) && q.isEmpty()) {
                POOL.remove(l.key);
            }
        }
    }

    static void parked(Link l) {
        PARKED.add(l);
    }

    static void unparked(Link l) {
        PARKED.remove(l);
    }

    static boolean any() {
        return !PARKED.isEmpty();
    }

    /** Ends parked longer than their idle bound (a client's {@link Link#IDLE_NANOS}, a listener's twice that). */
    static void sweep() {
        long now = System.nanoTime();
        for (Link l : snapshot()) {
            if (now - l.parkedAt > (l.key != null ? Link.IDLE_NANOS : 2 * Link.IDLE_NANOS)) {
                l.teardown();
            }
        }
    }

    /**
     * A listener closed: its parked ends hang up (their clients then make new pairs, to whoever listens next), and so
     * do this process's client ends that lead to it. A client on a kept pair does not wait for the listener's answer
     * ({@link Link#reconnect}), so it would learn of the close from the hang-up only after its connect returned;
     * in this process it learns now, and a connect after the close is refused as a TCP connect is. (A client in
     * another process sees the hang-up when its watchdog reads it: a connect in between fails at its first read, as
     * a TCP connect that raced the listener's close does.)
     */
    static void closeFor(HandshakeServer s) {
        for (Link l : snapshot()) {
            if (l.server == s || l.key != null && l.key.equals(s.path())) {
                l.teardown();
            }
        }
    }

    /** Descriptors run short: this process's parked client ends go (each holds a worker's, about 8). */
    static void shed() {
        for (Link l : snapshot()) {
            if (l.key != null) {
                l.teardown();
            }
        }
    }

    /** Ends every parked end (tests measure descriptors against none kept), and waits for their closes a while. */
    static void drain() {
        for (Link l : snapshot()) {
            l.teardown();
        }
        SharedLinks.drain();
        Linger.await(2000);
    }

    /** Every parked end now (tests). */
    static List<Link> parkedEnds() {
        return snapshot();
    }

    private static List<Link> snapshot() {
        List<Link> all = new ArrayList<>(PARKED.size());
        for (Iterator<Link> i = PARKED.iterator(); i.hasNext(); ) {
            all.add(i.next());
        }
        return all;
    }
}
