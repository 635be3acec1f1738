package org.sdp4j.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

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
 * rdma-core's {@code rstream} exchange, over plain {@code java.net.Socket}s: what sdp4j gives an unmodified program
 * when the agent's {@code use sdp} rules put both ends on rsockets. One "exchange" is exactly one rstream iteration
 * ({@code rstream -S size -C count}): the client sends {@code count} messages of {@code size} bytes, the server reads
 * all of them, then sends {@code count} messages of {@code size} bytes back and the client reads them all.
 * <ul>
 *   <li>{@link #roundTrip}: {@code count = 1}, {@code size = 64}: one 64 B round trip, as
 *       {@code rstream -S 64 -C 1 -I N} (whose {@code usec/xfer} column is half of it).</li>
 *   <li>{@link #stream}: {@code size = 65536}, {@code count = 32}: 2 MiB one way then 2 MiB back, as
 *       {@code rstream -S 65536 -C 32 -I N}; bandwidth = 2 x count x size x 8 / time, as rstream's {@code Gb/sec}.</li>
 * </ul>
 * The server is a thread of the same JVM, or, with {@code -Dsdp4j.bench.peer=HOST:PORT}, an {@link RstreamPeer} on
 * another host (as rstream's server is another process there; each connection then opens with a header of size and
 * count that the peer checks and confirms, so every run is self-describing). Both ends are ordinary JDK
 * sockets with TCP_NODELAY and, as rstream sets by default, 512 KiB send and receive buffers (set before connect and
 * on the listener before bind, where rsockets takes them). Without the agent this is plain TCP.
 * Average time per exchange: rstream reports total time / iterations the same way. The VM script
 * ({@code benchmarks/rdma-vm.sh}) interleaves these runs with rstream's own.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 1, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
@Threads(1)
public class RdmaVsRstream {

    /** rstream's default SO_SNDBUF / SO_RCVBUF (its {@code set_options}: {@code 1 << 19} without {@code -B}). */
    static final int RSTREAM_BUFFER = 1 << 19;

    /** HOST:PORT of a remote {@link RstreamPeer}; unset: the peer is a thread of this JVM. */
    static final String PEER_PROPERTY = "sdp4j.bench.peer";

    static InetSocketAddress peerAddress(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        int port = -1;
        try {
            if (colon > 0) port = Integer.parseInt(hostPort.substring(colon + 1));
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("-D" + PEER_PROPERTY + "=" + hostPort + ": not HOST:PORT");
        }
        return new InetSocketAddress(hostPort.substring(0, colon), port);
    }

    /** A connected Socket pair whose peer thread runs rstream's server side for {@code count} x {@code size}. */
    @State(Scope.Thread)
    public abstract static class Exchange {
        ServerSocket server;
        Socket client;
        InputStream in;
        OutputStream out;
        byte[] msg, reply;
        Thread peer;

        abstract int size();

        abstract int count();

        abstract int buffer();

        @Setup(Level.Trial)
        public void setup() throws IOException {
            int size = size(), count = count(), buffer = buffer();
            String remote = System.getProperty(PEER_PROPERTY);
            InetSocketAddress to;
            if (remote != null) {
                to = peerAddress(remote);
            } else {
                InetAddress host = DerbyDrdaServer.benchHost();
                server = new ServerSocket();
                if (buffer > 0) server.setReceiveBufferSize(buffer);
                server.bind(new InetSocketAddress(host, 0), 1);
                peer = new Thread(() -> {
                    try (Socket s = server.accept()) {
                        s.setTcpNoDelay(true);
                        serve(s, size, count);
                    } catch (IOException closed) {
                        // the client went away: trial over
                    }
                }, "rstream-peer");
                peer.setDaemon(true);
                peer.start();
                to = new InetSocketAddress(host, server.getLocalPort());
            }
            client = new Socket();
            client.setTcpNoDelay(true);
            if (buffer > 0) {
                client.setSendBufferSize(buffer);
                client.setReceiveBufferSize(buffer);
            }
            client.connect(to, 30_000);
            in = client.getInputStream();
            out = client.getOutputStream();
            if (remote != null) RstreamPeer.handshake(in, out, size, count);
            msg = new byte[size];
            for (int i = 0; i < size; i++) msg[i] = (byte) (i * 31 + 7);
            reply = new byte[size];
            System.out.printf("rdma-vs-rstream: %s -> %s (%s), size %d, count %d, SO_SNDBUF %d, SO_RCVBUF %d, impl %s%n",
                    client.getLocalSocketAddress(), client.getRemoteSocketAddress(),
                    remote != null ? "remote peer" : "peer thread", size, count,
                    client.getSendBufferSize(), client.getReceiveBufferSize(), implName(client));
            // one exchange, checked: a broken transport fails the trial at once
            exchange();
            if (reply[size - 1] != msg[size - 1] || reply[0] != msg[0]) throw new IOException("peer returned wrong bytes");
        }

        /**
         * rstream's server: receive count x size, then send count x size (the bytes it received last), until the
         * client closes; returns the number of exchanges.
         */
        static long serve(Socket s, int size, int count) throws IOException {
            return serve(s, size, count, new AtomicLong());
        }

        /** The same, counting completed exchanges in {@code progress} as it goes (for a watchdog). */
        static long serve(Socket s, int size, int count, AtomicLong progress) throws IOException {
            InputStream pin = s.getInputStream();
            OutputStream pout = s.getOutputStream();
            byte[] buf = new byte[size];
            for (long n = 0; ; n++) {
                for (int t = 0; t < count; t++) {
                    if (pin.readNBytes(buf, 0, size) != size) return n;
                }
                for (int t = 0; t < count; t++) pout.write(buf);
                progress.lazySet(n + 1);
            }
        }

        /** rstream's client, one iteration: send count x size, then receive count x size. */
        int exchange() throws IOException {
            int size = msg.length, count = count();
            for (int t = 0; t < count; t++) out.write(msg);
            for (int t = 0; t < count; t++) {
                int n = in.readNBytes(reply, 0, size);
                if (n != size) throw new IOException("peer closed after " + n + " of " + size + " bytes");
            }
            return reply[size - 1];
        }

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            client.close();
            if (server != null) server.close();
            if (peer != null) peer.join(5_000);
        }
    }

    static String implName(Socket s) {
        try {
            java.lang.reflect.Field f = Socket.class.getDeclaredField("impl");
            f.setAccessible(true);
            return f.get(s).getClass().getName();
        } catch (ReflectiveOperationException | RuntimeException e) {
            return "?";   // java.base not opened to us: the agent's decision log says which transport it is
        }
    }

    /** One {@code size}-byte message each way ({@code rstream -S 64 -C 1}). */
    @State(Scope.Thread)
    public static class Latency extends Exchange {
        @Param({"64"})
        public int size;
        @Param({"524288"})
        public int buffer;

        @Override
        int size() {
            return size;
        }

        @Override
        int count() {
            return 1;
        }

        @Override
        int buffer() {
            return buffer;
        }
    }

    /** {@code count} messages of {@code size} bytes one way, then back ({@code rstream -S 65536 -C 32}). */
    @State(Scope.Thread)
    public static class Bandwidth extends Exchange {
        @Param({"65536"})
        public int size;
        @Param({"32"})
        public int count;
        @Param({"524288"})
        public int buffer;

        @Override
        int size() {
            return size;
        }

        @Override
        int count() {
            return count;
        }

        @Override
        int buffer() {
            return buffer;
        }
    }

    /** One 64 B round trip: time per round trip. */
    @Benchmark
    public int roundTrip(Latency x) throws IOException {
        return x.exchange();
    }

    /** {@code count} x 64 KiB there and back: time per exchange; bandwidth = 2 x count x size x 8 / time. */
    @Benchmark
    public int stream(Bandwidth x) throws IOException {
        return x.exchange();
    }
}
