package org.sdp4j.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.text.SimpleDateFormat;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * The seed's db2batch workload in one JVM, printed the way IBM's {@code db2batch} prints a run: each statement with
 * its elapsed time, then a summary table (Type, Number, Repetitions, Total/Min/Max Time, Arithmetic and Geometric
 * Mean, rows fetched).
 *
 * <p>Unless {@code -Djdbc.url} names a real Db2, it starts Apache Derby 10.8.3.0's Network Server in this JVM on
 * 127.0.0.1 and connects to it with the IBM Db2 JDBC driver. Which transport carries the connection is decided
 * outside this program: by the {@code -javaagent:sdp4j-agent.jar=conf=...} the JVM was started with, if any.
 *
 * <pre>
 * Db2BatchMain [--rows N] [--port P] [--ldap-port P] [--db NAME] [--each] [--free-port]
 *   --rows N       rows to INSERT and SELECT (default 4000)
 *   --port P       Derby's port (default: a free one)
 *   --ldap-port P  also open one plain connection to a stand-in "LDAP" listener on 127.0.0.1:P (rule demo)
 *   --db NAME      Derby database name (default testdb)
 *   --each         print every INSERT's elapsed time (db2batch prints each repetition)
 *   --free-port    print a free TCP port on 127.0.0.1 and exit
 * </pre>
 * Exit status: 0 success, 1 the workload failed, 2 usage.
 */
public final class Db2BatchMain {

    private Db2BatchMain() {}

    public static void main(String[] args) {
        int rc;
        try {
            rc = run(args, System.out, System.err);
        } catch (Throwable t) {
            System.err.println("db2batch: FAILED: " + t);
            t.printStackTrace(System.err);
            rc = 1;
        }
        System.out.flush();
        System.err.flush();
        // Derby leaves non-daemon threads behind; exit explicitly with the status.
        Runtime.getRuntime().halt(rc);
    }

