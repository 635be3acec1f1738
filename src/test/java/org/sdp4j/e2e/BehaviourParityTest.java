package org.sdp4j.e2e;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sdp4j.e2e.apps.ProbeMain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * "tcp means untouched": the probe program prints what java.net.Socket and ServerSocket do (options, states,
 * exceptions and their messages, timeouts, half close, async close, TLS layered over a socket, adaptors); with the
 * agent and rules sending everything to tcp it must print exactly the same lines as without the agent.
 */
@Timeout(120)
class BehaviourParityTest {
    @TempDir
    static Path dir;
    static Path keystore;
    static JvmResult baseline;

    @BeforeAll
    static void withoutAgent() throws Exception {
        keystore = Keystores.selfSigned(dir);
        baseline = probe("probe-no-agent", null);
        assertEquals("PROBE FAILURES 0", last(baseline), "the probe's own checks, without the agent" + baseline.describe());
        baseline.assertExit(0);
    }

    static JvmResult probe(String name, Path conf) {
        JvmLauncher l = JvmLauncher.main(name, ProbeMain.class).args(keystore.toString(), Keystores.PASSWORD);
        if (conf != null) {
            l.agent("conf=" + conf);
        }
        return l.run();
    }

    static String last(JvmResult r) {
        List<String> l = r.stdoutLines();
        return l.isEmpty() ? "(no output)" : l.get(l.size() - 1);
    }

    @Test
    void sameObservationsWithAgentAndTcpRules() {
        Path conf = E2e.conf(dir, "all-tcp.conf",
                "log min-level 7 destination stderr",
                "use tcp client * *:*",
                "use tcp server * *:*");
        JvmResult r = probe("probe-agent-tcp", conf);

        List<String> expected = baseline.stdoutLines();
        List<String> actual = r.stdoutLines();
        List<String> diff = new ArrayList<>();
        for (int i = 0; i < Math.max(expected.size(), actual.size()); i++) {
            String e = i < expected.size() ? expected.get(i) : "(missing)";
            String a = i < actual.size() ? actual.get(i) : "(missing)";
            if (!e.equals(a)) {
                diff.add("line " + (i + 1) + ":\n  without agent: " + e + "\n  with agent:    " + a);
            }
        }
        if (!diff.isEmpty()) {
            fail(diff.size() + " line(s) differ from the run without the agent:\n" + String.join("\n", diff)
                    + r.describe());
        }
        assertEquals("PROBE FAILURES 0", last(r), r.describe());
        r.assertExit(0);

        // and the agent was really there, deciding every connect and listen by the rules
        DecisionLog log = r.decisions();
        assertTrue(log.clients().size() >= 20, "client decisions: " + log.clients().size() + "\n" + log.dump());
        assertTrue(log.servers().size() >= 10, "server decisions: " + log.servers().size() + "\n" + log.dump());
        for (DecisionLog.Decision d : log.all()) {
            assertEquals(d.isClient() ? "line 2" : "line 3", d.rule(), d.raw());
            assertEquals("tcp", d.family(), d.raw());
            assertEquals("tcp", d.transport(), d.raw());
            assertEquals(null, d.fallback(), d.raw());
        }
        assertFalse(log.where(d -> d.isClient() && d.host().equals("10.255.255.1") && d.port() == 9).isEmpty(),
                "the connect to 10.255.255.1:9 was decided too\n" + log.dump());
    }
}
