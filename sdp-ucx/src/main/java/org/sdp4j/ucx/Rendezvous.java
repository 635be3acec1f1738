package org.sdp4j.ucx;

import java.io.IOException;
import java.net.ConnectException;
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
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;

/**
 * How two sdp4j processes find each other for UCX without touching the application's TCP port, and without giving
 * any other account a way in (docs/ucx.md, "Rendezvous"; docs/security-ucx.md).
 *
 * <p>A listener on {@code addr:port} binds a Unix domain socket {@code <base>/sdp4j-ucx-<uid>/<addr>-<port>} in a
 * directory of its own account, mode 0700, created with {@code mkdir} (which follows no symlink) and checked with
 * {@code lstat} semantics when it exists: a real directory, owned by this uid, nobody else's to write or enter. No
 * permission is ever changed afterwards and nothing is run. A client first asks the kernel who owns the TCP listener
 * it would reach ({@link PeerCheck}), looks only in that uid's directory (checked the same way), and before it sends
 * a byte checks the connected socket's peer credentials ({@code SO_PEERCRED}) against that uid; the server checks
 * the client's the same way before it reads one. UCX connects two processes of one account only: UCX 1.13's shared
 * memory cannot be shared privately between two accounts (sysv segments are 0660 to the group; posix and cma need
 * ptrace rights), so a client of another account uses TCP at once.
 *
 * <p>The Unix socket stays open for the connection's life: it carries the end-of-stream marker (UCX streams have
 * none) and its hang-up is how a peer's death is noticed promptly without UCX's peer error handling, which would
 * turn shared memory off.
 */
final class Rendezvous {
    static final long MAGIC = 0x5344503455435831L; // "SDP4UCX1"
    /**
     * 2: rendezvous by account, peer credentials checked, worker address validated. 3: the listener acknowledges a
     * connection it has taken into its handshake queue with one {@link #QUEUED} byte before its hello. 4: and confirms
     * with one {@link #READY} byte that its side is made, after the wire-up, before the client's connect returns.
     * 5: a side that closes across hosts says so ({@link #CLOSED}) and keeps its endpoint until the peer did too.
     * 6: a closed connection's endpoint pair is kept for the next connection between the two processes
     * ({@link #KEEP}, {@link #CONNECT}, {@link #ACCEPT}; see {@link Link}). 7: a client may ask for a link its later
     * connections share ({@link Handshake#SHARE} in its hello's id; 13-byte messages naming the connection there,
     * see {@link SharedLink}).
     */
    static final int VERSION = 7;
    /** Control messages after the handshake, 9 bytes each: type, then a long. FIN: end-of-stream, bytes sent in all. */
    static final byte FIN = 1;
    /** This side closed (across hosts): it reads no more; the long is 0. */
    static final byte CLOSED = 2;
    /** This side closed, read everything the peer sent, and keeps its end of the pair for another connection. */
    static final byte KEEP = 3;
    /** Client, on a kept pair: a new connection to the listener that owns the pair's other end; the client's id. */
    static final byte CONNECT = 4;
    /** Listener, on a kept pair: the new connection is queued for {@code accept}; the listener's id. */
    static final byte ACCEPT = 5;
    /** The listener's first byte on a rendezvous connection: alive, the client's account checked, queued. */
    static final byte QUEUED = 'Q';
    /** The listener's last handshake byte: its side of the connection is made (the client's connect may return). */
    static final byte READY = 'R';
    /**
     * Handshake bound ({@code sdp4j.ucx.handshake}, default 5 s): both ends are local processes; anything slower is a
     * stuck peer or a machine so loaded that TCP is the better choice. A connect uses the smaller of this and its
     * own timeout.
     */
    static final int HANDSHAKE_MILLIS = org.sdp4j.transport.Props.intProperty("sdp4j.ucx.handshake", 5000, 100);
    /**
     * The listener's bound of one handshake it serves, from when a handshake thread takes it ({@code sdp4j.ucx.serve},
     * default 30 s): the client it waits for is a same-account process that may itself be queued for a CPU. At 5 s,
     * 1,000 virtual-thread clients on two carriers (JDK 21) sent 16-26 of their connections to TCP; a stalled client
     * holds one of the {@link HandshakeServer#MAX_PARALLEL} threads this long, the rest queue.
     */
    static final int SERVE_MILLIS = org.sdp4j.transport.Props.intProperty("sdp4j.ucx.serve", 30_000, 100);
    /**
     * How long a client waits, once the listener acknowledged it ({@link #QUEUED}), for the handshake to be served
     * when the application gave no connect timeout ({@code sdp4j.ucx.queue}, default 60 s). A burst of connects
     * queues behind the listener's handshakes; a TCP connect to a busy listener would wait too, so being queued is
     * no reason to fall back.
     */
    static final int QUEUE_MILLIS = org.sdp4j.transport.Props.intProperty("sdp4j.ucx.queue", 60_000, 100);
    static final String PREFIX = "sdp4j-ucx-";

