package org.sdp4j.transport;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The RDMA-CM ports on which this JVM's {@code use ucx} listeners hold a cross-host rendezvous (UCX's rdmacm
 * listener on the listener's own port number). UCX 1.13 aborts the process when a connection request there carries
 * private data that is not UCX's ({@code rdmacm_cm.c:512 Assertion `hdr->status == UCS_OK' failed}): an rsocket
 * connect to such a port, which is what a {@code both} or {@code sdp} client makes. A JVM that connects to its own
 * ucx listener does so: Derby's network server pings itself at start, and with only {@code use ucx server} rules
 * its client side defaults to {@code both} (libsdp's rule), which killed the JVM in the two-host {@code
 * pool-cut-ucx} step. So the router sends such a connect to TCP (both) or refuses it (sdp) instead. Other processes
 * and other hosts are not covered: docs/security-ucx.md, "a non-UCX RDMA-CM peer".
 */
public final class UcxRdmaCmPorts {
    private UcxRdmaCmPorts() {}

    private static final Set<Integer> PORTS = ConcurrentHashMap.newKeySet();
    /** rsocket connects of this JVM in flight, by destination port. */
    private static final ConcurrentHashMap<Integer, java.util.concurrent.atomic.AtomicInteger> CONNECTING =
            new ConcurrentHashMap<>();
    /** How long a new rendezvous waits for this JVM's rsocket connects to its port to end (ms). */
    static final long DRAIN_MS = 15_000;

    /**
     * A ucx listener's rendezvous is about to take RDMA-CM port {@code port}: from now on this JVM's rsocket
     * connects keep off it, and the ones already in flight to that port are waited for (at most {@link #DRAIN_MS}),
     * for their connection requests would reach UCX's listener once it exists. Call before creating it. The
     * two-host run that found this: Derby's first self-ping was still in its rsocket attempt when the listener came
     * up.
     */
    public static void held(int port) {
        PORTS.add(port);
        long end = System.nanoTime() + DRAIN_MS * 1_000_000L;
        java.util.concurrent.atomic.AtomicInteger n = CONNECTING.get(port);
        while (n != null && n.get() > 0 && System.nanoTime() - end < 0) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** An rsocket connect of this JVM to {@code port} begins; {@link #connected} when it ended, however. */
    static void connecting(int port) {
        CONNECTING.computeIfAbsent(port, k -> new java.util.concurrent.atomic.AtomicInteger()).incrementAndGet();
    }

    static void connected(int port) {
        java.util.concurrent.atomic.AtomicInteger n = CONNECTING.get(port);
        if (n != null) {
            n.decrementAndGet();
        }
    }

    /** It let the port go. */
    public static void released(int port) {
        PORTS.remove(port);
    }

    /**
     * Why an rsocket connect to {@code addr:port} must not be made from this JVM, or null: the port is one of its
     * ucx rendezvous ports and {@code addr} one of this host's addresses.
     */
    static String refusal(InetAddress addr, int port) {
        if (PORTS.isEmpty() || !PORTS.contains(port)) {
            return null;
        }
        boolean local;
        try {
            local = addr.isAnyLocalAddress() || addr.isLoopbackAddress() || NetworkInterface.getByInetAddress(addr) != null;
        } catch (SocketException e) {
            local = true; // cannot tell: the cautious answer
        }
        return local ? "port " + port + " is a ucx listener's RDMA-CM rendezvous in this JVM, where UCX 1.13 aborts the"
                + " process on an rsocket's connection request" : null;
    }
}
