package org.sdp4j.e2e;

import java.nio.file.Path;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sdp4j.e2e.apps.LeakMain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * 10,000 connections opened and closed (7,000 java.net.Socket, 3,000 SocketChannel) plus 500 connects that must
 * fail, in a JVM with the agent: afterwards the process has the file descriptors and threads it had before.
 * "none" runs the same program without the agent, the control for the measurement itself.
 */
@Timeout(120)
class LeakTest {
    static final int JAVA_NET = 7000;
    static final int NIO = 3000;
    static final int REFUSED = 500;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "client and server rules: {0}")
    @ValueSource(strings = {"both", "tcp", "ucx", "none"})
    void noDescriptorOrThreadLeft(String family) {
        int refusedPort = E2e.freePort();
        int javaNet = JAVA_NET;
        int nio = NIO;
        JvmLauncher l = JvmLauncher.main("leak-" + family, LeakMain.class)
                .args(Integer.toString(javaNet), Integer.toString(nio), Integer.toString(refusedPort),
                        Integer.toString(REFUSED));
        if (!family.equals("none")) {
            Path conf = E2e.conf(dir, family + ".conf",
                    "# the failure path: a sdp rule cannot connect on this host",
                    "use sdp client * 127.0.0.1:" + refusedPort,
                    "use " + family + " client * 127.0.0.1:*",
                    "use " + family + " server * *:*");
            // log level 9 (libsdp's "errors only"): 10,000 decision lines would only slow the run down
            l.agent("conf=" + conf + ",log=9");
        }
        JvmResult r = l.run().assertExit(0);
        assertEquals("ok=" + (javaNet + nio) + " refused=" + REFUSED + " errors=0", E2e.value(r, "DONE"), r.describe());

        String[] fds = E2e.value(r, "FDS").split(" ");
        int fdBefore = Integer.parseInt(fds[0]);
        int fdAfter = Integer.parseInt(fds[1]);
        // every connection was closed explicitly: the count must come back; 1 of slack for a descriptor the JDK
        // may open lazily at any time (e.g. a jar or /dev/urandom), never one per connection
        assertTrue(fdAfter - fdBefore <= 1, "file descriptors before " + fdBefore + ", after " + fdAfter + r.describe());

        String[] jt = E2e.value(r, "JAVA_THREADS").split(" ");
        // Java threads: nothing may stay behind from 10,000 connections; 1 of slack for a JDK-internal thread that
        // starts on its own schedule (e.g. the Attach Listener or a Common-Cleaner restart)
        assertTrue(Integer.parseInt(jt[1]) - Integer.parseInt(jt[0]) <= 1, "Java threads " + jt[0] + " -> " + jt[1]
                + r.describe());
        String[] tasks = E2e.value(r, "TASKS").split(" ");
        // OS threads include the JIT compiler threads, which HotSpot adds and removes with the compile load, and GC
        // workers: 3 of slack for those, far below one thread per connection (or per hundred)
        assertTrue(Integer.parseInt(tasks[1]) - Integer.parseInt(tasks[0]) <= 3, "OS threads " + tasks[0] + " -> "
                + tasks[1] + r.describe());
        // native memory: a leaked UCX worker keeps its mappings; heap and code-cache growth add a few, never 10,000
        String[] maps = E2e.value(r, "MAPS").split(" ");
        assertTrue(Integer.parseInt(maps[1]) - Integer.parseInt(maps[0]) <= 64, "memory mappings " + maps[0] + " -> "
                + maps[1] + r.describe());
        String[] shm = E2e.value(r, "SHM").split(" ");
        assertEquals(shm[0], shm[1], "/dev/shm entries before and after" + r.describe());
    }
}