    private static final Map<InetAddress, Boolean> LOCAL = new ConcurrentHashMap<>();
    /**
     * The JDK's own provider for sdp4j's private channels and selectors: under the agent the system-wide one is
     * sdp4j's, whose rules and wrappers have no business with a Unix socket the transport itself uses.
     */
    static final java.nio.channels.spi.SelectorProvider JDK = org.sdp4j.jdk.JdkNio.defaultProvider();

    private Rendezvous() {}

    /** Where the per-account rendezvous directories live ({@code -Dsdp4j.ucx.dir}, default {@code /dev/shm}). */
    static Path base() {
        String d = System.getProperty("sdp4j.ucx.dir");
        return Path.of(d == null || d.isBlank() ? "/dev/shm" : d.trim());
    }

    static Path accountDir(int uid) {
        return base().resolve(PREFIX + uid);
    }

    /** The socket's name in its account's directory for a listener bound at {@code addr:port} (wildcard: any). */
    static String name(InetAddress addr, int port) {
        String key = addr == null || addr.isAnyLocalAddress() ? "any" : addr.getHostAddress().replace(':', '_')
                .replace('%', '@');
        return key + "-" + port;
    }

    /** Where this process's own listener on {@code addr:port} binds its rendezvous socket. */
    static Path path(InetAddress addr, int port) throws IOException {
        return accountDir(PeerCheck.euid()).resolve(name(addr, port));
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

    static String hostPort(InetAddress a, int port) {
        String h = a.getHostAddress();
        return (h.indexOf(':') >= 0 ? "[" + h + "]" : h) + ":" + port;
    }

    // ---- directories: created without following links, checked without following links, never chmod-ed ----

    /** This process's own directory, created 0700 if absent; refused (naming why) if it is not safely ours. */
    static Path ownDir(int euid) throws IOException {
        Path b = base();
        checkBase(b);
        Path d = accountDir(euid);
        try {
            Files.createDirectory(d, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(
                    "rwx------")));
        } catch (FileAlreadyExistsException exists) {
            // made earlier by this account (or squatted by another: checked next)
        }
        checkDir(d, euid);
        return d;
    }

    /**
     * A directory fit to hold {@code uid}'s rendezvous sockets: a real directory (not a symlink), owned by
     * {@code uid}, that no other account may write, list or enter (mode {@code 0700} or narrower).
     */
    static void checkDir(Path d, int uid) throws IOException {
        Map<String, Object> a;
        try {
            a = Files.readAttributes(d, "unix:uid,mode,isDirectory,isSymbolicLink", LinkOption.NOFOLLOW_LINKS);
        } catch (java.nio.file.NoSuchFileException e) {
            throw new ConnectException("UCX rendezvous directory " + d + " does not exist");
        }
        if (Boolean.TRUE.equals(a.get("isSymbolicLink")) || !Boolean.TRUE.equals(a.get("isDirectory"))) {
            throw new SocketException("UCX rendezvous directory " + d + " is not a directory (a symlink or a file: "
                    + "another account may have created it first); UCX is off for this uid, TCP is unaffected");
        }
        int owner = (Integer) a.get("uid");
        int mode = (Integer) a.get("mode") & 07777;
        if (owner != uid) {
            throw new SocketException("UCX rendezvous directory " + d + " belongs to uid " + owner + ", not " + uid
                    + " (created first by another account?); UCX is off for this uid, TCP is unaffected");
        }
        if ((mode & 077) != 0) {
            throw new SocketException("UCX rendezvous directory " + d + " has mode " + Integer.toOctalString(mode)
                    + "; it must be 0700 (no other account may enter it)");
        }
    }

    /**
     * {@link #checkDir} for a client's connect, remembered for a second per directory (a stat and its attribute map,
     * 30 us of a local connect). Only a directory that passed is remembered, and a passed one stays safe meanwhile:
     * it is 0700 and owned by {@code uid}, so only that account or root can change, remove or replace it, and the
     * peer's credentials are checked against {@code uid} on every connect all the same.
     */
    static void checkDirRecently(Path d, int uid) throws IOException {
        long now = System.nanoTime();
        Long until = CHECKED_DIRS.get(d);
        if (until != null && until - now > 0) {
            return;
        }
        checkDir(d, uid);
        if (CHECKED_DIRS.size() > 64) {
            CHECKED_DIRS.clear();
        }
        CHECKED_DIRS.put(d, now + 1_000_000_000L);
    }

