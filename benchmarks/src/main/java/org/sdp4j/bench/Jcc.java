package org.sdp4j.bench;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;

/**
 * Connections through the IBM Db2 JDBC driver (JCC, {@code com.ibm.db2.jcc.DB2Driver}).
 * Against Derby 10.8.3.0: user app, password app, {@code securityMechanism=3} (JCC 11.5.9+ fails login without it),
 * {@code retrieveMessagesFromServerOnGetMessage=true} (readable errors).
 * A real Db2 is selected with the system properties {@code jdbc.url}, {@code jdbc.user}, {@code jdbc.password}.
 */
public final class Jcc {

    public static final String DRIVER = "com.ibm.db2.jcc.DB2Driver";

    private Jcc() {}

    /** Properties for a Derby 10.8.3.0 DRDA server (user app / app, clear-text password). */
    public static Properties derbyProperties() {
        Properties p = new Properties();
        p.setProperty("user", "app");
        p.setProperty("password", "app");
        p.setProperty("securityMechanism", "3");
        p.setProperty("retrieveMessagesFromServerOnGetMessage", "true");
        return p;
    }

    /** The URL given with {@code -Djdbc.url=...}, or null. */
    public static String externalUrl() {
        String u = System.getProperty("jdbc.url");
        return u == null || u.isBlank() ? null : u.trim();
    }

    /** Properties for {@code -Djdbc.url}: {@code jdbc.user}, {@code jdbc.password} and the readable-messages flag. */
    public static Properties externalProperties() {
        Properties p = new Properties();
        String user = System.getProperty("jdbc.user");
        String pw = System.getProperty("jdbc.password");
        if (user != null) p.setProperty("user", user);
        if (pw != null) p.setProperty("password", pw);
        p.setProperty("retrieveMessagesFromServerOnGetMessage", "true");
        String sm = System.getProperty("jdbc.securityMechanism");
        if (sm != null) p.setProperty("securityMechanism", sm);
        return p;
    }

    /** Opens a JCC connection (loads the driver explicitly so a shaded jar without service files still works). */
    public static Connection connect(String url, Properties props) throws SQLException {
        try {
            Class<?> c = Class.forName(DRIVER);
            Driver d = (Driver) c.getDeclaredConstructor().newInstance();
            Connection conn = d.connect(url, props);
            if (conn == null) throw new SQLException("JCC does not accept URL " + url);
            return conn;
        } catch (ReflectiveOperationException e) {
            // fall back to DriverManager (should not happen with jcc on the class path)
            return DriverManager.getConnection(url, props);
        }
    }

    /** Driver name and version, e.g. "IBM Data Server Driver for JDBC and SQLJ 4.38.7". */
    public static String describe(Connection c) {
        try {
            var md = c.getMetaData();
            return md.getDriverName() + " " + md.getDriverVersion() + " -> " + md.getDatabaseProductName() + " "
                    + md.getDatabaseProductVersion();
        } catch (SQLException e) {
            return "(metadata unavailable: " + e.getMessage() + ")";
        }
    }
}
