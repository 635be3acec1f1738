package org.sdp4j.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

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
 * The JCC workload as a virtual-thread application runs it (issue 13): {@code threads} (32) virtual threads, one per
 * request, share a HikariCP pool of {@code pool} IBM Db2 driver connections to Derby 10.8.3.0's Network Server in a
 * second JVM on the agent ({@link Peer}, {@code PeerMain derby}). One operation: every thread does {@code requests}
 * requests, each borrowing a connection, running one INSERT with autocommit and one prepared point SELECT (checked),
 * and returning it. Statements per second = threads x requests x 2 / time. Needs Java 21+ (virtual threads).
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1, time = 2)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class PoolWorkload {
    static final String INS = "pool_ins", SEL = "pool_sel";
    static final int ROWS = 1000;

    @Param({"32"})
    public int threads;

    @Param({"10"})
    public int pool;

    @Param({"4"})
    public int requests;

    private static Peer server;
    private static HikariDataSource ds;
    private static int dsSize;
    private static final AtomicLong next = new AtomicLong();

    public static long statementsPerOp(int threads, int requests) {
        return (long) threads * requests * 2;
    }

    static synchronized HikariDataSource dataSource(int size) throws Exception {
        if (ds != null && dsSize != size) {
            ds.close();
            ds = null;
        }
        if (ds != null) return ds;
        if (server == null) server = Peer.start("derby", 120, "derby");
        HikariConfig cfg = new HikariConfig();
        cfg.setDriverClassName(Jcc.DRIVER);
        cfg.setJdbcUrl("jdbc:db2://" + DerbyDrdaServer.benchHost().getHostAddress() + ":" + server.port + "/\"pooldb;create=true\"");
        Properties p = Jcc.derbyProperties();
        for (String k : p.stringPropertyNames()) cfg.addDataSourceProperty(k, p.getProperty(k));
        cfg.setUsername(p.getProperty("user"));
        cfg.setPassword(p.getProperty("password"));
        cfg.setMaximumPoolSize(size);
        cfg.setMinimumIdle(size);
        cfg.setConnectionTimeout(60_000);
        cfg.setPoolName("sdp4j-bench");
        ds = new HikariDataSource(cfg);
        dsSize = size;
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            JccWorkload.dropQuietly(c, INS);
            JccWorkload.dropQuietly(c, SEL);
            st.executeUpdate("create table " + INS + " (c1 bigint, c2 double, c3 varchar(8))");
            st.executeUpdate("create table " + SEL + " (c1 bigint not null, c2 double, c3 varchar(8))");
            st.executeUpdate("create unique index " + SEL + "_c1 on " + SEL + " (c1)");
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("insert into " + SEL + " values (?, ?, ?)")) {
                for (int i = 1; i <= ROWS; i++) {
                    ps.setLong(1, i);
                    ps.setDouble(2, SeedWorkload.c2(i));
                    ps.setString(3, SeedWorkload.c3(i));
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            c.commit();
            c.setAutoCommit(true);
        }
        return ds;
    }

    HikariDataSource source;

    @Setup(Level.Trial)
    public void setup() throws Exception {
        source = dataSource(pool);
        request(source, 1);
    }

    static void request(HikariDataSource ds, int key) throws SQLException {
        try (Connection c = ds.getConnection()) {
            long i = next.incrementAndGet();
            try (PreparedStatement ins = c.prepareStatement("insert into " + INS + " (c1, c2, c3) values (?, ?, ?)")) {
                ins.setLong(1, i);
                ins.setDouble(2, SeedWorkload.c2(i));
                ins.setString(3, SeedWorkload.c3(i));
                if (ins.executeUpdate() != 1) throw new IllegalStateException("INSERT did not insert one row");
            }
            try (PreparedStatement sel = c.prepareStatement("select c1, c2 from " + SEL + " where c1 = ?")) {
                sel.setLong(1, key);
                try (ResultSet rs = sel.executeQuery()) {
                    if (!rs.next() || rs.getLong(1) != key || rs.getDouble(2) != SeedWorkload.c2(key)) {
                        throw new IllegalStateException("point SELECT of c1=" + key + " returned no or a wrong row");
                    }
                }
            }
        }
    }

    /** {@code threads} virtual threads, {@code requests} requests each, all at once. Returns the statements run. */
    @Benchmark
    public long requests() throws Exception {
        CountDownLatch done = new CountDownLatch(threads);
        AtomicReference<Throwable> error = new AtomicReference<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            ThreadKind.VIRTUAL.start("request-" + t, () -> {
                try {
                    for (int r = 0; r < requests; r++) request(source, (id * requests + r) % ROWS + 1);
                } catch (Throwable e) {
                    error.compareAndSet(null, e);
                } finally {
                    done.countDown();
                }
            });
        }
        if (!done.await(Concurrency.TIMEOUT_S, TimeUnit.SECONDS)) {
            throw new TimeoutException(done.getCount() + " of " + threads + " virtual threads unfinished after " + Concurrency.TIMEOUT_S + " s");
        }
        if (error.get() != null) throw new SQLException("pooled request failed: " + error.get(), error.get());
        return statementsPerOp(threads, requests);
    }
}
