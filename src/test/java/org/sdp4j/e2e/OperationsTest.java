package org.sdp4j.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sdp4j.e2e.apps.HoldConnectionsMain;

/**
 * What an operator sees of a running JVM with the agent (issue 21): {@code stat} in text and JSON, read through
 * the Attach API and JMX from another JVM, and the JFR events read back with {@code jfr print}.
 */
@Timeout(180)
class OperationsTest {
    @TempDir
    Path dir;

    @Test
    void statShowsTheTransportsTheRulesAndTheErrorsOfAnotherJvm() throws Exception {
        int refused = E2e.freePort();
        Path conf = E2e.conf(dir, "ops.conf",
                "use tcp client * 127.0.0.1:" + refused,
                "use ucx server * *:*",
                "use ucx client * *:*");
        Path jfr = dir.resolve("ops.jfr");
        try (JvmProcess p = JvmLauncher.main("ops-hold", HoldConnectionsMain.class)
                .jvmArg("-XX:StartFlightRecording=filename=" + jfr + ",settings=default")
                .args(Integer.toString(refused)).agent("conf=" + conf).start()) {
            Matcher ready = p.awaitStdout(Pattern.compile("READY (\\d+) (\\d+)"), Duration.ofSeconds(60));
            String pid = ready.group(1);

            JvmResult text = JvmLauncher.jar("ops-stat", AgentJar.path()).args("stat", pid).run().assertExit(0);
            String out = text.stdout();
            System.out.println(out);
            assertTrue(out.contains("JVM " + pid) && out.contains("config=" + conf), out);
            // listens: the application's listener, and the JMX connector's that this attach started (a ServerSocket
            // of the JVM like any other: `use ucx server * *:*` decides it too)
            // open: the two clients and the two accepted ends; each client wrote 1000 bytes that its peer read
            assertTrue(Pattern.compile("(?m)^  ucx +2 +2 +[12] +0 +0 +4 +2000 +2000$").matcher(out).find(), out);
            assertTrue(Pattern.compile("(?m)^  tcp +0 +\\d+ +\\d+ +0 +1 +0 +0 +0$").matcher(out).find(), out);
            // one line per open connection, as ss shows them: the rule matched, the bytes, what carries it
            assertEquals(2, count(out, "(?m)^  ucx +client +127\\.0\\.0\\.1:\\d+ +127\\.0\\.0\\.1:"
                    + ready.group(2) + " +" + Pattern.quote(conf + ":3") + " +\\S+ +0 +1000  shm$"), out);
            assertEquals(2, count(out, "(?m)^  ucx +accepted +127\\.0\\.0\\.1:" + ready.group(2)
                    + " +127\\.0\\.0\\.1:\\d+ +" + Pattern.quote(conf + ":2") + " +\\S+ +1000 +0  shm$"), out);
            assertTrue(out.contains("last error on tcp: java.net.ConnectException"), out);
            assertTrue(out.contains("rule " + conf + ":2: use ucx server * *:*"), out);

            JvmResult json = JvmLauncher.jar("ops-stat-json", AgentJar.path()).args("stat", "--json").run()
                    .assertExit(0);
            String j = json.stdout();
            assertTrue(j.trim().startsWith("[") && j.contains("\"pid\":" + pid), j);
            assertTrue(j.contains("{\"name\":\"ucx\",\"connects\":2,\"accepts\":2,\"listens\":2,"), j);
            assertTrue(j.contains("\"open\":4,\"bytesIn\":2000,\"bytesOut\":2000,"), j);
            assertEquals(2, count(j, "\\{\"transport\":\"ucx\",\"role\":\"client\",[^}]*\"bytesIn\":0,"
                    + "\"bytesOut\":1000,\"via\":\"shm\"\\}"), j);

            JvmResult none = JvmLauncher.jar("ops-stat-self", AgentJar.path()).args("stat", "1").run();
            assertEquals(1, none.exitCode(), none.describe());
            p.process().getOutputStream().close(); // the app ends; its recording is written at exit
            assertTrue(p.process().waitFor(60, TimeUnit.SECONDS), "the held JVM ended");
        }
        assertTrue(Files.size(jfr) > 0);
        Path jfrTool = Path.of(System.getProperty("java.home"), "bin", "jfr");
        Process print = new ProcessBuilder(jfrTool.toString(), "print", "--events", "org.sdp4j.Connect,org.sdp4j.Accept",
                jfr.toString()).redirectErrorStream(true).start();
        String events = new String(print.getInputStream().readAllBytes());
        assertTrue(print.waitFor(60, TimeUnit.SECONDS));
        assertEquals(2, count(events, "org.sdp4j.Connect \\{\\s+startTime = [^\\n]+\\s+address = \"127.0.0.1:\\d+\"\\s+"
                + "rule = \"line 3\"\\s+family = \"ucx\"\\s+transport = \"ucx\""), events);
        assertTrue(count(events, "org.sdp4j.Accept \\{") >= 2, events);
    }

    private static int count(String s, String regex) {
        Matcher m = Pattern.compile(regex).matcher(s);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }
}
