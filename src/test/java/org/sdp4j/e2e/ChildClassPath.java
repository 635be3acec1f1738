package org.sdp4j.e2e;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * The class path of the child JVMs: this module's test classes and the third-party jars they need (JCC, Derby,
 * pgjdbc), i.e. the test JVM's own class path minus every entry that holds sdp4j's classes (sdp-core, sdp-jni,
 * sdp-jdbc, wherever Maven resolved them from). The product reaches a child only through {@code -javaagent}.
 */
public final class ChildClassPath {
    private static volatile String cached;

    private ChildClassPath() {}

    public static String get() {
        String cp = cached;
        if (cp == null) {
            cached = cp = compute();
        }
        return cp;
    }

    private static String compute() {
        String full = System.getProperty("java.class.path");
        List<String> kept = new ArrayList<>();
        for (String entry : full.split(File.pathSeparator)) {
            if (entry.isEmpty()) {
                continue;
            }
            Path p = Path.of(entry);
            String file = p.getFileName() == null ? "" : p.getFileName().toString();
            // the test framework stays behind too: the children are plain programs
            boolean framework = file.startsWith("surefire") || file.startsWith("junit-") || file.startsWith("opentest4j")
                    || file.startsWith("apiguardian") || file.startsWith("common-java5");
            if (framework || !Files.exists(p) || holdsSdp4j(p)) {
                continue;
            }
            kept.add(p.toAbsolutePath().toString());
        }
        if (kept.stream().noneMatch(e -> Files.isDirectory(Path.of(e, "org", "sdp4j", "e2e")))) {
            throw new AssertionError("this module's test classes are not on java.class.path (" + full + ")");
        }
        return String.join(File.pathSeparator, kept);
    }

    /** True when the entry has a class of package org.sdp4j outside org.sdp4j.e2e (this module's own). */
    static boolean holdsSdp4j(Path p) {
        try {
            if (Files.isDirectory(p)) {
                Path root = p.resolve("org").resolve("sdp4j");
                if (!Files.isDirectory(root)) {
                    return false;
                }
                try (Stream<Path> s = Files.list(root)) {
                    return s.anyMatch(c -> !c.getFileName().toString().equals("e2e"));
                }
            }
            try (JarFile jar = new JarFile(p.toFile())) {
                for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
                    String n = e.nextElement().getName();
                    if (n.startsWith("org/sdp4j/") && n.endsWith(".class") && !n.startsWith("org/sdp4j/e2e/")) {
                        return true;
                    }
                }
                return false;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read class path entry " + p, e);
        }
    }
}
