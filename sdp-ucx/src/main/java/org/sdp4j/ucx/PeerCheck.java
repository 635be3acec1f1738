package org.sdp4j.ucx;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Who owns the TCP listener a client would reach: the kernel's own table of TCP sockets in this network namespace
 * ({@code /proc/net/tcp} and {@code tcp6}), read before the client sends anything anywhere. The UCX rendezvous is
 * trusted only as far as it leads to a process of that owner: the listener's uid picks the rendezvous directory and
 * is checked again against the peer credentials ({@code SO_PEERCRED}) of the Unix socket the client connected to.
 *
 * <p>The listener the kernel would pick is the one bound to the exact address if there is one, else the wildcard
 * (Linux lets a listener on {@code 127.0.0.1:P} and one on {@code 0.0.0.0:P} coexist only when neither listens,
 * so at most one kind listens; {@code SO_REUSEPORT} groups share one uid by rule of the kernel).
 */
final class PeerCheck {
    private static final Path TCP = Path.of("/proc/net/tcp"), TCP6 = Path.of("/proc/net/tcp6");
    private static final String LISTEN = "0A";
    /** /proc/net/tcp of a busy server can be long; a bound on what is read keeps the lookup bounded too. */
    private static final long MAX_TABLE = 64L << 20;

    private PeerCheck() {}

    /** A listening TCP socket: its owner, its inode, and its bound address ({@code null}: a wildcard). */
    record Listener(int uid, long inode, InetAddress address, int port) {
        boolean wildcard() {
            return address == null;
        }
    }

    /**
     * Lookups of the last two seconds: reading /proc/net/tcp6 costs the kernel a walk over every TCP socket of the
     * namespace (0.1-1 s with 10,000-20,000 sockets in TIME_WAIT on a loaded two-core host), far more than a connect.
     * Staleness cannot send a client to another account: it connects only into the listener uid's own directory and
     * checks {@code SO_PEERCRED} against that uid on every connect.
     */
    private static final long CACHE_NANOS = 2_000_000_000L;
    private record Cached(Listener listener, long until) {}
    private static final java.util.Map<java.net.InetSocketAddress, Cached> CACHE =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** The listener the kernel would hand a connection to {@code addr:port}, or {@code null} if none listens. */
    static Listener listenerFor(InetAddress addr, int port) throws IOException {
        java.net.InetSocketAddress key = new java.net.InetSocketAddress(addr, port);
        long now = System.nanoTime();
        Cached c = CACHE.get(key);
        if (c != null && c.until - now > 0) {
            return c.listener;
        }
        Listener l = lookup(addr, port);
        if (l != null) {
            if (CACHE.size() > 1024) {
                CACHE.clear();
            }
            CACHE.put(key, new Cached(l, now + CACHE_NANOS));
        }
        return l;
    }

    private static Listener lookup(InetAddress addr, int port) throws IOException {
        byte[] diag = kernelListeners(port);
        return diag != null ? fromDiag(diag, addr, port) : fromProc(addr, port);
    }

    /** {@link #lookup} from the records of {@link org.sdp4j.ucp.UcpNative#tcpListeners}. */
    static Listener fromDiag(byte[] diag, InetAddress addr, int port) throws IOException {
        boolean v4 = addr instanceof Inet4Address;
        Choice choice = new Choice(addr, v4);
        for (int i = 0; i + DIAG_RECORD <= diag.length; i += DIAG_RECORD) {
            boolean family4 = diag[i] == 4;
            if (family4 && !v4) {
                continue; // as in /proc: a v6 client is served by tcp6's listeners only
            }
            InetAddress a = InetAddress.getByAddress(java.util.Arrays.copyOfRange(diag, i + 1, i + (family4 ? 5 : 17)));
            java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(diag, i + 17, 12);
            choice.offer(new Listener(b.getInt(), b.getLong(), a.isAnyLocalAddress() ? null : a, port), family4);
        }
        return choice.result();
    }

    /** {@link #lookup} from /proc/net/tcp and tcp6. */
    static Listener fromProc(InetAddress addr, int port) throws IOException {
        boolean v4 = addr instanceof Inet4Address;
        Choice choice = new Choice(addr, v4);
        for (Path table : v4 ? List.of(TCP, TCP6) : List.of(TCP6)) {
            if (!Files.isReadable(table)) {
                continue;
            }
            // a busy host has tens of thousands of lines: only those with this local port are parsed
            String tag = String.format(":%04X ", port);
            try (java.io.BufferedReader in = Files.newBufferedReader(table, StandardCharsets.US_ASCII)) {
                long read = 0;
                for (String line; (line = in.readLine()) != null; ) {
                    if ((read += line.length()) > MAX_TABLE) {
                        throw new IOException(table + " is longer than " + MAX_TABLE + " bytes");
                    }
                    int at = line.indexOf(tag);
                    if (at < 0 || at > 60 || line.indexOf(" 0A ", at) < 0) {
                        continue;
                    }
                    Listener l = parse(line, port);
                    if (l != null) {
                        choice.offer(l, table == TCP);
                    }
                }
            }
        }
        return choice.result();
    }

