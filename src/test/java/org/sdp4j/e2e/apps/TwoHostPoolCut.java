package org.sdp4j.e2e.apps;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/**
 * The client of the two-host {@code pool-cut} step (issue 20): idle pooled JDBC connections (HikariCP, the IBM Db2
 * driver to Derby on the other guest, under the agent: the rules pick each pool's transport, e.g. one pool per tcp,
 * sdp and ucx) across two cuts of the wire, all pools at once. It asks the step script for each cut and its end
 * through files in CTL ({@code cut.N} -> the script cuts, {@code cut-on.N}; {@code restore.N} -> the wire is back,
 * {@code restored.N}).
 * <ol>
 * <li>A short cut (2.5 s) while the pools idle: no transport gives up that soon, so the next borrow from each pool
 * must answer a checked query on <em>the same physical connection</em> (as TCP's does).</li>
 * <li>A long cut (LONG_SECONDS): a borrow and query on each pool during it must end - failed, or answered only once
 * the wire is back - never hang; each pool must have evicted its dead connection (its 5 s validation fails) and, once
 * the wire is back, answer the checked query on <em>a new physical connection</em>. Which transport the new one took
 * is the step script's check (the decision log).</li>
 * </ol>
 * Prints {@code WIRE-CUT OK: ...} with what it measured per pool, or {@code WIRE-CUT FAIL: ...} and exits 1.
 * <pre>
 *   TwoHostPoolCut CTL_DIR LONG_SECONDS NAME=jdbc:URL... [K=V...]   (K=V: the driver's properties)
 * </pre>
 */
