package org.sdp4j.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Starts a separate JVM the way a user would: {@code java [-javaagent:sdp4j-agent.jar=OPTIONS] -cp CP Main ARGS}
 * (or {@code -jar}), with the {@code java} of the JDK running the tests. stdout and stderr go to files in a
 * directory of their own under {@code target/e2e-runs}, kept for post-mortems; a child that outlives its timeout is
 * killed (with its descendants) and reported as timed out.
 */
public final class JvmLauncher {
    private static final AtomicInteger SEQ = new AtomicInteger();
    /** Children still running when the test JVM ends (killed by a timeout, say) go with it. */
    private static final java.util.Set<Process> LIVE = java.util.concurrent.ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(p -> {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }), "e2e-children-reaper"));
    }

    /** Distinguishes the run directories of successive test JVMs. */
    private static final String RUN = java.time.LocalTime.now().format(java.time.format.DateTimeFormatter.ofPattern("HHmmss"));

    private final String name;
    private String mainClass;
    private Path jar;
    private String agentOptions;
    private boolean withAgent;
    private String classPath = ChildClassPath.get();
    private final List<String> prefix = new ArrayList<>();
    private final List<String> jvmArgs = new ArrayList<>();
    private final List<String> args = new ArrayList<>();
    private final Map<String, String> env = new LinkedHashMap<>();
    private Duration timeout = Duration.ofSeconds(60);

    private JvmLauncher(String name) {
        this.name = name;
    }

    /** {@code java ... -cp CHILD_CP mainClass}. {@code name} names the run directory (for humans). */
    public static JvmLauncher main(String name, Class<?> mainClass) {
        JvmLauncher l = new JvmLauncher(name);
        l.mainClass = mainClass.getName();
        return l;
    }

    /** {@code java ... -jar jar}. */
    public static JvmLauncher jar(String name, Path jar) {
        JvmLauncher l = new JvmLauncher(name);
        l.jar = jar;
        l.classPath = null;
        return l;
    }

    /** Adds {@code -javaagent:sdp4j-agent.jar=OPTIONS} (options may be null or empty: the bare agent). */
    public JvmLauncher agent(String options) {
        this.withAgent = true;
        this.agentOptions = options;
        return this;
    }

    /** {@code conf=FILE,log=7} plus any further options, e.g. {@code "onerror=tcp"}. */
    public JvmLauncher agentWithConf(Path conf, String... more) {
        StringBuilder b = new StringBuilder("conf=").append(conf.toAbsolutePath()).append(",log=7");
        for (String m : more) {
            b.append(',').append(m);
        }
        return agent(b.toString());
    }

    /** Replaces the child's class path (default: {@link ChildClassPath}, which holds no sdp4j class). */
    public JvmLauncher classPath(String cp) {
        this.classPath = cp;
        return this;
    }

    /** A command the JVM is run through, e.g. {@code prlimit --nofile=400 --} (it must exec the JVM: same pid). */
    public JvmLauncher prefix(String... a) {
        Collections.addAll(prefix, a);
        return this;
    }

    public JvmLauncher jvmArg(String... a) {
        Collections.addAll(jvmArgs, a);
        return this;
    }

    public JvmLauncher args(String... a) {
        Collections.addAll(args, a);
        return this;
    }

    public JvmLauncher env(String key, String value) {
        env.put(key, value);
        return this;
    }

    public JvmLauncher timeout(Duration t) {
        this.timeout = t;
        return this;
    }

    public List<String> command() {
        List<String> cmd = new ArrayList<>(prefix);
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        if (withAgent) {
            String opt = agentOptions == null || agentOptions.isEmpty() ? "" : "=" + agentOptions;
            cmd.add("-javaagent:" + AgentJar.path() + opt);
        }
        // small, quick children on a shared 2-core machine (none of these changes networking behaviour)
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-Xmx512m");
        cmd.addAll(jvmArgs);
        if (jar != null) {
            cmd.add("-jar");
            cmd.add(jar.toString());
        } else {
            cmd.add("-cp");
            cmd.add(classPath);
            cmd.add(mainClass);
        }
        cmd.addAll(args);
        return cmd;
    }

    /** Starts the child and returns at once (servers); stdin stays open until {@link JvmProcess#close()}. */
    public JvmProcess start() {
        Path dir = runDir();
        List<String> cmd = command();
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .redirectOutput(dir.resolve("stdout.txt").toFile())
                .redirectError(dir.resolve("stderr.txt").toFile());
        pb.environment().putAll(env);
        try {
            Files.writeString(dir.resolve("command.txt"), String.join(" ", cmd) + "\n");
            Process p = pb.start();
            LIVE.add(p);
            p.onExit().thenRun(() -> LIVE.remove(p));
            return new JvmProcess(name, p, dir, cmd);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + cmd, e);
        }
    }

    /** Runs the child to completion (or kills it at the timeout) and returns what it did. */
    public JvmResult run() {
        long t0 = System.nanoTime();
        try (JvmProcess p = start()) {
            p.process().getOutputStream().close();
            boolean done = p.process().waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (!done) {
                p.kill();
            }
            int exit = done ? p.process().exitValue() : -1;
            long ms = (System.nanoTime() - t0) / 1_000_000;
            return new JvmResult(name, p.command(), exit, !done, p.stdout(), p.stderr(), p.dir(), ms);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private Path runDir() {
        Path base = Path.of(System.getProperty("sdp4j.e2e.runs", "target/e2e-runs"));
        String safe = name.replaceAll("[^A-Za-z0-9._-]", "_");
        Path dir = base.resolve(String.format("%s-%03d-%s", RUN, SEQ.incrementAndGet(), safe)).toAbsolutePath();
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return dir;
    }
}
