package org.sdp4j.rsocket;

import java.io.DataInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;

/**
 * An unmodified-application stand-in for the agent step of the VM suite: plain java.net, nothing of sdp4j. Run
 * under {@code -javaagent:sdp4j-agent.jar=conf=...} with {@code use sdp} rules, its sockets ride rsockets.
 * <pre>
 *   server ADDR PORT COUNT     ServerSocket: accept COUNT connections, echo each until EOF
 *   client HOST PORT BYTES     Socket: send BYTES, half-close, read the echo back, compare
 * </pre>
 */
public final class PlainEcho {
    public static void main(String[] args) throws Exception {
        if (args.length == 4 && args[0].equals("server")) {
            try (ServerSocket ss = new ServerSocket(Integer.parseInt(args[2]), 8, InetAddress.getByName(args[1]))) {
                System.out.println("PlainEcho server: listening on " + ss.getLocalSocketAddress());
                for (int i = 0; i < Integer.parseInt(args[3]); i++) {
                    try (Socket s = ss.accept()) {
                        InputStream in = s.getInputStream();
                        OutputStream out = s.getOutputStream();
                        byte[] buf = new byte[32 * 1024];
                        long total = 0;
                        for (int n; (n = in.read(buf)) > 0; total += n) {
                            out.write(buf, 0, n);
                        }
                        System.out.println("PlainEcho server: echoed " + total + " bytes to " + s.getRemoteSocketAddress());
                    }
                }
            }
        } else if (args.length == 4 && args[0].equals("client")) {
            int len = Integer.parseInt(args[3]);
            byte[] data = VmInterop.pattern(len);
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(InetAddress.getByName(args[1]), Integer.parseInt(args[2])), 10_000);
                CompletableFuture<Void> w = CompletableFuture.runAsync(() -> {
                    try {
                        s.getOutputStream().write(data);
                        s.shutdownOutput();
                    } catch (Exception e) {
                        throw new RuntimeException(e);
                    }
                }, Tests.EXEC);
                byte[] back = new byte[len];
                new DataInputStream(s.getInputStream()).readFully(back);
                w.get();
                if (!Arrays.equals(data, back) || s.getInputStream().read() != -1) {
                    System.err.println("PlainEcho client: echo differs");
                    System.exit(1);
                }
                System.out.println("PlainEcho client: " + len + " bytes echoed byte for byte via " + s.getRemoteSocketAddress());
            }
        } else {
            System.err.println("usage: PlainEcho server ADDR PORT COUNT | client HOST PORT BYTES");
            System.exit(2);
        }
    }
}
