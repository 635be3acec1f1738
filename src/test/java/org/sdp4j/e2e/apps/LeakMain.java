package org.sdp4j.e2e.apps;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Opens and closes many connections in equal rounds and samples what a leak would grow:
 * {@code LeakMain JAVA_NET NIO REFUSED_PORT REFUSED ROUNDS}. A java.net server and a NIO server run in this JVM;
 * each client connection sends a byte, gets it back, sees the server's close (EOF) and closes. REFUSED connects go to
 * a port whose rule cannot work (or where nothing listens) and must fail. A warm-up round first (lazily created
 * things: the agent's transports and caches, the JIT, UCX's worker pool), then ROUNDS rounds of the same size, each
 * followed by a sample of descriptors, Java threads, OS threads, memory mappings and /dev/shm entries.
 * Prints {@code SAMPLE <kind> <after warm-up> <after round 1> ... <after round ROUNDS>} per kind,
 * {@code DONE ok=N refused=M errors=E} (over the measured rounds), and what the extra descriptors and threads are
 * when the last round still added some. A leak grows with the rounds; noise does not (LeakTest decides).
 * <p>Each sample is taken at quiescence: after the transport's transient threads (UCX's handshake threads, which end
 * 1 s after their last handshake, and its linger thread) are gone, waiting at most {@code -Dleakmain.quiesce=MS}
 * (15 s); one that never ends is still counted, round after round. {@code -Dleakmain.leakThread=true} (the check's
 * own test) leaks a never-ending thread with a transient name every cycle.
 */
public final class LeakMain {
    static final InetAddress LO = lo();
    static final long QUIESCE_MILLIS = Long.getLong("leakmain.quiesce", 15_000);
    static final boolean LEAK_THREAD = Boolean.getBoolean("leakmain.leakThread");
    private static int leaked;

    private LeakMain() {}

