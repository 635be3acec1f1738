package org.sdp4j.rsocket;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;

import org.sdp4j.rsocket.RsocketSocketImplTest.RsServerSocket;
import org.sdp4j.rsocket.RsocketSocketImplTest.RsSocket;

/**
 * Interop mains for the soft-RoCE VM (native/vm-tests/run-all.sh), against native rsocket peers:
 * <pre>
 *   client HOST PORT BYTES          sdp4j client: send BYTES of a pattern, half-close, read the echo, compare
 *   echo-server ADDR PORT COUNT     sdp4j server: accept COUNT connections, echo each until EOF
 *   rstream-client HOST PORT SIZE COUNT
 *                                   sdp4j client of rdma-core's {@code rstream -S SIZE -C COUNT -T b -T v} server:
 *                                   its sync exchange (16 bytes each way), then COUNT transfers of SIZE bytes each
 *                                   way, both directions in rstream's verify pattern (a byte counter)
 * </pre>
 * The client's pattern equals native/vm-tests/tcp_echo_client.c's. Exit status 0 when everything matched.
 */
public final class VmInterop {
    public static void main(String[] args) throws Exception {
        if (args.length == 4 && args[0].equals("client")) {
            client(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]));
        } else if (args.length == 4 && args[0].equals("echo-server")) {
            echoServer(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]));
        } else if (args.length == 5 && args[0].equals("rstream-client")) {
            rstreamClient(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]), Integer.parseInt(args[4]));
        } else {
            System.err.println("usage: VmInterop client HOST PORT BYTES | echo-server ADDR PORT COUNT"
                    + " | rstream-client HOST PORT SIZE COUNT");
            System.exit(2);
        }
    }

    static byte[] pattern(int len) {
        byte[] b = new byte[len];
        for (int i = 0; i < len; i++) {
            b[i] = (byte) (i * 31 + (i >> 8));
        }
        return b;
    }

    private static void client(String host, int port, int len) throws Exception {
        Rsocket.ensureAvailability();
        byte[] out = pattern(len);
        try (RsSocket s = new RsSocket()) {
            s.connect(new InetSocketAddress(InetAddress.getByName(host), port), 10_000);
            CompletableFuture<Void> w = CompletableFuture.runAsync(() -> {
                try {
                    OutputStream os = s.getOutputStream();
                    for (int off = 0; off < len; off += 60_000) {
                        os.write(out, off, Math.min(60_000, len - off));
                    }
                    s.shutdownOutput();
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            }, Tests.EXEC);
            byte[] in = new byte[len];
            new DataInputStream(s.getInputStream()).readFully(in);
            w.get();
            int extra = s.getInputStream().read();
            if (!Arrays.equals(out, in) || extra != -1) {
                System.err.println("VmInterop client: echo differs (extra byte: " + extra + ")");
                System.exit(1);
            }
            System.out.println("VmInterop client: " + len + " bytes echoed byte for byte by " + host + ":" + port
                    + " (local port " + s.getLocalPort() + ")");
        }
    }

    private static void echoServer(String addr, int port, int count) throws Exception {
        Rsocket.ensureAvailability();
        try (RsServerSocket ss = new RsServerSocket()) {
            ss.setReuseAddress(true);
            ss.bind(new InetSocketAddress(InetAddress.getByName(addr), port), 8);
            System.out.println("VmInterop echo-server: listening on " + addr + ":" + ss.getLocalPort());
            for (int i = 0; i < count; i++) {
                try (RsSocket s = ss.accept()) {
                    InputStream in = s.getInputStream();
                    OutputStream out = s.getOutputStream();
                    byte[] buf = new byte[64 * 1024];
                    long total = 0;
                    for (int n; (n = in.read(buf)) > 0; total += n) {
                        out.write(buf, 0, n);
                    }
                    System.out.println("VmInterop echo-server: connection " + (i + 1) + " from "
                            + s.getInetAddress().getHostAddress() + ":" + s.getPort() + ": echoed " + total + " bytes");
                }
            }
        }
    }

    /** rstream's format_buf/verify_buf: one byte counter per direction, running across all transfers. */
    private static final class Counter {
        private byte next;

        void fill(byte[] b, int n) {
            for (int i = 0; i < n; i++) {
                b[i] = next++;
            }
        }

        long verify(byte[] b, int n, long at) {
            for (int i = 0; i < n; i++) {
                if (b[i] != next++) {
                    throw new IllegalStateException("rstream data differs at byte " + (at + i));
                }
            }
            return at + n;
        }
    }

    private static void rstreamClient(String host, int port, int size, int count) throws Exception {
        Rsocket.ensureAvailability();
        Counter sent = new Counter(), received = new Counter();
        byte[] buf = new byte[Math.max(16, size)];
        long at = 0;
        try (RsSocket s = new RsSocket()) {
            s.connect(new InetSocketAddress(InetAddress.getByName(host), port), 10_000);
            s.setTcpNoDelay(true);
            OutputStream out = s.getOutputStream();
            DataInputStream in = new DataInputStream(s.getInputStream());
            sent.fill(buf, 16); // sync_test
            out.write(buf, 0, 16);
            in.readFully(buf, 0, 16);
            at = received.verify(buf, 16, at);
            long t = System.nanoTime();
            for (int i = 0; i < count; i++) {
                sent.fill(buf, size);
                out.write(buf, 0, size);
            }
            for (int i = 0; i < count; i++) {
                in.readFully(buf, 0, size);
                at = received.verify(buf, size, at);
            }
            double ms = (System.nanoTime() - t) / 1e6;
            System.out.printf("VmInterop rstream-client: %d x %d bytes each way with %s:%d, verified (%.1f ms)%n",
                    count, size, host, port, ms);
        }
    }
}
