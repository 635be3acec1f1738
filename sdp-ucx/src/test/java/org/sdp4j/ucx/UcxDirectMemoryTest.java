package org.sdp4j.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A JVM whose direct memory (or file descriptor budget) runs out holds its UCX connections and sends the next ones
 * to TCP: every connection
 * works and no OutOfMemoryError reaches a thread. Before, 256 connects after 1,000 open connections (the
 * concurrency benchmark, -Xmx512m) threw OutOfMemoryError in handshake and application threads, and a client
 * whose server-side handshake died so read end-of-stream on a connection it had been given.
 * A JVM of its own: the limit is a JVM option. Each UCX connection end takes two staging buffers of 16 KiB, each
 * growing to 256 KiB with a large transfer when memory allows: 3 MiB holds some of the 48 connections (both ends in
 * this JVM) that each echo 256 KiB, and some buffers cannot grow (the transfer then takes more, smaller sends).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UcxDirectMemoryTest {
    static final int CONNECTIONS = 48;

    @Test
    void connectionsBeyondTheDirectMemoryLimitGoToTcpAndEveryOneWorks() throws Exception {
        scarce(List.of(), "-XX:MaxDirectMemorySize=3m", 256 << 10);
    }

    /**
     * A UCX connection end holds about 8 file descriptors, a TCP socket 1. In a JVM limited to 400 (ulimit -n), UCX
     * stops at half of them and the rest of the 48 connections go to TCP, all working. Before, UCX took descriptors
     * until none was left and the application's own TCP connects and accepts failed with "Too many open files" (the
     * concurrency benchmark at 1,000 connections; here: the same JVM with -Dsdp4j.ucx.fdShare=100).
     */
    @Test
    void connectionsBeyondTheDescriptorBudgetGoToTcpAndEveryOneWorks() throws Exception {
        scarce(List.of("bash", "-c", "ulimit -n 400 && exec \"$0\" \"$@\""), "-Dsdp4j.ucx.fdShare=50", 64 << 10);
    }

    /**
     * Direct memory held only by garbage (closed connections' staging buffers, not yet collected) is room: a process
     * that allocated little on the heap used to find none, and sent every later connection to TCP.
     */
    @Test
    void directMemoryHeldByGarbageIsRoomForStaging() throws Exception {
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:MaxDirectMemorySize=16m", "-cp", System.getProperty("surefire.test.class.path",
                        System.getProperty("java.class.path")), StagingReclaimPeer.class.getName())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out); // a hung peer fails by the class @Timeout
        assertTrue(out.contains("ROOM true"), () -> "no staging room beside garbage alone: " + out);
    }

    private static void scarce(List<String> prefix, String limit, int size) throws Exception {
        Path err = Files.createTempFile("ucx-direct", ".err");
        List<String> cmd = new ArrayList<>(prefix);
        cmd.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--add-opens", "java.base/java.net=ALL-UNNAMED", "--add-exports", "java.base/sun.nio.ch=ALL-UNNAMED",
                "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED", limit, "-cp",
                System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
                Peer.class.getName(), "scarce", Integer.toString(CONNECTIONS), Integer.toString(size)));
        Path outFile = Files.createTempFile("ucx-direct", ".out");
        Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).redirectOutput(outFile.toFile()).start();
        boolean finished = p.waitFor(100, TimeUnit.SECONDS);
        if (!finished) {
            p.destroyForcibly().waitFor(); // a hung peer must fail this test, not hang the build
        }
        String out = Files.readString(outFile);
        String stderr = Files.readString(err);
        Files.delete(err);
        Files.delete(outFile);
        assertTrue(finished, () -> "the peer JVM did not finish within 100 s\n" + out + stderr);
        assertEquals(0, p.exitValue(), () -> "exit " + p.exitValue() + "\n" + out + stderr);
        assertFalse(stderr.contains("OutOfMemoryError") || out.contains("OutOfMemoryError"), stderr);
        assertFalse(out.contains("ECHO FAILED"), out);
        Matcher m = Pattern.compile("ECHOED (\\d+) UCX (\\d+)").matcher(out);
        assertTrue(m.find(), out + stderr);
        assertEquals(CONNECTIONS, Integer.parseInt(m.group(1)), "every connection echoed, on UCX or TCP: " + out);
        long ucxEnds = Long.parseLong(m.group(2));
        assertTrue(ucxEnds >= 2 && ucxEnds < 2 * CONNECTIONS, () -> "some connections on UCX, not all: " + ucxEnds + " ends\n"
                + stderr);
    }
}
