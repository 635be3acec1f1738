package org.sdp4j.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import org.openjdk.jmh.util.ListStatistics;

import org.sdp4j.bench.ReportModel.Config;
import org.sdp4j.bench.ReportModel.Series;
import org.sdp4j.bench.ReportSettings.Settings;

/**
 * The one-command report: every transport configuration side by side, database workload (IBM Db2 driver) and
 * NetPIPE-style socket sweeps, as Markdown with SVG charts plus JMH JSON and a summary JSON/CSV.
 *
 * <pre>
 * Report [--quick|--full] [--baseline FILE] [--configs none,tcp,both,sdp,ucx] [--groups db,net] [--rounds N]
 *        [--sizes 1,64,...] [--perturb N] [--rows N] [--out DIR] [--agent JAR] [--jvm PATH] [--fork-jvm-args "..."]
 *        [--timeout S] [--command TEXT]
 * </pre>
 *
 * <p>For each round, each group ({@code db}, {@code net}) and each runnable configuration (order rotated every round)
 * one JVM is started with that configuration's {@code -javaagent} (none for {@code none}) and runs the group's JMH
 * benchmarks in-process. Configurations are probed first ({@link TransportProbe}); one that cannot
 * run is reported with the reason. Results: {@code OUT/report.md}, {@code OUT/charts/*.svg}, {@code OUT/summary.json},
 * {@code OUT/summary.csv}, {@code OUT/jmh/*.json}, {@code OUT/logs/}. Exit 0 when every available configuration ran
 * every benchmark, 1 otherwise, 2 for bad usage.
 */
public final class Report {

    public static void main(String[] args) {
        int rc;
        try {
            rc = run(args, System.out);
        } catch (IllegalArgumentException e) {
            System.err.println("report: " + e.getMessage());
            ReportSettings.usage(System.err);
            rc = 2;
        } catch (Exception e) {
            System.err.println("report: FAILED: " + e);
            e.printStackTrace(System.err);
            rc = 1;
        }
        System.exit(rc);
    }

