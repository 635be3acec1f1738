package org.sdp4j.e2e;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.sdp4j.e2e.apps.HelloMain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A broken configuration as a user meets it: the JVM does not start (status 2, FILE:LINE: on stderr, main never
 * ran); with onerror=tcp it runs with everything on TCP and says so loudly; a missing file and a bad agent option
 * are clear errors too.
 */
@Timeout(60)
class ConfigErrorTest {
    @TempDir
    Path dir;

    JvmResult hello(String name, String agentOptions, String... args) {
        return JvmLauncher.main(name, HelloMain.class).agent(agentOptions).args(args).run();
    }

    static void assertRefused(JvmResult r, String fileAndLine) {
        r.assertExit(2);
        assertFalse(r.stdout().contains("MAIN RAN"), "main must not run" + r.describe());
        assertTrue(r.stderr().contains(fileAndLine), "stderr must point at " + fileAndLine + r.describe());
    }

    @ParameterizedTest(name = "[{index}] line {0}: {1}")
    @CsvSource(delimiter = '|', value = {
        "3 | use tcp clinet * *:*",
        "3 | use rdma client * *:*",
        "3 | use sdp client * 10.1.0.0/33:50000",
        "3 | use sdp client * 10.1.0.1:70000",
        "3 | use sdp client *",
        "3 | use sdp client * 10.1.0.1:port",
        "3 | log min-level seven",
        "3 | frobnicate all the sockets",
    })
    void malformedLineRefusesToStart(int line, String bad) {
        Path conf = E2e.conf(dir, "bad.conf",
                "# line 2 is fine, line 3 is not",
                "use tcp client * *:*",
                bad,
                "use both client * *:*");
        JvmResult r = hello("bad-conf-line", "conf=" + conf);
        assertRefused(r, conf + ":" + line + ":");
        // the message says something beyond the position
        String msgLine = r.stderrLines().stream().filter(l -> l.contains(conf + ":" + line + ":")).findFirst().orElseThrow();
        assertTrue(msgLine.length() > (conf + ":" + line + ":").length() + 5, "a message after FILE:LINE:" + r.describe());
    }

    @Test
    void onerrorTcpRunsEverythingOnTcpLoudly() throws Exception {
        try (BannerServer server = new BannerServer()) {
            Path conf = E2e.conf(dir, "bad.conf",
                    "log min-level 7 destination stderr",
                    "use sdp client * *:*",
                    "use tcp client * 127.0.0.1:ninety");
            JvmResult r = hello("onerror-tcp", "conf=" + conf + ",onerror=tcp,log=7", "127.0.0.1:" + server.port());
            r.assertExit(0);
            assertTrue(r.stdoutLines().contains("MAIN RAN"), r.describe());
            // the sdp rule on line 2 must not apply: the whole file is unusable, everything goes over TCP
            assertTrue(r.stdoutLines().contains("SIDE OK " + BannerServer.BANNER), r.describe());
            assertTrue(r.stderr().contains(conf + ":3:"), "the error, with FILE:LINE" + r.describe());
            assertTrue(r.stderr().toUpperCase().contains("ERROR"), "loudly" + r.describe());
            List<DecisionLog.Decision> ds = r.decisions().clientsTo(server.port());
            assertFalse(ds.isEmpty(), "the decision is still logged\n" + r.decisions().dump() + r.describe());
            for (DecisionLog.Decision d : ds) {
                assertEquals("tcp", d.transport(), d.raw());
                assertEquals("tcp", d.family(), d.raw());
            }
        }
    }

    @Test
    void missingConfFileIsAClearError() {
        Path missing = dir.resolve("no-such-dir").resolve("libsdp.conf");
        JvmResult r = hello("missing-conf", "conf=" + missing);
        r.assertExit(2);
        assertFalse(r.stdout().contains("MAIN RAN"), r.describe());
        assertTrue(r.stderr().contains(missing.toString()), "names the file" + r.describe());
        String s = r.stderr().toLowerCase();
        assertTrue(s.contains("no such file") || s.contains("not found") || s.contains("does not exist")
                || s.contains("cannot read") || s.contains("missing"), "says what is wrong with it" + r.describe());
    }

    @Test
    void missingConfFileWithOnerrorTcpRuns() throws Exception {
        try (BannerServer server = new BannerServer()) {
            Path missing = dir.resolve("no-such.conf");
            JvmResult r = hello("missing-conf-onerror-tcp", "conf=" + missing + ",onerror=tcp,log=7",
                    "127.0.0.1:" + server.port());
            r.assertExit(0);
            assertTrue(r.stdoutLines().contains("SIDE OK " + BannerServer.BANNER), r.describe());
            assertTrue(r.stderr().contains(missing.toString()), r.describe());
        }
    }

    @Test
    void unknownAgentOptionIsRefused() {
        JvmResult r = hello("bad-agent-option", "colour=blue");
        r.assertExit(2);
        assertFalse(r.stdout().contains("MAIN RAN"), r.describe());
        assertTrue(r.stderr().contains("colour"), "names the option" + r.describe());
    }

    @Test
    void badOnerrorValueIsRefused() {
        Path conf = E2e.conf(dir, "ok.conf", "use tcp client * *:*");
        JvmResult r = hello("bad-onerror", "conf=" + conf + ",onerror=ignore");
        r.assertExit(2);
        assertFalse(r.stdout().contains("MAIN RAN"), r.describe());
        assertTrue(r.stderr().contains("onerror"), r.describe());
    }

    @Test
    void goodConfigRunsMain() throws Exception {
        // the control: the same program and agent with a valid file runs and connects
        try (BannerServer server = new BannerServer()) {
            Path conf = E2e.conf(dir, "good.conf", "use tcp client * *:*", "use tcp server * *:*");
            JvmResult r = hello("good-conf", "conf=" + conf, "127.0.0.1:" + server.port());
            r.assertExit(0);
            assertTrue(r.stdoutLines().contains("MAIN RAN"), r.describe());
            assertTrue(r.stdoutLines().contains("SIDE OK " + BannerServer.BANNER), r.describe());
        }
    }
}
