package org.sdp4j.e2e;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sdp4j.e2e.apps.JdbcWorkloadMain;
import org.sdp4j.e2e.apps.Rows;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The seed workload through IBM's Db2 JDBC driver (JCC) against Derby 10.8.3.0's Network Server, each in its own
 * JVM: "DB2 on SDP, LDAP on TCP" and its tcp / both variants, with the decision log checked line by line and the
 * rows compared against a run without the agent.
 */
@Timeout(120)
class Db2JccOverDerbyTest {
    static final String EXPECTED = Rows.expectedChecksum(Rows.COUNT);

    @TempDir
    static Path dir;
    static DerbyServer derby;
    static BannerServer ldap;

    @BeforeAll
    static void startServers() throws Exception {
        // the database server itself runs with the agent: its listen is decided by a server rule
        Path serverConf = E2e.conf(dir, "derby-server.conf",
                "# the Derby network server's own rules",
                "use tcp server * 127.0.0.1:*",
                "use sdp server * *:*");
        derby = DerbyServer.start(dir, serverConf);
        ldap = new BannerServer();
    }

    @AfterAll
    static void stopServers() throws Exception {
        if (ldap != null) {
            ldap.close();
        }
        if (derby != null) {
            derby.close();
        }
    }

    private JvmLauncher workload(String name) {
        return JvmLauncher.main(name, JdbcWorkloadMain.class)
                .args(derby.url(), "double", "--side", "127.0.0.1:" + ldap.port(),
                        "user=app", "password=app", "securityMechanism=3",
                        "retrieveMessagesFromServerOnGetMessage=true");
    }

    /** Every row came back with its values, and the checksum is the one computed here. */
    static void assertAllRows(JvmResult r) {
        r.assertExit(0);
        assertEquals("false", E2e.value(r, "PRE demo exists="), "a previous run left its table behind" + r.describe());
        assertEquals(Integer.toString(Rows.COUNT), E2e.value(r, "INSERTED"), r.describe());
        assertEquals(Rows.COUNT + " checksum=" + EXPECTED + " bad=0", E2e.value(r, "SELECTED"), r.describe());
        assertFalse(r.stdout().contains("BAD ROW"), r.describe());
        assertTrue(r.stdoutLines().contains("DROPPED"), r.describe());
        assertTrue(r.stdoutLines().contains("SIDE OK " + BannerServer.BANNER), r.describe());
    }

    @Test
    void derbyServerListenWasDecidedByItsServerRule() {
        DecisionLog log = DecisionLog.parse(derby.stderr());
        List<DecisionLog.Decision> listen = log.where(d -> d.isServer() && d.port() == derby.port());
        assertEquals(1, listen.size(), "one listen decision for the Derby port expected:\n" + log.dump());
        DecisionLog.Decision d = listen.get(0);
        assertEquals("127.0.0.1", d.host(), d.raw());
        assertEquals("line 2", d.rule(), d.raw());
        assertEquals("tcp", d.family(), d.raw());
        assertEquals("tcp", d.transport(), d.raw());
    }

    @Test
    void withoutAgentAllRowsComeBack() {
        JvmResult r = workload("db2-no-agent").run();
        assertAllRows(r);
        assertFalse(r.stderr().contains("sdp4j:"), "no agent, no sdp4j output" + r.describe());
    }

    @Test
    void databaseAndDirectoryOnTcp() {
        int db = derby.port();
        Path conf = E2e.conf(dir, "tcp.conf",
                "log min-level 7 destination stderr",
                "use tcp client * 127.0.0.1:" + ldap.port(),
                "use tcp client * 127.0.0.1:" + db,
                "# anything else would fail loudly on this host",
                "use sdp client * *:*");
        JvmResult r = workload("db2-tcp").agent("conf=" + conf).run();
        assertAllRows(r);
        E2e.assertTcpTransport(E2e.assertClientDecisions(r, db, 3, "tcp"));
        E2e.assertTcpTransport(E2e.assertClientDecisions(r, ldap.port(), 2, "tcp"));
    }

