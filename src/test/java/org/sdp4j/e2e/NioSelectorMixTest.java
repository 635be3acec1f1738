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

    static Path conf(String family) {
        return E2e.conf(dir, family + ".conf",
                "log min-level 7 destination stderr",
                "use " + family + " server * 127.0.0.1:*",
                "use " + family + " client * 127.0.0.1:*",
                "use sdp client * *:*",
                "use sdp server * *:*");
    }

    void runWith(String family) {
        Path conf = conf(family);
        check(family, JvmLauncher.main("selector-" + family, SelectorMixMain.class).agent("conf=" + conf).run());
    }

    /**
     * Without the agent: the provider named in the system property, the jar on the class path, and of the JDK flags
     * only the one the README says NIO always needs; without it the JVM says which flag is missing.
     */
    @Test
    void providerProperty() {
        Path conf = conf("both");
        String cp = ChildClassPath.get() + java.io.File.pathSeparator + AgentJar.path();
        JvmLauncher l = JvmLauncher.main("selector-property", SelectorMixMain.class).classPath(cp)
                .jvmArg("-Djava.nio.channels.spi.SelectorProvider=org.sdp4j.nio.SdpSelectorProvider",
                        "-Dsdp4j.conf=" + conf);
        JvmResult missing = l.run();
        assertTrue(missing.exitCode() != 0, "no NIO without sun.nio.ch exported" + missing.describe());
        assertTrue(missing.stderr().contains("--add-exports java.base/sun.nio.ch=ALL-UNNAMED"),
                "the failure names the flag" + missing.describe());
        check("both", l.jvmArg("--add-exports", "java.base/sun.nio.ch=ALL-UNNAMED").run());
    }

    void check(String family, JvmResult r) {
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
