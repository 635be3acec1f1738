package org.sdp4j.e2e;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sdp4j.e2e.apps.HelloMain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code use smc} through the agent on this host. Where the kernel has no SMC (no {@code smc} module, the host
 * kernel here) the connection is plain TCP and the decision says why; where it has SMC, the connection is the
 * JDK's socket made SMC and a second line says how the kernel carried it (without a RoCE device: TCP by the
 * protocol, with the kernel's reason). SMC-R itself is proven between the two soft-RoCE guests (two-hosts.sh).
 */
@Timeout(60)
class SmcRuleTest {
    @TempDir
    static Path dir;
    static BannerServer server;

    @BeforeAll
    static void start() throws Exception {
        server = new BannerServer();
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    /** Whether this kernel lists the SMC protocol (loaded); the test accepts either answer but checks each fully. */
    static boolean kernelHasSmcLoaded() throws Exception {
        return Files.readAllLines(Path.of("/proc/net/protocols")).stream().anyMatch(l -> l.startsWith("SMC "));
    }

    @Test
    void smcRuleConnectsAndSaysHow() throws Exception {
        Path conf = E2e.conf(dir, "smc.conf", "use smc client * 127.0.0.1:" + server.port());
        JvmResult r = JvmLauncher.main("smc-client", HelloMain.class).agent("conf=" + conf + ",log=7")
                .args("127.0.0.1:" + server.port()).run();
        r.assertExit(0);
        assertTrue(r.stdoutLines().contains("SIDE OK " + BannerServer.BANNER), r.describe());
        List<DecisionLog.Decision> ds = E2e.assertClientDecisions(r, server.port(), 1, "smc");
        assertEquals(1, ds.size(), r.describe());
        DecisionLog.Decision d = ds.get(0);
        if (d.transport().equals("tcp")) {
            assertNotNull(d.fallback(), "smc on TCP must say why: " + d.raw());
            assertTrue(d.fallback().startsWith("smc is unavailable: the kernel has no SMC: socket(AF_INET, SOCK_STREAM,"
                    + " IPPROTO_SMC): "), d.raw());
            assertTrue(d.fallback().contains("socket(AF_SMC, SOCK_STREAM, 0): "), d.raw());
            assertTrue(!kernelHasSmcLoaded(), "SMC is loaded, yet unavailable: " + d.raw());
        } else {
            assertEquals("smc", d.transport(), d.raw());
            assertEquals(null, d.fallback(), d.raw());
            assertTrue(r.stderr().contains("smc: connection to 127.0.0.1:" + server.port() + " on "), r.describe());
        }
    }

    @Test
    void selftestNamesTheSmcTransport() throws Exception {
        JvmResult r = JvmLauncher.jar("smc-selftest", AgentJar.path()).args("selftest").run();
        String line = r.stdoutLines().stream().filter(l -> l.startsWith("transport smc ")).findFirst().orElse(null);
        assertNotNull(line, "no 'transport smc' line\n" + r.describe());
        assertTrue(line.startsWith("transport smc      available: ") && line.contains("; User EIDs: ")
                || line.startsWith("transport smc      unavailable: the kernel has no SMC: "), line);
    }
}