    static int run(String[] args, PrintStream out) throws Exception {
        Settings s = ReportSettings.parse(args);
        long t0 = System.nanoTime();
        Instant started = Instant.now();
        Map<String, Object> baseline = s.baseline == null ? null : ReportSummary.loadBaseline(s.baseline);
        prepareOut(s.out);
        String javaBin = s.jvm != null ? s.jvm : Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        Map<String, String> machine = ReportMachine.machine(javaBin);
        machine.put("load_start", ReportMachine.loadAverage());
        out.printf(Locale.ROOT, "report: %s profile, %d round(s), configurations %s, groups %s%n", s.profile, s.rounds, s.configs, s.groups);
        out.println("report: machine: " + machine.get("cpus") + " CPUs (" + machine.get("cpu") + "), " + machine.get("os") + ", load "
                + machine.get("load_start") + "; JVM " + javaBin);
        out.println("report: agent " + s.agent + (Files.isRegularFile(s.agent) ? "" : " (MISSING)"));

        // ---- which configurations can run here ----
        CompareTransports.Settings ps = new CompareTransports.Settings();
        ps.agent = s.agent;
        ps.out = s.out.resolve("logs");
        ps.forkJvmArgs = s.forkJvmArgs;
        List<Config> configs = new ArrayList<>();
        for (String name : s.configs) configs.add(new Config(name));
        String selftest = null;
        if (Files.isRegularFile(s.agent)) {
            selftest = Probes.exec(List.of(javaBin, "-jar", s.agent.toString(), "selftest"), 60).output;
            Files.writeString(s.out.resolve("logs").resolve("selftest.txt"), selftest);
        }
        for (Config c : configs) {
            if (c.probe.family == null) {
                c.probe.note = "no agent: the JDK's own sockets";
                continue;
            }
            if (!Files.isRegularFile(s.agent)) {
                c.probe.unavailable = "agent jar not found at " + s.agent + " (build it: mvn -B -ntp -DskipTests package)";
            } else {
                c.probe.conf = s.out.resolve("logs").resolve("libsdp-" + c.name + ".conf");
                Files.writeString(c.probe.conf, confText(c.probe.family));
                Probes.probe(c.probe, javaBin, ps, selftest);
                if (c.probe.unavailable != null && c.probe.unavailable.contains("expected sdp, tcp, both, ucx or smc after 'use'")) {
                    c.probe.unavailable = "this sdp4j has no '" + c.name + "' transport yet: its agent refuses the rule 'use " + c.name
                            + " ...' (" + c.probe.unavailable + ")";
                }
            }
            c.shortReason = c.available() ? null : shortReason(c.probe.unavailable);
            out.println("report: " + c.name + ": " + (c.available() ? "available" + (c.probe.note.isEmpty() ? "" : " (" + c.probe.note + ")")
                    : "unavailable: " + c.probe.unavailable));
        }
        List<Config> runnable = new ArrayList<>();
        for (Config c : configs) if (c.available()) runnable.add(c);

        // ---- the runs: per round one JVM per transport; every iteration runs in each of them in turn ----
        Map<String, Map<String, Series>> results = new LinkedHashMap<>();   // label -> config -> series
        List<Step> steps = plan(s);
        boolean failed = false;
        int calls = 0;
        for (int round = 1; round <= s.rounds; round++) {
            out.printf(Locale.ROOT, "round %d/%d: starting %d measuring JVM(s) ...%n", round, s.rounds, runnable.size());
            List<Child> children = new ArrayList<>();
            try {
                for (Config c : runnable) children.add(Child.start(s, javaBin, c, round));
                for (Child ch : children) ch.awaitReady(120);
                for (int n = 0; n < steps.size(); n++) {
                    Step st = steps.get(n);
                    long r0 = System.nanoTime();
                    java.util.Set<Child> gaveUp = new java.util.HashSet<>();   // failed this step: not again this round
                    for (int k = 0; k < st.iterations; k++) {
                        if (st.perftest) {
                            String pt = ReportGroups.perftest(s, results, round, k);
                            if (pt.startsWith("FAILED")) out.println("        ucx_perftest: " + pt);
                        }
                        for (int j = 0; j < children.size(); j++) {
                            Child ch = children.get((j + k + round - 1) % children.size());   // the order rotates
                            if (ch.dead != null || gaveUp.contains(ch)) continue;
                            String reply = ch.call(st.command(ch.nextId(), k), s.timeoutS);
                            calls++;
                            Series x = results.computeIfAbsent(st.label, l -> new LinkedHashMap<>())
                                    .computeIfAbsent(ch.config.name, l -> new Series(st.bench, st.params, ch.config.name));
                            String[] w = reply == null ? new String[0] : reply.split(" ");
                            if (w.length >= 5 && w[0].equals("@@ok")) {
                                x.addIteration(round, k, Double.parseDouble(w[4]), w[3].replace('_', ' '));
                            } else {
                                failed = true;
                                gaveUp.add(ch);
                                String why = reply == null ? ch.dead : w.length >= 3 ? reply.substring(reply.indexOf(' ', "@@fail ".length()) + 1) : reply;
                                x.failures.add("round " + round + ": " + why);
                                ch.config.failures.add(new String[] {st.label + " (round " + round + ")", why, "logs/" + ch.tag + ".log"});
                                out.println("        " + ch.config.name + ": " + st.label + " FAILED: " + why);
                            }
                        }
                    }
                    out.printf(Locale.ROOT, "[%d/%d %3d/%d] %-40s %s  (%.1f s, %.0f s so far)%n", round, s.rounds, n + 1, steps.size(), st.label,
                            progress(results.get(st.label), runnable, round), (System.nanoTime() - r0) / 1e9, (System.nanoTime() - t0) / 1e9);
                }
            } finally {
                for (Child ch : children) ch.close();
            }
        }

        // ---- results ----
        Map<String, String> jvmInfo = new LinkedHashMap<>();
        ReportJmh.readJmh(s.out.resolve("jmh"), results, jvmInfo);
        for (Config c : configs) ReportJmh.readDecisions(s.out.resolve("logs"), c);
        machine.put("load_end", ReportMachine.loadAverage());
        double seconds = (System.nanoTime() - t0) / 1e9;

        Map<String, Object> summary = ReportSummary.summary(s, started, seconds, machine, jvmInfo, configs, results, baseline);
        Files.writeString(s.out.resolve("summary.json"), Json.write(summary));
        Files.writeString(s.out.resolve("summary.csv"), ReportSummary.csv(summary));
        Files.createDirectories(s.out.resolve("charts"));
        Map<String, String> charts = ReportCharts.charts(s, configs, results);
        for (Map.Entry<String, String> e : charts.entrySet()) Files.writeString(s.out.resolve("charts").resolve(e.getKey()), e.getValue());
        String md = ReportMarkdown.markdown(s, summary, configs, results, charts.keySet(), baseline != null);
        Files.writeString(s.out.resolve("report.md"), md);

        out.println();
        out.print(ReportMarkdown.headlineText(configs, results));
        out.printf(Locale.ROOT, "%nreport: %d JMH runs in %d JVMs, %.0f s (%s); report: %s%n", calls, s.rounds * runnable.size(), seconds,
                failed ? "SOME FAILED" : "all ok",
                s.out.resolve("report.md").toAbsolutePath().normalize());
        return failed ? 1 : 0;
    }

