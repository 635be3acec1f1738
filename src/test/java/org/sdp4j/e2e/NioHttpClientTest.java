package org.sdp4j.e2e;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sdp4j.e2e.apps.HttpMain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * java.net.http.HttpClient (HTTP/1.1) against com.sun.net.httpserver.HttpServer in one child JVM: both are NIO
 * (SocketChannel, ServerSocketChannel, Selector). Runs without the agent, with tcp rules and with both rules; the
 * outputs (byte-for-byte comparisons, digests) must be identical and the decisions logged.
 */
@Timeout(120)
class NioHttpClientTest {
    @TempDir
    static Path dir;
    static JvmResult baseline;

    @BeforeAll
    static void withoutAgent() {
        baseline = JvmLauncher.main("http-no-agent", HttpMain.class).run();
        baseline.assertExit(0);
        assertTrue(baseline.stdoutLines().contains("HTTP OK"), baseline.describe());
    }

    static List<String> comparable(JvmResult r) {
        return r.stdoutLines().stream().filter(l -> !l.startsWith("PORT ")).collect(Collectors.toList());
    }

    void runWith(String family) {
        Path conf = E2e.conf(dir, family + ".conf",
                "log min-level 7 destination stderr",
                "use " + family + " server * 127.0.0.1:*",
                "use " + family + " client * 127.0.0.1:*",
                "use sdp client * *:*",
                "use sdp server * *:*");
        JvmResult r = JvmLauncher.main("http-" + family, HttpMain.class).agent("conf=" + conf).run();
        r.assertExit(0);
        assertEquals(comparable(baseline), comparable(r), "same observations as without the agent" + r.describe());
        int port = Integer.parseInt(E2e.value(r, "PORT "));

        DecisionLog log = r.decisions();
        List<DecisionLog.Decision> listen = log.where(d -> d.isServer() && d.port() == port);
        assertEquals(1, listen.size(), "one bind decision for the HttpServer's ServerSocketChannel\n" + log.dump());
        assertEquals("line 2", listen.get(0).rule(), listen.get(0).raw());
        assertEquals(family, listen.get(0).family(), listen.get(0).raw());
        E2e.assertTcpTransport(listen);

        List<DecisionLog.Decision> connects = E2e.assertClientDecisions(r, port, 3, family);
        E2e.assertTcpTransport(connects);
        // 300 sequential requests reuse a pooled connection; 100 parallel ones and 3 downloads need more
        assertTrue(connects.size() >= 2, "HttpClient opened " + connects.size() + " connections?\n" + log.dump());
        assertFalse(log.all().stream().anyMatch(d -> d.family().equals("sdp")), log.dump());
    }

    @Test
    void useTcp() {
        runWith("tcp");
    }

    @Test
    void useBoth() {
        runWith("both");
    }
}
