package org.sdp4j.rsocket;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

/**
 * The JDBC ends of the two-host suite (native/vm-tests/two-hosts/guest.sh), plain JDBC and java.net; run under the
 * agent, the rules decide the transport. Drivers and Derby come from the class path (sdp-jni/target/vm-lib).
 * <pre>
 *   derby-server ADDR PORT[,PORT...] STOPFILE  Derby 10.8.3.0's DRDA Network Server on ADDR:PORT (one per PORT, one
 *                                          engine: the pool-cut step serves tcp, sdp and ucx at once) until STOPFILE
 *   client URL ROWS CONNECTIONS [K=V...]   the seed workload on the first connection: CREATE TABLE, ROWS INSERTs
 *                                          (autocommit), SELECT of every row, each checked, DROP TABLE; then
 *                                          CONNECTIONS-1 more connections that each run a check query
 * </pre>
 */
public final class TwoHostJdbc {
    public static void main(String[] args) throws Exception {
        if (args.length == 4 && args[0].equals("derby-server")) {
            derbyServer(InetAddress.getByName(args[1]), args[2], Path.of(args[3]));
        } else if (args.length >= 4 && args[0].equals("client")) {
            Properties p = new Properties();
            for (int i = 4; i < args.length; i++) {
                int eq = args[i].indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException("not KEY=VALUE: " + args[i]);
                }
                p.setProperty(args[i].substring(0, eq), args[i].substring(eq + 1));
            }
            client(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]), p);
        } else {
            System.err.println("usage: TwoHostJdbc derby-server ADDR PORT[,PORT...] STOPFILE | client URL ROWS CONNECTIONS [K=V...]");
            System.exit(2);
        }
    }

    private static void derbyServer(InetAddress addr, String ports, Path stop) throws Exception {
        System.setProperty("derby.system.home", Files.createTempDirectory("sdp4j-derby").toString());
        System.setProperty("derby.drda.startNetworkServer", "false");
        Class<?> nsc = Class.forName("org.apache.derby.drda.NetworkServerControl");
        long t0 = System.nanoTime();
        List<Object> servers = new ArrayList<>();
        for (String port : ports.split(",")) {
            Object server = nsc.getConstructor(InetAddress.class, int.class).newInstance(addr, Integer.parseInt(port));
            nsc.getMethod("start", PrintWriter.class).invoke(server, new PrintWriter(System.out, true));
            servers.add(server);
        }
        Method ping = nsc.getMethod("ping");
        for (Object server : servers) {
            for (int i = 0; ; i++) {
                try {
                    ping.invoke(server);
                    break;
                } catch (InvocationTargetException e) {
                    if (i > 1200) {
                        throw e;
                    }
                    Thread.sleep(100);
                }
            }
        }
        System.out.printf(Locale.ROOT, "TwoHostJdbc: Derby DRDA server listening on %s:%s (up in %.1f s)%n",
                addr.getHostAddress(), ports, (System.nanoTime() - t0) / 1e9);
        while (!Files.exists(stop)) {
            Thread.sleep(200);
        }
        for (Object server : servers) {
            nsc.getMethod("shutdown").invoke(server);
        }
        System.out.println("TwoHostJdbc: Derby DRDA server stopped");
    }

    private static void client(String url, int rows, int connections, Properties p) throws Exception {
        for (String d : new String[] {"com.ibm.db2.jcc.DB2Driver", "org.postgresql.Driver", "org.mariadb.jdbc.Driver"}) {
            try {
                Class.forName(d);
            } catch (ClassNotFoundException absent) {
                // only the driver on the class path is needed
            }
        }
        long t0 = System.nanoTime();
        try (Connection c = DriverManager.getConnection(url, p)) {
            System.out.printf(Locale.ROOT, "TwoHostJdbc: connected to %s %s in %.0f ms%n",
                    c.getMetaData().getDatabaseProductName(), c.getMetaData().getDatabaseProductVersion(),
                    (System.nanoTime() - t0) / 1e6);
            try (Statement st = c.createStatement()) {
                st.execute("CREATE TABLE sdp4j_rows (id INT PRIMARY KEY, name VARCHAR(40), amount DECIMAL(12,2))");
            }
            t0 = System.nanoTime();
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO sdp4j_rows VALUES (?, ?, ?)")) {
                for (int i = 0; i < rows; i++) {
                    ps.setInt(1, i);
                    ps.setString(2, "row " + i);
                    ps.setBigDecimal(3, BigDecimal.valueOf(i * 100L + 7, 2));
                    if (ps.executeUpdate() != 1) {
                        throw new IllegalStateException("INSERT of row " + i + " did not insert one row");
                    }
                }
            }
            double ins = (System.nanoTime() - t0) / 1e6;
            t0 = System.nanoTime();
            int n = 0;
            try (Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT id, name, amount FROM sdp4j_rows ORDER BY id")) {
                while (rs.next()) {
                    int id = rs.getInt(1);
                    if (id != n || !rs.getString(2).equals("row " + n)
                            || rs.getBigDecimal(3).compareTo(BigDecimal.valueOf(n * 100L + 7, 2)) != 0) {
                        throw new IllegalStateException("row " + n + " differs: " + id + " " + rs.getString(2)
                                + " " + rs.getBigDecimal(3));
                    }
                    n++;
                }
            }
            double sel = (System.nanoTime() - t0) / 1e6;
            if (n != rows) {
                throw new IllegalStateException("selected " + n + " rows, inserted " + rows);
            }
            System.out.printf(Locale.ROOT, "TwoHostJdbc: %d INSERTs in %.0f ms (%.0f us each), SELECT of %d rows in"
                    + " %.0f ms, every row checked%n", rows, ins, ins * 1000 / rows, n, sel);
            for (int k = 1; k < connections; k++) {
                t0 = System.nanoTime();
                try (Connection c2 = DriverManager.getConnection(url, p); Statement st = c2.createStatement();
                     ResultSet rs = st.executeQuery("SELECT COUNT(*), SUM(amount) FROM sdp4j_rows")) {
                    rs.next();
                    BigDecimal sum = BigDecimal.valueOf(((long) rows * (rows - 1) / 2) * 100L + 7L * rows, 2);
                    if (rs.getInt(1) != rows || rs.getBigDecimal(2).compareTo(sum) != 0) {
                        throw new IllegalStateException("connection " + (k + 1) + " sees " + rs.getInt(1)
                                + " rows, sum " + rs.getBigDecimal(2) + "; expected " + rows + ", " + sum);
                    }
                }
                System.out.printf(Locale.ROOT, "TwoHostJdbc: connection %d saw all %d rows (sum checked) in %.0f ms%n",
                        k + 1, rows, (System.nanoTime() - t0) / 1e6);
            }
            try (Statement st = c.createStatement()) {
                st.execute("DROP TABLE sdp4j_rows");
            }
            System.out.println("TwoHostJdbc: DROPPED");
        }
    }
}
