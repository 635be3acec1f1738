package org.sdp4j.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * UCX's own latency test, {@code ucx_perftest -t stream_lat} (Debian package ucx-utils), between two processes on
 * this machine: the yardstick for sdp4j's UCX round trip (issue 13 item 3). The report runs it in turn with the
 * measuring JVMs, with the transports sdp4j's UCX uses ({@code UCX_TLS} = {@code -Dsdp4j.ucx.tls}, default
 * {@code sm,self}). ucx_perftest prints half the round trip ("latency"); {@link Result#roundTripUs} is twice its
 * median, the statistic closest to the report's geometric mean (both shrug off a few stalled exchanges).
 */
final class UcxPerftest {
    private UcxPerftest() {}

    static final class Result {
        final double medianUs, averageUs;   // one way, as ucx_perftest prints them
        final long iterations;

        Result(long iterations, double medianUs, double averageUs) {
            this.iterations = iterations;
            this.medianUs = medianUs;
            this.averageUs = averageUs;
        }

        double roundTripUs() {
            return 2 * medianUs;
        }
    }

    static String binary() {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            Path p = Paths.get(dir.isEmpty() ? "." : dir, "ucx_perftest");
            if (Files.isExecutable(p)) return p.toString();
        }
        return null;
    }

    // with -f, the one line of numbers ("Final:" before it without -f): iterations, 50%ile, average, overall (µs) ...
    static final Pattern FINAL = Pattern.compile("(?m)^(?:Final:)?\\s+(\\d+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)\\s");

    /** One server and one client process, {@code iterations} exchanges of {@code size} bytes; the output in {@code log}. */
    static Result run(int size, long iterations, Path log) throws IOException, InterruptedException {
        String bin = binary();
        if (bin == null) throw new IOException("ucx_perftest not found on PATH (Debian package ucx-utils; benchmarks/concurrency.sh installs it)");
        String tls = System.getProperty("sdp4j.ucx.tls", "sm,self");
        int port = DerbyDrdaServer.freePort(java.net.InetAddress.getLoopbackAddress());
        List<String> common = List.of("-p", Integer.toString(port));
        List<String> server = new ArrayList<>(List.of(bin));
        server.addAll(common);
        List<String> client = new ArrayList<>(List.of(bin, "127.0.0.1"));
        client.addAll(common);
        client.addAll(List.of("-t", "stream_lat", "-s", Integer.toString(size), "-n", Long.toString(iterations), "-w",
                Long.toString(Math.max(1000, iterations / 10)), "-f"));
        ProcessBuilder sb = new ProcessBuilder(server).redirectErrorStream(true);
        sb.environment().put("UCX_TLS", tls);
        Path slog = log.resolveSibling(log.getFileName() + ".server");
        Process s = sb.redirectOutput(slog.toFile()).start();
        try {
            String out = null;
            for (int attempt = 0; attempt < 50 && out == null; attempt++) {   // the server needs a moment to listen
                Thread.sleep(100);
                ProcessBuilder cb = new ProcessBuilder(client).redirectErrorStream(true);
                cb.environment().put("UCX_TLS", tls);
                Process c = cb.start();
                byte[] b = c.getInputStream().readAllBytes();
                if (!c.waitFor(120, TimeUnit.SECONDS)) {
                    c.destroyForcibly();
                    throw new IOException("ucx_perftest client did not finish within 120 s");
                }
                String text = new String(b, StandardCharsets.UTF_8);
                Files.writeString(log, "UCX_TLS=" + tls + " " + String.join(" ", client) + "\n" + text + "\n",
                        java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
                if (FINAL.matcher(text).find()) out = text;
                else if (!text.contains("Connection refused") && !text.contains("ailed to connect")) {
                    throw new IOException("ucx_perftest gave no result (exit " + c.exitValue() + "): " + text.trim().replace('\n', ' '));
                }
            }
            if (out == null) throw new IOException("ucx_perftest client could not connect to its server (see " + log + ")");
            Matcher m = FINAL.matcher(out);
            if (!m.find()) throw new IOException("no result line in ucx_perftest's output");
            return new Result(Long.parseLong(m.group(1)), Double.parseDouble(m.group(2)), Double.parseDouble(m.group(3)));
        } finally {
            if (!s.waitFor(10, TimeUnit.SECONDS)) s.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
    }

    public static void main(String[] args) throws Exception {
        Result r = run(args.length > 0 ? Integer.parseInt(args[0]) : 64, 100_000, Paths.get("/tmp/ucx_perftest.log"));
        System.out.printf(Locale.ROOT, "ucx_perftest stream_lat: median %.3f us one way, average %.3f us; round trip %.3f us%n",
                r.medianUs, r.averageUs, r.roundTripUs());
    }
}
