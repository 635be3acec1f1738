package org.sdp4j.e2e.apps;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

/**
 * The seed's workload through any JDBC driver: create table demo (c1 bigint, c2 DOUBLE, c3 varchar(8)),
 * COUNT prepared INSERTs with autocommit on, a SELECT of all rows checking every value, drop table.
 *
 * <pre>
 * JdbcWorkloadMain URL DOUBLE_TYPE [--side HOST:PORT] [--rows N] [key=value ...]
 * </pre>
 * Prints {@code SIDE ...} (the LDAP-ish side connection, made first), {@code PRE demo exists=...},
 * {@code INSERTED n}, {@code SELECTED n checksum=...}, {@code BAD ROW ...}, {@code DROPPED}, and {@code RESULT OK}
 * (exit 0), or {@code RESULT FAILED} and {@code CAUSE class: message} for each exception in the chain (exit 3).
 */
public final class JdbcWorkloadMain {
    private JdbcWorkloadMain() {}

    public static void main(String[] args) {
        String url = args[0];
        String doubleType = args[1];
        String side = null;
        int count = Rows.COUNT;
        Properties props = new Properties();
        for (int i = 2; i < args.length; i++) {
            if (args[i].equals("--side")) {
                side = args[++i];
            } else if (args[i].equals("--rows")) {
                count = Integer.parseInt(args[++i]);
            } else {
                int eq = args[i].indexOf('=');
                props.setProperty(args[i].substring(0, eq), args[i].substring(eq + 1));
            }
        }
        boolean sideOk = side == null || Side.talk(side, "jdbc-workload");
        int status;
        try {
            run(url, doubleType, count, props);
            status = sideOk ? 0 : 4;
            System.out.println("RESULT OK");
        } catch (SQLException e) {
            System.out.println("RESULT FAILED");
            Side.printChain("CAUSE ", e);
            status = 3;
        } catch (RuntimeException e) {
            System.out.println("RESULT ERROR");
            Side.printChain("CAUSE ", e);
            status = 5;
        }
        System.out.flush();
        System.exit(status);
    }

    static void run(String url, String doubleType, int count, Properties props) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, props)) {
            DatabaseMetaData md = c.getMetaData();
            System.out.println("CONNECTED " + md.getDatabaseProductName());
            boolean exists;
            try (ResultSet rs = md.getTables(null, null, "%", new String[] {"TABLE"})) {
                exists = false;
                while (rs.next()) {
                    exists |= rs.getString("TABLE_NAME").equalsIgnoreCase("demo");
                }
            }
            System.out.println("PRE demo exists=" + exists);
            c.setAutoCommit(true);
            try (Statement s = c.createStatement()) {
                s.execute("create table demo (c1 bigint, c2 " + doubleType + ", c3 varchar(8))");
            }
            int inserted = 0;
            try (PreparedStatement ps = c.prepareStatement("insert into demo (c1, c2, c3) values (?, ?, ?)")) {
                for (int i = 0; i < count; i++) {
                    ps.setLong(1, Rows.c1(i));
                    ps.setDouble(2, Rows.c2(i));
                    ps.setString(3, Rows.c3(i));
                    inserted += ps.executeUpdate();
                }
            }
            System.out.println("INSERTED " + inserted);
            Rows.Checksum sum = new Rows.Checksum();
            int bad = 0;
            try (Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("select c1, c2, c3 from demo order by c1")) {
                int i = 0;
                while (rs.next()) {
                    long c1 = rs.getLong(1);
                    double c2 = rs.getDouble(2);
                    String c3 = rs.getString(3);
                    if (c1 != Rows.c1(i) || Double.compare(c2, Rows.c2(i)) != 0 || !Rows.c3(i).equals(c3)) {
                        if (bad++ < 20) {
                            System.out.println("BAD ROW " + i + ": " + c1 + ", " + c2 + ", " + c3 + " expected "
                                    + Rows.c1(i) + ", " + Rows.c2(i) + ", " + Rows.c3(i));
                        }
                    }
                    sum.add(c1, c2, c3);
                    i++;
                }
            }
            System.out.println("SELECTED " + sum.rows() + " checksum=" + sum.value() + " bad=" + bad);
            try (Statement s = c.createStatement()) {
                s.execute("drop table demo");
            }
            System.out.println("DROPPED");
        }
    }
}
