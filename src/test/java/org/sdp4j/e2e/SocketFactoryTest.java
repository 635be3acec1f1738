package org.sdp4j.e2e;

import java.io.File;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sdp4j.e2e.apps.JdbcWorkloadMain;
import org.sdp4j.e2e.apps.Rows;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * sdp4j without the agent (issue 22): the JDBC drivers' own socket-factory hooks, in a JVM whose class path holds
 * the workload, the driver and sdp4j-agent.jar, and nothing else: no {@code -javaagent}, no {@code --add-opens}.
 * pgjdbc against PostgreSQL 15, MariaDB Connector/J and MySQL Connector/J against MariaDB 10.11 (Debian's servers
 * on loopback), each with a {@code tcp} rule and a {@code both} rule falling back (this host has no RDMA), pgjdbc
 * also with {@code sdp} failing with the reason. Every row is checked, every decision is in the log, and the JVM
 * prints no warning (on JDK 24+ the factory loads no native code without {@code --enable-native-access}, and
 * says so in the fallback reason).
 */
@Timeout(300)
class SocketFactoryTest {
    static PostgresServer pg;
    static MariaDbServer maria;
    static BannerServer ldap;

    @BeforeAll
    static void startServers() throws Exception {
        pg = PostgresServer.start();
        pg.createDatabase("sdp4j");
        maria = MariaDbServer.start();
        try (Connection c = DriverManager.getConnection("jdbc:mariadb://127.0.0.1:" + maria.port() + "/", "root", "");
             Statement st = c.createStatement()) {
            st.execute("CREATE DATABASE sdp4j");
        }
        ldap = new BannerServer();
    }

    @AfterAll
    static void stopServers() throws Exception {
        if (ldap != null) {
            ldap.close();
        }
        if (maria != null) {
            maria.close();
        }
        if (pg != null) {
            pg.close();
        }
    }

    private static String jarOf(Class<?> c) {
        try {
            return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new AssertionError(e);
        }
    }

    /** The workload with only its own classes, sdp4j-agent.jar and one driver on the class path. */
    private static JvmLauncher workload(String name, Class<?> driver, String url, String... more) {
        String cp = String.join(File.pathSeparator, jarOf(JdbcWorkloadMain.class), AgentJar.path().toString(),
                jarOf(driver));
        List<String> args = new ArrayList<>(List.of(url, "double precision", "--side", "127.0.0.1:" + ldap.port()));
        args.addAll(List.of(more));
        return JvmLauncher.main(name, JdbcWorkloadMain.class).classPath(cp).args(args.toArray(String[]::new))
                .timeout(java.time.Duration.ofSeconds(120));
    }

    private static String rules(String... lines) {
        return String.join("; ", lines);
    }

    static void assertAllRows(JvmResult r, String product) {
        r.assertExit(0);
        assertTrue(E2e.value(r, "CONNECTED").contains(product), r.describe());
        assertEquals(Integer.toString(Rows.COUNT), E2e.value(r, "INSERTED"), r.describe());
        assertEquals(Rows.COUNT + " checksum=" + Rows.expectedChecksum(Rows.COUNT) + " bad=0",
                E2e.value(r, "SELECTED"), r.describe());
        assertTrue(r.stdoutLines().contains("DROPPED"), r.describe());
        assertTrue(r.stdoutLines().contains("SIDE OK " + BannerServer.BANNER), r.describe());
        assertNoWarning(r);
    }

    /** Neither an illegal-access nor a native-access warning from the JDK: the factory needs no flag. */
    static void assertNoWarning(JvmResult r) {
        assertFalse(r.stderr().contains("WARNING"), "the JVM printed a warning" + r.describe());
    }

    /** On JDK 24+ without --enable-native-access the fallback names the flag (no native code was loaded). */
    static void assertFallbackReason(List<DecisionLog.Decision> ds) {
        for (DecisionLog.Decision d : ds) {
            if (Runtime.version().feature() >= 24) {
                assertTrue(d.fallback().contains("--enable-native-access"), d.raw());
            } else {
                assertTrue(E2e.explainsRdma(d.fallback()), d.raw());
            }
        }
    }

