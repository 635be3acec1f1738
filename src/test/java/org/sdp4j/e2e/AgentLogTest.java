package org.sdp4j.e2e;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sdp4j.e2e.apps.HelloMain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Where the decision log goes and when it is quiet: libsdp's log statement and the agent's log= option. */
@Timeout(60)
class AgentLogTest {
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

    JvmResult hello(String name, String options) {
        JvmResult r = JvmLauncher.main(name, HelloMain.class).agent(options).args("127.0.0.1:" + server.port()).run();
        r.assertExit(0);
        assertTrue(r.stdoutLines().contains("SIDE OK " + BannerServer.BANNER), r.describe());
        return r;
    }

    @Test
    void agentOptionSendsTheLogToAFile() throws Exception {
        Path conf = E2e.conf(dir, "tcp.conf", "use tcp client * 127.0.0.1:*");
        Path log = dir.resolve("agent-option.log");
        JvmResult r = hello("log-option-file", "conf=" + conf + ",log=7:file:" + log);
        assertEquals(0, r.decisions().all().size(), "nothing on stderr\n" + r.decisions().dump());
        assertTrue(Files.exists(log), "log file " + log + r.describe());
        DecisionLog inFile = DecisionLog.parse(Files.readString(log));
        assertEquals(1, inFile.clientsTo(server.port()).size(), "one decision in the file:\n" + Files.readString(log));
        assertEquals("line 1", inFile.clientsTo(server.port()).get(0).rule());
    }

    /**
     * {@code log destination file NAME} from libsdp.conf goes where libsdp put it (docs/libsdp-conf.md, "Logging"):
     * for root /var/log/BASENAME, for other users NAME.UID/log (NAME with a '/').
     */
    @Test
    void configLogStatementSendsTheLogToAFile() throws Exception {
        int uid = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        String base = "sdp4j-e2e-" + ProcessHandle.current().pid() + "-" + System.nanoTime() + ".log";
        Path name = dir.resolve(base);
        Path expected = uid == 0 ? Path.of("/var/log", base) : Path.of(name + "." + uid, "log");
        Path conf = E2e.conf(dir, "file.conf",
                "log min-level 7 destination file " + name,
                "use tcp client * 127.0.0.1:*");
        try {
            JvmResult r = hello("log-conf-file", "conf=" + conf);
            assertEquals(0, r.decisions().all().size(), "nothing on stderr\n" + r.decisions().dump());
            assertTrue(Files.exists(expected), "log file " + expected + r.describe());
            DecisionLog inFile = DecisionLog.parse(Files.readString(expected));
            assertEquals(1, inFile.clientsTo(server.port()).size(), Files.readString(expected));
            assertEquals("line 2", inFile.clientsTo(server.port()).get(0).rule());
        } finally {
            Files.deleteIfExists(expected);
        }
    }

    @Test
    void confStatementToStderr() {
        Path conf = E2e.conf(dir, "stderr.conf",
                "use tcp client * 127.0.0.1:*",
                "log min-level 7 destination stderr");
        JvmResult r = hello("log-conf-stderr", "conf=" + conf);
        assertEquals(1, r.decisions().clientsTo(server.port()).size(), r.describe());
    }

    @Test
    void lowLevelKeepsDecisionsQuiet() {
        Path conf = E2e.conf(dir, "quiet.conf",
                "log min-level 7 destination stderr",
                "use tcp client * 127.0.0.1:*");
        // the agent option overrides the file's log statement; libsdp's levels: 9 errors only, 7 decisions
        JvmResult r = hello("log-quiet", "conf=" + conf + ",log=9");
        assertEquals(0, r.decisions().all().size(), r.describe());
        assertTrue(r.stderrLines().stream().noneMatch(l -> l.startsWith("sdp4j: ")), "quiet" + r.describe());
    }
}
