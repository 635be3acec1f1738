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
 * NetPIPE-style sweeps over loopback, message sizes {@code size} bytes, each over {@code java.net.Socket} (byte[]
 * streams) and over blocking {@code SocketChannel} (direct buffers), TCP_NODELAY on both ends, peer thread in the same
 * JVM. Both ends are ordinary JDK sockets: with the sdp4j agent on the JVM, the listen and the connect go through it.
 * <ul>
 *   <li>{@code *Latency}: one round trip: send {@code size} bytes, the peer echoes them back once it has all of them.
 *       Time per round trip (NetPIPE prints half of it as "latency").</li>
 *   <li>{@code *Stream}: {@link #messages(int) messages(size)} messages of {@code size} bytes sent back to back, then
 *       one 1-byte acknowledgement from the receiver once it has read every byte (NetPIPE's streaming mode). Time per
 *       burst; bandwidth = messages x size / time, so bytes still in flight are never counted.</li>
 * </ul>
 * Sample mode: every round trip or burst is timed (JMH samples them), so a report can use the geometric mean, which
 * one execution stalled by other work on the machine hardly moves.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 500, timeUnit = TimeUnit.MILLISECONDS)
@Measurement(iterations = 5, time = 500, timeUnit = TimeUnit.MILLISECONDS)
@Fork(1)
@Threads(1)
public class NetPipe {

    /** The quick profile's sizes; the full profile passes every power of two from 1 B to 8 MiB. */
    static final String[] QUICK_SIZES = {"1", "64", "1024", "65536", "1048576", "8388608"};

    /** Messages per stream burst: about 8 MiB per burst, at least 4 and at most 1024 messages. */
    public static int messages(int size) {
        return (int) Math.max(4, Math.min(1024, (8L << 20) / Math.max(1, size)));
    }

    /** Bytes a receiver asks for per read: the message, between 64 KiB and 1 MiB. */
    static int chunk(int size) {
        return Math.max(64 << 10, Math.min(1 << 20, size));
    }

    // ------------------------------------------------------------------------------------------ java.net.Socket

    /** A connected Socket pair, the peer running {@code peer} on its end. */
    @State(Scope.Thread)
    public abstract static class SocketPair {
        @Param({"1", "64", "1024", "65536", "1048576", "8388608"})
        public int size;

        ServerSocket server;
        Socket client;
        InputStream in;
        OutputStream out;
        byte[] msg, reply;
        Thread peer;

        abstract void peer(Socket s) throws IOException;

        @Setup(Level.Trial)
        public void setup() throws IOException {
            InetAddress lo = DerbyDrdaServer.benchHost();
            server = new ServerSocket(0, 1, lo);
            peer = new Thread(() -> {
                try (Socket s = server.accept()) {
                    s.setTcpNoDelay(true);
                    peer(s);
                } catch (IOException closed) {
                    // the client went away: trial over
                }
            }, "netpipe-peer");
            peer.setDaemon(true);
            peer.start();
            client = new Socket();
            client.setTcpNoDelay(true);
            client.connect(new InetSocketAddress(lo, server.getLocalPort()), 30_000);
            in = client.getInputStream();
            out = client.getOutputStream();
            msg = new byte[size];
            for (int i = 0; i < size; i++) msg[i] = (byte) (i * 31 + 7);
            reply = new byte[size];
            check();
        }

        /** After connecting: one operation, so a broken transport fails the trial at once. */
        void check() throws IOException {}

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            client.close();
            server.close();
            peer.join(5_000);
        }
    }

    /** Socket pair whose peer echoes every {@code size}-byte message back. */
    @State(Scope.Thread)
    public static class SocketEcho extends SocketPair {
        @Override
        void peer(Socket s) throws IOException {
            InputStream pin = s.getInputStream();
            OutputStream pout = s.getOutputStream();
            byte[] buf = new byte[size];
            while (pin.readNBytes(buf, 0, size) == size) pout.write(buf);
        }

        @Override
        void check() throws IOException {
            roundTrip();
            if (reply[size - 1] != msg[size - 1] || reply[0] != msg[0]) throw new IOException("echo returned wrong bytes");
        }

        int roundTrip() throws IOException {
            out.write(msg);
            int n = in.readNBytes(reply, 0, size);
            if (n != size) throw new IOException("echo closed after " + n + " of " + size + " bytes");
            return reply[size - 1];
        }
    }

    /** Socket pair whose peer reads bursts and acknowledges each with one byte. */
    @State(Scope.Thread)
    public static class SocketSink extends SocketPair {
        @Override
        void peer(Socket s) throws IOException {
            InputStream pin = s.getInputStream();
            OutputStream pout = s.getOutputStream();
            long burst = (long) messages(size) * size, have = 0;
            byte[] buf = new byte[chunk(size)];
            int n;
            while ((n = pin.read(buf)) > 0) {
                have += n;
                while (have >= burst) {
                    pout.write(1);
                    have -= burst;
                }
            }
        }

        @Override
        void check() throws IOException {
            burst();
        }

        int burst() throws IOException {
            for (int k = messages(size); k > 0; k--) out.write(msg);
            int ack = in.read();
            if (ack != 1) throw new IOException("receiver closed (ack " + ack + ")");
            return ack;
        }
    }

    // ------------------------------------------------------------------------------------------ SocketChannel

    /** A connected blocking SocketChannel pair with direct buffers, the peer running {@code peer} on its end. */
    @State(Scope.Thread)
    public abstract static class ChannelPair {
        @Param({"1", "64", "1024", "65536", "1048576", "8388608"})
        public int size;

        ServerSocketChannel server;
        SocketChannel client;
        ByteBuffer msg, reply;
        Thread peer;

        abstract void peer(SocketChannel s) throws IOException;

        @Setup(Level.Trial)
        public void setup() throws IOException {
            InetAddress lo = DerbyDrdaServer.benchHost();
            server = ServerSocketChannel.open();
            server.bind(new InetSocketAddress(lo, 0), 1);
            int port = ((InetSocketAddress) server.getLocalAddress()).getPort();
            peer = new Thread(() -> {
                try (SocketChannel s = server.accept()) {
                    s.setOption(StandardSocketOptions.TCP_NODELAY, true);
                    peer(s);
                } catch (IOException closed) {
                    // the client went away: trial over
                }
            }, "netpipe-channel-peer");
            peer.setDaemon(true);
            peer.start();
            client = SocketChannel.open();
            client.setOption(StandardSocketOptions.TCP_NODELAY, true);
            client.connect(new InetSocketAddress(lo, port));
            msg = ByteBuffer.allocateDirect(size);
            for (int i = 0; i < size; i++) msg.put(i, (byte) (i * 31 + 7));
            reply = ByteBuffer.allocateDirect(size);
            check();
        }

        /** After connecting: one operation, so a broken transport fails the trial at once. */
        void check() throws IOException {}

        void send() throws IOException {
            msg.clear();
            while (msg.hasRemaining()) client.write(msg);
        }

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            client.close();
            server.close();
            peer.join(5_000);
        }
    }

    /** Channel pair whose peer echoes every {@code size}-byte message back. */
    @State(Scope.Thread)
    public static class ChannelEcho extends ChannelPair {
        @Override
        void peer(SocketChannel s) throws IOException {
            ByteBuffer buf = ByteBuffer.allocateDirect(size);
            while (true) {
                buf.clear();
                while (buf.hasRemaining()) {
                    if (s.read(buf) < 0) return;
                }
                buf.flip();
                while (buf.hasRemaining()) s.write(buf);
            }
        }

        @Override
        void check() throws IOException {
            roundTrip();
            if (reply.get(size - 1) != msg.get(size - 1) || reply.get(0) != msg.get(0)) {
                throw new IOException("echo returned wrong bytes");
            }
        }

        int roundTrip() throws IOException {
            send();
            reply.clear();
            while (reply.hasRemaining()) {
                if (client.read(reply) < 0) throw new IOException("echo closed after " + reply.position() + " of " + size + " bytes");
            }
            return reply.get(size - 1);
        }
    }

    /** Channel pair whose peer reads bursts and acknowledges each with one byte. */
    @State(Scope.Thread)
    public static class ChannelSink extends ChannelPair {
        final ByteBuffer ack = ByteBuffer.allocateDirect(1);

        @Override
        void peer(SocketChannel s) throws IOException {
            long burst = (long) messages(size) * size, have = 0;
            ByteBuffer buf = ByteBuffer.allocateDirect(chunk(size));
            ByteBuffer one = ByteBuffer.allocateDirect(1);
            int n;
            while (true) {
                buf.clear();
                if ((n = s.read(buf)) < 0) return;
                have += n;
                while (have >= burst) {
                    one.clear();
                    one.put(0, (byte) 1);
                    while (one.hasRemaining()) s.write(one);
                    have -= burst;
                }
            }
        }

        @Override
        void check() throws IOException {
            burst();
        }

        int burst() throws IOException {
            for (int k = messages(size); k > 0; k--) send();
            ack.clear();
            while (ack.hasRemaining()) {
                if (client.read(ack) < 0) throw new IOException("receiver closed before its acknowledgement");
            }
            return ack.get(0);
        }
    }

    // ------------------------------------------------------------------------------------------ benchmarks

    /** Round trip of one {@code size}-byte message over java.net.Socket. */
    @Benchmark
    public int socketLatency(SocketEcho p) throws IOException {
        return p.roundTrip();
    }

    /** Round trip of one {@code size}-byte message over SocketChannel. */
    @Benchmark
    public int channelLatency(ChannelEcho p) throws IOException {
        return p.roundTrip();
    }

    /** One burst of {@code messages(size)} messages over java.net.Socket, until the receiver acknowledges it. */
    @Benchmark
    public int socketStream(SocketSink p) throws IOException {
        return p.burst();
    }

    /** One burst of {@code messages(size)} messages over SocketChannel, until the receiver acknowledges it. */
    @Benchmark
    public int channelStream(ChannelSink p) throws IOException {
        return p.burst();
    }
}
