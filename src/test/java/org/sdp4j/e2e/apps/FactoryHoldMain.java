package org.sdp4j.e2e.apps;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Properties;

/**
 * Holds one JDBC connection open for an operator's tools to look at: {@code FactoryHoldMain URL key=value...}
 * (the driver's socket factory among the properties). Connects, runs {@code SELECT 1}, prints
 * {@code READY pid} and waits until stdin closes.
 */
public final class FactoryHoldMain {
    private FactoryHoldMain() {}

    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        for (int i = 1; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            props.setProperty(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        try (Connection c = DriverManager.getConnection(args[0], props);
             Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT 1")) {
            rs.next();
            System.out.println("SELECT " + rs.getInt(1));
            System.out.println("READY " + ProcessHandle.current().pid());
            System.out.flush();
            while (System.in.read() >= 0) {
                // hold until the test closes stdin
            }
        }
    }
}
