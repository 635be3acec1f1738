package org.sdp4j.e2e;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.sdp4j.e2e.apps.HelloMain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A rule's PROGRAM field against a JVM: the main class (full and simple name), the jar file name, {@code java},
 * {@code -Dsdp4j.program} and the agent's {@code program=} option. The matching rule sends the connection to tcp;
 * anything else falls through to a sdp rule, which cannot work on this host, so a wrong identity shows as a failed
 * connection.
 */
@Timeout(60)
class ProgramIdentityTest {
    @TempDir
    static Path dir;
    static BannerServer server;
    static Path jar;

    @BeforeAll
    static void setUp() throws IOException {
        server = new BannerServer();
        jar = helloJar(dir.resolve("hello-app.jar"));
    }

    @AfterAll
    static void tearDown() throws IOException {
        server.close();
    }

    /** An executable jar with HelloMain and what it uses, as a user's application would be packaged. */
    static Path helloJar(Path target) throws IOException {
        Path classes;
        try {
            classes = Path.of(HelloMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IOException(e);
        }
        Manifest mf = new Manifest();
        mf.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        mf.getMainAttributes().put(Attributes.Name.MAIN_CLASS, HelloMain.class.getName());
        Path pkg = classes.resolve("org/sdp4j/e2e/apps");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(target), mf);
             Stream<Path> files = Files.list(pkg)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                String n = f.getFileName().toString();
                if (n.startsWith("HelloMain") || n.startsWith("Side")) {
                    out.putNextEntry(new JarEntry("org/sdp4j/e2e/apps/" + n));
                    try (OutputStream o = new NoClose(out)) {
                        Files.copy(f, o);
                    }
                    out.closeEntry();
                }
            }
        }
        return target;
    }

    Path conf(String program) {
        return E2e.conf(dir, "identity.conf",
                "log min-level 7 destination stderr",
                "use sdp client some-other-program *:*",
                "use tcp client " + program + " 127.0.0.1:" + server.port(),
                "use sdp client * *:*");
    }

    static void assertDecidedByLine3(JvmResult r) {
        r.assertExit(0);
        assertTrue(r.stdoutLines().contains("SIDE OK " + BannerServer.BANNER), r.describe());
        List<DecisionLog.Decision> ds = E2e.assertClientDecisions(r, server.port(), 3, "tcp");
        E2e.assertTcpTransport(ds);
    }

    @ParameterizedTest(name = "[{index}] PROGRAM {0}")
    @CsvSource({
        "org.sdp4j.e2e.apps.HelloMain",
        "HelloMain",
        "java",
        "Hello*",
    })
    void mainClassAndJavaMatch(String program) {
        JvmResult r = JvmLauncher.main("identity-" + program, HelloMain.class).agent("conf=" + conf(program))
                .args("127.0.0.1:" + server.port()).run();
        assertDecidedByLine3(r);
    }

    @Test
    void jarFileNameMatches() {
        JvmResult r = JvmLauncher.jar("identity-jar", jar).agent("conf=" + conf("hello-app.jar"))
                .args("127.0.0.1:" + server.port()).run();
        assertDecidedByLine3(r);
    }

    @Test
    void systemPropertyMatches() {
        JvmResult r = JvmLauncher.main("identity-property", HelloMain.class).agent("conf=" + conf("billing"))
                .jvmArg("-Dsdp4j.program=billing").args("127.0.0.1:" + server.port()).run();
        assertDecidedByLine3(r);
        assertTrue(r.decisions().clientsTo(server.port()).get(0).program().contains("billing"),
                "program= shows the id\n" + r.decisions().dump());
    }

    @Test
    void agentOptionMatches() {
        JvmResult r = JvmLauncher.main("identity-option", HelloMain.class)
                .agent("conf=" + conf("payroll") + ",program=payroll").args("127.0.0.1:" + server.port()).run();
        assertDecidedByLine3(r);
    }

    /** The other direction: a name the JVM does not have does not match, the sdp rule applies and fails here. */
    @Test
    void otherProgramDoesNotMatch() {
        JvmResult r = JvmLauncher.main("identity-other", HelloMain.class).agent("conf=" + conf("OtherMain"))
                .args("127.0.0.1:" + server.port()).run();
        r.assertExit(3);
        assertFalse(r.stdout().contains("SIDE OK"), r.describe());
        String why = E2e.linesStartingWith(r, "SIDE CAUSE java.").stream().filter(E2e::explainsRdma).findFirst()
                .orElse(null);
        assertNotNull(why, "the connect failed because RDMA is unavailable" + r.describe());
        List<DecisionLog.Decision> ds = r.decisions().clientsTo(server.port());
        assertFalse(ds.isEmpty(), r.decisions().dump());
        assertEquals("line 4", ds.get(0).rule(), ds.get(0).raw());
        assertEquals("sdp", ds.get(0).family(), ds.get(0).raw());
    }

    /** Keeps the jar stream open when Files.copy's target is closed. */
    private static final class NoClose extends java.io.FilterOutputStream {
        NoClose(OutputStream out) {
            super(out);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
        }

        @Override
        public void close() throws IOException {
            flush();
        }
    }
}