    /** A record of {@link org.sdp4j.ucp.UcpNative#tcpListeners}. */
    private static final int DIAG_RECORD = 29;

    /**
     * The listeners of a port as the kernel's socket diagnostics list them (netlink: only the listening sockets are
     * walked), or {@code null} when they cannot be asked (no libsdp4j, no {@code NETLINK_SOCK_DIAG}): then
     * /proc/net/tcp, whose reading walks every TCP socket of the namespace (30-150 ms with a few thousand in
     * TIME_WAIT: a stall of every connect that missed the cache).
     */
    static byte[] kernelListeners(int port) {
        try {
            return org.sdp4j.ucp.UcpNative.tcpListeners(port);
        } catch (UnsatisfiedLinkError e) {
            return null;
        }
    }

    /** Which of a port's listeners the kernel would hand the connection to (see the class comment). */
    private static final class Choice {
        private final InetAddress addr;
        private final boolean v4;
        private Listener exact, any;

        Choice(InetAddress addr, boolean v4) {
            this.addr = addr;
            this.v4 = v4;
        }

        /** {@code fromV4}: an IPv4 socket (/proc/net/tcp), else an IPv6 one (tcp6, dual-stack or not). */
        void offer(Listener l, boolean fromV4) {
            if (l.address == null) {
                if (any == null || fromV4 && v4) {
                    any = l; // a v4 wildcard serves a v4 client before a dual-stack v6 one
                }
            } else if (sameAddress(l.address, addr)) {
                exact = l;
            }
        }

        Listener result() {
            return exact != null ? exact : any;
        }
    }

    private static boolean sameAddress(InetAddress a, InetAddress b) {
        if (a.equals(b)) {
            return true;
        }
        byte[] x = a.getAddress(), y = b.getAddress();
        if (x.length == 16 && y.length == 4) { // ::ffff:a.b.c.d in tcp6 for a v4 client
            for (int i = 0; i < 10; i++) {
                if (x[i] != 0) {
                    return false;
                }
            }
            return (x[10] & 0xff) == 0xff && (x[11] & 0xff) == 0xff && x[12] == y[0] && x[13] == y[1]
                    && x[14] == y[2] && x[15] == y[3];
        }
        return false;
    }

    /** One line of /proc/net/tcp{,6}: a LISTEN socket on {@code port}, or {@code null}. */
    static Listener parse(String line, int port) {
        String[] f = line.trim().split("\\s+");
        if (f.length < 10 || !f[0].endsWith(":") || !LISTEN.equals(f[3])) {
            return null;
        }
        int colon = f[1].indexOf(':');
        if (colon < 0) {
            return null;
        }
        try {
            int p = Integer.parseInt(f[1].substring(colon + 1), 16);
            if (p != port) {
                return null;
            }
            InetAddress a = address(f[1].substring(0, colon));
            return new Listener(Integer.parseInt(f[7]), Long.parseLong(f[9]), a.isAnyLocalAddress() ? null : a, p);
        } catch (NumberFormatException | UnknownHostException e) {
            return null; // not a line of the format the kernel writes
        }
    }

    /** The kernel prints each 32-bit word of the address in host (little-endian) order. */
    private static InetAddress address(String hex) throws UnknownHostException {
        if (hex.length() != 8 && hex.length() != 32) {
            throw new UnknownHostException(hex);
        }
        byte[] b = new byte[hex.length() / 2];
        for (int w = 0; w < b.length / 4; w++) {
            long word = Long.parseLong(hex.substring(w * 8, w * 8 + 8), 16);
            for (int i = 0; i < 4; i++) {
                b[w * 4 + i] = (byte) (word >>> (8 * i));
            }
        }
        return InetAddress.getByAddress(b); // ::ffff:a.b.c.d comes back as an Inet4Address
    }

    /** This process's effective uid, from the kernel ({@code /proc/self/status}). */
    static int euid() throws IOException {
        long now = System.nanoTime();
        long[] e = euid;
        if (e != null && now - e[1] < EUID_NANOS) {
            return (int) e[0];
        }
        for (String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.US_ASCII)) {
            if (line.startsWith("Uid:")) {
                int v = Integer.parseInt(line.substring(4).trim().split("\\s+")[1]);
                euid = new long[] {v, now};
                return v;
            }
        }
        throw new IOException("no Uid line in /proc/self/status");
    }

    /**
     * The effective uid, read again at most every second: reading /proc/self/status took 86 us of a local UCX
     * connect's 1.1 ms (a connect loop on 2 cores, issue 18), and a JVM that changes its uid is rare; within the
     * second after such a change a client only looks in the old account's directory, and the peer-credential check
     * still compares the listener's real owner.
     */
    private static final long EUID_NANOS = 1_000_000_000L;
    private static volatile long[] euid;
}
