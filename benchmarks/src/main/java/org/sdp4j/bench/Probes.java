package org.sdp4j.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether a configuration can run here before it is measured: a probe JVM started exactly like a benchmark fork
 * ({@link TransportProbe}), the agent's selftest, and the child processes both runners start ({@link #exec}).
 */
final class Probes {
    private Probes() {}

    /** Runs {@link TransportProbe} in a JVM with the configuration's agent arguments (and log level 7). */
    static void probe(CompareTransports.Config c, String java, CompareTransports.Settings s, String selftest) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.addAll(s.forkJvmArgs);
        // the same rules, with the decision log switched on (libsdp's own statement, not an agent option)
        Path probeConf = s.out.resolve("probe-" + c.name + ".conf");
        Files.writeString(probeConf, "log min-level 7 destination stderr\n" + Files.readString(c.conf));
        cmd.add("-javaagent:" + s.agent.toAbsolutePath() + "=conf=" + probeConf.toAbsolutePath());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(TransportProbe.class.getName());
        Exec r = exec(cmd, 90);
        Files.writeString(s.out.resolve("probe-" + c.name + ".txt"), String.join(" ", cmd) + "\n\n" + r.output);
        if (r.timedOut) {
            c.unavailable = "probe (listen + connect + 64-byte echo) did not finish in 90 s";
        } else if (r.exit != 0 || !(r.output.contains("probe ok") || r.output.contains("probe partial: "))) {
            c.unavailable = probeReason(r.output, r.exit);
            String transport = c.family.equals("sdp") || c.family.equals("both") ? "rsocket" : c.family;
            String why = selftest == null ? null : selftestReason(selftest, transport);
            if (why != null && !c.unavailable.contains(why)) c.unavailable += " [selftest: " + transport + " unavailable: " + why + "]";
        } else {
            c.note = probeNote(r.output);
            Matcher partial = Pattern.compile("^probe partial: (.*)$", Pattern.MULTILINE).matcher(r.output);
            if (partial.find()) {
                String why = partial.group(1);
                int cause = why.indexOf(" <- ");
                c.note += (c.note.isEmpty() ? "" : "; ") + (cause > 0 ? why.substring(0, cause) : why);
            }
        }
    }

    /** "transport tcp, fallback: REASON" from the probe's decision log. */
    static String probeNote(String output) {
        java.util.TreeSet<String> ts = new java.util.TreeSet<>();
        Matcher t = Pattern.compile("^sdp4j: .* transport=(\\S+)", Pattern.MULTILINE).matcher(output);
        while (t.find()) ts.add(t.group(1));
        if (ts.isEmpty()) return "no decision logged by the agent at log min-level 7";
        String note = "transport " + String.join("/", ts);
        Matcher m = Pattern.compile("fallback=\"([^\"]*)\"").matcher(output);
        return m.find() ? note + ", fallback: " + m.group(1) : note;
    }

    static String probeReason(String output, int exit) {
        for (String line : output.split("\n")) {
            if (line.startsWith("probe FAILED: ")) {
                String chain = line.substring("probe FAILED: ".length()).trim();
                int cause = chain.indexOf(" <- ");   // the full chain is in probe-NAME.txt
                return cause > 0 ? chain.substring(0, cause) : chain;
            }
        }
        // the agent refused to start, or the JVM died: its sdp4j lines (the first few), else the last line
        List<String> sdp = new ArrayList<>();
        String last = null;
        for (String line : output.split("\n")) {
            if (line.isBlank()) continue;
            last = line.trim();
            if (line.startsWith("sdp4j: ") && sdp.size() < 3) sdp.add(line.trim());
        }
        return "probe JVM exited " + exit + ": " + (!sdp.isEmpty() ? String.join(" / ", sdp) : last != null ? last : "(no output)");
    }

    /** Why the agent's {@code selftest} says TRANSPORT is unavailable ("transport rsocket  unavailable: WHY"), or null. */
    static String selftestReason(String selftest, String transport) {
        for (String line : selftest.split("\n")) {
            String l = line.trim();
            String lower = l.toLowerCase(Locale.ROOT);
            int u = lower.indexOf("unavailable");
            if (u >= 0 && lower.contains(transport.toLowerCase(Locale.ROOT))) {
                String why = l.substring(u + "unavailable".length()).replaceFirst("^[:\\s(]+", "").replaceFirst("\\)$", "").trim();
                return why.isEmpty() ? l : why;
            }
        }
        return null;
    }

    static final class Exec {
        int exit;
        boolean timedOut;
        String output;
    }

    static Exec exec(List<String> cmd, int timeoutSeconds) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        Process p = pb.start();
        p.getOutputStream().close();
        byte[][] buf = new byte[1][];
        Thread reader = new Thread(() -> {
            try (InputStream in = p.getInputStream()) {
                buf[0] = in.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        reader.start();
        Exec r = new Exec();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            r.timedOut = true;
            p.destroyForcibly();
        }
        reader.join(10_000);
        r.exit = r.timedOut ? -1 : p.exitValue();
        r.output = buf[0] == null ? "" : new String(buf[0], StandardCharsets.UTF_8);
        return r;
    }

    static String failureReason(Exception e, Path log) {
        String why = e.getMessage() == null ? e.toString() : e.getMessage().split("\n")[0];
        try {
            // JMH puts the benchmark's exception into its output: take the first exception line from the log
            for (String line : Files.readAllLines(log)) {
                if (line.matches("^\\S*(Exception|Error)(: .*)?$") || line.startsWith("<failure>")) {
                    return line.trim();
                }
            }
        } catch (IOException ignored) {
            // keep JMH's message
        }
        return why;
    }
}
