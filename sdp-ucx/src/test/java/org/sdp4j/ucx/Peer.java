package org.sdp4j.ucx;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import org.sdp4j.jdk.JdkNio;

/**
 * An sdp4j UCX process for {@code AttackTest}, in a JVM of its own: {@code server ADDR PORT} (a plain TCP listener
 * and sdp4j's UCX listener on one port, echoing every UCX connection; prints READY), {@code client PORT N THREADS
 * TIMEOUT} (N UCX connects to 127.0.0.1:PORT, each echoing 8 bytes; prints {@code UCX ok=.. failed=..}),
 * {@code fuzz PATH N SEED} (N random and mutated hellos on a rendezvous socket), {@code hello} (prints a
 * well-formed hello in hex), {@code scarce N} (for {@code UcxDirectMemoryTest}: N connections through the socket
 * factories on {@code use ucx}, each echoing 64 bytes and kept open; prints {@code ECHOED n UCX ends}).
 */
public final class Peer {
    public static void main(String[] a) throws Exception {
        switch (a[0]) {
            case "server" -> server(InetAddress.getByName(a[1]), Integer.parseInt(a[2]));
            case "client" -> client(Integer.parseInt(a[1]), Integer.parseInt(a[2]), Integer.parseInt(a[3]),
                    Integer.parseInt(a[4]));
            case "fuzz" -> fuzz(java.nio.file.Path.of(a[1]), Integer.parseInt(a[2]), Long.parseLong(a[3]));
            case "bind" -> bind(Integer.parseInt(a[1]));
            case "scarce" -> scarce(Integer.parseInt(a[1]), a.length > 2 ? Integer.parseInt(a[2]) : 64);
            case "stall" -> org.sdp4j.ucx.attack.Attacker.main(a); // the same account's idle connections
            default -> throw new IllegalArgumentException(a[0]);
        }
    }

    static void server(InetAddress addr, int port) throws Exception {
        ServerSocket tcp = new ServerSocket(port, 50, addr); // what the kernel reports as the listener's owner
        ServerSocketChannel ucx = new UcxServerSocketChannel(JdkNio.defaultProvider(), new UcxTransport());
        ucx.bind(new InetSocketAddress(addr, port), 512);
        ExecutorService exec = Executors.newCachedThreadPool();
        System.out.println("READY " + tcp.getLocalPort());
        AtomicInteger accepted = new AtomicInteger();
        while (true) {
            SocketChannel c = ucx.accept();
            accepted.incrementAndGet();
            exec.submit(() -> {
                try (c) {
                    ByteBuffer b = ByteBuffer.allocate(4096);
                    while (c.read(b) >= 0) {
                        b.flip();
                        while (b.hasRemaining()) {
                            c.write(b);
                        }
                        b.clear();
                    }
                }
                return null;
            });
        }
    }

    static void scarce(int n, int size) throws Exception {
        UcxSocketTest.rules();
        org.sdp4j.Sdp4j.configure(org.sdp4j.conf.ConfigParser.parse("scarce.conf",
                "use ucx server * *:*\nuse ucx client * *:*\n"), org.sdp4j.conf.ProgramIdentity.of("scarce"));
        long before = UcxConnection.ESTABLISHED.get();
        InetAddress lo = InetAddress.getLoopbackAddress();
        List<java.net.Socket> open = new ArrayList<>();
        try (ServerSocket ss = new ServerSocket(0, 50, lo)) {
            Thread acceptor = new Thread(() -> {
                while (true) {
                    java.net.Socket s;
                    try {
                        s = ss.accept();
                    } catch (IOException closed) {
                        return;
                    }
                    Thread echo = new Thread(() -> {
                        try (s) {
                            s.getInputStream().transferTo(s.getOutputStream());
                        } catch (IOException e) {
                            System.out.println("ECHO FAILED " + e);
                        }
                    });
                    echo.setDaemon(true);
                    echo.start();
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            int echoed = 0;
            for (int i = 0; i < n; i++) {
                java.net.Socket c = new java.net.Socket(lo, ss.getLocalPort());
                open.add(c);
                byte[] m = new byte[size];
                new Random(i).nextBytes(m);
                // written by a thread of its own (a large UCX write may wait for the echo to be read), in 8 KiB
                // pieces (the JDK's TCP socket takes a temporary direct buffer of the write's size, up to 128 KiB,
                // from the same scarce direct memory); a failed write closes the socket, so the read below ends
                Thread w = new Thread(() -> {
                    try {
                        for (int off = 0; off < size; off += 8192) {
                            c.getOutputStream().write(m, off, Math.min(8192, size - off));
                        }
                    } catch (IOException | RuntimeException | OutOfMemoryError e) {
                        System.out.println("ECHO FAILED " + e);
                        try {
                            c.close();
                        } catch (IOException ignore) {
                            // the read reports it
                        }
                    }
                });
                w.start();
                c.setSoTimeout(60_000);
                byte[] back = c.getInputStream().readNBytes(size);
                w.join();
                if (java.util.Arrays.equals(m, back)) {
                    echoed++;
                }
            }
            System.out.println("ECHOED " + echoed + " UCX " + (UcxConnection.ESTABLISHED.get() - before));
        } finally {
            for (java.net.Socket c : open) {
                c.close();
            }
        }
    }

    /** A listener bind that must return (M1: a stuck socket at its path must not hang it). */
    static void bind(int port) throws Exception {
        long t0 = System.nanoTime();
        try (ServerSocketChannel ucx = new UcxServerSocketChannel(JdkNio.defaultProvider(), new UcxTransport())) {
            ucx.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            System.out.println("BOUND after " + (System.nanoTime() - t0) / 1_000_000 + " ms");
        } catch (IOException e) {
            System.out.println("REFUSED after " + (System.nanoTime() - t0) / 1_000_000 + " ms: " + e.getMessage());
        }
    }

    static void client(int port, int n, int threads, int timeout) throws Exception {
        ExecutorService exec = Executors.newFixedThreadPool(threads);
        AtomicInteger ok = new AtomicInteger(), failed = new AtomicInteger();
        List<String> why = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Future<?>> all = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            int k = i;
            all.add(exec.submit(() -> {
                try (UcxSocketChannel c = new UcxSocketChannel(JdkNio.defaultProvider(), new UcxTransport())) {
                    c.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), timeout);
                    ByteBuffer out = ByteBuffer.allocate(8).putLong(0, k);
                    while (out.hasRemaining()) {
                        c.write(out);
                    }
                    ByteBuffer in = ByteBuffer.allocate(8);
                    while (in.hasRemaining()) {
                        if (c.read(in) < 0) {
                            throw new IOException("end of stream");
                        }
                    }
                    if (in.getLong(0) != k) {
                        throw new IOException("echo mismatch");
                    }
                    ok.incrementAndGet();
                } catch (Throwable e) {
                    failed.incrementAndGet();
                    why.add(e.toString());
                }
            }));
        }
        for (Future<?> f : all) {
            f.get();
        }
        exec.shutdown();
        System.out.println("UCX ok=" + ok + " failed=" + failed + " ms=" + (System.nanoTime() - t0) / 1_000_000
                + (why.isEmpty() ? "" : " first=" + why.get(0)));
    }

