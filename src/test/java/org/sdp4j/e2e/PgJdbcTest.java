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
 * pgjdbc against a real PostgreSQL server (Debian's package, started privately by the test on loopback): the seed
 * workload with a tcp rule, a both rule and a sdp rule, next to a run without the agent.
 */
@Timeout(120)
class PgJdbcTest {
    static final String EXPECTED = Rows.expectedChecksum(Rows.COUNT);

    @TempDir
    static Path dir;
    static PostgresServer pg;
    static BannerServer ldap;

    @BeforeAll
    static void startServers() throws Exception {
        pg = PostgresServer.start();
        pg.createDatabase("sdp4j");
        ldap = new BannerServer();
    }

    @AfterAll
    static void stopServers() throws Exception {
        if (ldap != null) {
            ldap.close();
        }
        if (pg != null) {
            pg.close();
        }
    }

    private JvmLauncher workload(String name) {
        return JvmLauncher.main(name, JdbcWorkloadMain.class)
                .args(pg.url("sdp4j"), "double precision", "--side", "127.0.0.1:" + ldap.port(), "user=postgres",
                        "connectTimeout=20", "socketTimeout=60");
    }

    static void assertAllRows(JvmResult r) {
        r.assertExit(0);
        assertEquals("PostgreSQL", E2e.value(r, "CONNECTED"), r.describe());
        assertEquals("false", E2e.value(r, "PRE demo exists="), "a previous run left its table behind" + r.describe());
        assertEquals(Integer.toString(Rows.COUNT), E2e.value(r, "INSERTED"), r.describe());
        assertEquals(Rows.COUNT + " checksum=" + EXPECTED + " bad=0", E2e.value(r, "SELECTED"), r.describe());
        assertTrue(r.stdoutLines().contains("DROPPED"), r.describe());
        assertTrue(r.stdoutLines().contains("SIDE OK " + BannerServer.BANNER), r.describe());
    }

    @Test
    void withoutAgent() {
        JvmResult r = workload("pg-no-agent").run();
        assertAllRows(r);
        assertFalse(r.stderr().contains("sdp4j:"), r.describe());
    }

    @Test
    void useTcp() {
        Path conf = E2e.conf(dir, "tcp.conf",
                "log min-level 7 destination stderr",
                "use tcp client * 127.0.0.1:" + pg.port(),
                "use tcp client * 127.0.0.1:" + ldap.port(),
                "use sdp client * *:*");
        JvmResult r = workload("pg-tcp").agent("conf=" + conf).run();
        assertAllRows(r);
        E2e.assertTcpTransport(E2e.assertClientDecisions(r, pg.port(), 2, "tcp"));
        E2e.assertTcpTransport(E2e.assertClientDecisions(r, ldap.port(), 3, "tcp"));
    }

    @Test
    void useBothFallsBackToTcp() {
        Path conf = E2e.conf(dir, "both.conf",
                "log min-level 7 destination stderr",
                "use tcp client * 127.0.0.1:" + ldap.port(),
                "use both client * 127.0.0.1:" + pg.port(),
                "use sdp client * *:*");
        JvmResult r = workload("pg-both").agent("conf=" + conf).run();
        assertAllRows(r);
        E2e.assertTcpTransport(E2e.assertClientDecisions(r, pg.port(), 3, "both"));
        E2e.assertTcpTransport(E2e.assertClientDecisions(r, ldap.port(), 2, "tcp"));
    }

    @Test
    void useSdpFailsWithTheReason() {
        Path conf = E2e.conf(dir, "sdp.conf",
                "use sdp client * 127.0.0.1:" + pg.port(),
                "use tcp client * *:*");
        JvmResult r = workload("pg-sdp").agent("conf=" + conf + ",log=7").run();
        r.assertExit(3);
        assertTrue(r.stdoutLines().contains("SIDE OK " + BannerServer.BANNER), r.describe());
        List<String> causes = E2e.linesStartingWith(r, "CAUSE ");
        assertTrue(causes.get(0).startsWith("CAUSE org.postgresql.util.PSQLException"), r.describe());
        String why = causes.stream().filter(c -> c.startsWith("CAUSE java.")).filter(E2e::explainsRdma)
                .findFirst().orElse(null);
        assertNotNull(why, "the cause chain must say why RDMA is unavailable" + r.describe());
        for (DecisionLog.Decision d : E2e.assertClientDecisions(r, pg.port(), 1, "sdp")) {
            assertFalse("tcp".equals(d.transport()), d.raw());
        }
        E2e.assertTcpTransport(E2e.assertClientDecisions(r, ldap.port(), 2, "tcp"));
        // nothing half done on the server: a plain run finds no table
        assertAllRows(workload("pg-after-sdp").run());
    }
}
