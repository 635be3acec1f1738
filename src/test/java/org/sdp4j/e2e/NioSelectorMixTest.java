package org.sdp4j.e2e;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sdp4j.e2e.apps.SelectorMixMain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One Selector multiplexing SocketChannels (non-blocking connect), a ServerSocketChannel, a Pipe and a
 * DatagramChannel, plus wakeup, cancelled keys and close-while-registered: the same observations with the agent
 * (tcp and both rules) as without it.
 */
@Timeout(120)
class NioSelectorMixTest {
    @TempDir
    static Path dir;
    static JvmResult baseline;

    @BeforeAll
    static void withoutAgent() {
        baseline = JvmLauncher.main("selector-no-agent", SelectorMixMain.class).run();
        baseline.assertExit(0);
        assertTrue(baseline.stdoutLines().contains("SELECTORMIX OK"), baseline.describe());
    }

    static List<String> comparable(JvmResult r) {
        return r.stdoutLines().stream().filter(l -> !l.startsWith("PORT ") && !l.startsWith("ADAPTOR_PORT "))
                .collect(Collectors.toList());
    }

    void runWith(String family) {
        Path conf = E2e.conf(dir, family + ".conf",
                "log min-level 7 destination stderr",
                "use " + family + " server * 127.0.0.1:*",
                "use " + family + " client * 127.0.0.1:*",
                "use sdp client * *:*",
                "use sdp server * *:*");
        JvmResult r = JvmLauncher.main("selector-" + family, SelectorMixMain.class).agent("conf=" + conf).run();
        r.assertExit(0);
        assertEquals(comparable(baseline), comparable(r), "same observations as without the agent" + r.describe());
        int port = Integer.parseInt(E2e.value(r, "PORT "));
        DecisionLog log = r.decisions();
        List<DecisionLog.Decision> bind = log.where(d -> d.isServer() && d.port() == port);
        assertEquals(1, bind.size(), "one decision for the ServerSocketChannel's bind\n" + log.dump());
        assertEquals("line 2", bind.get(0).rule(), bind.get(0).raw());
        E2e.assertTcpTransport(bind);
        List<DecisionLog.Decision> connects = E2e.assertClientDecisions(r, port, 3, family);
        assertEquals(SelectorMixMain.CLIENTS, connects.size(), "one decision per non-blocking connect\n" + log.dump());
        E2e.assertTcpTransport(connects);

        // bind and connect through the channels' socket adaptors are decided just the same
        int adaptorPort = Integer.parseInt(E2e.value(r, "ADAPTOR_PORT "));
        List<DecisionLog.Decision> adaptorBind = log.where(d -> d.isServer() && d.port() == adaptorPort);
        assertEquals(1, adaptorBind.size(), "one decision for ServerSocketChannel.socket().bind(...)\n" + log.dump());
        assertEquals("line 2", adaptorBind.get(0).rule(), adaptorBind.get(0).raw());
        E2e.assertTcpTransport(adaptorBind);
        List<DecisionLog.Decision> adaptorConnect = E2e.assertClientDecisions(r, adaptorPort, 3, family);
        assertEquals(1, adaptorConnect.size(), "one decision for SocketChannel.socket().connect(...)\n" + log.dump());
        E2e.assertTcpTransport(adaptorConnect);
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