    private static final java.util.concurrent.ConcurrentHashMap<Path, Long> CHECKED_DIRS =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** The base must not let another account swap the per-account directory: root's or ours, sticky if shared. */
    private static void checkBase(Path b) throws IOException {
        Map<String, Object> a = Files.readAttributes(b, "unix:uid,mode,isDirectory", LinkOption.NOFOLLOW_LINKS);
        int mode = (Integer) a.get("mode");
        int owner = (Integer) a.get("uid");
        if (!Boolean.TRUE.equals(a.get("isDirectory"))) {
            throw new SocketException("UCX rendezvous base " + b + " is not a directory (or is a symlink)");
        }
        if ((mode & 022) != 0 && (mode & 01000) == 0) {
            throw new SocketException("UCX rendezvous base " + b + " is writable by others and not sticky (mode "
                    + Integer.toOctalString(mode & 07777) + ")");
        }
        if (owner != 0 && owner != PeerCheck.euid()) {
            throw new SocketException("UCX rendezvous base " + b + " belongs to uid " + owner);
        }
    }

    // ---- connecting, bounded ----

    /**
     * Connects to the Unix socket {@code p} before {@code deadline}: a listener whose backlog is full answers
     * EAGAIN at once (the socket is non-blocking), and the connect is retried, briefly sleeping, until the deadline.
     */
    static SocketChannel connect(Path p, long deadline) throws IOException {
        long nap = 1;
        while (true) {
            SocketChannel ch = JDK.openSocketChannel(StandardProtocolFamily.UNIX);
            try {
                ch.configureBlocking(false);
                if (!ch.connect(UnixDomainSocketAddress.of(p))) {
                    throw new SocketException("UCX rendezvous " + p + ": connect did not complete");
                }
                ch.configureBlocking(true);
                return ch;
            } catch (IOException e) {
                ch.close();
                String m = String.valueOf(e.getMessage());
                if (!m.contains("temporarily unavailable")) {
                    throw e;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new SocketTimeoutException("UCX rendezvous " + p + ": backlog full until the deadline");
                }
                try {
                    Thread.sleep(Math.min(nap, Math.max(1, left / 1_000_000L)));
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new java.io.InterruptedIOException("UCX rendezvous connect interrupted");
                }
                nap = Math.min(nap * 2, 16);
            }
        }
    }

    /**
     * Whether the process at the other end of a connected rendezvous socket runs as {@code uid} (kernel-reported,
     * {@code SO_PEERCRED}), {@code uidDir} being a directory {@link #checkDir} found owned by {@code uid}. Through
     * libsdp4j's own call where it is loaded (the ucx transport loads it): the JDK's option looks the ids up in the
     * account and group databases, 40 us a side of a local connect.
     */
    static boolean peerIs(SocketChannel ch, int uid, Path uidDir) throws IOException {
        int peer;
        try {
            peer = org.sdp4j.ucp.UcpNative.peerUid(org.sdp4j.jdk.JdkNio.channelFd(ch));
        } catch (UnsatisfiedLinkError | IOException e) {
            return peerUser(ch).equals(owner(uidDir, uid)); // no libsdp4j (or no descriptor number): the JDK's
        }
        return peer == uid;
    }

    /** The account of the process at the other end of a connected rendezvous socket (kernel-reported). */
    static UserPrincipal peerUser(SocketChannel ch) throws IOException {
        UnixDomainPrincipal p = ch.getOption(ExtendedSocketOptions.SO_PEERCRED);
        return p.user();
    }

    /** The principal of {@code uid}, as the kernel reports owners: the owner of that account's checked directory. */
    static UserPrincipal owner(Path checkedDir) throws IOException {
        return Files.getOwner(checkedDir, LinkOption.NOFOLLOW_LINKS);
    }

    /** Principals by uid: looking one up reads the account database (getpwuid) on every connect otherwise. */
    private static final java.util.concurrent.ConcurrentHashMap<Integer, UserPrincipal> OWNERS =
            new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * {@link #owner(Path)} of a directory {@link #checkDir} found owned by {@code uid}, looked up once per uid (a
     * principal compares by uid: a renamed account is still the same one).
     */
    static UserPrincipal owner(Path checkedDir, int uid) throws IOException {
        UserPrincipal p = OWNERS.get(uid);
        if (p == null) {
            p = owner(checkedDir);
            if (OWNERS.size() < 64) {
                OWNERS.put(uid, p);
            }
        }
        return p;
    }

