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
 * The seed's db2batch statements as JMH benchmarks, through the IBM Db2 JDBC driver:
 * <ul>
 *   <li>{@link #insert}: one single-row INSERT with autocommit (one network round trip and a commit), every execution
 *       timed (sample mode), i.e. db2batch's "average time per INSERT";</li>
 *   <li>{@link #insertBlock}: a block of {@code rows} (4000) such INSERTs back to back, timed as one (single shot);</li>
 *   <li>{@link #select}: SELECT of all {@code rows} rows, every row fetched (DRDA query blocks streaming);</li>
 *   <li>{@link #pointSelect}: a prepared SELECT of one row by its key (indexed), the OLTP read.</li>
 * </ul>
 *
 * <p>The server is Apache Derby 10.8.3.0's Network Server, started once per JVM on first use (a JVM-wide
 * {@link DerbyFixture}; {@code derby.system.durability=test} unless {@code -Dsdp4j.bench.durable=true}, see
 * {@link DerbyFixture}), or a real Db2 when {@code -Djdbc.url=jdbc:db2://host:50000/SAMPLE -Djdbc.user=...
 * -Djdbc.password=...} is given (the tables {@code SDP4J_BENCH_INS} and {@code SDP4J_BENCH_SEL} are created, and
 * dropped when the JVM exits).
 */
@BenchmarkMode(Mode.SampleTime)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@Threads(1)
@State(Scope.Benchmark)
public class JccWorkload {

    static final String INS = "sdp4j_bench_ins", SEL = "sdp4j_bench_sel";

    /** Rows in the table {@link #select} reads, and INSERTs in one {@link #insertBlock}. */
    @Param({"4000"})
    public int rows;

    Connection conn;
    PreparedStatement insert, select, point;
    long next;
    int key;

    @Setup(Level.Trial)
    public void setup() throws Exception {
        conn = DerbyFixture.prepare(rows);
        conn.setAutoCommit(true);
        insert = conn.prepareStatement("insert into " + INS + " (c1, c2, c3) values (?, ?, ?)");
        select = conn.prepareStatement("select c1, c2, c3 from " + SEL);
        point = conn.prepareStatement("select c1, c2, c3 from " + SEL + " where c1 = ?");
        // one of each now, so a broken setup fails the trial before measuring
        insert();
        if (select() != expectedSum()) throw new IllegalStateException("SELECT returned wrong rows");
        pointSelect();
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
        int n = insert.executeUpdate();
        if (n != 1) throw new IllegalStateException("INSERT reported " + n + " rows, expected 1");
        return n;
    }

    /** {@code rows} single-row INSERTs with autocommit, back to back: db2batch's block of 4000 INSERTs. */
    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    public int insertBlock() throws SQLException {
        int n = 0;
        for (int k = 0; k < rows; k++) n += insert();
        return n;
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

    /** Prepared SELECT of one row by key (unique index on c1): a round trip that reads. The row is checked. */
    @Benchmark
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public double pointSelect() throws SQLException {
        int k = key = key % rows + 1;
        point.setLong(1, k);
        try (ResultSet rs = point.executeQuery()) {
            if (!rs.next()) throw new IllegalStateException("point SELECT of c1=" + k + " found no row");
            double c2 = rs.getDouble(2);
            if (rs.getLong(1) != k || c2 != SeedWorkload.c2(k)) {
                throw new IllegalStateException("point SELECT of c1=" + k + " returned a wrong row");
            }
            return c2;
        }
    }

    @TearDown(Level.Iteration)
    public void trimInsertTable() throws SQLException {
        // keep the INSERT table small so later iterations measure the same thing
        try (Statement st = conn.createStatement()) {
            st.executeUpdate("delete from " + INS);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws SQLException {
        // the connection and the tables stay for the next benchmark in this JVM (closed and dropped at exit)
        for (PreparedStatement ps : new PreparedStatement[] {insert, select, point}) {
            if (ps != null) ps.close();
        }
        trimInsertTable();
    }

    static void dropQuietly(Connection c, String table) {
        try (Statement st = c.createStatement()) {
            st.executeUpdate("drop table " + table);
        } catch (SQLException notThere) {
            // fine
        }
    }

    /**
     * One database connection per JVM for all benchmarks that run in it (JMH runs several in one JVM with
     * {@code -f 0}, as the report does): the Derby Network Server is started on first use, the SELECT table filled
     * once, the INSERT table created once; at exit the tables are dropped (external database), the connection closed
     * and Derby stopped. With {@code -Djdbc.url=...} it is the external database instead.
     *
     * <p>Derby runs with {@code derby.system.durability=test} (commits do not wait for the disk) unless
     * {@code -Dsdp4j.bench.durable=true}: on a loopback fixture, an fsync per autocommit would put this machine's disk
     * (and whatever else writes to it) into every INSERT time, which is not what a transport comparison is after.
     */
    static final class DerbyFixture {
        private static DerbyDrdaServer server;
        private static String url;
        private static Properties props;
        private static String filled;          // "TABLE:ROWS" of the SELECT table filled in this JVM
        private static boolean hook;
        private static Connection shared;

        private DerbyFixture() {}

        /** The JVM's connection, with the SELECT table holding {@code rows} rows and an (emptied) INSERT table. */
        static synchronized Connection prepare(int rows) throws Exception {
            if (shared == null || shared.isClosed()) {
                shared = connect();
                dropQuietly(shared, INS);
                try (Statement st = shared.createStatement()) {
                    st.executeUpdate("create table " + INS + " (c1 bigint, c2 double, c3 varchar(8))");
                }
            }
            ensureSelectTable(shared, SEL, rows);
            return shared;
        }

        static synchronized Connection connect() throws Exception {
            if (url == null) {
                url = Jcc.externalUrl();
                if (url == null) {
                    if (!Boolean.getBoolean("sdp4j.bench.durable")) System.setProperty("derby.system.durability", "test");
                    server = DerbyDrdaServer.start();
                    url = server.jccUrl("benchdb");
                    props = Jcc.derbyProperties();
                } else {
                    props = Jcc.externalProperties();
                }
            }
            if (!hook) {
                hook = true;
                Runtime.getRuntime().addShutdownHook(new Thread(DerbyFixture::shutdown, "sdp4j-bench-db-cleanup"));
            }
            return Jcc.connect(url, props);
        }

        static synchronized void ensureSelectTable(Connection c, String table, int rows) throws SQLException {
            if ((table + ":" + rows).equals(filled)) return;
            dropQuietly(c, table);
            try (Statement st = c.createStatement()) {
                st.executeUpdate("create table " + table + " (c1 bigint not null, c2 double, c3 varchar(8))");
                st.executeUpdate("create unique index " + table + "_c1 on " + table + " (c1)");
            }
            // one transaction, batched (fast); the benchmarks themselves run with autocommit
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("insert into " + table + " (c1, c2, c3) values (?, ?, ?)")) {
                for (int i = 1; i <= rows; i++) {
                    ps.setLong(1, SeedWorkload.c1(i));
                    ps.setDouble(2, SeedWorkload.c2(i));
                    ps.setString(3, SeedWorkload.c3(i));
                    ps.addBatch();
                    if (i % 500 == 0) ps.executeBatch();
                }
                ps.executeBatch();
            }
            c.commit();
            c.setAutoCommit(true);
            filled = table + ":" + rows;
        }

        static synchronized void shutdown() {
            try {
                if (shared != null) {
                    if (server == null) {   // an external database: leave it clean
                        dropQuietly(shared, INS);
                        if (filled != null) dropQuietly(shared, filled.substring(0, filled.indexOf(':')));
                    }
                    shared.close();
                }
            } catch (Exception | LinkageError ignored) {
                // best effort at exit
            }
            if (server != null) {
                try {
                    server.close();
                } catch (Exception | LinkageError ignored) {
                    // best effort at exit
                }
            }
            server = null;
            url = null;
            shared = null;
            filled = null;
        }
    }
}
