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
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.sdp4j.transport.Transport;

/**
 * Each reason rsockets can be unavailable, in a fresh JVM (the library is loaded once per JVM): disabled, a wrong
 * library path, librdmacm missing, and what the real librdmacm says on a machine without an RDMA device. In every
 * case the transport is found, constructs, answers isAvailable() without throwing and names the cause.
 */
class RsocketAvailabilityTest {

    private static String run(String... props) throws IOException, InterruptedException {
        String cp = String.join(File.pathSeparator, location(AvailabilityProbe.class), location(Rsocket.class),
                location(Transport.class));
        List<String> cmd = new ArrayList<>();
        cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        for (String p : props) {
            cmd.add("-D" + p);
        }
        cmd.add("-cp");
        cmd.add(cp);
        cmd.add(AvailabilityProbe.class.getName());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        System.out.println(String.join(" ", props) + " ->\n" + out);
        assertTrue(out.contains("found=true class=org.sdp4j.rsocket.RsocketTransport family=SDP"), out);
        return out;
    }

    private static String location(Class<?> c) {
        try {
            return Paths.get(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void assertUnavailable(String out, String causeFragment) {
        assertTrue(out.contains("available=false"), out);
        assertTrue(out.contains(causeFragment), "cause should contain '" + causeFragment + "':\n" + out);
        assertTrue(out.contains("newSocketImpl=rsockets unavailable: "), out);
        assertTrue(out.contains("causeKept=true"), out);
    }

    @Test
    void disabled() throws Exception {
        String out = run("sdp4j.native.disable=true");
        assertUnavailable(out, "sdp4j native library disabled (-Dsdp4j.native.disable=true)");
        assertTrue(out.contains("loaded=false"), out);
    }

    @Test
    void wrongLibraryPath() throws Exception {
        String out = run("sdp4j.native.path=/nonexistent/libsdp4j.so");
        assertUnavailable(out, "-Dsdp4j.native.path=/nonexistent/libsdp4j.so: no such file");
    }

    @Test
    void notALibrary() throws Exception {
        Path bogus = Files.createTempFile("sdp4j-bogus", ".so");
        try {
            Files.writeString(bogus, "not an ELF file");
            String out = run("sdp4j.native.path=" + bogus);
            assertUnavailable(out, "loading " + bogus);
        } finally {
            Files.deleteIfExists(bogus);
        }
    }

    @Test
    void librdmacmMissing() throws Exception {
        String out = run("sdp4j.rdmacm.lib=libsdp4j-no-such-rdmacm.so.1");
        assertUnavailable(out,
                "dlopen libsdp4j-no-such-rdmacm.so.1: cannot open shared object file: No such file or directory");
        assertTrue(out.contains("loaded=false"), out);
    }

    @Test
    void librdmacmWithoutDevice() throws Exception {
        Assumptions.assumeTrue(Files.exists(Paths.get("/usr/lib/x86_64-linux-gnu/librdmacm.so.1")),
                "rdma-core is not installed");
        Assumptions.assumeFalse(Files.exists(Paths.get("/sys/class/infiniband")), "this machine has RDMA devices");
        String out = run("sdp4j.rdmacm.lib=librdmacm.so.1");
        assertUnavailable(out, "no RDMA device: rdma_get_devices found none (No such device)");
        assertTrue(out.contains("loaded=true"), out);
    }

    @Test
    void extractedFromTheClassPath() throws Exception {
        // default loading path (no sdp4j.native.path): extracted from META-INF/native/linux-x86_64/ and loaded;
        // with the test shim standing in for librdmacm the transport is available
        String shim = System.getProperty("sdp4j.rdmacm.lib");
        Assumptions.assumeTrue(shim != null && shim.contains("tcpshim"), "the TCP shim is not configured");
        String out = run("sdp4j.rdmacm.lib=" + shim);
        assertTrue(out.contains("available=true"), out);
        assertTrue(out.contains("cause=null"), out);
        assertTrue(out.contains("newSocketImpl=ok"), out);
    }
}