    // ---- pgjdbc: socketFactory + socketFactoryArg ----

    private static JvmLauncher pgjdbc(String name, String rules) {
        return workload(name, org.postgresql.Driver.class, pg.url("sdp4j"), "user=postgres", "connectTimeout=20",
                "socketTimeout=60", "socketFactory=org.sdp4j.jdbc.SdpSocketFactory", "socketFactoryArg=" + rules);
    }

    /** {@code use smc} needs the JDK internals the agent opens: through the factory alone it is TCP, saying so. */
    @Test
    void pgjdbcUseSmcIsTcpThroughTheFactoryAndSaysWhy() {
        JvmResult r = pgjdbc("factory-pg-smc", rules("log min-level 7 destination stderr",
                "use smc client * 127.0.0.1:" + pg.port())).run();
        assertAllRows(r, "PostgreSQL");
        List<DecisionLog.Decision> ds = r.decisions().clientsTo(pg.port());
        assertFalse(ds.isEmpty(), r.describe());
        for (DecisionLog.Decision d : ds) {
            assertEquals("smc", d.family(), d.raw());
            assertEquals("tcp", d.transport(), d.raw());
            assertTrue(d.fallback().contains("the socket factory opens none"), d.raw());
        }
    }

    @Test
    void pgjdbcUseTcp() {
        JvmResult r = pgjdbc("factory-pg-tcp", rules("log min-level 7 destination stderr",
                "use tcp client * 127.0.0.1:" + pg.port(), "use sdp client * *:*")).run();
        assertAllRows(r, "PostgreSQL");
        E2e.assertTcpTransport(E2e.assertClientDecisions(r, pg.port(), 2, "tcp"));
        // the side connection is a plain new Socket(): the factory touches nothing else
        assertTrue(r.decisions().clientsTo(ldap.port()).isEmpty(), r.describe());
    }

    @Test
    void pgjdbcUseBothFallsBackToTcp() {
        JvmResult r = pgjdbc("factory-pg-both", rules("log min-level 7 destination stderr",
                "use both client * 127.0.0.1:" + pg.port(), "use tcp client * *:*")).run();
        assertAllRows(r, "PostgreSQL");
        List<DecisionLog.Decision> ds = E2e.assertClientDecisions(r, pg.port(), 2, "both");
        E2e.assertTcpTransport(ds);
        assertFallbackReason(ds);
    }

    @Test
    void pgjdbcUseSdpFailsWithTheReason() {
        JvmResult r = pgjdbc("factory-pg-sdp", rules("log min-level 7 destination stderr",
                "use sdp client * 127.0.0.1:" + pg.port(), "use tcp client * *:*")).run();
        r.assertExit(3);
        assertNoWarning(r);
        List<String> causes = E2e.linesStartingWith(r, "CAUSE ");
        assertTrue(causes.get(0).startsWith("CAUSE org.postgresql.util.PSQLException"), r.describe());
        assertNotNull(causes.stream().filter(c -> c.startsWith("CAUSE java.")).filter(E2e::explainsRdma)
                .findFirst().orElse(null), "the cause chain must say why RDMA is unavailable" + r.describe());
        for (DecisionLog.Decision d : E2e.assertClientDecisions(r, pg.port(), 2, "sdp")) {
            assertFalse("tcp".equals(d.transport()), d.raw());
        }
    }

    @Test
    void badArgumentGoesOverTcpAndSaysWhy() {
        JvmResult r = pgjdbc("factory-pg-badarg", "use rdma client * *:*").run();
        assertAllRows(r, "PostgreSQL");
        assertTrue(r.stderr().contains("socket factory argument"), "the error names the argument" + r.describe());
    }

