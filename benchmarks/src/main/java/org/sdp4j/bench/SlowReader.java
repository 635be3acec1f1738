package org.sdp4j.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

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
 * A writer ahead of its reader: 1 MiB written per operation over {@code java.net.Socket} to a thread of the same JVM
 * that reads 64 KiB at a time and then pauses {@code pauseMicros} (an application working on what it read). The
 * writer spends most of the operation waiting for room: what that wait costs is the CPU per operation
 * ({@code compare.sh}'s CPU column), which on two CPUs is CPU the reader, or anything else, could have had. The time
 * per operation is the reader's pace, the same on every transport. Run it with {@code compare.sh --bench SlowReader}
 * (not in the default set).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
@Threads(1)
@State(Scope.Thread)
public class SlowReader {
    static final int MESSAGE = 1 << 20, CHUNK = 64 << 10;

    @Param({"200"})
    public int pauseMicros;

    ServerSocket server;
    Socket client;
    OutputStream out;
    byte[] msg;
    Thread reader;

    @Setup(Level.Trial)
    public void setup() throws IOException {
        InetAddress lo = DerbyDrdaServer.benchHost();
        server = new ServerSocket(0, 1, lo);
        long pause = TimeUnit.MICROSECONDS.toNanos(pauseMicros);
        reader = new Thread(() -> read(server, pause), "slow-reader");
        reader.setDaemon(true);
        reader.start();
        client = new Socket();
        client.connect(new InetSocketAddress(lo, server.getLocalPort()), 30_000);
        out = client.getOutputStream();
        msg = new byte[MESSAGE];
    }

    static void read(ServerSocket server, long pause) {
        try (Socket s = server.accept()) {
            InputStream in = s.getInputStream();
            byte[] b = new byte[CHUNK];
            while (in.read(b) > 0) {
                LockSupport.parkNanos(pause);
            }
        } catch (IOException closed) {
            // the writer went away: trial over
        }
    }

    @Benchmark
    public void write() throws IOException {
        out.write(msg);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        client.close();
        server.close();
        reader.join(5_000);
    }
}
