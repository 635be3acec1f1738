package org.sdp4j.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sdp4j.e2e.apps.NettyStreamClientMain;
import org.sdp4j.e2e.apps.StreamMain;

/**
 * Sockets the agent cannot see (issue 21): a Netty client on its native epoll transport creates its socket in
 * Netty's own JNI, so a {@code use ucx} rule does not apply to it. The agent says so at warning level; with the
 * agent option {@code netty=nio} the same client picks NIO and rides UCX.
 */
@Timeout(240)
class NettyNativeTransportTest {
    @TempDir
    Path dir;

    @Test
    void aNettyEpollClientIsReportedAndRidesUcxWithNettyNio() throws Exception {
        Path conf = E2e.conf(dir, "netty.conf",
                "log min-level 7 destination stderr",
                "use ucx server * *:*",
                "use ucx client * *:*");

        Run epoll = stream(conf, "conf=" + conf);
        assertTrue(epoll.stdout.contains("STREAMED epoll"), epoll.stdout + epoll.stderr);
        assertTrue(epoll.stderr.contains("WARNING Netty's native epoll transport is loaded"), epoll.stderr);
        assertEquals(List.of(), DecisionLog.parse(epoll.stderr).clientsTo(epoll.port),
                "epoll's connect never reaches a rule");

        Run nio = stream(conf, "conf=" + conf + ",netty=nio");
        assertTrue(nio.stdout.contains("STREAMED nio"), nio.stdout + nio.stderr);
        assertTrue(!nio.stderr.contains("native epoll transport is loaded"), nio.stderr);
        List<DecisionLog.Decision> d = DecisionLog.parse(nio.stderr).clientsTo(nio.port);
        assertEquals(1, d.size(), nio.stderr);
        assertEquals("ucx", d.get(0).transport(), d.get(0).raw());
    }

    private record Run(int port, String stdout, String stderr) {}

    /** A StreamMain server on the ucx listener and one Netty client, both with the agent {@code options}. */
    private static Run stream(Path conf, String clientAgent) throws Exception {
        try (JvmProcess server = JvmLauncher.main("netty-stream-server", StreamMain.class).args("serve")
                .agent("conf=" + conf).start()) {
            Matcher m = server.awaitStdout(Pattern.compile("LISTENING (\\d+)"), Duration.ofSeconds(60));
            int port = Integer.parseInt(m.group(1));
            JvmResult client = JvmLauncher.main("netty-stream-client", NettyStreamClientMain.class)
                    .args(Integer.toString(port)).agent(clientAgent).run().assertExit(0);
            return new Run(port, client.stdout(), client.stderr());
        }
    }
}
