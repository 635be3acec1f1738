package org.sdp4j.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.sdp4j.e2e.apps.HelloMain;
import org.sdp4j.e2e.apps.ReachMain;

/**
 * Issue 12 L2-L4 tried by a real second local user ({@code nobody}, uid 65534, through {@code setpriv}) against an
 * sdp4j JVM running as root, as CI runs {@code ./test.sh}: the attacker plants files in a directory both can
 * write (sticky and world-writable, like /tmp), root starts a JVM with the agent. Needs root (to be the victim and
 * to switch to the attacker); skipped otherwise.
 */
class LocalAttackerTest {
    private static final int NOBODY = 65534;
    private static final Duration BOUND = Duration.ofSeconds(40);

    private Path shared; // /tmp-like: 1777, both users write here
    private Path rootDir; // root's own: 0700

    @BeforeEach
    void setUp() throws Exception {
        assumeTrue(uid() == 0, "the attacks need root (as ./test.sh runs in CI) to switch to a second user");
        shared = Files.createTempDirectory(Path.of("/tmp"), "sdp4j-attack-");
        Files.setAttribute(shared, "unix:mode", 01777);
        rootDir = Files.createTempDirectory(Path.of("/tmp"), "sdp4j-root-");
    }

    @AfterEach
    void tearDown() throws IOException {
        for (Path d : new Path[] {shared, rootDir}) {
            if (d != null) {
                try (Stream<Path> s = Files.walk(d)) {
                    for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                        Files.deleteIfExists(p);
                    }
                }
            }
        }
    }

    private static int uid() throws IOException {
        return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
    }

    /** Runs a command as nobody; it must succeed (the attack step itself is possible). */
    private static void asAttacker(String... cmd) throws Exception {
        List<String> full = new ArrayList<>(List.of("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY,
                "--clear-groups"));
        full.addAll(List.of(cmd));
        Process p = new ProcessBuilder(full).redirectErrorStream(true).start();
        assertTrue(p.waitFor(20, TimeUnit.SECONDS), "attacker step hung: " + full);
        String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.exitValue(), "attacker step failed: " + full + "\n" + out);
    }

    private Path rootConf(String name) throws IOException {
        return Files.writeString(rootDir.resolve(name), "use tcp client * *:*\nuse tcp server * *:*\n");
    }

    private static JvmResult hello(String name, String agentOptions) {
        return JvmLauncher.main(name, HelloMain.class).agent(agentOptions).timeout(BOUND).run();
    }

    // ---- L2: log files

    @Test
    void rootDoesNotLogThroughAnAttackersSymlink() throws Exception {
        Path victim = Files.writeString(rootDir.resolve("shadow"), "root's secret\n");
        Files.setPosixFilePermissions(victim, PosixFilePermissions.fromString("rw-------"));
        Files.setPosixFilePermissions(rootDir, PosixFilePermissions.fromString("rwxr-xr-x")); // a link may name it
        Path link = shared.resolve("app.log");
        asAttacker("ln", "-s", victim.toString(), link.toString());
        JvmResult r = hello("attack-log-symlink", "conf=" + rootConf("ok.conf") + ",log=5:file:" + link);
        r.assertExit(0); // the program runs, logging to stderr
        assertTrue(r.stdout().contains("MAIN RAN"), r.describe());
        assertEquals("root's secret\n", Files.readString(victim), "root appended through the link" + r.describe());
        assertTrue(r.stderr().contains("cannot log to file " + link + " (" + link + " is a symbolic link"),
                r.describe());
        assertTrue(r.stderr().contains("agent started"), "the log went to stderr instead" + r.describe());
    }

    @Test
    void rootDoesNotBlockOnAnAttackersFifoAsLogFile() throws Exception {
        Path fifo = shared.resolve("fifo.log");
        asAttacker("mkfifo", fifo.toString());
        JvmResult r = hello("attack-log-fifo", "conf=" + rootConf("ok.conf") + ",log=5:file:" + fifo);
        assertFalse(r.timedOut(), "the agent blocked on the FIFO" + r.describe());
        r.assertExit(0);
        assertTrue(r.stderr().contains(fifo + " is a FIFO (named pipe), not a regular file"), r.describe());
    }

    @Test
    void rootDoesNotAppendToAnAttackersLogFile() throws Exception {
        Path theirs = shared.resolve("theirs.log");
        asAttacker("touch", theirs.toString());
        JvmResult r = hello("attack-log-owner", "conf=" + rootConf("ok.conf") + ",log=5:file:" + theirs);
        r.assertExit(0);
        assertEquals(0, Files.size(theirs), "root's log went into a file the attacker owns and reads" + r.describe());
        assertTrue(r.stderr().contains(theirs + " belongs to uid " + NOBODY), r.describe());
    }

    @Test
    void newLogFileIsOwnerOnly() throws Exception {
        Path log = shared.resolve("new.log");
        JvmResult r = hello("attack-log-new", "conf=" + rootConf("ok.conf") + ",log=5:file:" + log);
        r.assertExit(0);
        assertTrue(Files.readString(log).contains("agent started"), r.describe());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(log)));
        Process p = new ProcessBuilder("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups",
                "cat", log.toString()).start();
        assertTrue(p.waitFor(20, TimeUnit.SECONDS));
        assertTrue(p.exitValue() != 0, "another user could read root's log");
    }

    // ---- L3: the config

    @Test
    void fifoConfigIsAClearErrorNotAHang() throws Exception {
        Path fifo = shared.resolve("libsdp.conf");
        asAttacker("mkfifo", fifo.toString());
        JvmResult r = hello("attack-conf-fifo", "conf=" + fifo);
        assertFalse(r.timedOut(), "the agent blocked on the FIFO before main" + r.describe());
        assertEquals(2, r.exitCode(), r.describe());
        assertTrue(r.stderr().contains(fifo + ": is a FIFO (named pipe), not a regular file"), r.describe());
        JvmResult check = JvmLauncher.jar("attack-check-fifo", AgentJar.path()).args("check", "--conf",
                fifo.toString(), "client", "127.0.0.1:5000").timeout(BOUND).run();
        assertFalse(check.timedOut(), "check blocked on the FIFO" + check.describe());
        assertEquals(2, check.exitCode(), check.describe());
        assertTrue(check.stderr().contains("is a FIFO (named pipe)") || check.stdout().contains(
                "is a FIFO (named pipe)"), check.describe());
    }

    @Test
    void rootRefusesAConfigEveryoneCanWrite() throws Exception {
        Path conf = Files.writeString(shared.resolve("open.conf"), "use tcp client * *:*\n");
        Files.setPosixFilePermissions(conf, PosixFilePermissions.fromString("rw-rw-rw-"));
        asAttacker("sh", "-c", "echo 'use sdp client * *:*' >> " + conf); // the attacker can change the rules
        refused("attack-conf-world", conf, conf + " is writable by every user (mode 666)");
    }

    @Test
    void rootRefusesAConfigOfAnotherUser() throws Exception {
        Path conf = shared.resolve("theirs.conf");
        asAttacker("sh", "-c", "echo 'use tcp client * *:*' > " + conf);
        refused("attack-conf-owner", conf, conf + " belongs to uid " + NOBODY);
    }

    @Test
    void rootRefusesAConfigInADirectoryAnotherUserOwns() throws Exception {
        Path dir = shared.resolve("theirs");
        asAttacker("mkdir", "-m", "755", dir.toString());
        Path conf = Files.writeString(dir.resolve("libsdp.conf"), "use tcp client * *:*\n"); // root's own file
        refused("attack-conf-dir", conf, "the directory " + dir + " belongs to uid " + NOBODY);
    }

    @Test
    void rootRefusesAConfigWritableByANonRootGroup() throws Exception {
        Path conf = rootConf("group.conf");
        Files.setAttribute(conf, "unix:gid", NOBODY);
        Files.setPosixFilePermissions(conf, PosixFilePermissions.fromString("rw-rw-r--"));
        refused("attack-conf-group", conf, conf + " is writable by group " + NOBODY);
    }

    @Test
    void rootRefusesAConfigReachedThroughAnotherUsersSymlink() throws Exception {
        Path good = rootConf("good.conf");
        Files.setPosixFilePermissions(rootDir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path link = shared.resolve("link.conf");
        asAttacker("ln", "-s", good.toString(), link.toString());
        refused("attack-conf-link", link, "the symbolic link " + link + " belongs to uid " + NOBODY);
        // root's own file, named directly, is fine
        hello("conf-root-ok", "conf=" + good).assertExit(0);
    }

    private static void refused(String name, Path conf, String why) {
        JvmResult r = hello(name, "conf=" + conf);
        assertEquals(2, r.exitCode(), "a root JVM used a config another user could write" + r.describe());
        assertFalse(r.stdout().contains("MAIN RAN"), r.describe());
        assertTrue(r.stderr().contains(why), "expected '" + why + "'" + r.describe());
    }

    // ---- L4: what the agent opens, and to whom

    @Test
    void classPathCodeGainsNoAccessToJdkInternals() throws Exception {
        JvmResult r = JvmLauncher.main("reach-agent", ReachMain.class).agent("conf=" + rootConf("ok.conf")
                + ",log=7").args("nio").timeout(BOUND).run().assertExit(0);
        assertTrue(r.stdout().contains("JAVA_NET refused"), "the agent opened java.net to the class path"
                + r.describe());
        assertTrue(r.stdout().contains("SUN_NIO_CH refused"), "the agent opened sun.nio.ch to the class path"
                + r.describe());
        // and sdp4j itself still interposes on both APIs
        assertTrue(r.stdout().contains("ECHO_NET ok"), r.describe());
        assertTrue(r.stdout().contains("ECHO_NIO ok org.sdp4j.nio.SdpSocketChannel"), r.describe());
        assertTrue(r.decisions().all().stream().filter(d -> d.role().equals("client")).count() >= 2, r.describe());
        // the same class path code with the JDK's own flag can: the probe can tell open from refused
        JvmResult control = JvmLauncher.main("reach-add-opens", ReachMain.class)
                .jvmArg("--add-opens", "java.base/java.net=ALL-UNNAMED").timeout(BOUND).run().assertExit(0);
        assertTrue(control.stdout().contains("JAVA_NET open"), control.describe());
    }

    @Test
    void noRestrictedMethodWarningWithNativeTransports() throws Exception {
        // both: libsdp4j.so loads (rsockets, then TCP here); ucx: jucx loads. JDK 24+ warned for each before.
        for (String family : new String[] {"both", "ucx"}) {
            Path conf = Files.writeString(rootDir.resolve(family + ".conf"), "use " + family + " client * *:*\nuse "
                    + family + " server * *:*\n");
            JvmResult r = JvmLauncher.main("warn-" + family, ReachMain.class).agent("conf=" + conf + ",log=5")
                    .timeout(BOUND).run().assertExit(0);
            assertTrue(r.stdout().contains("ECHO_NET ok"), r.describe());
            assertFalse(r.stderr().contains("restricted method"), "JDK " + Runtime.version().feature()
                    + ": restricted-method warning with use " + family + r.describe());
            assertFalse(r.stderr().contains("WARNING:"), r.describe());
        }
    }
}
