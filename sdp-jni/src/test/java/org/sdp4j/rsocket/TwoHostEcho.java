package org.sdp4j.rsocket;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

/**
 * An unmodified-application echo for the two-host suite (native/vm-tests/two-hosts/guest.sh): plain java.net or
 * plain NIO channels, nothing of sdp4j; run under the agent, the rules decide the transport.
 * <pre>
 *   server net|nio ADDR PORT COUNT          accept COUNT connections one after the other, echo each until EOF
 *   client net|nio HOST PORT SEED SIZE...   one connection per SIZE (bytes, "r" for a random 1 B..3 MiB, "rN" for
 *                                           a random 1..N B):
 *                                           send SIZE random bytes in random-size writes, half-close, read the echo
 *                                           back in random-size reads, compare byte for byte, expect EOF
 * </pre>
 * Exit status 0 when every stream came back identical. With {@code -Decho.failWithin=SECONDS} (the lossy steps, issue
 * 20: "every byte arrives, or the connection fails with an IOException within the bound") a stream may instead end in
 * a {@link SocketException} that the transport raised within SECONDS of the stream's start: the line says so and the
 * next stream goes on. A read timeout (the transport said nothing), an early end of stream (an orderly close that lost
 * bytes), a wrong byte or a failure later than the bound still fail the run. The server then logs a connection that
 * failed under it and accepts the next.
 */
public final class TwoHostEcho {
    public static void main(String[] args) throws Exception {
        if (args.length == 5 && args[0].equals("server")) {
            boolean nio = nio(args[1]);
            InetSocketAddress at = new InetSocketAddress(InetAddress.getByName(args[2]), Integer.parseInt(args[3]));
            int count = Integer.parseInt(args[4]);
            if (nio) {
                nioServer(at, count);
            } else {
                netServer(at, count);
            }
        } else if (args.length >= 6 && args[0].equals("client")) {
            boolean nio = nio(args[1]);
            InetSocketAddress to = new InetSocketAddress(InetAddress.getByName(args[2]), Integer.parseInt(args[3]));
            Random rnd = new Random(Long.parseLong(args[4]));
            for (int i = 5; i < args.length; i++) {
                // "r": a random size up to 3 MiB; "rN": up to N bytes (the lossy steps: a shorter run)
                int size = args[i].startsWith("r")
                        ? 1 + rnd.nextInt(args[i].length() > 1 ? Integer.parseInt(args[i].substring(1)) : 3 << 20)
                        : Integer.parseInt(args[i]);
                byte[] data = new byte[size];
                rnd.nextBytes(data);
                long t0 = System.nanoTime();
                byte[] back;
                try {
                    back = nio ? nioClient(to, data, rnd.nextLong()) : netClient(to, data, rnd.nextLong());
                } catch (Exception e) {
                    SocketException failed = transportFailure(e);
                    long ms = (System.nanoTime() - t0) / 1_000_000;
                    if (failed == null || FAIL_WITHIN_MS < 0 || ms > FAIL_WITHIN_MS) {
                        throw e;
                    }
                    System.out.printf("TwoHostEcho client (%s): %d bytes: the connection failed after %d ms (allowed "
                            + "within %d s): %s%n", args[1], size, ms, FAIL_WITHIN_MS / 1000, failed);
                    continue;
                }
                if (!Arrays.equals(data, back)) {
                    System.err.printf("TwoHostEcho client (%s): %d bytes: echo differs at byte %d%n", args[1], size,
                            Arrays.mismatch(data, back));
                    System.exit(1);
                }
                System.out.printf("TwoHostEcho client (%s): %d bytes echoed byte for byte by %s in %.0f ms%n",
                        args[1], size, to, (System.nanoTime() - t0) / 1e6);
            }
        } else {
            System.err.println("usage: TwoHostEcho server net|nio ADDR PORT COUNT | client net|nio HOST PORT SEED SIZE...");
            System.exit(2);
        }
    }

    /** -Decho.failWithin=SECONDS: a stream may end in the transport's SocketException within SECONDS; -1: never. */
    private static final long FAIL_WITHIN_MS = Long.getLong("echo.failWithin", -1) * 1000;

