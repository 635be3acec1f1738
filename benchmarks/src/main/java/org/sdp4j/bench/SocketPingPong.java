package org.sdp4j.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Round trip of a {@code size}-byte message (64 by default) over loopback with TCP_NODELAY, against an echo thread in
 * the same JVM. Both ends are ordinary JDK sockets: when the forked JVM runs with the sdp4j agent, the listen and the
 * connect go through it and its rules decide the transport. Average time per round trip.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@Threads(1)
public class SocketPingPong {

    /** {@code java.net.Socket} / {@code java.net.ServerSocket}. */
    @State(Scope.Thread)
    public static class SocketPair {
        @Param({"64"})
        public int size;

        ServerSocket server;
        Socket client;
        InputStream in;
        OutputStream out;
        byte[] msg, reply;
        Thread echo;

        @Setup(Level.Trial)
        public void setup() throws IOException {
            InetAddress lo = DerbyDrdaServer.benchHost();
            server = new ServerSocket(0, 1, lo);
            echo = new Thread(() -> echoSocket(server, size), "echo-socket");
            echo.setDaemon(true);
            echo.start();
            client = new Socket();
            client.setTcpNoDelay(true);
            client.connect(new InetSocketAddress(lo, server.getLocalPort()), 30_000);
            in = client.getInputStream();
            out = client.getOutputStream();
            msg = new byte[size];
            for (int i = 0; i < size; i++) msg[i] = (byte) i;
            reply = new byte[size];
            // one round trip now, so a broken transport fails the trial at once
            roundTrip();
            if (reply[size - 1] != msg[size - 1]) throw new IOException("echo returned wrong bytes");
        }

        int roundTrip() throws IOException {
            out.write(msg);
            int n = in.readNBytes(reply, 0, size);
            if (n != size) throw new IOException("echo closed after " + n + " of " + size + " bytes");
            return reply[0];
        }

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            client.close();
            server.close();
            echo.join(5_000);
        }
    }

    /** Blocking {@code SocketChannel} / {@code ServerSocketChannel} (the NIO path, through the SelectorProvider). */
    @State(Scope.Thread)
    public static class ChannelPair {
        @Param({"64"})
        public int size;

        ServerSocketChannel server;
        SocketChannel client;
        ByteBuffer msg, reply;
        Thread echo;

        @Setup(Level.Trial)
        public void setup() throws IOException {
            InetAddress lo = DerbyDrdaServer.benchHost();
            server = ServerSocketChannel.open();
            server.bind(new InetSocketAddress(lo, 0), 1);
            int port = ((InetSocketAddress) server.getLocalAddress()).getPort();
            echo = new Thread(() -> echoChannel(server, size), "echo-channel");
            echo.setDaemon(true);
            echo.start();
            client = SocketChannel.open();
            client.setOption(StandardSocketOptions.TCP_NODELAY, true);
            client.connect(new InetSocketAddress(lo, port));
            msg = ByteBuffer.allocateDirect(size);
            for (int i = 0; i < size; i++) msg.put(i, (byte) i);
            reply = ByteBuffer.allocateDirect(size);
            roundTrip();
            if (reply.get(size - 1) != msg.get(size - 1)) throw new IOException("echo returned wrong bytes");
        }

        int roundTrip() throws IOException {
            msg.clear();
            while (msg.hasRemaining()) client.write(msg);
            reply.clear();
            while (reply.hasRemaining()) {
                if (client.read(reply) < 0) throw new IOException("echo closed after " + reply.position() + " of " + size + " bytes");
            }
            return reply.get(0);
        }

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            client.close();
            server.close();
            echo.join(5_000);
        }
    }

    @Benchmark
    public int socket(SocketPair p) throws IOException {
        return p.roundTrip();
    }

    @Benchmark
    public int socketChannel(ChannelPair p) throws IOException {
        return p.roundTrip();
    }

    static void echoSocket(ServerSocket server, int size) {
        try (Socket s = server.accept()) {
            s.setTcpNoDelay(true);
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            byte[] buf = new byte[size];
            while (in.readNBytes(buf, 0, size) == size) out.write(buf);
        } catch (IOException closed) {
            // the client went away: trial over
        }
    }

    static void echoChannel(ServerSocketChannel server, int size) {
        try (SocketChannel s = server.accept()) {
            s.setOption(StandardSocketOptions.TCP_NODELAY, true);
            ByteBuffer buf = ByteBuffer.allocateDirect(size);
            while (true) {
                buf.clear();
                while (buf.hasRemaining()) {
                    if (s.read(buf) < 0) return;
                }
                buf.flip();
                while (buf.hasRemaining()) s.write(buf);
            }
        } catch (IOException closed) {
            // the client went away: trial over
        }
    }
}