    /** {@code stat} and JMX see a JVM that uses only the factory, as they see one with the agent. */
    @Test
    void statListsAFactoryJvm() throws Exception {
        String cp = String.join(File.pathSeparator, jarOf(JdbcWorkloadMain.class), AgentJar.path().toString(),
                jarOf(org.postgresql.Driver.class));
        try (JvmProcess p = JvmLauncher.main("factory-hold", org.sdp4j.e2e.apps.FactoryHoldMain.class).classPath(cp)
                .args(pg.url("sdp4j"), "user=postgres", "socketFactory=org.sdp4j.jdbc.SdpSocketFactory",
                        "socketFactoryArg=" + rules("use both client * 127.0.0.1:" + pg.port(), "use tcp client * *:*"))
                .start()) {
            java.util.regex.Matcher ready = p.awaitStdout(java.util.regex.Pattern.compile("READY (\\d+)"),
                    java.time.Duration.ofSeconds(60));
            String pid = ready.group(1);
            JvmResult stat = JvmLauncher.jar("factory-stat", AgentJar.path()).args("stat", pid).run().assertExit(0);
            String out = stat.stdout();
            assertTrue(out.contains("JVM " + pid), out + stat.describe());
            assertTrue(out.contains("socket factory argument:1: use both client * 127.0.0.1:" + pg.port()),
                    "the rules in force" + stat.describe());
            // one connect, on TCP, counted as a fallback
            assertTrue(java.util.regex.Pattern.compile("(?m)^\\s*tcp\\s+1\\s+0\\s+0\\s+1\\s+0\\b").matcher(out).find(),
                    "tcp: 1 connect, 1 fallback" + stat.describe());
        }
    }

    /**
     * The factory's socket on an accelerated transport, on this host: {@code use ucx} (UCX shared memory) to an
     * echo server under the agent. Options set before connect are on the UCX socket, every byte comes back, and
     * a half-close reaches the peer.
     */
    @Test
    void factorySocketRidesUcx() throws Exception {
        Path conf = E2e.conf(Files.createTempDirectory("sdp4j-factory"), "ucx-server.conf",
                "log min-level 7 destination stderr", "use ucx server * 127.0.0.1:*", "use tcp client * *:*");
        try (JvmProcess server = JvmLauncher.main("factory-ucx-server", org.sdp4j.e2e.apps.FactoryEchoMain.class)
                .args("serve").agent("conf=" + conf).start()) {
            String port = server.awaitStdout(java.util.regex.Pattern.compile("LISTENING (\\d+)"),
                    java.time.Duration.ofSeconds(60)).group(1);
            String cp = String.join(File.pathSeparator, jarOf(JdbcWorkloadMain.class), AgentJar.path().toString());
            JvmLauncher client = JvmLauncher.main("factory-ucx-client", org.sdp4j.e2e.apps.FactoryEchoMain.class)
                    .classPath(cp).args("client", port, rules("log min-level 7 destination stderr",
                            "use ucx client * 127.0.0.1:" + port, "use tcp client * *:*"));
            if (Runtime.version().feature() >= 24) {
                client.jvmArg("--enable-native-access=ALL-UNNAMED");
            }
            JvmResult r = client.run().assertExit(0);
            assertTrue(r.stdoutLines().contains("OPTIONS connected=true tcpNoDelay=true soTimeout=30000 remotePort="
                    + port), r.describe());
            assertTrue(r.stdoutLines().contains("ECHOED " + (1 << 20)), r.describe());
            assertTrue(r.stdoutLines().contains("EOF"), r.describe());
            List<DecisionLog.Decision> ds = r.decisions().clientsTo(Integer.parseInt(port));
            assertEquals(1, ds.size(), r.describe());
            assertEquals("ucx", ds.get(0).transport(), ds.get(0).raw());
            assertNoWarning(r);
        }
    }

