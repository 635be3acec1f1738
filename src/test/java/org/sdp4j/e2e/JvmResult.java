package org.sdp4j.e2e;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/** What a child JVM did: exit status, its stdout and stderr, where they are kept, and how long it took. */
public record JvmResult(String name, List<String> command, int exitCode, boolean timedOut, String stdout,
                        String stderr, Path dir, long millis) {

    public List<String> stdoutLines() {
        return lines(stdout);
    }

    public List<String> stderrLines() {
        return lines(stderr);
    }

    /** The agent's decision lines on stderr. */
    public DecisionLog decisions() {
        return DecisionLog.parse(stderr);
    }

    /** For assertion messages: the command, the status and the output (tails of long outputs). */
    public String describe() {
        return "\n=== " + name + (timedOut ? " TIMED OUT (killed)" : " exit " + exitCode) + " in " + millis + " ms"
                + "\ncommand: " + String.join(" ", command)
                + "\nrun dir: " + dir
                + "\n--- stdout ---\n" + tail(stdout) + "\n--- stderr ---\n" + tail(stderr) + "\n=== end " + name;
    }

    public JvmResult assertExit(int expected) {
        if (timedOut || exitCode != expected) {
            throw new AssertionError("expected exit status " + expected + describe());
        }
        return this;
    }

    static List<String> lines(String s) {
        return Arrays.stream(s.split("\n")).map(l -> l.endsWith("\r") ? l.substring(0, l.length() - 1) : l)
                .filter(l -> !l.isEmpty()).collect(Collectors.toList());
    }

    private static String tail(String s) {
        int max = 12_000;
        return s.length() <= max ? s : "[... " + (s.length() - max) + " chars ...]\n" + s.substring(s.length() - max);
    }
}
