package org.sdp4j.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Phaser;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

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
import org.openjdk.jmh.annotations.Warmup;

/**
 * Many connections at once (issue 13): {@code connections} clients, each on its own thread of kind {@code threads}
 * (platform or virtual), do 64-byte round trips with an {@link EchoServer} whose per-connection threads are of the
 * same kind, over {@code java.net.Socket} (what JDBC drivers use).
 * <ul>
 *   <li>{@link #roundTrips}: every connection does {@link #perConnection} round trips at the same time, on
 *       connections opened beforehand (kept for every iteration in this JVM): round trips per second =
 *       {@link #roundTripsPerOp} / time;</li>
 *   <li>{@link #connectBurst}: {@code connections} new threads each connect, do one round trip and close, all at once:
 *       what a pool filling up or a burst of clients costs, connect included; connects per second = connections /
 *       time;</li>
 *   <li>{@link #connectWorkClose}: the same with 12,800 / N round trips each (issue 18's workload): round trips
 *       per second, connects included;</li>
 *   <li>{@link #connectClose}: one connect and close, alone: the cost per connection.</li>
 *   <li>{@link #connectExchangeClose}: the same with one 64 B round trip between: the server's side included.</li>
 * </ul>
 * {@code server=jvm}: the echo server runs in this JVM (both ends in one JVM; the measurements);
 * {@code server=peer}: in a second JVM started with this JVM's arguments, i.e. on the agent too ({@link Peer}).
 * Every echoed byte is checked. No wait is unbounded: an operation that does not finish within
 * {@code -Dsdp4j.bench.conc.timeout} seconds (default 120) fails the run, naming how many connections finished.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class Concurrency {
    static final int SIZE = 64;
    static final long TIMEOUT_S = Long.getLong("sdp4j.bench.conc.timeout", 60);
    /** Why an earlier virtual-thread run in this JVM hung (its threads may still pin every carrier), or null. */
    static volatile String virtualHung;

    @Param({"1", "16", "256", "1000"})
    public int connections;

    @Param({"platform", "virtual"})
    public String threads;

    @Param({"jvm"})
    public String server;

    /** Round trips each connection does per operation of {@link #roundTrips}: about 2000 per operation in all. */
    public static int perConnection(int connections) {
        return Math.max(2, 2000 / connections);
    }

    public static long roundTripsPerOp(int connections) {
        return (long) connections * perConnection(connections);
    }

    // JVM-wide, not per trial: the report runs one iteration per JMH run, and 1000 connections are set up once
    private static Fleet fleet;
    private static final Map<String, AutoCloseable> servers = new HashMap<>();
    private static final Map<String, Integer> ports = new HashMap<>();

    ThreadKind kind;
    InetSocketAddress address;

    @Setup(Level.Trial)
    public void setup(org.openjdk.jmh.infra.BenchmarkParams params) throws Exception {
        kind = ThreadKind.of(threads);
        address = new InetSocketAddress(DerbyDrdaServer.benchHost(), serverPort(kind, server));
        String b = params.getBenchmark();
        if (b.endsWith(".connectClose") || b.endsWith(".connectExchangeClose") || b.endsWith(".connectBurst")
                || b.endsWith(".connectWorkClose")) {
            // the connect steps measure connects: the round-trip step's fleet goes before, and what its close set off
            // (ucx: 2N workers destroyed, ~9 s for N = 256) ends before the first iteration. Dropped inside the
            // measured method, the first connect + close took those 9 s and the next ones shared two CPUs with
            // the teardown: every sample of the single connect above 6 ms, where the same step alone gives 1.1
            dropFleet();
            settle();
        }
    }

    /** Waits (at most 20 s) until this JVM uses under a tenth of a CPU over a 200 ms window. */
    static void settle() throws InterruptedException {
        if (!(java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.OperatingSystemMXBean os)) {
            Thread.sleep(2000);
            return;
        }
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() - end < 0) {
            long cpu = os.getProcessCpuTime(), t = System.nanoTime();
            Thread.sleep(200);
            if ((os.getProcessCpuTime() - cpu) * 10 < System.nanoTime() - t) {
                return;
            }
        }
    }

    static synchronized int serverPort(ThreadKind kind, String where) throws Exception {
        String key = kind + ":" + where;
        Integer p = ports.get(key);
        if (p != null) return p;
        switch (where) {
            case "jvm": {
                EchoServer e = new EchoServer(kind);
                servers.put(key, e);
                p = e.port();
                break;
            }
            case "peer": {
                Peer peer = Peer.start("echo-" + kind, 60, "echo", kind.toString());
                servers.put(key, peer);
                p = peer.port;
                break;
            }
            default: throw new IllegalArgumentException("server must be jvm or peer, not '" + where + "'");
        }
        ports.put(key, p);
        return p;
    }

    static void checkVirtual(ThreadKind kind) throws IOException {
        if (kind == ThreadKind.VIRTUAL && virtualHung != null) {
            throw new IOException("not run: an earlier virtual-thread run in this JVM hung (" + virtualHung + "); its threads may still hold "
                    + "the carriers");
        }
    }

    static void hung(ThreadKind kind, String what) {
        if (kind == ThreadKind.VIRTUAL && virtualHung == null) virtualHung = what;
    }

    static synchronized Fleet fleet(int n, ThreadKind kind, InetSocketAddress a) throws Exception {
        checkVirtual(kind);
        String key = n + ":" + kind + ":" + a;
        if (fleet != null && (!fleet.key.equals(key) || fleet.broken.get() != null)) {
            fleet.close();
            fleet = null;
        }
        if (fleet == null) fleet = new Fleet(key, n, kind, a);
        return fleet;
    }

    /** Every connection does {@link #perConnection} 64 B round trips, all at once. Returns the round trips done. */
    @Benchmark
    public long roundTrips() throws Exception {
        return fleet(connections, kind, address).go();
    }

    /**
     * The connection steps measure connects, not connects on top of the last {@link #roundTrips} step's idle fleet: a
     * fleet of 1,000 UCX connections held 16,000 of the JVM's 20,000 descriptors, and a burst of 1,000 next to it
     * ran out of them (the application's own TCP sockets failed with EMFILE).
     */
    static synchronized void dropFleet() {
        if (fleet != null) {
            fleet.close();
            fleet = null;
        }
    }

    /** {@code connections} threads connect, do one round trip and close, all at once; returns the connections made. */
    @Benchmark
    public int connectBurst() throws Exception {
        return burst(1);
    }

    /** Round trips in all of one {@link #connectWorkClose} operation, split over its connections: issue 18's workload. */
    static final int WORK = 12_800;

    /** Round trips each connection of {@link #connectWorkClose} does: {@link #WORK} / N, at least 1. */
    public static int workPerConnection(int connections) {
        return Math.max(1, WORK / connections);
    }

    /**
     * Issue 18's "N connections at once, each connecting, doing 12,800/N round trips of 64 B and closing": where
     * {@link #connectBurst} weighs the connect alone, this weighs it against the work a connection is made for (the
     * connects of N = 1,000 against 12 round trips each, of N = 16 against 800).
     */
    @Benchmark
    public int connectWorkClose() throws Exception {
        return burst(workPerConnection(connections));
    }

    private int burst(int roundTrips) throws Exception {
        checkVirtual(kind);
        dropFleet();
        CountDownLatch done = new CountDownLatch(connections);
        AtomicReference<Throwable> error = new AtomicReference<>();
        for (int i = 0; i < connections; i++) {
            int id = i;
            kind.start("burst-" + i, () -> {
                try (Socket s = connect(address)) {
                    InputStream in = s.getInputStream();
                    OutputStream out = s.getOutputStream();
                    byte[] msg = new byte[SIZE], echo = new byte[SIZE];
                    for (int k = 0; k < roundTrips; k++) roundTrip(in, out, msg, echo, id, k);
                } catch (Throwable t) {
                    error.compareAndSet(null, t);
                } finally {
                    done.countDown();
                }
            });
        }
        String what = "connect burst of " + connections + (roundTrips > 1 ? " with " + roundTrips + " round trips each" : "");
        if (!done.await(TIMEOUT_S, TimeUnit.SECONDS)) {
            hung(kind, what);
            throw new TimeoutException(what + ": " + done.getCount() + " of " + connections + " connections unfinished after "
                    + TIMEOUT_S + " s");
        }
        if (error.get() != null) throw new IOException(what + ": " + error.get(), error.get());
        return connections;
    }

    /** One connect and close, from the benchmark thread (platform), to the echo server of kind {@code threads}. */
    @Benchmark
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public void connectClose() throws IOException {
        if (fleet != null) dropFleet();
        connect(address).close();
    }

    /**
     * One connect, one 64 B round trip and close, from the benchmark thread (platform), to the echo server of kind
     * {@code threads}: issue 18's "connect + exchange + close". The round trip waits for the server's side of the
     * connection (its accept, its thread), which {@link #connectClose} never does, as a TCP connect does not.
     */
    @Benchmark
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public void connectExchangeClose() throws IOException {
        if (fleet != null) dropFleet();
        try (Socket s = connect(address)) {
            byte[] msg = new byte[SIZE], echo = new byte[SIZE];
            roundTrip(s.getInputStream(), s.getOutputStream(), msg, echo, 0, 0);
        }
    }

    static Socket connect(InetSocketAddress a) throws IOException {
        Socket s = new Socket();
        try {
            s.setTcpNoDelay(true);
            s.setSoTimeout((int) TimeUnit.SECONDS.toMillis(TIMEOUT_S));
            s.connect(a, (int) TimeUnit.SECONDS.toMillis(TIMEOUT_S));
            return s;
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    /** Writes a 64 B message that names the connection and the sequence number, reads the echo and checks each byte. */
    static void roundTrip(InputStream in, OutputStream out, byte[] msg, byte[] echo, int id, int seq) throws IOException {
        for (int i = 0; i < SIZE; i++) msg[i] = (byte) (id * 31 + seq * 7 + i);
        out.write(msg);
        int got = 0;
        while (got < SIZE) {
            int n = in.read(echo, got, SIZE - got);
            if (n < 0) throw new IOException("connection " + id + ": end of stream after " + got + " of " + SIZE + " echoed bytes");
            got += n;
        }
        for (int i = 0; i < SIZE; i++) {
            if (echo[i] != msg[i]) throw new IOException("connection " + id + ": echoed byte " + i + " of round trip " + seq + " is wrong");
        }
    }

    /**
     * {@code n} open connections, each with its client thread parked between operations. One operation: all threads
     * start ({@link Phaser} phase 2k -> 2k+1), each does its round trips, all arrive (2k+1 -> 2k+2).
     */
    static final class Fleet implements AutoCloseable {
        final String key;
        final int n, per;
        final Phaser phaser;
        final List<Socket> sockets = new ArrayList<>();
        final AtomicReference<Throwable> broken = new AtomicReference<>();
        final ThreadKind kind;

        Fleet(String key, int n, ThreadKind kind, InetSocketAddress a) throws Exception {
            this.key = key;
            this.kind = kind;
            this.n = n;
            this.per = perConnection(n);
            this.phaser = new Phaser(n + 1);
            Socket[] open = new Socket[n];
            CountDownLatch connected = new CountDownLatch(n);
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                int id = i;
                kind.start("client-" + i, () -> client(id, a, open, connected));
            }
            boolean all = connected.await(TIMEOUT_S, TimeUnit.SECONDS);
            if (!all) hung(kind, "opening " + n + " connections");
            for (Socket s : open) if (s != null) sockets.add(s);
            if (!all || broken.get() != null) {
                String why = !all ? connected.getCount() + " of " + n + " connects unfinished after " + TIMEOUT_S + " s"
                        : String.valueOf(broken.get());
                close();
                throw new IOException("opening " + n + " " + kind + "-thread connections to " + a + ": " + why, broken.get());
            }
            System.out.printf(java.util.Locale.ROOT, "concurrency: %d %s-thread connections to %s opened in %.1f ms%n", n, kind, a,
                    (System.nanoTime() - t0) / 1e6);
        }

        private void client(int id, InetSocketAddress a, Socket[] open, CountDownLatch connected) {
            Socket s;
            try {
                s = connect(a);
                open[id] = s;
            } catch (Throwable t) {
                broken.compareAndSet(null, t);
                phaser.arriveAndDeregister();
                return;
            } finally {
                connected.countDown();
            }
            byte[] msg = new byte[SIZE], echo = new byte[SIZE];
            try (InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                int seq = 0;
                while (true) {
                    if (phaser.arriveAndAwaitAdvance() < 0) return;   // terminated: the fleet is closed
                    try {
                        for (int k = 0; k < per; k++) roundTrip(in, out, msg, echo, id, seq++);
                    } catch (Throwable t) {
                        broken.compareAndSet(null, t);
                    }
                    if (phaser.arriveAndAwaitAdvance() < 0) return;
                }
            } catch (IOException e) {
                broken.compareAndSet(null, e);
            }
        }

        long go() throws Exception {
            if (broken.get() != null) throw new IOException("the connections are broken: " + broken.get(), broken.get());
            phaser.arriveAndAwaitAdvance();                      // start
            int phase = phaser.arrive();                         // done, when every client has arrived
            try {
                phaser.awaitAdvanceInterruptibly(phase, TIMEOUT_S, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                int left = phaser.getUnarrivedParties();
                broken.compareAndSet(null, e);
                hung(kind, n + " connections' round trips");
                throw new TimeoutException(left + " of " + n + " connections did not finish " + per + " round trips within " + TIMEOUT_S
                        + " s");
            }
            Throwable t = broken.get();
            if (t != null) throw new IOException("round trips on " + n + " connections: " + t, t);
            return (long) n * per;
        }

        @Override
        public void close() {
            phaser.forceTermination();
            for (Socket s : sockets) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // closing
                }
            }
        }
    }
}