    static String confText(String family) {
        return "# written by benchmarks/report.sh: every listen and connect of the measuring JVM on '" + family + "'\n"
                + "use " + family + " server * *:*\n"
                + "use " + family + " client * *:*\n";
    }

    static void prepareOut(Path out) throws IOException {
        Files.createDirectories(out);
        for (String d : List.of("jmh", "logs", "charts")) {
            Path p = out.resolve(d);
            if (Files.isDirectory(p)) DerbyDrdaServer.deleteRecursively(p);
            Files.createDirectories(p);
        }
        for (String f : List.of("report.md", "summary.json", "summary.csv")) Files.deleteIfExists(out.resolve(f));
    }

    /** One benchmark with its parameters, and how it is run: warm-up once per JVM, then iterations one at a time. */
    static final class Step {
        final String bench, params, label, regex;
        final int warmups, iterations;
        final double warmupMs, ms;
        boolean perftest;   // ucx_perftest runs before each of this step's iterations (ReportGroups.perftest)

        Step(String bench, String params, int warmups, double warmupMs, int iterations, double ms) {
            this.bench = bench;
            this.params = params;
            this.label = bench + (params.isEmpty() ? "" : " " + params);
            this.regex = "^" + Pattern.quote("org.sdp4j.bench." + bench) + "$";
            this.warmups = warmups;
            this.warmupMs = warmupMs;
            this.iterations = iterations;
            this.ms = ms;
        }

        /** The BenchServer command for iteration k (0: with the warm-up). */
        String command(String id, int k) {
            return String.format(Locale.ROOT, "run %s %s %d %s 1 %s %s", id, regex, k == 0 ? warmups : 0, ReportSummary.num(warmupMs), ReportSummary.num(ms), params);
        }
    }

    /** Every step of one round, in order: the database statements, then the sweeps. */
    static List<Step> plan(Settings s) {
        List<Step> steps = new ArrayList<>();
        String rows = "rows=" + s.rows;
        if (s.groups.contains("db")) {
            for (String b : List.of("insert", "pointSelect", "select")) {
                steps.add(new Step("JccWorkload." + b, rows, s.dbWarmup, s.dbWarmupMs, s.dbIterations, s.dbMs));
            }
            // single shot: one block per iteration; the INSERT path is warm from the single INSERTs
            steps.add(new Step("JccWorkload.insertBlock", rows, 0, 0, s.blockIterations, 0));
        }
        if (s.groups.contains("net")) {
            for (String b : List.of("socketLatency", "channelLatency", "socketStream", "channelStream")) {
                for (int size : s.sweepSizes()) {
                    steps.add(new Step("NetPipe." + b, "size=" + size, s.netWarmup, s.netWarmupMs, s.netIterations, s.netMs));
                }
            }
        }
        ReportGroups.plan(s, steps);
        return steps;
    }

    static String progress(Map<String, Series> row, List<Config> runnable, int round) {
        StringBuilder b = new StringBuilder();
        for (Config c : runnable) {
            Series x = row == null ? null : row.get(c.name);
            ListStatistics r = x == null ? null : x.byRound.get(round);
            b.append(c.name).append(' ').append(r == null || r.getN() == 0 ? "-" : ReportMarkdown.sig(r.getMean())).append("  ");
        }
        Series any = row == null ? null : row.values().stream().filter(x -> !x.unit.isEmpty()).findFirst().orElse(null);
        return b.append(any == null ? "" : any.unit).toString().trim();
    }

    /** A measuring JVM ({@link BenchServer}) with one configuration's agent arguments. */
    static final class Child implements AutoCloseable {
        final Config config;
        final String tag;
        final Process process;
        final java.io.Writer in;
        final java.util.concurrent.BlockingQueue<String> replies = new java.util.concurrent.LinkedBlockingQueue<>();
        volatile String dead;       // why this JVM can no longer run anything, or null
        private int ids;
        final String javaBin;
        final Path logs;

        private Child(Config config, String tag, Process process, String javaBin, Path logs) {
            this.config = config;
            this.tag = tag;
            this.process = process;
            this.javaBin = javaBin;
            this.logs = logs;
            this.in = new java.io.OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
            Thread reader = new Thread(() -> {
                try (java.io.BufferedReader r = new java.io.BufferedReader(new java.io.InputStreamReader(process.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = r.readLine()) != null) if (line.startsWith("@@")) replies.add(line);
                } catch (IOException ignored) {
                    // the JVM went away
                }
                replies.add("@@eof");
            }, "report-reader-" + tag);
            reader.setDaemon(true);
            reader.start();
        }