    /** With the agent in the JVM as well, the agent decides each connection once; the factory's rules stand aside. */
    @Test
    void withTheAgentTheAgentDecides() {
        Path conf = E2e.conf(dir(), "agent-tcp.conf", "log min-level 7 destination stderr",
                "use tcp client * 127.0.0.1:" + pg.port(), "use tcp client * *:*");
        JvmResult r = pgjdbc("factory-pg-agent", rules("use both client * 127.0.0.1:" + pg.port(),
                "use tcp client * *:*")).agent("conf=" + conf).run();
        r.assertExit(0);
        assertTrue(r.stdoutLines().contains("DROPPED"), r.describe());
        List<DecisionLog.Decision> ds = r.decisions().clientsTo(pg.port());
        assertEquals(1, ds.size(), "one decision for the one connection" + r.describe());
        assertEquals("line 2", ds.get(0).rule(), "the agent's rule" + r.describe());
        assertEquals("tcp", ds.get(0).family(), ds.get(0).raw());
        assertTrue(r.stderr().contains("the factory's rules are not used"), r.describe());
    }

    private static Path dir() {
        try {
            return Files.createTempDirectory("sdp4j-factory");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    // ---- MariaDB Connector/J: socketFactory, rules in -Dsdp4j.jdbc.rules ----

    private static String mariadbRules(String family) {
        return rules("log min-level 7 destination stderr", "use " + family + " client * 127.0.0.1:" + maria.port(),
                "use tcp client * *:*");
    }

    @Test
    void mariadbUseTcp() {
        JvmResult r = workload("factory-mariadb-tcp", org.mariadb.jdbc.Driver.class,
                "jdbc:mariadb://127.0.0.1:" + maria.port() + "/sdp4j", "user=root",
                "socketFactory=org.sdp4j.jdbc.SdpSocketFactory")
                .jvmArg("-Dsdp4j.jdbc.rules=" + mariadbRules("tcp")).run();
        assertAllRows(r, "MariaDB");
        E2e.assertTcpTransport(E2e.assertClientDecisions(r, maria.port(), 2, "tcp"));
    }

    @Test
    void mariadbUseBothFallsBackToTcp() {
        JvmResult r = workload("factory-mariadb-both", org.mariadb.jdbc.Driver.class,
                "jdbc:mariadb://127.0.0.1:" + maria.port() + "/sdp4j", "user=root",
                "socketFactory=org.sdp4j.jdbc.SdpSocketFactory")
                .jvmArg("-Dsdp4j.jdbc.rules=" + mariadbRules("both")).run();
        assertAllRows(r, "MariaDB");
        List<DecisionLog.Decision> ds = E2e.assertClientDecisions(r, maria.port(), 2, "both");
        E2e.assertTcpTransport(ds);
        assertFallbackReason(ds);
    }

    // ---- MySQL Connector/J against MariaDB: its own SocketFactory interface ----

    @Test
    void connectorJUseTcp() {
        JvmResult r = workload("factory-connectorj-tcp", com.mysql.cj.jdbc.Driver.class,
                "jdbc:mysql://127.0.0.1:" + maria.port() + "/sdp4j", "user=root", "sslMode=DISABLED",
                "socketFactory=org.sdp4j.jdbc.MysqlSocketFactory")
                .jvmArg("-Dsdp4j.jdbc.rules=" + mariadbRules("tcp")).run();
        assertAllRows(r, "M");
        E2e.assertTcpTransport(E2e.assertClientDecisions(r, maria.port(), 2, "tcp"));
    }

    @Test
    void connectorJUseBothFallsBackToTcp() {
        JvmResult r = workload("factory-connectorj-both", com.mysql.cj.jdbc.Driver.class,
                "jdbc:mysql://127.0.0.1:" + maria.port() + "/sdp4j", "user=root", "sslMode=DISABLED",
                "socketFactory=org.sdp4j.jdbc.MysqlSocketFactory")
                .jvmArg("-Dsdp4j.jdbc.rules=" + mariadbRules("both")).run();
        assertAllRows(r, "M");
        List<DecisionLog.Decision> ds = E2e.assertClientDecisions(r, maria.port(), 2, "both");
        E2e.assertTcpTransport(ds);
        assertFallbackReason(ds);
    }
}