    /** The SocketException (a reset, a broken pipe, a lost connection: the transport saying why) behind e, or null. */
    private static SocketException transportFailure(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SocketException se) {
                return se;
            }
        }
        return null;
    }

    private static boolean nio(String mode) {
        if (!mode.equals("net") && !mode.equals("nio")) {
            throw new IllegalArgumentException("mode must be net or nio, not " + mode);
        }
        return mode.equals("nio");
    }

    /** Chunk sizes: mostly small, now and then up to 256 KiB, so writes and reads straddle every buffer boundary. */
    private static int chunk(Random r) {
        return r.nextInt(4) == 0 ? 1 + r.nextInt(256 * 1024) : 1 + r.nextInt(2048);
    }

    private static void netServer(InetSocketAddress at, int count) throws IOException {
        try (ServerSocket ss = new ServerSocket(at.getPort(), 8, at.getAddress())) {
            System.out.println("TwoHostEcho server (net): listening on " + ss.getLocalSocketAddress());
            for (int i = 0; i < count; i++) {
                try (Socket s = ss.accept()) {
                    InputStream in = s.getInputStream();
                    OutputStream out = s.getOutputStream();
                    byte[] buf = new byte[64 * 1024];
                    long total = 0;
                    try {
                        for (int n; (n = in.read(buf)) > 0; total += n) {
                            out.write(buf, 0, n);
                        }
                    } catch (SocketException e) {
                        failedUnder(s.getRemoteSocketAddress(), total, e);
                        continue;
                    }
                    System.out.println("TwoHostEcho server (net): echoed " + total + " bytes to " + s.getRemoteSocketAddress());
                }
            }
        }
    }

    /** A connection that failed under the server: allowed with -Decho.failWithin (the lossy steps), else rethrown. */
    private static void failedUnder(Object peer, long total, SocketException e) throws SocketException {
        if (FAIL_WITHIN_MS < 0) {
            throw e;
        }
        System.out.println("TwoHostEcho server: the connection from " + peer + " failed after " + total
                + " bytes echoed: " + e);
    }

    private static void nioServer(InetSocketAddress at, int count) throws IOException {
        try (ServerSocketChannel ss = ServerSocketChannel.open()) {
            ss.bind(at, 8);
            System.out.println("TwoHostEcho server (nio): listening on " + ss.getLocalAddress() + " ("
                    + ss.getClass().getName() + ")");
            for (int i = 0; i < count; i++) {
                try (SocketChannel s = ss.accept()) {
                    ByteBuffer buf = ByteBuffer.allocateDirect(64 * 1024);
                    long total = 0;
                    try {
                        for (int n; (n = s.read(buf)) > 0; total += n) {
                            buf.flip();
                            while (buf.hasRemaining()) {
                                s.write(buf);
                            }
                            buf.clear();
                        }
                    } catch (SocketException e) {
                        failedUnder(s.getRemoteAddress(), total, e);
                        continue;
                    }
                    System.out.println("TwoHostEcho server (nio): echoed " + total + " bytes to " + s.getRemoteAddress()
                            + " (" + s.getClass().getName() + ")");
                }
            }
        }
    }

    private static byte[] netClient(InetSocketAddress to, byte[] data, long seed) throws Exception {
        try (Socket s = new Socket()) {
            s.connect(to, 30_000);
            s.setSoTimeout(120_000);
            CompletableFuture<Void> w = CompletableFuture.runAsync(() -> {
                try {
                    Random r = new Random(seed);
                    OutputStream out = s.getOutputStream();
                    for (int off = 0; off < data.length; ) {
                        int n = Math.min(chunk(r), data.length - off);
                        out.write(data, off, n);
                        off += n;
                    }
                    s.shutdownOutput();
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            }, Tests.EXEC);
            Random r = new Random(~seed);
            byte[] back = new byte[data.length];
            DataInputStream in = new DataInputStream(s.getInputStream());
            for (int off = 0; off < back.length; ) {
                int n = Math.min(chunk(r), back.length - off);
                in.readFully(back, off, n);
                off += n;
            }
            w.get();
            if (in.read() != -1) {
                throw new IOException("more bytes than were sent");
            }
            return back;
        }
    }

    private static byte[] nioClient(InetSocketAddress to, byte[] data, long seed) throws Exception {
        try (SocketChannel s = SocketChannel.open()) {
            s.connect(to); // bounded by the caller (timeout(1)): a channel read has no SO_TIMEOUT
            CompletableFuture<Void> w = CompletableFuture.runAsync(() -> {
                try {
                    Random r = new Random(seed);
                    for (int off = 0; off < data.length; ) {
                        int n = Math.min(chunk(r), data.length - off);
                        ByteBuffer b = (n & 1) == 0 ? ByteBuffer.wrap(data, off, n)
                                : ByteBuffer.allocateDirect(n).put(data, off, n).flip();
                        while (b.hasRemaining()) {
                            s.write(b);
                        }
                        off += n;
                    }
                    s.shutdownOutput();
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            }, Tests.EXEC);
            Random r = new Random(~seed);
            byte[] back = new byte[data.length];
            for (int off = 0; off < back.length; ) {
                ByteBuffer b = ByteBuffer.wrap(back, off, Math.min(chunk(r), back.length - off));
                while (b.hasRemaining()) {
                    if (s.read(b) < 0) {
                        throw new IOException("EOF after " + b.position() + " of " + back.length);
                    }
                }
                off = b.position();
            }
            w.get();
            if (s.read(ByteBuffer.allocate(1)) != -1) {
                throw new IOException("more bytes than were sent");
            }
            System.out.println("TwoHostEcho client (nio): channel " + s.getClass().getName());
            return back;
        }
    }
}
