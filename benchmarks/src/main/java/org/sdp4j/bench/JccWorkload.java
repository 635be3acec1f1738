package org.sdp4j.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
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
 * The seed workload's two statements as JMH benchmarks, through the IBM Db2 JDBC driver:
 * {@link #insert} one row with autocommit (one network round trip and a commit), and {@link #select} all
 * {@code rows} rows of a table (a result set streamed in DRDA query blocks).
 *
 * <p>The server is Apache Derby 10.8.3.0's Network Server started in the forked JVM in {@code @Setup(Level.Trial)},
 * or a real Db2 when {@code -Djdbc.url=jdbc:db2://host:50000/SAMPLE -Djdbc.user=... -Djdbc.password=...} is given
 * (its tables {@code SDP4J_BENCH_INS} and {@code SDP4J_BENCH_SEL} are created and dropped by the benchmark).
 */
@BenchmarkMode(Mode.AverageTime)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@Threads(1)
@State(Scope.Benchmark)
public class JccWorkload {

    static final String INS = "sdp4j_bench_ins", SEL = "sdp4j_bench_sel";

    /** Rows in the table {@link #select} reads. */
    @Param({"4000"})
    public int rows;

    DerbyDrdaServer server;
    Connection conn;
    PreparedStatement insert;
    PreparedStatement select;
    long next;

    @Setup(Level.Trial)
    public void setup() throws Exception {
        String url = Jcc.externalUrl();
        Properties props;
        if (url == null) {
            server = DerbyDrdaServer.start();
            url = server.jccUrl("benchdb");
            props = Jcc.derbyProperties();
        } else {
            props = Jcc.externalProperties();
        }
        conn = Jcc.connect(url, props);
        dropQuietly(INS);
        dropQuietly(SEL);
        try (Statement st = conn.createStatement()) {
            st.executeUpdate("create table " + INS + " (c1 bigint, c2 double, c3 varchar(8))");
            st.executeUpdate("create table " + SEL + " (c1 bigint, c2 double, c3 varchar(8))");
        }
        // fill the SELECT table in one transaction (fast); the benchmarks themselves run with autocommit
        conn.setAutoCommit(false);
        try (PreparedStatement ps = conn.prepareStatement("insert into " + SEL + " (c1, c2, c3) values (?, ?, ?)")) {
            for (int i = 1; i <= rows; i++) {
                ps.setLong(1, SeedWorkload.c1(i));
                ps.setDouble(2, SeedWorkload.c2(i));
                ps.setString(3, SeedWorkload.c3(i));
                ps.addBatch();
                if (i % 500 == 0) ps.executeBatch();
            }
            ps.executeBatch();
        }
        conn.commit();
        conn.setAutoCommit(true);
        insert = conn.prepareStatement("insert into " + INS + " (c1, c2, c3) values (?, ?, ?)");
        select = conn.prepareStatement("select c1, c2, c3 from " + SEL);
        // one of each now, so a broken setup fails the trial before measuring
        insert();
        if (select() != expectedSum()) throw new IllegalStateException("SELECT returned wrong rows");
    }

    long expectedSum() {
        return (long) rows * (rows + 1) / 2;
    }

    /** One row INSERT, autocommit: the latency-bound statement. */
    @Benchmark
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public int insert() throws SQLException {
        long i = ++next;
        insert.setLong(1, i);
        insert.setDouble(2, SeedWorkload.c2(i));
        insert.setString(3, SeedWorkload.c3(i));
        return insert.executeUpdate();
    }

    /** SELECT of all rows, every row fetched: the streaming statement. Returns the sum of c1 (checked). */
    @Benchmark
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    public long select() throws SQLException {
        long sum = 0;
        int n = 0;
        try (ResultSet rs = select.executeQuery()) {
            while (rs.next()) {
                sum += rs.getLong(1);
                rs.getDouble(2);
                rs.getString(3);
                n++;
            }
        }
        if (n != rows) throw new IllegalStateException("SELECT returned " + n + " rows, expected " + rows);
        return sum;
    }

    @TearDown(Level.Iteration)
    public void trimInsertTable() throws SQLException {
        // keep the INSERT table small so later iterations measure the same thing
        try (Statement st = conn.createStatement()) {
            st.executeUpdate("delete from " + INS);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        try {
            if (conn != null) {
                dropQuietly(INS);
                dropQuietly(SEL);
                conn.close();
            }
        } finally {
            if (server != null) server.close();
        }
    }

    private void dropQuietly(String table) {
        try (Statement st = conn.createStatement()) {
            st.executeUpdate("drop table " + table);
        } catch (SQLException notThere) {
            // fine
        }
    }
}
