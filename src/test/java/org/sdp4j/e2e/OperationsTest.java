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
import org.sdp4j.e2e.apps.SlowPeerMain;

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
        try (E2e.RefusedPort held = new E2e.RefusedPort()) {
            statOfAnotherJvm(held.port());
        }
    }

    private void statOfAnotherJvm(int refused) throws Exception {
        Path conf = E2e.conf(dir, "ops.conf",
                "use ucx client * 127.0.0.1:" + refused, // no listener at all: ucx fails, then TCP is refused
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
            // the failed ucx attempt sends that destination to TCP for a while: the negative cache
            assertTrue(Pattern.compile("(?m)^  on tcp for now \\(negative cache\\): 127\\.0\\.0\\.1:" + refused
                    + "  retry in \\d+ ms  ucx connect failed: ").matcher(out).find(), out);

            JvmResult json = JvmLauncher.jar("ops-stat-json", AgentJar.path()).args("stat", "--json").run()
                    .assertExit(0);
            String j = json.stdout();
            assertTrue(j.trim().startsWith("[") && j.contains("\"pid\":" + pid), j);
            assertTrue(j.contains("{\"name\":\"ucx\",\"connects\":2,\"accepts\":2,\"listens\":2,"), j);
            assertTrue(j.contains("\"open\":4,\"bytesIn\":2000,\"bytesOut\":2000,"), j);
            assertTrue(j.contains("\"negativeCache\":[\"127.0.0.1:" + refused + "  retry in "), j);
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

    /**
     * JFR's socket events on ucx: a java.net Socket over sdp4j's SocketImpl gets the JDK's own jdk.SocketRead (the
     * JDK records it in java.net.Socket, whatever the impl); sdp4j's channels, which are not the JDK's NIO classes,
     * record org.sdp4j.SocketRead and SocketWrite with the same fields. Thresholds 0 here; 20 ms by default.
     */
    @Test
    void readsThatWaitAreJfrEventsOnBothApis() throws Exception {
        Path conf = E2e.conf(dir, "io.conf", "use ucx server * *:*", "use ucx client * *:*");
        Path jfc = dir.resolve("io.jfc");
        Files.writeString(jfc, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<configuration version=\"2.0\">\n"
                + event("jdk.SocketRead") + event("org.sdp4j.SocketRead") + event("org.sdp4j.SocketWrite")
                + "</configuration>\n");
        Path jfr = dir.resolve("io.jfr");
        JvmResult r = JvmLauncher.main("ops-io", SlowPeerMain.class)
                .jvmArg("-XX:StartFlightRecording=filename=" + jfr + ",settings=" + jfc).agent("conf=" + conf).run()
                .assertExit(0);
        Matcher done = Pattern.compile("DONE (\\d+) (\\d+)").matcher(r.stdout());
        assertTrue(done.find(), r.describe());
        Path jfrTool = Path.of(System.getProperty("java.home"), "bin", "jfr");
        Process print = new ProcessBuilder(jfrTool.toString(), "print", "--events",
                "jdk.SocketRead,org.sdp4j.SocketRead,org.sdp4j.SocketWrite", jfr.toString()).redirectErrorStream(true)
                .start();
        String events = new String(print.getInputStream().readAllBytes());
        assertTrue(print.waitFor(60, TimeUnit.SECONDS));
        // the channel's 200 ms wait for the peer's 64 bytes, on ucx, from the channel's class
        assertTrue(count(events, "org.sdp4j.SocketRead \\{[^}]*transport = \"ucx\""
                + "[^}]*bytes = 64\\s[^}]*eventThread = \"main\"") >= 1, events);
        assertTrue(count(events, "org.sdp4j.SocketWrite \\{[^}]*transport = \"ucx\"[^}]*bytes = 64\\s[^}]*"
                + "eventThread = \"main\"") >= 1, events);
        // the java.net read: the JDK's own event (the channel's read is not one of them: sdp4j's channel class)
        assertTrue(count(events, "jdk.SocketRead \\{[^}]*bytesRead = 64 bytes[^}]*"
                + "eventThread = \"main\"") >= 1, events);
    }

    private static String event(String name) {
        return "  <event name=\"" + name + "\"><setting name=\"enabled\">true</setting>"
                + "<setting name=\"threshold\">0 ms</setting><setting name=\"stackTrace\">false</setting></event>\n";
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
