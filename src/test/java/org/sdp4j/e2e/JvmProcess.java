package org.sdp4j.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A running child JVM (a server, typically). {@link #close()} closes its stdin, waits a little, then kills it. */
public final class JvmProcess implements AutoCloseable {
    private final String name;
    private final Process process;
    private final Path dir;
    private final List<String> command;

    JvmProcess(String name, Process process, Path dir, List<String> command) {
        this.name = name;
        this.process = process;
        this.dir = dir;
        this.command = command;
    }

    public Process process() {
        return process;
    }

    public Path dir() {
        return dir;
    }

    public List<String> command() {
        return command;
    }

    public String stdout() {
        return read(dir.resolve("stdout.txt"));
    }

    public String stderr() {
        return read(dir.resolve("stderr.txt"));
    }

    /**
     * Waits until a line of stdout matches (returns the match) or fails with everything the child said when it
     * exits or the time is up.
     */
    public Matcher awaitStdout(Pattern p, Duration timeout) {
        long end = System.nanoTime() + timeout.toNanos();
        while (true) {
            for (String line : stdout().split("\n")) {
                Matcher m = p.matcher(line);
                if (m.find()) {
                    return m;
                }
            }
            if (!process.isAlive() || System.nanoTime() > end) {
                String why = process.isAlive() ? "no line matching /" + p + "/ within " + timeout
                        : "exited with status " + process.exitValue() + " before printing a line matching /" + p + "/";
                kill();
                throw new AssertionError(name + ": " + why + "\ncommand: " + String.join(" ", command)
                        + "\n--- stdout ---\n" + stdout() + "\n--- stderr ---\n" + stderr());
            }
            sleep(50);
        }
    }

    /** Kills the process and its descendants, and waits for them. */
    public void kill() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Polite stop: stdin EOF (the server children shut down on it), then SIGTERM, then SIGKILL. */
    @Override
    public void close() {
        try {
            process.getOutputStream().close();
        } catch (IOException ignored) {
            // already closed
        }
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroy();
                if (!process.waitFor(5, TimeUnit.SECONDS)) {
                    kill();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            kill();
        }
    }

    static String read(Path p) {
        try {
            return Files.exists(p) ? Files.readString(p, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
