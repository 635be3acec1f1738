package org.sdp4j.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * "Where users feel it" (issue 13): H2 2.2's TCP server with an in-memory database in a second JVM on the agent
 * ({@link Peer}, {@code PeerMain h2}), and H2's own JDBC driver in this one. H2 does little per statement, so the
 * transport's round trip is most of a statement's time:
 * <ul>
 *   <li>{@link #insert}: one single-row INSERT with autocommit;</li>
 *   <li>{@link #pointSelect}: a prepared SELECT of one row by its primary key (the row is checked).</li>
 * </ul>
 * The server JVM and the connection are started once per measuring JVM and kept (the report runs one iteration per
 * JMH run).
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class H2Workload {
    static final String INS = "h2_ins", SEL = "h2_sel";

    @Param({"1000"})
    public int rows;

    private static Peer server;
    private static Connection conn;
    private static int filled;

    PreparedStatement insert, point;
    long next;
    int key;

    static synchronized Connection connection(int rows) throws Exception {
        if (conn == null || conn.isClosed()) {
            if (server == null) server = Peer.start("h2", 60, "h2");
            String url = "jdbc:h2:tcp://" + DerbyDrdaServer.benchHost().getHostAddress() + ":" + server.port + "/mem:bench;DB_CLOSE_DELAY=-1";
            conn = DriverManager.getConnection(url, "sa", "");
            try (Statement st = conn.createStatement()) {
                st.executeUpdate("create table if not exists " + INS + " (c1 bigint, c2 double, c3 varchar(8))");
            }
        }
        if (filled != rows) {
            try (Statement st = conn.createStatement()) {
                st.executeUpdate("drop table if exists " + SEL);
                st.executeUpdate("create table " + SEL + " (c1 bigint primary key, c2 double, c3 varchar(8))");
            }
            conn.setAutoCommit(false);
            try (PreparedStatement ps = conn.prepareStatement("insert into " + SEL + " values (?, ?, ?)")) {
                for (int i = 1; i <= rows; i++) {
                    ps.setLong(1, i);
                    ps.setDouble(2, SeedWorkload.c2(i));
                    ps.setString(3, SeedWorkload.c3(i));
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            conn.commit();
            conn.setAutoCommit(true);
            filled = rows;
        }
        return conn;
    }

    @Setup(Level.Trial)
    public void setup() throws Exception {
        Connection c = connection(rows);
        insert = c.prepareStatement("insert into " + INS + " (c1, c2, c3) values (?, ?, ?)");
        point = c.prepareStatement("select c1, c2, c3 from " + SEL + " where c1 = ?");
        insert();
        pointSelect();
    }

    /** One row INSERT, autocommit. */
    @Benchmark
    public int insert() throws SQLException {
        long i = ++next;
        insert.setLong(1, i);
        insert.setDouble(2, SeedWorkload.c2(i));
        insert.setString(3, SeedWorkload.c3(i));
        int n = insert.executeUpdate();
        if (n != 1) throw new IllegalStateException("INSERT reported " + n + " rows, expected 1");
        return n;
    }

    /** Prepared SELECT of one row by primary key; the row is checked. */
    @Benchmark
    public double pointSelect() throws SQLException {
        int k = key = key % rows + 1;
        point.setLong(1, k);
        try (ResultSet rs = point.executeQuery()) {
            if (!rs.next()) throw new IllegalStateException("point SELECT of c1=" + k + " found no row");
            double c2 = rs.getDouble(2);
            if (rs.getLong(1) != k || c2 != SeedWorkload.c2(k)) throw new IllegalStateException("point SELECT of c1=" + k + " returned a wrong row");
            return c2;
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws SQLException {
        insert.close();
        point.close();
        try (Statement st = conn.createStatement()) {
            st.executeUpdate("delete from " + INS);   // the same table size for every iteration
        }
    }
}
