package org.sdp4j.conf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The names PROGRAM is matched against, from sun.java.command or the OS command line. */
class ProgramIdentitiesTest {
    @TempDir
    Path dir;

    private static List<String> names(Map<String, String> props, String osCommandLine) {
        return ProgramIdentities.detect(props::get, () -> Optional.ofNullable(osCommandLine)).names();
    }

    private static Map<String, String> props(String... kv) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    private Path jar(String name, String mainClass) throws Exception {
        Path p = dir.resolve(name);
        Manifest mf = new Manifest();
        mf.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        if (mainClass != null) {
            mf.getMainAttributes().put(Attributes.Name.MAIN_CLASS, mainClass);
        }
        try (OutputStream out = Files.newOutputStream(p); JarOutputStream j = new JarOutputStream(out, mf)) {
            j.flush();
        }
        return p;
    }

    @Test
    void mainClassFullAndSimpleNameThenJava() {
        assertEquals(List.of("com.example.billing.Main", "Main", "java"),
                names(props("sun.java.command", "com.example.billing.Main --port 80"), null));
    }

    @Test
    void programIdComesFirst() {
        assertEquals(List.of("billing", "com.example.Main", "Main", "java"),
                names(props("sdp4j.program", " billing ", "sun.java.command", "com.example.Main"), null));
    }

    @Test
    void jarLaunchReadsTheManifestMainClass() throws Exception {
        Path jar = jar("billing-2.1.jar", "com.example.billing.Main");
        assertEquals(List.of("com.example.billing.Main", "Main", "billing-2.1.jar", "billing-2.1", "java"),
                names(props("sun.java.command", jar + " arg1 arg2"), null));
    }

    @Test
    void jarWithBlanksInItsPathAndRelativeToUserDir() throws Exception {
        Files.createDirectories(dir.resolve("my apps"));
        Path jar = jar("my apps/tool.jar", null);
        assertEquals(List.of("tool.jar", "tool", "java"), names(props("sun.java.command", jar + " x.jar y"), null));
        assertEquals(List.of("tool.jar", "tool", "java"),
                names(props("sun.java.command", "my apps/tool.jar", "user.dir", dir.toString()), null));
    }

    @Test
    void missingJarStillGivesItsName() {
        assertEquals(List.of("gone.jar", "gone", "java"),
                names(props("sun.java.command", "/nowhere/gone.jar"), null));
    }

    @Test
    void moduleLaunch() {
        assertEquals(List.of("com.example.Main", "Main", "java"),
                names(props("sun.java.command", "com.example/com.example.Main a"), null));
    }

    @Test
    void sourceFileLaunch() {
        assertEquals(List.of("Hello.java", "Hello", "java"),
                names(props("sun.java.command", "jdk.compiler/com.sun.tools.javac.launcher.Main Hello.java x"), null));
        assertEquals(List.of("Hello.java", "Hello", "java"),
                names(props("sun.java.command", "jdk.compiler/com.sun.tools.javac.launcher.SourceLauncher "
                        + "Hello.java"), null));
    }

    @Test
    void osCommandLineIsTheFallback() throws Exception {
        assertEquals(List.of("org.acme.Server", "Server", "java"), names(props(),
                "/usr/bin/java -Xmx1g -cp a.jar:b.jar -Dx=y --add-opens java.base/java.lang=ALL-UNNAMED "
                        + "org.acme.Server --flag"));
        Path jar = jar("svc.jar", "org.acme.Svc");
        assertEquals(List.of("org.acme.Svc", "Svc", "svc.jar", "svc", "java"),
                names(props(), "java -javaagent:/x/sdp4j-agent.jar -jar " + jar + " run"));
        assertEquals(List.of("org.acme.Main", "Main", "java"),
                names(props(), "java -p mods -m org.acme/org.acme.Main"));
        assertEquals(List.of("org.acme.Main", "Main", "java"),
                names(props(), "java --module=org.acme/org.acme.Main"));
    }

    @Test
    void nothingKnownIsJustJava() {
        assertEquals(List.of("java"), names(props(), null));
        assertEquals(List.of("java"), names(props(), "java"));
        assertEquals(List.of("java"), names(props(), "java -version"));
        assertEquals(List.of("java"), names(props("sun.java.command", " "), null));
    }

    @Test
    void thisJvmHasJavaLast() {
        List<String> n = ProgramIdentity.current().names();
        assertEquals("java", n.get(n.size() - 1));
        assertTrue(n.size() >= 2, n.toString()); // surefire starts a main class or a booter jar
    }

    @Test
    void currentFollowsTheProgramProperty() {
        String old = System.getProperty("sdp4j.program");
        try {
            System.setProperty("sdp4j.program", "my-service");
            assertEquals("my-service", ProgramIdentity.current().names().get(0));
            assertTrue(ProgramIdentity.current().matches("my-*"));
        } finally {
            if (old == null) {
                System.clearProperty("sdp4j.program");
            } else {
                System.setProperty("sdp4j.program", old);
            }
        }
        assertTrue(!ProgramIdentity.current().names().contains("my-service") || old != null);
    }
}