    @Test
    void databaseOnBothFallsBackToTcp() {
        int db = derby.port();
        Path conf = E2e.conf(dir, "both.conf",
                "log min-level 7 destination stderr",
                "use both client * 127.0.0.1:" + db,
                "use tcp client * 127.0.0.1:" + ldap.port(),
                "use sdp client * *:*");
        JvmResult r = workload("db2-both").agent("conf=" + conf).run();
        assertAllRows(r);
        E2e.assertTcpTransport(E2e.assertClientDecisions(r, db, 2, "both"));
        E2e.assertTcpTransport(E2e.assertClientDecisions(r, ldap.port(), 3, "tcp"));
    }

    /**
     * The seed's "DB2 on SDP, LDAP on TCP": without RDMA on this host the database connection must fail with an
     * SQLException that says why, the directory connection must work, and nothing may be left half done.
     */
    @Test
    void databaseOnSdpFailsClearlyDirectoryOnTcpWorks() {
        int db = derby.port();
        Path conf = E2e.conf(dir, "sdp.conf",
                "# DB2 on SDP, LDAP on TCP",
                "log min-level 7 destination stderr",
                "use sdp client * 127.0.0.1:" + db,
                "use tcp client * 127.0.0.1:" + ldap.port(),
                "use both client * *:*");
        JvmResult r = workload("db2-sdp").agent("conf=" + conf).run();
        r.assertExit(3);
        assertTrue(r.stdoutLines().contains("RESULT FAILED"), r.describe());
        assertTrue(r.stdoutLines().contains("SIDE OK " + BannerServer.BANNER), "LDAP on TCP must work" + r.describe());
        assertTrue(E2e.linesStartingWith(r, "INSERTED").isEmpty(), r.describe());
        assertTrue(E2e.linesStartingWith(r, "CONNECTED").isEmpty(), r.describe());

        List<String> causes = E2e.linesStartingWith(r, "CAUSE ");
        assertTrue(causes.get(0).startsWith("CAUSE com.ibm.db2.jcc."), "the driver's SQLException first" + r.describe());
        String why = causes.stream()
                .filter(c -> c.startsWith("CAUSE java.net.") || c.startsWith("CAUSE java.io."))
                .filter(E2e::explainsRdma)
                .findFirst().orElse(null);
        assertNotNull(why, "the cause chain must hold the IOException that says why RDMA is unavailable"
                + r.describe());

        List<DecisionLog.Decision> dbDecisions = E2e.assertClientDecisions(r, db, 3, "sdp");
        for (DecisionLog.Decision d : dbDecisions) {
            assertFalse("tcp".equals(d.transport()), "a sdp rule must never end up on TCP: " + d.raw());
        }
        E2e.assertTcpTransport(E2e.assertClientDecisions(r, ldap.port(), 4, "tcp"));

        // no half state: the next run (plain TCP) finds no table and does the whole job
        JvmResult after = workload("db2-after-sdp").run();
        assertAllRows(after);
    }

    /** The server side of "both": Derby listens with a both rule, falls back to TCP, and a plain client gets in. */
    @Test
    void derbyServerOnBothServesPlainClients() {
        Path conf = E2e.conf(dir, "derby-both.conf",
                "log min-level 7 destination stderr",
                "use both server * *:*");
        try (DerbyServer both = DerbyServer.start(dir, conf)) {
            DecisionLog log = DecisionLog.parse(both.stderr());
            List<DecisionLog.Decision> listen = log.where(d -> d.isServer() && d.port() == both.port());
            assertEquals(1, listen.size(), log.dump());
            assertEquals("line 2", listen.get(0).rule(), listen.get(0).raw());
            assertEquals("both", listen.get(0).family(), listen.get(0).raw());
            E2e.assertTcpTransport(listen);

            JvmResult r = JvmLauncher.main("db2-to-derby-both", JdbcWorkloadMain.class)
                    .args(both.url(), "double", "user=app", "password=app", "securityMechanism=3",
                            "retrieveMessagesFromServerOnGetMessage=true")
                    .run();
            r.assertExit(0);
            assertEquals(Rows.COUNT + " checksum=" + EXPECTED + " bad=0", E2e.value(r, "SELECTED"), r.describe());
        }
    }
}