        static Child start(Settings s, String javaBin, Config c, int round) throws IOException {
            String tag = c.name + "__r" + round;
            Path logs = s.out.resolve("logs");
            List<String> cmd = new ArrayList<>();
            cmd.add(javaBin);
            cmd.addAll(s.forkJvmArgs);
            if (c.probe.family != null) {
                Path decisions = logs.resolve("decisions-" + tag + ".log").toAbsolutePath();
                cmd.add("-javaagent:" + s.agent.toAbsolutePath() + "=conf=" + c.probe.conf.toAbsolutePath() + ",log=7:file:" + decisions);
                cmd.addAll(c.probe.extraJvmArgs);
            }
            for (String p : List.of("jdbc.url", "jdbc.user", "jdbc.password", "jdbc.securityMechanism", "sdp4j.bench.durable")) {
                if (System.getProperty(p) != null) cmd.add("-D" + p + "=" + System.getProperty(p));
            }
            cmd.add("-Dsdp4j.bench.peer.logs=" + logs.toAbsolutePath());
            cmd.add("-Djmh.ignoreLock=true");   // JMH's lock is for JVMs that run at once; these take turns (a killed one kept it)   // second JVMs (H2, Derby, echo) log here
            cmd.add("-cp");
            cmd.add(System.getProperty("java.class.path"));
            cmd.add(BenchServer.class.getName());
            cmd.addAll(List.of("--json", s.out.resolve("jmh").resolve(tag + ".json").toAbsolutePath().toString(),
                    "--log", logs.resolve(tag + ".log").toAbsolutePath().toString()));
            if (s.groups.contains("db")) cmd.addAll(List.of("--db-rows", Integer.toString(s.rows)));
            Files.writeString(logs.resolve(tag + ".log"), String.join(" ", cmd).replaceAll("jdbc.password=\\S+", "jdbc.password=***") + "\n\n");
            Process p = new ProcessBuilder(cmd).redirectError(logs.resolve(tag + ".stderr").toFile()).start();
            return new Child(c, tag, p, javaBin, logs);
        }

        void awaitReady(int seconds) throws InterruptedException {
            String r = replies.poll(seconds, TimeUnit.SECONDS);
            if (!"@@ready".equals(r)) dead = r == null ? "did not start within " + seconds + " s" : "exited during start-up";
        }

        String nextId() {
            return Integer.toString(++ids);
        }

        /** Sends one command; the reply line, or null when the JVM died or did not answer in time (it is then stopped). */
        String call(String command, int timeoutS) throws InterruptedException {
            try {
                in.write(command + "\n");
                in.flush();
            } catch (IOException e) {
                dead = "its standard input is closed: " + e.getMessage();
                return null;
            }
            String r = replies.poll(timeoutS, TimeUnit.SECONDS);
            if (r == null) {
                String dump = threadDump();
                dead = "no answer within " + timeoutS + " s (stuck: " + command.split(" ")[2] + "); stopped"
                        + (dump == null ? "" : ", its threads are in " + dump);
                process.destroyForcibly();
                return null;
            }
            if (r.equals("@@eof")) {
                process.waitFor(5, TimeUnit.SECONDS);
                dead = "the JVM exited" + (process.isAlive() ? "" : " with status " + process.exitValue()) + " (see logs/" + tag + ".stderr)";
                return null;
            }
            return r;
        }

        /** jcmd PID Thread.print into logs/TAG.stuck.txt; the file's name relative to the report, or null. */
        String threadDump() {
            try {
                Path jcmd = Paths.get(javaBin).resolveSibling("jcmd");
                if (!Files.isExecutable(jcmd)) return null;
                Probes.Exec r = Probes.exec(List.of(jcmd.toString(), Long.toString(process.pid()), "Thread.print"), 30);
                Files.writeString(logs.resolve(tag + ".stuck.txt"), r.output);
                return "logs/" + tag + ".stuck.txt";
            } catch (IOException | RuntimeException e) {
                return null;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }

        @Override
        public void close() {
            try {
                in.write("quit\n");
                in.close();
            } catch (IOException ignored) {
                // already gone
            }
            try {
                if (!process.waitFor(60, TimeUnit.SECONDS)) process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The essential clause of a long unavailability reason, for charts and narrow table cells. */
    static String shortReason(String reason) {
        if (reason == null) return null;
        if (reason.startsWith("this sdp4j has no '")) return reason.substring(5, reason.indexOf(':'));
        String r = reason;
        int u = r.lastIndexOf("unavailable: ");
        if (u >= 0) r = r.substring(u + "unavailable: ".length());
        int cut = r.indexOf(';');
        if (cut > 0) r = r.substring(0, cut);
        cut = r.indexOf(" [selftest");
        if (cut > 0) r = r.substring(0, cut);
        return r.length() > 70 ? r.substring(0, 67) + "..." : r;
    }
}