    static InetAddress lo() {
        try {
            return InetAddress.getByName("127.0.0.1");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    public static void main(String[] args) throws Exception {
        int javaNet = Integer.parseInt(args[0]);
        int nio = Integer.parseInt(args[1]);
        int refusedPort = Integer.parseInt(args[2]);
        int refused = Integer.parseInt(args[3]);
        int rounds = Integer.parseInt(args[4]);

        ServerSocket server = new ServerSocket(0, 200, LO);
        Thread t1 = new Thread(() -> serveJavaNet(server), "java.net-server");
        t1.setDaemon(true);
        t1.start();
        ServerSocketChannel nioServer = ServerSocketChannel.open().bind(new InetSocketAddress(LO, 0), 200);
        Thread t2 = new Thread(() -> serveNio(nioServer), "nio-server");
        t2.setDaemon(true);
        t2.start();
        InetSocketAddress a1 = new InetSocketAddress(LO, server.getLocalPort());
        InetSocketAddress a2 = (InetSocketAddress) nioServer.getLocalAddress();
        InetSocketAddress bad = new InetSocketAddress(LO, refusedPort);

        int[] counts = new int[3];
        round(a1, a2, bad, Math.min(javaNet, 300), Math.min(nio, 300), Math.min(refused, 30), counts);
        settle(0);
        Map<String, List<Long>> samples = new TreeMap<>();
        sample(samples);
        Map<String, Integer> fdKindsBefore = kinds(fds());
        TreeSet<String> namesBefore = threadNames();

        counts = new int[3];
        for (int r = 0; r < rounds; r++) {
            fdKindsBefore = kinds(fds());
            namesBefore = threadNames();
            round(a1, a2, bad, javaNet, nio, refused, counts);
            settle(r + 1);
            sample(samples);
        }
        for (Map.Entry<String, List<Long>> e : samples.entrySet()) {
            StringBuilder sb = new StringBuilder("SAMPLE ").append(e.getKey());
            for (long v : e.getValue()) {
                sb.append(' ').append(v);
            }
            System.out.println(sb);
        }
        // what the last round added, for a human reading a failure
        Map<String, Integer> fdKindsAfter = kinds(fds());
        if (!fdKindsAfter.equals(fdKindsBefore)) {
            System.out.println("FD KINDS before the last round " + fdKindsBefore + " after " + fdKindsAfter);
        }
        TreeSet<String> now = threadNames();
        if (!now.equals(namesBefore)) {
            TreeSet<String> added = new TreeSet<>(now);
            added.removeAll(namesBefore);
            TreeSet<String> gone = new TreeSet<>(namesBefore);
            gone.removeAll(now);
            System.out.println("THREADS in the last round added " + brief(added) + " gone " + brief(gone));
        }
        System.out.println("DONE ok=" + counts[0] + " refused=" + counts[1] + " errors=" + counts[2]);
        System.out.flush();
        System.exit(0);
    }

    static void sample(Map<String, List<Long>> samples) throws IOException {
        samples.computeIfAbsent("fds", k -> new ArrayList<>()).add((long) fds().size());
        samples.computeIfAbsent("java-threads", k -> new ArrayList<>()).add((long) javaThreads());
        samples.computeIfAbsent("os-threads", k -> new ArrayList<>()).add((long) tasks());
        // UCX maps a shared-memory segment per worker and registers memory; /dev/shm holds its segments
        samples.computeIfAbsent("maps", k -> new ArrayList<>()).add((long) maps());
        samples.computeIfAbsent("shm", k -> new ArrayList<>()).add(shm());
    }

    static void round(InetSocketAddress a1, InetSocketAddress a2, InetSocketAddress bad, int javaNet, int nio,
                      int refused, int[] counts) {
        for (int i = 0; i < javaNet; i++) {
            leakIfAsked();
            try (Socket s = new Socket()) {
                s.connect(a1, 10_000);
                s.setSoTimeout(10_000);
                s.getOutputStream().write(i & 0x7f);
                InputStream in = s.getInputStream();
                if (in.read() == (i & 0x7f) && in.read() == -1) {
                    counts[0]++;
                } else {
                    counts[2]++;
                }
            } catch (IOException e) {
                if (counts[2]++ < 5) {
                    System.out.println("ERROR java.net " + e);
                }
            }
        }
        ByteBuffer b = ByteBuffer.allocate(2);
        for (int i = 0; i < nio; i++) {
            leakIfAsked();
            try (SocketChannel ch = SocketChannel.open(a2)) {
                ch.write(ByteBuffer.wrap(new byte[] {(byte) (i & 0x7f)}));
                b.clear();
                int n = ch.read(b);
                b.clear();
                int eof = ch.read(b);
                if (n == 1 && b.get(0) == (byte) (i & 0x7f) && eof == -1) {
                    counts[0]++;
                } else {
                    counts[2]++;
                }
            } catch (IOException e) {
                if (counts[2]++ < 5) {
                    System.out.println("ERROR nio " + e);
                }
            }
        }
        for (int i = 0; i < refused; i++) {
            try {
                if (i % 2 == 0) {
                    new Socket(bad.getAddress(), bad.getPort()).close();
                } else {
                    SocketChannel.open(bad).close();
                }
                counts[2]++;
                System.out.println("ERROR connect to " + bad + " succeeded");
            } catch (IOException e) {
                counts[1]++;
            }
        }
    }

    static void serveJavaNet(ServerSocket server) {
        while (true) {
            try (Socket s = server.accept()) {
                s.setSoTimeout(10_000);
                int v = s.getInputStream().read();
                s.getOutputStream().write(v);
                // this side closes first: TIME_WAIT stays with the server's port, not the clients' ephemeral ones
            } catch (IOException e) {
                if (server.isClosed()) {
                    return;
                }
            }
        }
    }

    static void serveNio(ServerSocketChannel server) {
        ByteBuffer b = ByteBuffer.allocate(1);
        while (true) {
            try (SocketChannel ch = server.accept()) {
                b.clear();
                ch.read(b);
                b.flip();
                ch.write(b);
            } catch (IOException e) {
                if (!server.isOpen()) {
                    return;
                }
            }
        }
    }

    /** A thread named as UCX's transient handshake threads are, that never ends (the check's own test). */
    static void leakIfAsked() {
        if (LEAK_THREAD) {
            Thread t = new Thread(() -> {
                while (true) {
                    java.util.concurrent.locks.LockSupport.park();
                }
            }, "sdp4j-ucx-handshake-leaked-" + leaked++);
            t.setDaemon(true);
            t.start();
        }
    }

    /** Threads a transport starts for a while and that end by themselves (UCX: its handshakes, a close's linger). */
    static boolean transientThread(String name) {
        return name.startsWith("sdp4j-ucx-handshake-") || name.equals("sdp4j-ucx-linger");
    }

    /** Quiescence before a sample: transient threads gone (bounded), then the garbage of the round collected. */
    static void settle(int round) throws InterruptedException {
        long start = System.nanoTime();
        long end = start + QUIESCE_MILLIS * 1_000_000L;
        TreeSet<String> left;
        while (!(left = transientThreads()).isEmpty() && System.nanoTime() - end < 0) {
            Thread.sleep(20);
        }
        System.out.println("QUIESCE after round " + round + ": " + (System.nanoTime() - start) / 1_000_000 + " ms"
                + (left.isEmpty() ? "" : ", transient threads still running: " + brief(left)));
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(300);
        }
    }

    static List<String> fds() throws IOException {
        List<String> out = new ArrayList<>();
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            for (Path p : (Iterable<Path>) s::iterator) {
                try {
                    out.add(Files.readSymbolicLink(p).toString());
                } catch (IOException e) {
                    out.add("(gone)"); // the directory stream's own descriptor, closed by now
                }
            }
        }
        return out;
    }

    static Map<String, Integer> kinds(List<String> fds) {
        Map<String, Integer> m = new TreeMap<>();
        for (String f : fds) {
            String k = f.startsWith("socket:") ? "socket" : f.startsWith("pipe:") ? "pipe"
                    : f.startsWith("anon_inode:") ? f : f.startsWith("/") ? "file " + f : f;
            m.merge(k, 1, Integer::sum);
        }
        return m;
    }

    /** A set of thread names, shortened to its ends when long (a leak of thousands would fill the log). */
    static String brief(TreeSet<String> names) {
        return names.size() <= 10 ? names.toString()
                : names.size() + " [" + names.first() + " ... " + names.last() + "]";
    }

    static TreeSet<String> transientThreads() {
        TreeSet<String> names = threadNames();
        names.removeIf(n -> !transientThread(n));
        return names;
    }

    static int javaThreads() {
        return ManagementFactory.getThreadMXBean().getThreadCount();
    }

    static TreeSet<String> threadNames() {
        TreeSet<String> names = new TreeSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            names.add(t.getName());
        }
        return names;
    }

    static int maps() throws IOException {
        try (Stream<String> s = Files.lines(Path.of("/proc/self/maps"))) {
            return (int) s.count();
        }
    }

    static long shm() throws IOException {
        try (Stream<Path> s = Files.list(Path.of("/dev/shm"))) {
            return s.count();
        }
    }

    static int tasks() throws IOException {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/task"))) {
            return (int) s.count();
        }
    }
}
