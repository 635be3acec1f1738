package org.sdp4j.ucx;

import java.io.IOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How two sdp4j processes find each other for UCX without touching the application's TCP port: a listener on
 * {@code addr:port} also binds a Unix domain socket named for that address and port under {@code /dev/shm/sdp4j-ucx}
 * (where UCX's own shared memory lives, so the name is visible exactly where shared memory works). A client
 * connects there, the two exchange UCX worker addresses, and the Unix socket stays open for the connection's life:
 * it carries the end-of-stream marker (UCX streams have none) and its hang-up is how a peer's death is noticed
 * promptly without UCX's peer error handling, which would turn shared memory off.
 *
 * <p>Reaching only this host is deliberate: the TCP port space is the application's, and a remote rendezvous needs
 * a port of its own (or RDMA-CM's separate port space); a destination on another host is reported unreachable and
 * {@code use ucx} falls back to TCP.
 */
final class Rendezvous {
    static final long MAGIC = 0x5344503455435831L; // "SDP4UCX1"
    static final int VERSION = 1;
    static final byte FIN = 1;
    /** Handshake bound: both ends are local processes; anything slower is a stuck or foreign peer. */
    static final int HANDSHAKE_MILLIS = 5000;
    private static final int MAX_ADDRESS = 1 << 16;

    private static final Map<InetAddress, Boolean> LOCAL = new ConcurrentHashMap<>();
    /**
     * The JDK's own provider for sdp4j's private channels and selectors: under the agent the system-wide one is
     * sdp4j's, whose rules and wrappers have no business with a Unix socket the transport itself uses.
     */
    static final java.nio.channels.spi.SelectorProvider JDK = org.sdp4j.jdk.JdkNio.defaultProvider();

    private Rendezvous() {}

    static Path dir() {
        String d = System.getProperty("sdp4j.ucx.dir");
        return Path.of(d == null || d.isBlank() ? "/dev/shm/sdp4j-ucx" : d.trim());
    }

    /** The rendezvous socket of a listener bound at {@code addr:port} (the wildcard is {@code any}). */
    static Path path(InetAddress addr, int port) {
        String key = addr == null || addr.isAnyLocalAddress() ? "any" : addr.getHostAddress().replace(':', '_')
                .replace('%', '@');
        return dir().resolve(key + "-" + port);
    }

    /** Where a client looking for {@code addr:port} tries, in order: a listener on that address, then the wildcard. */
    static List<Path> candidates(InetAddress addr, int port) {
        List<Path> l = new ArrayList<>(2);
        l.add(path(addr, port));
        Path any = path(null, port);
        if (!l.contains(any)) {
            l.add(any);
        }
        return l;
    }

    /** True when {@code a} is an address of this host, the only place the rendezvous reaches. */
    static boolean isLocal(InetAddress a) {
        if (a.isLoopbackAddress() || a.isAnyLocalAddress()) {
            return true;
        }
        return LOCAL.computeIfAbsent(a, x -> {
            try {
                return NetworkInterface.getByInetAddress(x) != null;
            } catch (SocketException e) {
                return false;
            }
        });
    }

    static void ensureDir(Path d) throws IOException {
        if (Files.isDirectory(d)) {
            return;
        }
        try {
            Files.createDirectories(d);
            // every user's servers and clients meet here, as on a TCP port: world-writable, sticky like /tmp
            Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwxrwxrwx"));
            new ProcessBuilder("chmod", "1777", d.toString()).start().waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            if (!Files.isDirectory(d)) {
                throw new IOException("cannot create the UCX rendezvous directory " + d + ": " + e, e);
            }
        }
    }

    static String hostPort(InetAddress a, int port) {
        String h = a.getHostAddress();
        return (h.indexOf(':') >= 0 ? "[" + h + "]" : h) + ":" + port;
    }

    static SocketChannel connect(Path p) throws IOException {
        SocketChannel ch = Rendezvous.JDK.openSocketChannel(StandardProtocolFamily.UNIX);
        try {
            ch.connect(UnixDomainSocketAddress.of(p));
            return ch;
        } catch (IOException e) {
            ch.close();
            throw e;
        }
    }

    // ---- the handshake: magic, version, then a length-prefixed UCX worker address ----

    static ByteBuffer hello(ByteBuffer workerAddress, int id) {
        ByteBuffer b = ByteBuffer.allocate(8 + 4 + 4 + 4 + workerAddress.remaining());
        b.putLong(MAGIC).putInt(VERSION).putInt(id).putInt(workerAddress.remaining()).put(workerAddress.duplicate());
        return b.flip();
    }

    /** What the other side sent: its connection number and a direct buffer holding its UCX worker address. */
    record Peer(int id, ByteBuffer workerAddress) {}

    static Peer readHello(SocketChannel ch, long deadlineNanos, String where) throws IOException {
        ByteBuffer head = ByteBuffer.allocate(20);
        readFully(ch, head, deadlineNanos, where);
        head.flip();
        long magic = head.getLong();
        int version = head.getInt();
        int id = head.getInt();
        int len = head.getInt();
        if (magic != MAGIC) {
            throw new SocketException("UCX rendezvous " + where + ": not an sdp4j peer (bad magic)");
        }
        if (version != VERSION) {
            throw new SocketException("UCX rendezvous " + where + ": peer speaks version " + version + ", this is "
                    + VERSION);
        }
        if (len <= 0 || len > MAX_ADDRESS) {
            throw new SocketException("UCX rendezvous " + where + ": worker address of " + len + " bytes");
        }
        ByteBuffer addr = ByteBuffer.allocateDirect(len); // jucx reads the address from native memory
        readFully(ch, addr, deadlineNanos, where);
        return new Peer(id, addr.flip());
    }

    static void writeFully(SocketChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (ch.write(b) == 0) {
                Thread.onSpinWait(); // a non-blocking channel with a full buffer: only ever a few bytes here
            }
        }
    }

    /** Reads until {@code b} is full, within the deadline; the channel is left in blocking mode. */
    static void readFully(SocketChannel ch, ByteBuffer b, long deadlineNanos, String where) throws IOException {
        ch.configureBlocking(false);
        try (Selector s = JDK.openSelector()) {
            ch.register(s, SelectionKey.OP_READ);
            while (b.hasRemaining()) {
                int n = ch.read(b);
                if (n < 0) {
                    throw new SocketException("UCX rendezvous " + where + ": peer closed during the handshake");
                }
                if (n == 0) {
                    long left = (deadlineNanos - System.nanoTime()) / 1_000_000L;
                    if (left <= 0) {
                        throw new SocketTimeoutException("UCX rendezvous " + where + ": no handshake within "
                                + HANDSHAKE_MILLIS + " ms");
                    }
                    s.select(left);
                    s.selectedKeys().clear();
                }
            }
        } finally {
            ch.configureBlocking(true); // the selector's close has deregistered the channel
        }
    }
}