    static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        int rows = 4000, port = 0, ldapPort = 0;
        String db = "testdb";
        boolean each = false;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            try {
                switch (a) {
                    case "--rows": rows = Integer.parseInt(args[++i]); break;
                    case "--port": port = Integer.parseInt(args[++i]); break;
                    case "--ldap-port": ldapPort = Integer.parseInt(args[++i]); break;
                    case "--db": db = args[++i]; break;
                    case "--each": each = true; break;
                    case "--free-port":
                        out.println(DerbyDrdaServer.freePort(InetAddress.getByName("127.0.0.1")));
                        return 0;
                    case "-h": case "--help":
                        usage(out);
                        return 0;
                    default:
                        err.println("db2batch: unknown option " + a);
                        usage(err);
                        return 2;
                }
            } catch (ArrayIndexOutOfBoundsException | NumberFormatException e) {
                err.println("db2batch: option " + a + " needs a number/value");
                usage(err);
                return 2;
            }
        }
        if (rows < 1) {
            err.println("db2batch: --rows must be >= 1");
            return 2;
        }

        String rule = "---------------------------------------------";
        out.println("* Timestamp: " + timestamp());
        out.println(rule);
        out.println("* sdp4j db2batch: the seed workload (" + rows + " INSERTs, autocommit; SELECT of all rows; every row checked)");
        out.println("* JVM:   " + System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        out.println("* Agent: " + agentDescription());

        DerbyDrdaServer server = null;
        String url = Jcc.externalUrl();
        Properties props;
        try {
            if (url == null) {
                long t0 = System.nanoTime();
                server = DerbyDrdaServer.start(port, null, null);
                out.printf(Locale.ROOT, "* Server: Apache Derby %s Network Server (DRDA) on 127.0.0.1:%d, started in %.3f s%n",
                        derbyVersion(), server.port(), (System.nanoTime() - t0) / 1e9);
                url = server.jccUrl(db);
                props = Jcc.derbyProperties();
            } else {
                out.println("* Server: external, -Djdbc.url");
                props = Jcc.externalProperties();
            }

            if (ldapPort > 0) {
                out.println("* LDAP stand-in: " + ldapRoundTrip(ldapPort));
            }

            long c0 = System.nanoTime();
            try (Connection c = Jcc.connect(url, props)) {
                double connectS = (System.nanoTime() - c0) / 1e9;
                out.println("* Connected: " + url + " user " + props.getProperty("user", "(none)"));
                out.println("* Driver: " + Jcc.describe(c));
                out.printf(Locale.ROOT, "* Connect Time is: %14.6f seconds%n", connectS);
                out.println(rule);

                SeedWorkload.Result r;
                try {
                    r = SeedWorkload.run(c, rows);
                } catch (SeedWorkload.WorkloadException e) {
                    err.println("db2batch: FAILED: wrong data: " + e.getMessage());
                    return 1;
                }
                if (r.checksum() != SeedWorkload.expectedChecksum(rows)) {
                    err.println("db2batch: FAILED: checksum " + Long.toHexString(r.checksum()) + " != expected "
                            + Long.toHexString(SeedWorkload.expectedChecksum(rows)));
                    return 1;
                }
                report(r, each, out);
                out.println("* Checksum of rows read: " + Long.toHexString(r.checksum()) + " (expected, all " + r.rowsRead() + " rows checked)");
                out.println(rule);
                out.println("* Timestamp: " + timestamp());
            }
            return 0;
        } catch (SQLException e) {
            err.println("db2batch: FAILED: " + describe(e));
            return 1;
        } finally {
            if (server != null) {
                try { server.close(); } catch (Exception e) { err.println("db2batch: warning: Derby shutdown: " + e); }
            }
        }
    }

    /** db2batch-style statement blocks and the summary table. */
    static void report(SeedWorkload.Result r, boolean each, PrintStream out) {
        String[] sql = {SeedWorkload.CREATE_SQL, SeedWorkload.INSERT_SQL, SeedWorkload.SELECT_SQL, SeedWorkload.DROP_SQL};
        List<SeedWorkload.Timing> ts = new ArrayList<>(r.timings().values());
        long[] fetched = new long[ts.size()];
        for (int n = 0; n < ts.size(); n++) {
            SeedWorkload.Timing t = ts.get(n);
            out.println();
            out.println("* SQL Statement Number " + (n + 1) + ":");
            out.println();
            out.println(sql[n] + ";");
            out.println();
            switch (t.type()) {
                case SeedWorkload.INSERT:
                    out.println("* Prepared once, executed " + t.count() + " times with autocommit (one row each).");
                    if (each) {
                        long[] s = t.samplesNanos();
                        for (int k = 0; k < s.length; k++) {
                            out.printf(Locale.ROOT, "* Repetition %5d Elapsed Time is: %14.6f seconds%n", k + 1, s[k] / 1e9);
                        }
                    }
                    out.printf(Locale.ROOT, "* Elapsed Time is: %14.6f seconds (all %d repetitions; p50 %.6f, p99 %.6f)%n",
                            t.totalNanos() / 1e9, t.count(), t.percentileNanos(50) / 1e9, t.percentileNanos(99) / 1e9);
                    break;
                case SeedWorkload.SELECT:
                    fetched[n] = r.rowsRead();
                    out.println("* " + r.rowsRead() + " row(s) fetched, 0 row(s) output (all " + r.rowsRead() + " checked).");
                    out.println();
                    out.printf(Locale.ROOT, "* Elapsed Time is: %14.6f seconds%n", t.totalNanos() / 1e9);
                    break;
                default:
                    out.printf(Locale.ROOT, "* Elapsed Time is: %14.6f seconds%n", t.totalNanos() / 1e9);
            }
        }
        out.println();
        out.println("* Summary Table:");
        out.println();
        String fmtH = "%-9s %11s %11s %14s %14s %14s %15s %14s %14s %13s%n";
        String fmtR = "%-9s %11d %11d %14.6f %14.6f %14.6f %15.6f %14.6f %14d %13d%n";
        out.printf(Locale.ROOT, fmtH, "Type", "Number", "Repetitions", "Total Time (s)", "Min Time (s)", "Max Time (s)",
                "Arithmetic Mean", "Geometric Mean", "Row(s) Fetched", "Row(s) Output");
        out.printf(Locale.ROOT, fmtH, "-".repeat(9), "-".repeat(11), "-".repeat(11), "-".repeat(14), "-".repeat(14), "-".repeat(14),
                "-".repeat(15), "-".repeat(14), "-".repeat(14), "-".repeat(13));
        for (int n = 0; n < ts.size(); n++) {
            SeedWorkload.Timing t = ts.get(n);
            out.printf(Locale.ROOT, fmtR, "Statement", n + 1, t.count(), t.totalNanos() / 1e9, t.minNanos() / 1e9, t.maxNanos() / 1e9,
                    t.meanNanos() / 1e9, t.geometricMeanNanos() / 1e9, fetched[n], 0);
        }
        // db2batch's closing statistics are over the entries (statements) of the table above
        double total = 0, min = Double.MAX_VALUE, max = 0, logSum = 0;
        for (SeedWorkload.Timing t : ts) {
            double s = t.totalNanos() / 1e9;
            total += s;
            min = Math.min(min, s);
            max = Math.max(max, s);
            logSum += Math.log(Math.max(1e-9, s));
        }
        out.println();
        out.printf(Locale.ROOT, "* Total Entries:              %d%n", ts.size());
        out.printf(Locale.ROOT, "* Total Time:                 %.6f seconds%n", total);
        out.printf(Locale.ROOT, "* Minimum Time:               %.6f seconds%n", min);
        out.printf(Locale.ROOT, "* Maximum Time:               %.6f seconds%n", max);
        out.printf(Locale.ROOT, "* Arithmetic Mean Time:       %.6f seconds%n", total / ts.size());
        out.printf(Locale.ROOT, "* Geometric Mean Time:        %.6f seconds%n", Math.exp(logSum / ts.size()));
        out.println();
        // one line per statement type, easy to grep: name=value pairs in microseconds
        for (Map.Entry<String, SeedWorkload.Timing> e : r.timings().entrySet()) {
            SeedWorkload.Timing t = e.getValue();
            out.printf(Locale.ROOT, "* result %s count=%d total_us=%.1f min_us=%.1f max_us=%.1f mean_us=%.1f geomean_us=%.1f%n",
                    e.getKey(), t.count(), t.totalNanos() / 1e3, t.minNanos() / 1e3, t.maxNanos() / 1e3, t.meanNanos() / 1e3,
                    t.geometricMeanNanos() / 1e3);
        }
    }

    /** One connection to a throw-away listener on 127.0.0.1:port: shows which rule a non-database port meets. */
    static String ldapRoundTrip(int port) throws IOException {
        InetAddress lo = InetAddress.getByName("127.0.0.1");
        try (ServerSocket ss = new ServerSocket()) {
            ss.setReuseAddress(true);
            ss.bind(new InetSocketAddress(lo, port), 1);
            Thread t = new Thread(() -> {
                try (Socket s = ss.accept(); InputStream in = s.getInputStream(); OutputStream o = s.getOutputStream()) {
                    int b;
                    while ((b = in.read()) >= 0) o.write(b);
                } catch (IOException ignored) {
                    // closed
                }
            }, "ldap-stand-in");
            t.setDaemon(true);
            t.start();
            long t0 = System.nanoTime();
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(lo, port), 10_000);
                byte[] msg = "bind".getBytes(StandardCharsets.US_ASCII);
                s.getOutputStream().write(msg);
                byte[] back = s.getInputStream().readNBytes(msg.length);
                if (!java.util.Arrays.equals(msg, back)) throw new IOException("LDAP stand-in echoed wrong bytes");
            }
            return String.format(Locale.ROOT, "127.0.0.1:%d connect + 4-byte echo in %.3f ms", port, (System.nanoTime() - t0) / 1e6);
        }
    }

    static String describe(SQLException e) {
        StringBuilder b = new StringBuilder();
        for (Throwable x = e; x != null; x = x.getCause() == x ? null : x.getCause()) {
            if (b.length() > 0) b.append("\n  caused by: ");
            b.append(x.getClass().getName()).append(": ").append(x.getMessage());
            if (x instanceof SQLException) {
                SQLException s = (SQLException) x;
                b.append(" [SQLSTATE=").append(s.getSQLState()).append(", ERRORCODE=").append(s.getErrorCode()).append(']');
            }
        }
        return b.toString();
    }

    static String agentDescription() {
        List<String> agents = new ArrayList<>();
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (a.startsWith("-javaagent:")) agents.add(a.substring("-javaagent:".length()));
        }
        return agents.isEmpty() ? "none (plain JDK sockets)" : String.join(" ", agents);
    }

    static String derbyVersion() {
        try {
            Class<?> c = Class.forName("org.apache.derby.tools.sysinfo");
            return c.getMethod("getVersionString").invoke(null).toString();
        } catch (ReflectiveOperationException | LinkageError e) {
            Package p = org.apache.derby.drda.NetworkServerControl.class.getPackage();
            return p != null && p.getImplementationVersion() != null ? p.getImplementationVersion() : "10.8.3.0";
        }
    }

    static String timestamp() {
        return new SimpleDateFormat("EEE MMM dd yyyy HH:mm:ss zzz", Locale.ROOT).format(new Date());
    }

    static void usage(PrintStream s) {
        s.println("usage: Db2BatchMain [--rows N] [--port P] [--ldap-port P] [--db NAME] [--each] [--free-port]");
        s.println("       -Djdbc.url=jdbc:db2://host:50000/SAMPLE -Djdbc.user=U -Djdbc.password=P  (a real Db2 instead of Derby)");
    }
}
