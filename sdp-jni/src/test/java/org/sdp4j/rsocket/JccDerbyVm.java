package org.sdp4j.rsocket;

import java.io.PrintWriter;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Locale;
import java.util.Properties;

/**
 * The IBM Db2 JDBC driver (JCC) against Apache Derby 10.8.3.0's DRDA Network Server, both in this JVM, for the
 * agent step of the VM suite: run under {@code -javaagent:sdp4j-agent.jar} with {@code use sdp} rules for the
 * server and the client, the DRDA connection rides rsockets. Plain java.net and JDBC; Derby through reflection so
 * this compiles without the jars (they come from sdp-jni/target/vm-lib at run time).
 * <pre>  JccDerbyVm ADDR PORT ROWS</pre>
 * INSERTs ROWS rows (autocommit), SELECTs them back and checks every row.
 */
public final class JccDerbyVm {
    public static void main(String[] args) throws Exception {
        InetAddress addr = InetAddress.getByName(args[0]);
        int port = Integer.parseInt(args[1]);
        int rows = Integer.parseInt(args[2]);
        System.setProperty("derby.system.home", Files.createTempDirectory("sdp4j-derby").toString());
        System.setProperty("derby.drda.startNetworkServer", "false");
        Class<?> nsc = Class.forName("org.apache.derby.drda.NetworkServerControl");
        Object server = nsc.getConstructor(InetAddress.class, int.class).newInstance(addr, port);
        long t0 = System.nanoTime();
        nsc.getMethod("start", PrintWriter.class).invoke(server, new PrintWriter(System.out, true));
        Method ping = nsc.getMethod("ping");
        for (int i = 0; ; i++) {
            try {
                ping.invoke(server);
                break;
            } catch (java.lang.reflect.InvocationTargetException e) {
                if (i > 600) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
        System.out.printf(Locale.ROOT, "JccDerbyVm: Derby DRDA server up on %s:%d in %.1f s%n", addr.getHostAddress(),
                port, (System.nanoTime() - t0) / 1e9);
        Class.forName("com.ibm.db2.jcc.DB2Driver");
        Properties p = new Properties();
        p.setProperty("user", "app");
        p.setProperty("password", "app");
        p.setProperty("securityMechanism", "3");
        p.setProperty("retrieveMessagesFromServerOnGetMessage", "true");
        String url = "jdbc:db2://" + addr.getHostAddress() + ":" + port + "/\"testdb;create=true\"";
        try (Connection c = DriverManager.getConnection(url, p)) {
            try (Statement st = c.createStatement()) {
                st.execute("CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(40), amount DECIMAL(12,2))");
            }
            t0 = System.nanoTime();
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO t VALUES (?, ?, ?)")) {
                for (int i = 0; i < rows; i++) {
                    ps.setInt(1, i);
                    ps.setString(2, "row " + i);
                    ps.setBigDecimal(3, java.math.BigDecimal.valueOf(i * 100L + 7, 2));
                    ps.executeUpdate();
                }
            }
            double ins = (System.nanoTime() - t0) / 1e6;
            t0 = System.nanoTime();
            int n = 0;
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT id, name, amount FROM t ORDER BY id")) {
                while (rs.next()) {
                    int id = rs.getInt(1);
                    if (id != n || !rs.getString(2).equals("row " + n)
                            || rs.getBigDecimal(3).compareTo(java.math.BigDecimal.valueOf(n * 100L + 7, 2)) != 0) {
                        throw new IllegalStateException("row " + n + " differs: " + id + " " + rs.getString(2));
                    }
                    n++;
                }
            }
            double sel = (System.nanoTime() - t0) / 1e6;
            if (n != rows) {
                throw new IllegalStateException("selected " + n + " rows, inserted " + rows);
            }
            System.out.printf(Locale.ROOT, "JccDerbyVm: %d INSERTs in %.0f ms (%.0f us each), SELECT of %d rows in %.0f ms, every row checked%n",
                    rows, ins, ins * 1000 / rows, n, sel);
        } finally {
            nsc.getMethod("shutdown").invoke(server);
        }
    }
}
