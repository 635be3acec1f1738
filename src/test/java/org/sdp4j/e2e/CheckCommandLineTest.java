package org.sdp4j.e2e;

import java.nio.file.Path;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code java -jar sdp4j-agent.jar check ...} as a user runs it: which rule decides a connection, exit codes. */
@Timeout(60)
class CheckCommandLineTest {
    @TempDir
    Path dir;
    Path conf;

    @BeforeEach
    void writeConf() {
        conf = E2e.conf(dir, "libsdp.conf",
                "# DB2 on SDP, LDAP on TCP",
                "use sdp  client * 10.1.0.0/16:50000",
                "use tcp  client * 10.1.0.9:389",
                "use both client * *:*",
                "use tcp  server db2sysc *:50000-50010",
                "log min-level 4 destination stderr");
    }

    JvmResult check(String... args) {
        return JvmLauncher.jar("check", AgentJar.path()).args("check").args(args).run();
    }

    @ParameterizedTest(name = "[{index}] {0} {1} {2} -> line {3} {4}")
    @CsvSource({
        "client, 10.1.2.3:50000,   '', 2, sdp",
        "client, 10.1.0.9:389,     '', 3, tcp",
        "client, 10.1.0.9:50000,   '', 2, sdp",
        "client, 192.168.1.1:5432, '', 4, both",
        "client, 10.1.2.3:50001,   '', 4, both",
        "server, 0.0.0.0:50005,    db2sysc, 5, tcp",
        "listen, 10.1.0.9:50010,   db2sysc, 5, tcp",
        "connect, 10.1.0.9:389,    db2sysc, 3, tcp",
    })
    void firstMatchingRuleDecides(String role, String target, String program, int line, String family) {
        JvmResult r = program.isEmpty() ? check("--conf", conf.toString(), role, target)
                : check("--conf", conf.toString(), "--program", program, role, target);
        r.assertExit(0);
        String rule = E2e.value(r, "rule:");
        assertTrue(rule.startsWith("line " + line + ":"), "rule: " + rule + r.describe());
        String text = readLine(line);
        assertTrue(normalize(rule).endsWith(normalize(text)), "the rule's text (" + text + ")" + r.describe());
        assertEquals(family, E2e.value(r, "family:"), r.describe());
    }

    private String readLine(int n) {
        try {
            return java.nio.file.Files.readAllLines(conf).get(n - 1);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static String normalize(String s) {
        return s.trim().replaceAll("\\s+", " ");
    }

    @Test
    void serverRuleForAnotherProgramDoesNotMatch() {
        JvmResult r = check("--conf", conf.toString(), "--program", "postgres", "server", "0.0.0.0:50005");
        r.assertExit(0);
        assertTrue(E2e.value(r, "rule:").contains("none matched"), r.describe());
        // libsdp's default for a connection no rule matches is both
        assertEquals("both", E2e.value(r, "family:"), r.describe());
    }

    /** libsdp's "simple SDP" mode: a file without any use rule sends everything to sdp. */
    @Test
    void fileWithoutRulesMeansSdpForAll() {
        Path empty = E2e.conf(dir, "empty.conf", "# all rules commented out", "# use tcp client * *:*",
                "log min-level 3 destination stderr");
        JvmResult r = check("--conf", empty.toString(), "client", "10.0.0.1:50000");
        r.assertExit(0);
        assertTrue(E2e.value(r, "rule:").contains("none matched"), r.describe());
        assertEquals("sdp", E2e.value(r, "family:"), r.describe());
    }

    @Test
    void badConfigExitsTwoWithFileAndLine() {
        Path bad = E2e.conf(dir, "bad.conf", "use sdp client * *:*", "use sdp client * 300.1.1.1:5");
        JvmResult r = check("--conf", bad.toString(), "client", "10.0.0.1:1");
        r.assertExit(2);
        assertTrue(r.stderr().contains(bad + ":2:"), r.describe());
    }

    @Test
    void missingConfigExitsTwo() {
        Path missing = dir.resolve("nope.conf");
        JvmResult r = check("--conf", missing.toString(), "client", "10.0.0.1:1");
        r.assertExit(2);
        assertTrue(r.stderr().contains(missing.toString()), r.describe());
    }

    @Test
    void usageErrorsExitTwo() {
        check("--conf", conf.toString(), "client").assertExit(2);
        check("--conf", conf.toString(), "sideways", "10.0.0.1:1").assertExit(2);
        check("--conf", conf.toString(), "client", "10.0.0.1").assertExit(2);
        check("--conf", conf.toString(), "client", "10.0.0.1:99999").assertExit(2);
    }
}
