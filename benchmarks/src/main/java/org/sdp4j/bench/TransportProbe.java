package org.sdp4j.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Arrays;

/**
 * One listen + connect + 64-byte echo over loopback, with {@code java.net.Socket} and with {@code SocketChannel}:
 * {@link CompareTransports} runs it in a JVM started exactly like a benchmark fork to learn whether a transport
 * configuration can run on this machine, and if not, why (the exception is the reason).
 * Prints {@code probe ok} and exits 0; {@code probe partial: SocketChannel: ...} (Socket works, SocketChannel does not)
 * and exits 0; or {@code probe FAILED: ...} (Socket does not work) and exits 1.
 */
public final class TransportProbe {

    private TransportProbe() {}

    public static void main(String[] args) {
        String socket = attempt("socket", TransportProbe::socket);
        String channel = attempt("channel", TransportProbe::channel);
        if (socket == null && channel == null) {
            System.out.println("probe ok");
        } else if (socket == null) {
            // java.net.Socket works (JDBC drivers use it); the SocketChannel benchmarks will fail, with this reason
            System.out.println("probe partial: SocketChannel: " + channel);
        } else {
            System.out.println("probe FAILED: " + socket);
        }
        System.out.flush();
        Runtime.getRuntime().halt(socket == null ? 0 : 1);
    }

    interface Step {
        void run() throws IOException;
    }

    /** Runs one probe; null when it worked, else the exception chain (and its stack trace on stdout). */
    static String attempt(String name, Step step) {
        try {
            step.run();
            System.out.println("probe " + name + " ok");
            return null;
        } catch (Throwable t) {
            StringBuilder b = new StringBuilder();
            for (Throwable x = t; x != null; x = x.getCause() == x ? null : x.getCause()) {
                if (b.length() > 0) b.append(" <- ");
                b.append(x.getClass().getName()).append(": ").append(x.getMessage());
            }
            System.out.println("probe " + name + " FAILED: " + b);
            t.printStackTrace(System.out);
            return b.toString();
        }
    }

    static void socket() throws IOException {
        InetAddress lo = DerbyDrdaServer.benchHost();
        try (ServerSocket ss = new ServerSocket(0, 1, lo)) {
            Thread t = new Thread(() -> SocketPingPong.echoSocket(ss, 64), "probe-echo");
            t.setDaemon(true);
            t.start();
            try (Socket s = new Socket()) {
                s.setTcpNoDelay(true);
                s.connect(new InetSocketAddress(lo, ss.getLocalPort()), 30_000);
                byte[] msg = new byte[64];
                Arrays.fill(msg, (byte) 7);
                s.getOutputStream().write(msg);
                byte[] back = s.getInputStream().readNBytes(64);
                if (!Arrays.equals(msg, back)) throw new IOException("Socket echo returned " + back.length + " wrong bytes");
            }
        }
    }

    static void channel() throws IOException {
        InetAddress lo = DerbyDrdaServer.benchHost();
        try (ServerSocketChannel ss = ServerSocketChannel.open()) {
            ss.bind(new InetSocketAddress(lo, 0), 1);
            Thread t = new Thread(() -> SocketPingPong.echoChannel(ss, 64), "probe-echo-channel");
            t.setDaemon(true);
            t.start();
            try (SocketChannel c = SocketChannel.open(ss.getLocalAddress())) {
                ByteBuffer msg = ByteBuffer.allocate(64);
                while (msg.hasRemaining()) msg.put((byte) 9);
                msg.flip();
                while (msg.hasRemaining()) c.write(msg);
                ByteBuffer back = ByteBuffer.allocate(64);
                while (back.hasRemaining()) {
                    if (c.read(back) < 0) throw new IOException("SocketChannel echo closed after " + back.position() + " bytes");
                }
                if (back.get(63) != 9) throw new IOException("SocketChannel echo returned wrong bytes");
            }
        }
    }
}