    // ---- the handshake: magic, version, then a length-prefixed UCX worker address ----

    static ByteBuffer hello(ByteBuffer workerAddress, int id) {
        ByteBuffer b = ByteBuffer.allocate(8 + 4 + 4 + 4 + workerAddress.remaining());
        b.putLong(MAGIC).putInt(VERSION).putInt(id).putInt(workerAddress.remaining()).put(workerAddress.duplicate());
        return b.flip();
    }

    /** Reads the listener's acknowledgement ({@link #QUEUED}) within the deadline. */
    static void readQueued(SocketChannel ch, long deadlineNanos, String where) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(1);
        readFully(ch, b, deadlineNanos, where);
        if (b.get(0) != QUEUED) {
            throw new SocketException("UCX rendezvous " + where + ": not an sdp4j peer of version " + VERSION
                    + " (first byte " + (b.get(0) & 0xff) + ")");
        }
    }

    /** What the other side sent: its connection number and a direct buffer holding its UCX worker address. */
    record Peer(int id, ByteBuffer workerAddress) {}

    /** Reads and checks a hello: nothing of it reaches UCX unless {@code template} accepts the address. */
    static Peer readHello(SocketChannel ch, long deadlineNanos, String where, WorkerAddress template)
            throws IOException {
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
        if (len <= 0 || len > WorkerAddress.MAX) {
            throw new SocketException("UCX rendezvous " + where + ": worker address of " + len + " bytes");
        }
        ByteBuffer addr = ByteBuffer.allocateDirect(len); // jucx reads the address from native memory
        readFully(ch, addr, deadlineNanos, where);
        addr.flip();
        try {
            template.check(addr);
        } catch (SocketException e) {
            throw new SocketException("UCX rendezvous " + where + ": " + e.getMessage());
        }
        return new Peer(id, addr);
    }

    /**
     * Between its hello and the wire-up over UCX a peer sends nothing: end-of-stream means it gave up (a client that
     * waited in the listener's queue past its own bound, a listener past its serve bound), a byte is not the
     * protocol. Checked right before making an endpoint from the peer's address (see {@link Quarantine}).
     */
    static void expectSilence(SocketChannel ch, String where) throws IOException {
        ch.configureBlocking(false);
        try {
            int n = ch.read(ByteBuffer.allocate(1));
            if (n < 0) {
                throw new SocketException("UCX rendezvous " + where + ": the peer gave up during the handshake");
            }
            if (n > 0) {
                throw new SocketException("UCX rendezvous " + where + ": unexpected byte after the hello");
            }
        } finally {
            ch.configureBlocking(true);
        }
    }

    /** Writes all of {@code b} to a channel in blocking mode. */
    static void writeFully(SocketChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            ch.write(b);
        }
    }

    /**
     * Writes all of {@code b} (a few bytes) to a non-blocking channel; its buffer is full only if the peer stopped
     * reading, which is bounded by {@code deadlineNanos}.
     */
    static void writeFully(SocketChannel ch, ByteBuffer b, long deadlineNanos) throws IOException {
        while (b.hasRemaining()) {
            if (ch.write(b) == 0) {
                if (System.nanoTime() - deadlineNanos >= 0) {
                    throw new SocketTimeoutException("UCX rendezvous: the peer reads nothing");
                }
                Thread.yield();
            }
        }
    }

    /**
     * Reads until {@code b} is full, within the deadline; the channel is left in blocking mode. A selector is opened
     * only when the bytes are not there yet (in a handshake they mostly are: a selector is an epoll descriptor).
     */
    static void readFully(SocketChannel ch, ByteBuffer b, long deadlineNanos, String where) throws IOException {
        ch.configureBlocking(false);
        Selector s = null;
        try {
            while (b.hasRemaining()) {
                int n = ch.read(b);
                if (n < 0) {
                    throw new SocketException("UCX rendezvous " + where + ": peer closed during the handshake");
                }
                if (n == 0) {
                    long left = (deadlineNanos - System.nanoTime()) / 1_000_000L;
                    if (left <= 0) {
                        throw new SocketTimeoutException("UCX rendezvous " + where + ": no handshake within "
                                + "the deadline");
                    }
                    if (s == null) {
                        s = JDK.openSelector();
                        ch.register(s, SelectionKey.OP_READ);
                    }
                    s.select(left);
                    s.selectedKeys().clear();
                }
            }
        } finally {
            if (s != null) {
                s.close(); // deregisters the channel
            }
            ch.configureBlocking(true);
        }
    }
}