public final class TwoHostPoolCut {
    private static final int ROWS = 100;
    private static final long SHORT_CUT_MS = 2500;

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: TwoHostPoolCut CTL_DIR LONG_SECONDS NAME=jdbc:URL... [K=V...]");
            System.exit(2);
        }
        Path ctl = Path.of(args[0]);
        int longCut = Integer.parseInt(args[1]);
        Map<String, String> urls = new LinkedHashMap<>();
        Properties props = new Properties();
        for (int i = 2; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("not NAME=URL or KEY=VALUE: " + args[i]);
            }
            String k = args[i].substring(0, eq), v = args[i].substring(eq + 1);
            if (v.startsWith("jdbc:")) {
                urls.put(k, v);
            } else {
                props.setProperty(k, v);
            }
        }
        Class.forName("com.ibm.db2.jcc.DB2Driver");
        List<Pool> pools = new ArrayList<>();
        try {
            for (Map.Entry<String, String> u : urls.entrySet()) {
                pools.add(new Pool(u.getKey(), u.getValue(), props));
            }
            for (Pool p : pools) {
                p.seed();
            }
            Thread.sleep(1000); // idle in the pools

            // 1. the short cut: the same physical connections answer after it
            long cutAt = cut(ctl, 1);
            Thread.sleep(SHORT_CUT_MS);
            long backAt = restore(ctl, 1);
            long cutMs = (backAt - cutAt) / 1_000_000;
            StringBuilder verdict = new StringBuilder();
            for (Pool p : pools) {
                Object c = p.check("after the short cut");
                if (c != p.physical) {
                    fail(p.name + ": a new physical connection after a " + cutMs + " ms cut: the old one was lost");
                }
                verdict.append(p.name).append(": the same connection answered ").append(ms(backAt))
                        .append(" ms after a ").append(cutMs).append(" ms cut; ");
                System.out.println("POOL-CUT " + p.name + " short: " + ROWS + " rows checked on the same physical "
                        + "connection " + ms(backAt) + " ms after the wire came back (cut " + cutMs + " ms)");
            }
            Thread.sleep(1000);

            // 2. the long cut: a query on each pool during it ends (failed or answered after the wire is back)
            cut(ctl, 2);
            List<CompletableFuture<String>> during = new ArrayList<>();
            for (Pool p : pools) {
                during.add(CompletableFuture.supplyAsync(p::queryDuringCut));
            }
            Thread.sleep(longCut * 1000L);
            long restoringAt = System.nanoTime();
            for (Pool p : pools) {
                p.restoringAt = restoringAt;
            }
            backAt = restore(ctl, 2);
            for (int i = 0; i < pools.size(); i++) {
                Pool p = pools.get(i);
                String d;
                try {
                    d = during.get(i).get(180, TimeUnit.SECONDS);
                } catch (java.util.concurrent.TimeoutException e) {
                    d = null;
                    fail(p.name + ": the query during the cut still hangs 180 s after the wire came back");
                }
                Object c = p.check("after the long cut");
                if (c == p.physical) {
                    fail(p.name + ": the same physical connection after a " + longCut + " s cut: the pool did not "
                            + "evict it (" + d + ")");
                }
                verdict.append(p.name).append(": ").append(d).append(", a new connection answered ")
                        .append(ms(backAt)).append(" ms after the wire came back; ");
                System.out.println("POOL-CUT " + p.name + " long: " + d + "; " + ROWS + " rows checked on a new "
                        + "physical connection " + ms(backAt) + " ms after the wire came back (cut " + longCut + " s)");
            }
            for (Pool p : pools) {
                p.drop();
            }
            System.out.println("WIRE-CUT OK: " + verdict.substring(0, verdict.length() - 2));
        } finally {
            for (Pool p : pools) {
                p.ds.close();
            }
        }
    }

    /** One pool of one connection to one URL; its table is its own (the pools may share a database). */
    private static final class Pool {
        final String name;
        final String table;
        final HikariDataSource ds;
        Object physical;
        volatile long restoringAt = Long.MAX_VALUE;

        Pool(String name, String url, Properties props) {
            this.name = name;
            this.table = "pool_cut_" + name.replaceAll("[^A-Za-z0-9]", "_");
            HikariConfig cfg = new HikariConfig();
            cfg.setJdbcUrl(url);
            cfg.setDataSourceProperties(props);
            cfg.setMaximumPoolSize(1);
            cfg.setMinimumIdle(1);
            cfg.setConnectionTimeout(150_000); // a borrow during the long cut waits for the wire
            cfg.setValidationTimeout(5_000);
            cfg.setConnectionTestQuery("VALUES 1");
            cfg.setPoolName("pool-cut-" + name);
            ds = new HikariDataSource(cfg);
        }

        void seed() throws SQLException {
            try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
                st.execute("CREATE TABLE " + table + " (id INT PRIMARY KEY, v INT)");
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " VALUES (?, ?)")) {
                    for (int i = 0; i < ROWS; i++) {
                        ps.setInt(1, i);
                        ps.setInt(2, i * 7);
                        ps.executeUpdate();
                    }
                }
            }
            physical = check("before the cuts");
        }

        /** Borrows a connection and checks every row; the physical connection it used. */
        Object check(String when) throws SQLException {
            try (Connection c = ds.getConnection(); Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT id, v FROM " + table + " ORDER BY id")) {
                int n = 0;
                while (rs.next()) {
                    if (rs.getInt(1) != n || rs.getInt(2) != n * 7) {
                        fail(name + ": row " + n + " differs " + when);
                    }
                    n++;
                }
                if (n != ROWS) {
                    fail(name + ": " + n + " rows " + when + ", expected " + ROWS);
                }
                return c.unwrap(Connection.class);
            }
        }

        /** A borrow and query during the long cut: how it ended. An answer before the wire came back is a failure. */
        String queryDuringCut() {
            long t0 = System.nanoTime();
            try (Connection c = ds.getConnection(); Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM " + table)) {
                rs.next();
                if (System.nanoTime() - restoringAt < 0) {
                    fail(name + ": a query was answered during the cut, after " + ms(t0) + " ms");
                }
                return "a query during the cut was answered " + ms(t0) + " ms after it began, once the wire was back";
            } catch (SQLException e) {
                return "a query during the cut failed after " + ms(t0) + " ms: " + e.getClass().getSimpleName()
                        + (e.getSQLState() != null ? " SQLSTATE " + e.getSQLState() : "");
            }
        }

        void drop() throws SQLException {
            try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
                st.execute("DROP TABLE " + table);
            }
        }
    }

    private static long cut(Path ctl, int n) throws Exception {
        Files.writeString(ctl.resolve("cut." + n), "");
        await(ctl, "cut-on." + n, 60);
        return System.nanoTime();
    }

    private static long restore(Path ctl, int n) throws Exception {
        Files.writeString(ctl.resolve("restore." + n), "");
        await(ctl, "restored." + n, 60);
        return System.nanoTime();
    }

    private static void await(Path ctl, String name, int seconds) throws Exception {
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        while (!Files.exists(ctl.resolve(name))) {
            if (System.nanoTime() - end > 0) {
                fail("no " + name + " from the step script within " + seconds + " s");
            }
            Thread.sleep(20);
        }
    }

    private static void fail(String why) {
        System.out.println("WIRE-CUT FAIL: " + why);
        System.out.flush();
        Runtime.getRuntime().halt(1); // from any thread, with pools and the wire in any state
    }

    private static long ms(long since) {
        return (System.nanoTime() - since) / 1_000_000;
    }
}
