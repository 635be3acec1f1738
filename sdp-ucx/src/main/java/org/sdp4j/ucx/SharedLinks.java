package org.sdp4j.ucx;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * This process's shared links ({@link SharedLink}): a client's, by the listener's rendezvous path, for the next
 * connect there; every one, for the idle bound and a listener's close. A burst of connects to a listener with no
 * link yet waits for the one connect that makes it ({@link #connect}), rather than each making a worker pair.
 *
 * <p>Which connections share: {@code sdp4j.ucx.links} = {@code never} (the default: see below), {@code virtual}
 * (connects from virtual threads, whose waits park on the worker's descriptor either way; a platform thread keeps a
 * worker pair of its own, so the kernel wakes exactly the thread whose data came — many platform threads in one
 * shared worker spin on UCX's lock, docs/ucx-links.md) or {@code always}. Off by default because, measured side by
 * side (benchmarks/README.md, issue 18, eighth pass), links are not yet faster where it counts: one connection's
 * round trips equal, but 16-1,000 connections on one link make 0.3-0.6x the round trips of a worker pair each, and
 * bursts of 1-256 connects are 2-4x slower than on kept pairs; only a burst of 1,000 gains (3x).
 */
final class SharedLinks {
    private static final HashMap<Path, List<SharedLink>> BY_KEY = new HashMap<>();
    /** Keys a link is being made for now, by a full rendezvous: later connects wait for it. */
    private static final HashMap<Path, CompletableFuture<Void>> MAKING = new HashMap<>();
    private static final Set<SharedLink> ALL = ConcurrentHashMap.newKeySet();

    private SharedLinks() {}

    /** Whether this thread's connect shares a link. */
    static boolean wanted() {
        return switch (System.getProperty("sdp4j.ucx.links", "never").trim()) {
            case "always" -> true;
            case "virtual" -> org.sdp4j.transport.Threads.onVirtualThread();
            default -> false;
        };
    }

    /**
     * A connection to the listener at {@code key} on a link, or null: the caller then makes a new link by a full
     * rendezvous and reports it with {@link #made} (in every case, failure included: others may wait for it).
     */
    static UcxConnection connect(Path key, long deadline) {
        for (int tries = 0; tries < 8; tries++) {
            SharedLink l;
            CompletableFuture<Void> making;
            synchronized (SharedLinks.class) {
                l = usable(key);
                making = l == null ? MAKING.get(key) : null;
                if (l == null && making == null) {
                    MAKING.put(key, new CompletableFuture<>());
                    return null; // this thread makes it
                }
            }
            if (l != null) {
                UcxConnection c = l.connect(deadline);
                if (c != null) {
                    return c;
                }
                continue;
            }
            try {
                making.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                return null;
            }
        }
        return null;
    }

    /** The connect that was to make a link for {@code key} is done: {@code l} the link, or null (it failed). */
    static void made(Path key, SharedLink l) {
        CompletableFuture<Void> f;
        synchronized (SharedLinks.class) {
            if (l != null) {
                BY_KEY.computeIfAbsent(key, k -> new ArrayList<>()).add(l);
            }
            f = MAKING.remove(key);
        }
        if (f != null) {
            f.complete(null);
        }
    }

    /** Every link of this process, from its first connection on (both sides). */
    static void added(SharedLink l) {
        ALL.add(l);
    }

    private static SharedLink usable(Path key) {
        List<SharedLink> ls = BY_KEY.get(key);
        if (ls == null) {
            return null;
        }
        for (SharedLink l : ls) {
            if (l.usable()) {
                return l;
            }
        }
        return null;
    }

    static void remove(SharedLink l) {
        ALL.remove(l);
        synchronized (SharedLinks.class) {
            List<SharedLink> ls = l.key == null ? null : BY_KEY.get(l.key);
            if (ls != null && ls.remove(l) && ls.isEmpty()) {
                BY_KEY.remove(l.key);
            }
        }
    }

    /** Whether the watchdog should look at idle links now and then. */
    static boolean any() {
        return !ALL.isEmpty();
    }

    /** A client's links idle past their bound end (watchdog thread). */
    static void sweep() {
        long now = System.nanoTime();
        for (SharedLink l : List.copyOf(ALL)) {
            if (l.client) {
                l.sweep(now);
            }
        }
    }

    /** A listener closed: its links take no new connection, and idle ones end. */
    static void closeFor(HandshakeServer s) {
        for (SharedLink l : List.copyOf(ALL)) {
            if (l.server == s) {
                l.listenerClosed();
            }
        }
    }

    /** Every link retires: idle ones end now, the rest with their last connection (tests). */
    static void drain() {
        for (SharedLink l : List.copyOf(ALL)) {
            l.drain();
        }
    }

    /** Links of this process now (tests). */
    static List<SharedLink> links() {
        return List.copyOf(ALL);
    }
}
