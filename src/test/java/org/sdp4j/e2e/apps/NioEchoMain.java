package org.sdp4j.e2e.apps;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

/**
 * An unmodified NIO program for agent runs (VM and two-host steps): plain {@code SocketChannel}s, nothing of
 * sdp4j's.
 * <pre>
 *   server ADDR PORT COUNT    ServerSocketChannel: accept COUNT connections, echo each until EOF (random read sizes)
 *   client HOST PORT BYTES    SocketChannel: write BYTES in random-sized pieces, half-close, read the echo, compare
 * </pre>
 * Prints {@code NioEcho server: listening ...}, {@code NioEcho server: echoed N bytes}, {@code NioEcho client: OK N
 * bytes}; exits 0 when every byte came back in order, 1 otherwise.
 */
public final class NioEchoMain {
    private NioEchoMain() {}

    public static void main(String[] args) throws Exception {
        InetAddress addr = InetAddress.getByName(args[1]);
        int port = Integer.parseInt(args[2]);
        Random rnd = new Random(42);
        if (args[0].equals("server")) {
            try (ServerSocketChannel ss = ServerSocketChannel.open()) {
                ss.bind(new InetSocketAddress(addr, port), 8);
                System.out.println("NioEcho server: listening on " + ss.getLocalAddress());
                for (int i = 0; i < Integer.parseInt(args[3]); i++) {
                    try (SocketChannel c = ss.accept()) {
                        long total = 0;
                        ByteBuffer buf = ByteBuffer.allocateDirect(64 * 1024);
                        while (true) {
                            buf.clear().limit(1 + rnd.nextInt(buf.capacity()));
                            int n = c.read(buf);
                            if (n < 0) {
                                break;
                            }
                            total += n;
                            buf.flip();
                            while (buf.hasRemaining()) {
                                c.write(buf);
                            }
                        }
                        System.out.println("NioEcho server: echoed " + total + " bytes to " + c.getRemoteAddress());
                    }
                }
            }
            System.exit(0);
        }
        int len = Integer.parseInt(args[3]);
        byte[] data = new byte[len];
        rnd.nextBytes(data);
        try (SocketChannel c = SocketChannel.open()) {
            c.connect(new InetSocketAddress(addr, port));
            CompletableFuture<Void> w = CompletableFuture.runAsync(() -> {
                try {
                    Random sizes = new Random(7);
                    for (int off = 0; off < len; ) {
                        int n = Math.min(len - off, 1 + sizes.nextInt(100_000));
                        ByteBuffer b = ByteBuffer.wrap(data, off, n);
                        while (b.hasRemaining()) {
                            c.write(b);
                        }
                        off += n;
                    }
                    c.shutdownOutput();
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            ByteBuffer got = ByteBuffer.allocate(len);
            while (got.hasRemaining() && c.read(got) >= 0) {
                // until all came back
            }
            w.get();
            boolean same = !got.hasRemaining() && Arrays.equals(got.array(), data);
            System.out.println(same ? "NioEcho client: OK " + len + " bytes"
                    : "NioEcho client: MISMATCH after " + got.position() + " of " + len + " bytes");
            System.exit(same ? 0 : 1);
        }
    }
}
