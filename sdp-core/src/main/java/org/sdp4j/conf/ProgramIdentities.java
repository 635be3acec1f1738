package org.sdp4j.conf;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * Detects this JVM's program names, in this order: {@code -Dsdp4j.program=}, the main class's full name and simple
 * name, the jar file name with and without {@code .jar}, then {@code java}. The launcher's
 * {@code sun.java.command} (main class or jar path, then the arguments) is the source; the OS command line is the
 * fallback for JVMs started by a launcher that does not set it.
 */
final class ProgramIdentities {
    static final String PROPERTY = "sdp4j.program";

    /** Launcher options that take the next word as their value (so it is not the main class). */
    private static final Set<String> OPTIONS_WITH_VALUE = Set.of("-cp", "-classpath", "--class-path", "-p",
            "--module-path", "--upgrade-module-path", "--add-modules", "--limit-modules", "--add-reads",
            "--add-exports", "--add-opens", "--patch-module", "--enable-native-access", "--describe-module", "-d",
            "--source", "--illegal-access");

    /** JDK source-file launchers: the program is the .java file that follows. */
    private static final Set<String> SOURCE_LAUNCHERS = Set.of("com.sun.tools.javac.launcher.Main",
            "com.sun.tools.javac.launcher.SourceLauncher");

    private ProgramIdentities() {}

    static ProgramIdentity detect() {
        return detect(System::getProperty, ProgramIdentities::osCommandLine);
    }

    /**
     * @param properties  system properties ({@code sdp4j.program}, {@code sun.java.command}, {@code user.dir})
     * @param commandLine the OS command line, asked only when {@code sun.java.command} is missing
     */
    static ProgramIdentity detect(Function<String, String> properties, java.util.function.Supplier<Optional<String>>
            commandLine) {
        Set<String> names = new LinkedHashSet<>();
        String id = properties.apply(PROPERTY);
        if (id != null && !id.isBlank()) {
            names.add(id.trim());
        }
        Launch launch = null;
        String command = properties.apply("sun.java.command");
        if (command != null && !command.isBlank()) {
            launch = fromJavaCommand(command.trim(), properties.apply("user.dir"));
        } else {
            Optional<String> cl = safely(commandLine);
            if (cl.isPresent()) {
                launch = fromOsCommandLine(cl.get());
            }
        }
        if (launch != null) {
            String mainClass = launch.mainClass;
            if (mainClass == null && launch.jar != null) {
                mainClass = manifestMainClass(launch.jar, properties.apply("user.dir"));
            }
            if (mainClass != null && !mainClass.isEmpty()) {
                names.add(mainClass);
                names.add(mainClass.substring(mainClass.lastIndexOf('.') + 1));
            }
            if (launch.jar != null) {
                String file = launch.jar.substring(launch.jar.lastIndexOf('/') + 1);
                if (!file.isEmpty()) {
                    names.add(file);
                    if (file.toLowerCase(Locale.ROOT).endsWith(".jar") && file.length() > 4) {
                        names.add(file.substring(0, file.length() - 4));
                    }
                }
            }
            if (launch.sourceFile != null) {
                String file = launch.sourceFile.substring(launch.sourceFile.lastIndexOf('/') + 1);
                names.add(file);
                if (file.endsWith(".java") && file.length() > 5) {
                    names.add(file.substring(0, file.length() - 5));
                }
            }
        }
        names.remove("");
        names.add("java");
        return new ProgramIdentity(new ArrayList<>(names));
    }

    /** What the launcher started: a main class, a jar (main class from its manifest), or a source file. */
    record Launch(String mainClass, String jar, String sourceFile) {}

    /**
     * {@code sun.java.command} is "MAIN ARGS..." where MAIN is the class, the jar path ({@code -jar}) or
     * "module/class" ({@code -m}). A jar path may contain blanks, so the longest prefix ending in ".jar" that names
     * an existing file wins over the first word.
     */
    static Launch fromJavaCommand(String command, String userDir) {
        String first = firstWord(command);
        int at = 0;
        while ((at = command.indexOf(".jar", at)) >= 0) {
            int end = at + 4;
            if (end == command.length() || command.charAt(end) == ' ') {
                String candidate = command.substring(0, end);
                if (candidate.equals(first) || isFile(candidate, userDir)) {
                    return new Launch(null, candidate, null);
                }
            }
            at = end;
        }
        return fromMain(first, command.substring(first.length()).trim());
    }

    private static Launch fromMain(String main, String rest) {
        String cls = main;
        int slash = main.indexOf('/');
        if (slash >= 0) {
            cls = main.substring(slash + 1);
            if (cls.isEmpty()) {
                cls = main.substring(0, slash); // "-m module" with the main class in its descriptor
            }
        }
        if (SOURCE_LAUNCHERS.contains(cls)) {
            String source = firstWord(rest);
            return new Launch(null, null, source.isEmpty() ? null : source);
        }
        if (cls.endsWith(".java") && !cls.contains("/")) {
            return new Launch(null, null, cls);
        }
        return new Launch(cls, null, null);
    }

    /** /proc/self/cmdline joined by blanks: "java [options] (MAIN | -jar JAR | -m MODULE[/CLASS]) args". */
    static Launch fromOsCommandLine(String commandLine) {
        String[] w = commandLine.trim().split(" +");
        for (int i = 1; i < w.length; i++) {
            String s = w[i];
            if (s.equals("-jar")) {
                return i + 1 < w.length ? new Launch(null, w[i + 1], null) : null;
            }
            if (s.equals("-m") || s.equals("--module")) {
                return i + 1 < w.length ? fromMain(w[i + 1], "") : null;
            }
            if (s.startsWith("--module=")) {
                return fromMain(s.substring("--module=".length()), "");
            }
            if (OPTIONS_WITH_VALUE.contains(s)) {
                i++;
                continue;
            }
            if (s.startsWith("-")) {
                continue;
            }
            return fromMain(s, i + 1 < w.length ? w[i + 1] : "");
        }
        return null;
    }

    private static String manifestMainClass(String jar, String userDir) {
        try (JarFile f = new JarFile(resolve(jar, userDir).toFile(), false)) {
            Manifest m = f.getManifest();
            String main = m == null ? null : m.getMainAttributes().getValue(Attributes.Name.MAIN_CLASS);
            return main == null ? null : main.trim();
        } catch (Exception | LinkageError e) {
            return null; // a name we cannot read is just one name fewer
        }
    }

    private static boolean isFile(String path, String userDir) {
        try {
            return Files.isRegularFile(resolve(path, userDir));
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static Path resolve(String path, String userDir) {
        Path p = Path.of(path);
        return p.isAbsolute() || userDir == null ? p : Path.of(userDir).resolve(p);
    }

    private static String firstWord(String s) {
        int sp = s.indexOf(' ');
        return sp < 0 ? s : s.substring(0, sp);
    }

    private static Optional<String> osCommandLine() {
        return ProcessHandle.current().info().commandLine();
    }

    private static Optional<String> safely(java.util.function.Supplier<Optional<String>> s) {
        try {
            Optional<String> o = s.get();
            return o == null ? Optional.empty() : o;
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }
}
