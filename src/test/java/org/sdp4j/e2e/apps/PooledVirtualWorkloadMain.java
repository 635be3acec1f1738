package org.sdp4j.e2e.apps;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/**
 * A JDBC application the way Spring Boot or Helidon run one on virtual threads (issue 13): THREADS virtual threads,
 * one per request, share a HikariCP pool of POOL connections; each request borrows a connection, INSERTs one row with
 * autocommit and reads it back by its key with a prepared SELECT (checked), and returns the connection. Then one
 * SELECT counts the rows.
 *
 * <pre>
 * PooledVirtualWorkloadMain URL THREADS POOL REQUESTS [key=value ...]
 * </pre>
 * Prints {@code POOLED n} (requests done, every row checked), {@code POOL n} (connections the pool opened, once it
 * filled), {@code COUNTED n}, {@code BAD ...} and
 * {@code RESULT OK} (exit 0), or {@code RESULT FAILED} and {@code CAUSE ...} (exit 3). Needs Java 21+.
 */
public final class PooledVirtualWorkloadMain {
    private PooledVirtualWorkloadMain() {}

    public static void main(String[] args) throws Exception {
        String url = args[0];
        int threads = Integer.parseInt(args[1]);
        int pool = Integer.parseInt(args[2]);
        int requests = Integer.parseInt(args[3]);
        Properties props = new Properties();
        for (int i = 4; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            props.setProperty(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        HikariConfig cfg = new HikariConfig();
        cfg.setJdbcUrl(url);
        cfg.setDataSourceProperties(props);
        cfg.setMaximumPoolSize(pool);
        cfg.setMinimumIdle(pool);
        cfg.setConnectionTimeout(60_000);
        int status;
        try (HikariDataSource ds = new HikariDataSource(cfg)) {
            try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
                s.execute("create table pooled (k bigint primary key, v varchar(32))");
            }
            int done = 0;
            // by reflection, and closed by hand: these tests compile for Java 17
            ExecutorService vts = (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor")
                    .invoke(null);
            try {
                List<Future<Integer>> all = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int thread = t;
                    all.add(vts.submit(() -> {
                        int ok = 0;
                        for (int r = 0; r < requests; r++) {
                            long k = (long) thread * requests + r;
                            ok += request(ds, k);
                        }
                        return ok;
                    }));
                }
                for (Future<Integer> f : all) {
                    done += f.get(120, TimeUnit.SECONDS);
                }
            } finally {
                vts.shutdownNow();
            }
            System.out.println("POOLED " + done);
            // HikariCP fills the pool to its minimum in the background: wait for it (bounded), so that a check of
            // "every pooled connection" counts them all (a fast workload ended with 9 of 10 opened: CI, Temurin 25)
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (ds.getHikariPoolMXBean().getTotalConnections() < pool && System.nanoTime() - end < 0) {
                Thread.sleep(20);
            }
            System.out.println("POOL " + ds.getHikariPoolMXBean().getTotalConnections());
            try (Connection c = ds.getConnection(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("select count(*) from pooled")) {
                rs.next();
                System.out.println("COUNTED " + rs.getLong(1));
                s.execute("drop table pooled");
            }
            status = done == threads * requests ? 0 : 3;
            System.out.println(status == 0 ? "RESULT OK" : "RESULT FAILED");
        } catch (Exception e) {
            System.out.println("RESULT FAILED");
            Side.printChain("CAUSE ", e);
            status = 3;
        }
        System.out.flush();
        System.exit(status);
    }

    private static int request(HikariDataSource ds, long k) throws SQLException {
        String v = "v" + Long.toString(k * 7919, 36);
        try (Connection c = ds.getConnection()) {
            try (PreparedStatement ins = c.prepareStatement("insert into pooled (k, v) values (?, ?)")) {
                ins.setLong(1, k);
                ins.setString(2, v);
                ins.executeUpdate();
            }
            try (PreparedStatement sel = c.prepareStatement("select v from pooled where k = ?")) {
                sel.setLong(1, k);
                try (ResultSet rs = sel.executeQuery()) {
                    if (rs.next() && v.equals(rs.getString(1))) {
                        return 1;
                    }
                }
            }
        }
        System.out.println("BAD row " + k);
        return 0;
    }
}
