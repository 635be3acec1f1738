package org.sdp4j.e2e.apps;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/**
 * The client of the two-host {@code pool-cut-*} steps (issue 20): an idle pooled JDBC connection (HikariCP, the IBM
 * Db2 driver to Derby on the other guest, under the agent: the rules pick the transport) across a cut wire, driven
 * through the same control files as sdp-jni's TwoHostWireCut ({@code CTL/cut} -> {@code cut-on}, {@code restore} ->
 * {@code restored}).
 * <ul>
 * <li>{@code short}: the wire is cut for about 2.5 s while the pool's one connection sits idle, then comes back; the
 * next borrowed connection must answer a checked query. A transport that did not give up keeps the same physical
 * connection (as TCP does).</li>
 * <li>{@code long}: the wire stays cut for the script's time (SDP4J_2H_LONG_CUT, 40 s); a query is tried during the
 * cut with the driver's read timeout ({@code blockingReadConnectionTimeout}) and must fail, not hang; the pool must
 * then evict that connection, and once the wire is back hand out a new one (on RDMA again: the step checks the
 * decision log) that answers the checked query.</li>
 * </ul>
 * Prints {@code WIRE-CUT OK: ...} with what it measured, or {@code WIRE-CUT FAIL: ...} and exits 1.
 */
public final class TwoHostPoolCut {
    private static final int ROWS = 100;

    public static void main(String[] args) throws Exception {
        if (args.length < 3 || !(args[2].equals("short") || args[2].equals("long"))) {
            System.err.println("usage: TwoHostPoolCut URL CTL_DIR short|long [K=V...]");
            System.exit(2);
        }
        Path ctl = Path.of(args[1]);
        boolean longCut = args[2].equals("long");
        Properties props = new Properties();
        for (int i = 3; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            props.setProperty(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        Class.forName("com.ibm.db2.jcc.DB2Driver");
        HikariConfig cfg = new HikariConfig();
        cfg.setJdbcUrl(args[0]);
        cfg.setDataSourceProperties(props);
        cfg.setMaximumPoolSize(1);
        cfg.setMinimumIdle(1);
        cfg.setConnectionTimeout(120_000); // long enough to outlast a long cut: the borrow waits for the wire
        cfg.setValidationTimeout(5_000);
        cfg.setConnectionTestQuery("VALUES 1");
        cfg.setPoolName("pool-cut");
        try (HikariDataSource pool = new HikariDataSource(cfg)) {
            Object before;
            try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
                before = c.unwrap(Connection.class);
                st.execute("CREATE TABLE pool_cut (id INT PRIMARY KEY, v INT)");
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO pool_cut VALUES (?, ?)")) {
                    for (int i = 0; i < ROWS; i++) {
                        ps.setInt(1, i);
                        ps.setInt(2, i * 7);
                        ps.executeUpdate();
                    }
                }
            }
            check(pool, "before the cut");
            Thread.sleep(1000); // idle in the pool
            signal(ctl, "cut");
            await(ctl, "cut-on", 60);
            long cutAt = System.nanoTime();
            String during;
            if (!longCut) {
                Thread.sleep(2500); // idle across the cut
                signal(ctl, "restore");
                await(ctl, "restored", 60);
                during = "idle in the pool across a " + ms(cutAt) + " ms cut";
            } else {
                long t0 = System.nanoTime();
                try (Connection c = pool.getConnection(); Statement st = c.createStatement();
                     ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM pool_cut")) {
                    rs.next();
                    during = "a query during the cut was answered after " + ms(t0) + " ms (the wire came back "
                            + (Files.exists(ctl.resolve("restoring")) ? "before it" : "- not yet?!") + ")";
                    if (!Files.exists(ctl.resolve("restoring"))) {
                        System.out.println("WIRE-CUT FAIL: a query was answered during the cut: " + during);
                        System.exit(1);
                    }
                } catch (SQLException e) {
                    during = "a query during the cut failed after " + ms(t0) + " ms: " + e;
                }
                System.out.println(during);
                await(ctl, "restored", 600);
            }
            long restoredAt = System.nanoTime();
            Object after = check(pool, "after the wire came back");
            String same = after == before ? "the same physical connection" : "a new physical connection";
            System.out.println("WIRE-CUT OK: " + during + "; " + ROWS + " rows checked " + ms(restoredAt)
                    + " ms after the wire came back, on " + same + " (" + pool.getHikariPoolMXBean().getTotalConnections()
                    + " in the pool)");
            try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
                st.execute("DROP TABLE pool_cut");
            }
        }
    }

    /** Borrows a connection and checks every row; the physical connection it used. */
    private static Object check(HikariDataSource pool, String when) throws SQLException {
        try (Connection c = pool.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT id, v FROM pool_cut ORDER BY id")) {
            int n = 0;
            while (rs.next()) {
                if (rs.getInt(1) != n || rs.getInt(2) != n * 7) {
                    System.out.println("WIRE-CUT FAIL: row " + n + " differs " + when);
                    System.exit(1);
                }
                n++;
            }
            if (n != ROWS) {
                System.out.println("WIRE-CUT FAIL: " + n + " rows " + when + ", expected " + ROWS);
                System.exit(1);
            }
            return c.unwrap(Connection.class);
        }
    }

    private static void signal(Path ctl, String name) throws Exception {
        Files.writeString(ctl.resolve(name), "");
    }

    private static void await(Path ctl, String name, int seconds) throws Exception {
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        while (!Files.exists(ctl.resolve(name))) {
            if (System.nanoTime() - end > 0) {
                System.out.println("WIRE-CUT FAIL: no " + name + " from the step script within " + seconds + " s");
                System.exit(1);
            }
            Thread.sleep(20);
        }
    }

    private static long ms(long since) {
        return (System.nanoTime() - since) / 1_000_000;
    }
}
