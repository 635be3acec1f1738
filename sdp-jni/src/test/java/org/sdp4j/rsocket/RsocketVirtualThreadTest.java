package org.sdp4j.rsocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.sdp4j.transport.Transport;

/**
 * Virtual threads on rsockets park instead of pinning (issue 13), on the host over the TCP shim, in a child JVM
 * of JDK 21+ (this JVM's, else Temurin 25 when installed; the build runs on 17) with two carrier threads and no
 * compensation: 200 virtual-thread clients and a virtual-thread echo server, every byte checked. Before
 * RsocketParker each waiting virtual thread held its carrier in rpoll, and the run hung with the first two blocked
 * readers. Then interrupts behave as with the JDK's sockets (VirtualInterrupt). In the soft-RoCE VM the same runs
 * with 1,000 clients on real rsockets and a JFR check (native/vm-tests/virtual.sh).
 */
class RsocketVirtualThreadTest {

    private static Path jdk21() {
        Path home = Paths.get(System.getProperty("java.home"));
        if (Runtime.version().feature() >= 21) {
            return home;
        }
        Path t25 = Paths.get("/usr/lib/jvm/temurin-25-jdk-amd64");
        return Files.isExecutable(t25.resolve("bin/java")) ? t25 : null;
    }

    private static String run(Class<?> main, String... args) throws IOException, InterruptedException {
        Path jdk = jdk21();
        String shim = System.getProperty("sdp4j.rdmacm.lib");
        Assumptions.assumeTrue(jdk != null, "no JDK 21+ for virtual threads");
        Assumptions.assumeTrue(shim != null && shim.contains("tcpshim"), "the TCP shim is not configured");
        String cp = String.join(File.pathSeparator, location(RsocketVirtualThreadTest.class), location(Rsocket.class),
                location(Transport.class));
        List<String> cmd = new ArrayList<>(Arrays.asList(jdk.resolve("bin/java").toString(),
                "--add-opens", "java.base/java.net=ALL-UNNAMED", "--add-exports", "java.base/sun.nio.ch=ALL-UNNAMED",
                "-Djdk.virtualThreadScheduler.parallelism=2", "-Djdk.virtualThreadScheduler.maxPoolSize=2",
                "-Dsdp4j.rdmacm.lib=" + shim, "-Dsdp4j.test.echoStall=60", "-cp", cp, main.getName()));
        cmd.addAll(Arrays.asList(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), out);
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    private static String location(Class<?> c) {
        try {
            return Paths.get(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void virtualThreadClientsAndServerOnTwoCarriers() throws Exception {
        String out = run(ConcurrentEcho.class, "same-jvm", "127.0.0.1", "0", "200", "10", "64", "virtual");
        assertTrue(out.contains("ok same-jvm 200 connections"), out);
    }

    @Test
    void interruptClosesLikeTheJdk() throws Exception {
        String out = run(VirtualInterrupt.class, "127.0.0.1");
        assertTrue(out.contains("ok: interrupted virtual threads closed the socket"), out);
    }
}
