package org.sdp4j.e2e;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sdp4j.e2e.apps.LeakMain;
import org.sdp4j.testing.Growth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Connections opened and closed in a JVM with the agent, in three equal rounds of 3,000 (2,100 java.net.Socket,
 * 900 SocketChannel) plus 150 connects that must fail, after a warm-up: descriptors, Java threads, OS threads,
 * memory mappings and /dev/shm entries are sampled after each round, and a counter leaks only when it keeps growing
 * round after round ({@link Growth}). "none" runs the same program without the agent, the control for the
 * measurement itself.
 */
@Timeout(240)
class LeakTest {
    static final int ROUNDS = 3;
    static final int JAVA_NET = 2100;
    static final int NIO = 900;
    static final int REFUSED = 150;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "client and server rules: {0}")
    @ValueSource(strings = {"both", "tcp", "ucx", "none"})
    void nothingGrowsWithTheCycles(String family) {
        List<String> leaks = leaks(family, JAVA_NET, NIO, REFUSED, false);
        assertTrue(leaks.isEmpty(), () -> String.join("\n", leaks));
    }

    /**
     * The check's own test: a thread leaked every cycle, named as UCX's transient handshake threads are, is waited
     * for (bounded) at each sample and still fails the check, in java and OS threads alike.
     */
    @Test
    void aThreadLeakedEveryCycleFailsTheCheck() {
        List<String> leaks = leaks("tcp", 140, 60, 10, true);
        assertTrue(leaks.stream().anyMatch(l -> l.startsWith("java-threads grew by")), leaks::toString);
        assertTrue(leaks.stream().anyMatch(l -> l.startsWith("os-threads grew by")), leaks::toString);
    }

    private List<String> leaks(String family, int javaNet, int nio, int refused, boolean leakThread) {
        try (E2e.RefusedPort held = new E2e.RefusedPort()) {
            return leaks(family, javaNet, nio, refused, leakThread, held.port());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private List<String> leaks(String family, int javaNet, int nio, int refused, boolean leakThread,
                               int refusedPort) {
        JvmLauncher l = JvmLauncher.main("leak-" + family, LeakMain.class)
                .args(Integer.toString(javaNet), Integer.toString(nio), Integer.toString(refusedPort),
                        Integer.toString(refused), Integer.toString(ROUNDS));
        if (leakThread) {
            l.jvmArg("-Dleakmain.leakThread=true", "-Dleakmain.quiesce=1000");
        }
        if (!family.equals("none")) {
            Path conf = E2e.conf(dir, family + ".conf",
                    "# the failure path: a sdp rule cannot connect on this host",
                    "use sdp client * 127.0.0.1:" + refusedPort,
                    "use " + family + " client * 127.0.0.1:*",
                    "use " + family + " server * *:*");
            // log level 9 (libsdp's "errors only"): thousands of decision lines would only slow the run down
            l.agent("conf=" + conf + ",log=9");
        }
        // 9,600 UCX connections take about a minute on a quiet 2-core machine; the bound leaves room for a loaded one
        JvmResult r = l.timeout(java.time.Duration.ofSeconds(180)).run().assertExit(0);
        int cycles = javaNet + nio;
        assertEquals("ok=" + ROUNDS * cycles + " refused=" + ROUNDS * refused + " errors=0", E2e.value(r, "DONE"),
                r.describe());

        Map<String, List<Long>> samples = new LinkedHashMap<>();
        for (String kind : List.of("fds", "java-threads", "os-threads", "maps", "shm")) {
            List<Long> v = new ArrayList<>();
            for (String s : E2e.value(r, "SAMPLE " + kind + " ").split(" ")) {
                v.add(Long.parseLong(s));
            }
            assertEquals(ROUNDS + 1, v.size(), kind + r.describe());
            samples.put(kind, v);
        }
        List<String> leaks = new ArrayList<>();
        for (String leak : Growth.leaks(samples, cycles)) {
            leaks.add(leak + r.describe());
        }
        return leaks;
    }
}