    /** Random and mutated hellos, each on a connection of its own; prints how many the server answered. */
    static void fuzz(java.nio.file.Path p, int n, long seed) throws Exception {
        ByteBuffer own = WorkerPool.take().getAddress();
        byte[] addr = new byte[own.remaining()];
        own.duplicate().get(addr);
        byte[] good = new byte[20 + addr.length];
        ByteBuffer.wrap(good).putLong(Rendezvous.MAGIC).putInt(Rendezvous.VERSION).putInt(1).putInt(addr.length)
                .put(addr);
        Random r = new Random(seed);
        int answered = 0, sent = 0;
        for (int i = 0; i < n; i++) {
            byte[] h;
            switch (i % 4) {
                case 0 -> { // the H1 hello: magic, version, length 16, 0x0f and zeros
                    h = new byte[36];
                    ByteBuffer.wrap(h).putLong(Rendezvous.MAGIC).putInt(Rendezvous.VERSION).putInt(1).putInt(16)
                            .put((byte) 0x0f);
                    if (i % 8 == 4) {
                        ByteBuffer.wrap(h).putInt(8, 1); // and in version 1, the old protocol's
                    }
                }
                case 1 -> { // random bytes after a valid head
                    int len = 1 + r.nextInt(300);
                    h = new byte[20 + len];
                    r.nextBytes(h);
                    ByteBuffer.wrap(h).putLong(Rendezvous.MAGIC).putInt(Rendezvous.VERSION).putInt(1).putInt(len);
                }
                case 2 -> { // a real hello with 1-4 bytes of the address flipped
                    h = good.clone();
                    for (int k = 1 + r.nextInt(4); k > 0; k--) {
                        int at = 20 + r.nextInt(addr.length);
                        h[at] ^= (byte) (1 << r.nextInt(8));
                    }
                }
                default -> { // a real hello truncated or extended, its length field consistent
                    int len = Math.max(1, addr.length + r.nextInt(40) - 30);
                    h = new byte[20 + len];
                    ByteBuffer.wrap(h).putLong(Rendezvous.MAGIC).putInt(Rendezvous.VERSION).putInt(1).putInt(len)
                            .put(addr, 0, Math.min(len, addr.length));
                }
            }
            try (SocketChannel c = SocketChannel.open(java.net.StandardProtocolFamily.UNIX)) {
                c.connect(java.net.UnixDomainSocketAddress.of(p));
                c.write(ByteBuffer.wrap(h));
                sent++;
                c.shutdownOutput();
                ByteBuffer back = ByteBuffer.allocate(4096);
                // the listener acknowledges every same-account connection with one byte (Rendezvous.QUEUED); one
                // that accepted the hello then answers with its own, one that refused closes
                int total = 0;
                for (int k; total <= 1 && (k = c.read(back)) > 0; ) {
                    total += k;
                }
                if (total > 1) {
                    answered++;
                }
            } catch (IOException e) {
                // refused or reset: the server's business
            }
        }
        System.out.println("FUZZ sent=" + sent + " answered=" + answered + " example=" + HexFormat.of().formatHex(
                good, 0, 24));
    }
}
