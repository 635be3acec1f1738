package org.sdp4j.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.openjdk.jmh.util.ListStatistics;

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
 * benchmarks in-process ({@link BenchGroup}). Configurations are probed first ({@link TransportProbe}); one that cannot
 * run is reported with the reason. Results: {@code OUT/report.md}, {@code OUT/charts/*.svg}, {@code OUT/summary.json},
 * {@code OUT/summary.csv}, {@code OUT/jmh/*.json}, {@code OUT/logs/}. Exit 0 when every available configuration ran
 * every benchmark, 1 otherwise, 2 for bad usage.
 */
public final class Report {

    static final List<String> ALL_CONFIGS = List.of("none", "tcp", "both", "sdp", "ucx");
    static final String FORMAT = "sdp4j-bench-summary/1";
    static final String CI = "99.9%";

    // ------------------------------------------------------------------------------------------ settings

    static final class Settings {
        String profile = "quick";
        int rounds = 2;
        // quick: short iterations, many of them: the JVMs take turns more often, so pairs are closer in time
        int netWarmup = 1, netIterations = 6;
        double netWarmupMs = 100, netMs = 50;
        int dbWarmup = 1, dbIterations = 8, blockIterations = 3;
        double dbWarmupMs = 500, dbMs = 100;
        List<Integer> sizes = sizes(NetPipe.QUICK_SIZES);
        int perturb = 0;
        int rows = 4000;
        List<String> configs = new ArrayList<>(ALL_CONFIGS);
        List<String> groups = new ArrayList<>(List.of("db", "net"));
        Path out = Paths.get("benchmarks", "target", "report");
        Path agent;
        String jvm;
        Path baseline;
        List<String> forkJvmArgs = new ArrayList<>(List.of("-Xms512m", "-Xmx512m"));
        int timeoutS = 300;         // per JMH run in a measuring JVM: beyond this it is stuck (its threads are dumped)
        String command = "benchmarks/report.sh";
        // issue 13's groups (ReportGroups): many connections, ucx_perftest, H2, HikariCP from virtual threads
        List<Integer> concN = new ArrayList<>(List.of(1, 16, 256, 1000));
        List<String> concThreads = new ArrayList<>(List.of("platform", "virtual"));
        String concServer = "jvm";
        int concIterations = 5, burstIterations = 5, perftestIterations = 6;
        double concWarmupMs = 300, concMs = 300;
        long perftestExchanges = 20_000;

        void full() {
            profile = "full";
            rounds = 3;
            netWarmup = 1; netWarmupMs = 300; netIterations = 10; netMs = 100;
            dbWarmup = 2; dbWarmupMs = 1000; dbIterations = 20; dbMs = 200; blockIterations = 3;
            concIterations = 10; concMs = 500; burstIterations = 5; perftestIterations = 10; perftestExchanges = 200_000;
            List<Integer> all = new ArrayList<>();
            for (int s = 1; s <= 8 << 20; s <<= 1) all.add(s);
            sizes = all;
        }

        /** Message sizes with NetPIPE's perturbations (size - p and size + p next to each size above 2p). */
        List<Integer> sweepSizes() {
            java.util.TreeSet<Integer> s = new java.util.TreeSet<>(sizes);
            if (perturb > 0) {
                for (int x : sizes) {
                    if (x > 2 * perturb) {
                        s.add(x - perturb);
                        s.add(x + perturb);
                    }
                }
            }
            return new ArrayList<>(s);
        }
    }

    static List<Integer> sizes(String... s) {
        List<Integer> l = new ArrayList<>();
        for (String x : s) l.add(parseSize(x));
        return l;
    }

    /** "64", "1K", "64KiB", "8M", "8MiB" to bytes. */
    static int parseSize(String s) {
        Matcher m = Pattern.compile("(?i)\\s*(\\d+)\\s*([km]?)(i?b)?\\s*").matcher(s);
        if (!m.matches()) throw new IllegalArgumentException("bad message size '" + s + "'");
        long v = Long.parseLong(m.group(1));
        String u = m.group(2).toLowerCase(Locale.ROOT);
        v = u.equals("k") ? v << 10 : u.equals("m") ? v << 20 : v;
        if (v < 1 || v > 64 << 20) throw new IllegalArgumentException("message size out of range (1 B .. 64 MiB): " + s);
        return (int) v;
    }

    static Settings parse(String[] args) {
        Settings s = new Settings();
        // the profile first, so explicit options override it wherever they stand
        for (String a : args) if (a.equals("--full")) s.full();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--quick": case "--full": break;
                case "--baseline": s.baseline = Paths.get(value(args, ++i, a)); break;
                case "--configs": s.configs = new ArrayList<>(List.of(value(args, ++i, a).split(","))); break;
                case "--groups": s.groups = new ArrayList<>(List.of(value(args, ++i, a).split(","))); break;
                case "--rounds": s.rounds = positive(value(args, ++i, a), a); break;
                case "--sizes": s.sizes = sizes(value(args, ++i, a).split(",")); break;
                case "--perturb": s.perturb = Integer.parseInt(value(args, ++i, a)); break;
                case "--rows": s.rows = positive(value(args, ++i, a), a); break;
                case "--iterations": s.netIterations = s.dbIterations = positive(value(args, ++i, a), a); break;
                case "--iteration-ms": s.netMs = s.dbMs = positive(value(args, ++i, a), a); break;
                case "--blocks": s.blockIterations = positive(value(args, ++i, a), a); break;
                case "--out": s.out = Paths.get(value(args, ++i, a)); break;
                case "--agent": s.agent = Paths.get(value(args, ++i, a)); break;
                case "--jvm": s.jvm = value(args, ++i, a); break;
                case "--fork-jvm-args": s.forkJvmArgs = new ArrayList<>(List.of(value(args, ++i, a).trim().split("\\s+"))); break;
                case "--conc-n": s.concN = new ArrayList<>(); for (String n : value(args, ++i, a).split(",")) s.concN.add(positive(n, a)); break;
                case "--conc-threads": s.concThreads = new ArrayList<>(List.of(value(args, ++i, a).split(","))); break;
                case "--conc-server": s.concServer = value(args, ++i, a); break;
                case "--timeout": s.timeoutS = positive(value(args, ++i, a), a); break;
                case "--command": s.command = value(args, ++i, a); break;
                default: throw new IllegalArgumentException("unknown option " + a);
            }
        }
        for (String c : s.configs) {
            if (!c.matches("[a-z][a-z0-9]*") && !CompareTransports.VARIANTS.containsKey(c)) throw new IllegalArgumentException("bad configuration name '" + c + "' (" + ALL_CONFIGS + " or " + CompareTransports.VARIANTS.keySet() + ")");
        }
        if (!s.configs.contains("none")) s.configs.add(0, "none");   // the baseline of every ratio
        for (String g : s.groups) {
            if (!g.equals("db") && !g.equals("net") && !ReportGroups.GROUPS.contains(g)) {
                throw new IllegalArgumentException("unknown group '" + g + "' (db, net, conc, perftest, users, pool)");
            }
        }
        for (String t : s.concThreads) ThreadKind.of(t);
        if (!s.concServer.equals("jvm") && !s.concServer.equals("peer")) throw new IllegalArgumentException("--conc-server is jvm or peer");
        if (s.agent == null) s.agent = CompareTransports.findAgent();
        for (String p : List.of("sdp4j.bench.host", "sdp4j.both.timeout", "sdp4j.both.retry", "java.net.preferIPv4Stack")) {
            if (System.getProperty(p) != null) s.forkJvmArgs.add("-D" + p + "=" + System.getProperty(p));
        }
        return s;
    }

    private static String value(String[] args, int i, String opt) {
        if (i >= args.length) throw new IllegalArgumentException(opt + " needs a value");
        return args[i];
    }

    private static int positive(String v, String opt) {
        int n = Integer.parseInt(v);
        if (n < 1) throw new IllegalArgumentException(opt + " must be >= 1");
        return n;
    }

    static void usage(PrintStream s) {
        s.println("usage: Report [--quick|--full] [--baseline SUMMARY.json] [--configs none,tcp,both,sdp,ucx] [--groups db,net]");
        s.println("              [--rounds N] [--iterations N] [--iteration-ms MS] [--blocks N] [--sizes 1,64,1K,...] [--perturb N]");
        s.println("              [--rows N] [--out DIR] [--conc-n 1,16,256,1000] [--conc-threads platform,virtual] [--conc-server jvm|peer]");
        s.println("  groups: db, net (default), conc, perftest, users, pool (issue 13: see ReportGroups)");
        s.println("              [--agent JAR] [--jvm PATH] [--fork-jvm-args \"-Xmx512m ...\"] [--timeout S]");
        s.println("  -Djdbc.url=... -Djdbc.user=... -Djdbc.password=... on this JVM are passed to the database JVMs (a real Db2).");
    }

    // ------------------------------------------------------------------------------------------ model

    /** One transport configuration and whether (and how) it ran. */
    static final class Config {
        final CompareTransports.Config probe;
        final String name;
        String shortReason;                                  // for charts
        final Map<String, Integer> decisions = new TreeMap<>();   // transport= counts in the measuring JVMs
        final List<String> fallbacks = new ArrayList<>();
        final List<String[]> failures = new ArrayList<>();         // {benchmark (round), reason, log}

        Config(String name) {
            this.name = name;
            this.probe = new CompareTransports.Config(name);
        }

        boolean available() { return probe.unavailable == null; }
    }

    /**
     * All measurements of one benchmark (with parameters) in one configuration, pooled over rounds. The statistic is
     * the geometric mean of the executions' times (db2batch reports it next to the arithmetic mean): on a machine
     * shared with other work, one execution stalled for 100 ms moves the arithmetic mean of an iteration of 1000
     * executions by tens of percent and the geometric mean by well under one.
     */
    static final class Series {
        final String bench, params, config;
        String unit = "", mode = "";
        final ListStatistics logIterations = new ListStatistics();   // log of each iteration's geometric mean
        final Map<Integer, ListStatistics> byRound = new TreeMap<>();
        final Map<String, Double> pairs = new LinkedHashMap<>();     // "round:k" -> iteration geometric mean
        final List<String> failures = new ArrayList<>();
        long count;            // executions measured (from JMH's JSON)
        double total, min = Double.MAX_VALUE, max = -Double.MAX_VALUE, sumLog;
        boolean perOp;         // count/total/min/max/sumLog are per execution
        final Map<Integer, double[]> roundLogs = new TreeMap<>();   // round -> {sum of log(execution time), executions}

        Series(String bench, String params, String config) {
            this.bench = bench;
            this.params = params;
            this.config = config;
        }

        /** One measured iteration: the geometric mean of its executions' times. */
        void addIteration(int round, int k, double geomean, String unit) {
            if (!(geomean > 0)) return;
            this.unit = unit;
            logIterations.addValue(Math.log(geomean));
            byRound.computeIfAbsent(round, x -> new ListStatistics()).addValue(geomean);
            pairs.put(round + ":" + k, geomean);
        }

        /** One execution's time (or {@code n} executions of that time) from JMH's histogram or single-shot data. */
        void addValue(double v, long n) {
            addValue(1, v, n);
        }

        void addValue(int round, double v, long n) {
            if (!(v > 0) || n <= 0) return;
            double[] r = roundLogs.computeIfAbsent(round, x -> new double[2]);
            r[0] += Math.log(v) * n;
            r[1] += n;
            perOp = true;
            count += n;
            total += v * n;
            min = Math.min(min, v);
            max = Math.max(max, v);
            sumLog += Math.log(v) * n;
        }

        boolean ok() {
            return logIterations.getN() > 0;
        }

        long iterations() {
            return logIterations.getN();
        }

        /** The geometric mean over all executions (from JMH's JSON), else over the iterations. */
        double score() {
            if (perOp && count > 0) return Math.exp(sumLog / count);
            return ok() ? Math.exp(logIterations.getMean()) : Double.NaN;
        }

        /** Half the width of the 99.9% confidence interval of {@link #score} (Student t on the iterations' logs). */
        double error() {
            if (logIterations.getN() <= 2) return Double.NaN;
            double h = logIterations.getMeanErrorAt(0.999);
            return score() * (Math.exp(h) - Math.exp(-h)) / 2;
        }

        /** Arithmetic mean over all executions (NaN without JMH's per-execution data). */
        double mean() {
            return perOp && count > 0 ? total / count : Double.NaN;
        }

        double geomean() {
            return score();
        }

        String label() {
            return bench + (params.isEmpty() ? "" : " " + params);
        }
    }

    // ------------------------------------------------------------------------------------------ main

    public static void main(String[] args) {
        int rc;
        try {
            rc = run(args, System.out);
        } catch (IllegalArgumentException e) {
            System.err.println("report: " + e.getMessage());
            usage(System.err);
            rc = 2;
        } catch (Exception e) {
            System.err.println("report: FAILED: " + e);
            e.printStackTrace(System.err);
            rc = 1;
        }
        System.exit(rc);
    }

    static int run(String[] args, PrintStream out) throws Exception {
        Settings s = parse(args);
        long t0 = System.nanoTime();
        Instant started = Instant.now();
        Map<String, Object> baseline = s.baseline == null ? null : loadBaseline(s.baseline);
        prepareOut(s.out);
        String javaBin = s.jvm != null ? s.jvm : Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        Map<String, String> machine = machine(javaBin);
        machine.put("load_start", loadAverage());
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
            selftest = CompareTransports.exec(List.of(javaBin, "-jar", s.agent.toString(), "selftest"), 60).output;
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
                CompareTransports.probe(c.probe, javaBin, ps, selftest);
                if (c.probe.unavailable != null && c.probe.unavailable.contains("expected sdp, tcp, both or ucx after 'use'")) {
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
        readJmh(s.out.resolve("jmh"), results, jvmInfo);
        for (Config c : configs) readDecisions(s.out.resolve("logs"), c);
        machine.put("load_end", loadAverage());
        double seconds = (System.nanoTime() - t0) / 1e9;

        Map<String, Object> summary = summary(s, started, seconds, machine, jvmInfo, configs, results, baseline);
        Files.writeString(s.out.resolve("summary.json"), Json.write(summary));
        Files.writeString(s.out.resolve("summary.csv"), csv(summary));
        Files.createDirectories(s.out.resolve("charts"));
        Map<String, String> charts = charts(s, configs, results);
        for (Map.Entry<String, String> e : charts.entrySet()) Files.writeString(s.out.resolve("charts").resolve(e.getKey()), e.getValue());
        String md = markdown(s, summary, configs, results, charts.keySet(), baseline != null);
        Files.writeString(s.out.resolve("report.md"), md);

        out.println();
        out.print(headlineText(configs, results));
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
            return String.format(Locale.ROOT, "run %s %s %d %s 1 %s %s", id, regex, k == 0 ? warmups : 0, num(warmupMs), num(ms), params);
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
            b.append(c.name).append(' ').append(r == null || r.getN() == 0 ? "-" : sig(r.getMean())).append("  ");
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
                CompareTransports.Exec r = CompareTransports.exec(List.of(jcmd.toString(), Long.toString(process.pid()), "Thread.print"), 30);
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

    // ------------------------------------------------------------------------------------------ reading JMH JSON

    static final Pattern TAG = Pattern.compile("^([a-z0-9]+)__r(\\d+)\\.json$");

    /** Per-execution statistics (sample and single-shot modes) and the JVM's description from the JMH JSON files. */
    static void readJmh(Path dir, Map<String, Map<String, Series>> results, Map<String, String> jvmInfo) throws IOException {
        List<Path> files = new ArrayList<>();
        try (var l = Files.list(dir)) {
            l.filter(p -> TAG.matcher(p.getFileName().toString()).matches()).sorted().forEach(files::add);
        }
        for (Path f : files) {
            Matcher m = TAG.matcher(f.getFileName().toString());
            if (!m.matches()) continue;
            Object parsed;
            try {
                parsed = Json.parse(Files.readString(f));
            } catch (IllegalArgumentException | IOException e) {
                continue;   // the per-iteration scores came with the replies; only the per-execution details are lost
            }
            addJmh(parsed, m.group(1), Integer.parseInt(m.group(2)), results, jvmInfo);
        }
        // a stable order: database statements, then the sweeps by benchmark and size
        List<String> labels = new ArrayList<>(results.keySet());
        labels.sort(Comparator.comparing(Report::order).thenComparing(Report::sizeOf).thenComparing(x -> x));
        Map<String, Map<String, Series>> sorted = new LinkedHashMap<>();
        for (String l : labels) sorted.put(l, results.get(l));
        results.clear();
        results.putAll(sorted);
    }

    static final List<String> ORDER = List.of("JccWorkload.insert", "JccWorkload.insertBlock", "JccWorkload.select",
            "JccWorkload.pointSelect", "NetPipe.socketLatency", "NetPipe.channelLatency", "NetPipe.socketStream", "NetPipe.channelStream");

    static int order(String label) {
        String b = label.split(" ")[0];
        int i = ORDER.indexOf(b);
        return i < 0 ? ORDER.size() : i;
    }

    static int sizeOf(String label) {
        Matcher m = Pattern.compile("size=(\\d+)").matcher(label);
        return m.find() ? Integer.parseInt(m.group(1)) : 0;
    }

    /** Adds one JMH result file's benchmarks (a JSON array): mode, unit, and every execution's time where JMH kept it. */
    static void addJmh(Object parsed, String config, Map<String, Map<String, Series>> results, Map<String, String> jvmInfo) {
        addJmh(parsed, config, 1, results, jvmInfo);
    }

    static void addJmh(Object parsed, String config, int round, Map<String, Map<String, Series>> results, Map<String, String> jvmInfo) {
        for (Object o : Json.arr(parsed)) {
            Map<String, Object> b = Json.obj(o);
            String bench = Json.str(b.get("benchmark"));
            if (bench == null) continue;
            String[] parts = bench.split("\\.");
            String shortName = parts.length >= 2 ? parts[parts.length - 2] + "." + parts[parts.length - 1] : bench;
            StringBuilder params = new StringBuilder();
            for (Map.Entry<String, Object> p : Json.obj(b.get("params")).entrySet()) {
                params.append(params.length() == 0 ? "" : " ").append(p.getKey()).append('=').append(Json.str(p.getValue()));
            }
            Series s = results.computeIfAbsent(shortName + (params.length() == 0 ? "" : " " + params), x -> new LinkedHashMap<>())
                    .computeIfAbsent(config, x -> new Series(shortName, params.toString(), config));
            Map<String, Object> pm = Json.obj(b.get("primaryMetric"));
            if (s.unit.isEmpty()) s.unit = Json.str(pm.get("scoreUnit"));
            s.mode = Json.str(b.get("mode"));
            if (jvmInfo.isEmpty()) {
                jvmInfo.put("jdk", Json.str(b.get("jdkVersion")));
                jvmInfo.put("vm", Json.str(b.get("vmName")) + " " + Json.str(b.get("vmVersion")));
                jvmInfo.put("jvm", Json.str(b.get("jvm")));
                jvmInfo.put("jmh", Json.str(b.get("jmhVersion")));
            }
            if (pm.containsKey("rawDataHistogram")) {
                for (Object fork : Json.arr(pm.get("rawDataHistogram"))) {
                    for (Object iter : Json.arr(fork)) {
                        for (Object pair : Json.arr(iter)) {
                            List<Object> vc = Json.arr(pair);
                            if (vc.size() >= 2) s.addValue(round, Json.num(vc.get(0)), (long) Json.num(vc.get(1)));
                        }
                    }
                }
            } else if ("ss".equals(s.mode)) {
                for (Object fork : Json.arr(pm.get("rawData"))) {
                    for (Object iter : Json.arr(fork)) {
                        double v = Json.num(iter);
                        if (Double.isFinite(v)) s.addValue(round, v, 1);
                    }
                }
            }
        }
    }

    /** Counts the agent's decisions ("transport=X") and fallback reasons logged by the measuring JVMs of {@code c}. */
    static void readDecisions(Path logs, Config c) throws IOException {
        if (!Files.isDirectory(logs)) return;
        Pattern t = Pattern.compile("transport=(\\S+)");
        Pattern f = Pattern.compile("fallback=\"([^\"]*)\"");
        try (var l = Files.list(logs)) {
            for (Path p : (Iterable<Path>) l.sorted()::iterator) {
                String n = p.getFileName().toString();
                if (!n.startsWith("decisions-" + c.name + "__")) continue;
                for (String line : Files.readAllLines(p, StandardCharsets.UTF_8)) {
                    if (!line.contains("sdp4j") || !line.contains(" rule=")) continue;
                    Matcher m = t.matcher(line);
                    if (m.find()) c.decisions.merge(m.group(1), 1, Integer::sum);
                    Matcher fm = f.matcher(line);
                    if (fm.find() && !c.fallbacks.contains(fm.group(1))) c.fallbacks.add(fm.group(1));
                }
            }
        }
    }

    // ------------------------------------------------------------------------------------------ derived quantities

    /** What a benchmark measures, for tables and charts. */
    static final class Quantity {
        final String name, unit;
        final boolean higherIsBetter;
        final double value, error;

        Quantity(String name, String unit, boolean higherIsBetter, double value, double error) {
            this.name = name;
            this.unit = unit;
            this.higherIsBetter = higherIsBetter;
            this.value = value;
            this.error = error;
        }
    }

    /** The quantity a series stands for: round-trip µs, bandwidth Mbit/s, or the statement's time. */
    static Quantity quantity(Series s) {
        Quantity g = ReportGroups.quantity(s);
        if (g != null) return g;
        double v = s.score(), e = s.error();
        if (s.bench.endsWith("Stream")) {
            int size = sizeOf(s.label());
            double bits = (double) NetPipe.messages(size) * size * 8;
            double us = toMicros(v, s.unit);
            double mbps = bits / us;
            return new Quantity("bandwidth", "Mbit/s", true, mbps, Double.isFinite(e) ? mbps * e / v : Double.NaN);
        }
        if (s.bench.equals("JccWorkload.insertBlock")) {
            int rows = rowsOf(s);
            double us = toMicros(v, s.unit) / rows, eu = toMicros(e, s.unit) / rows;
            return new Quantity("time per INSERT in the block", "us", false, us, eu);
        }
        return new Quantity(s.bench.endsWith("Latency") ? "round trip" : "time", unitShort(s.unit), false, v, e);
    }

    static int rowsOf(Series s) {
        Matcher m = Pattern.compile("rows=(\\d+)").matcher(s.params);
        return m.find() ? Integer.parseInt(m.group(1)) : 4000;
    }

    static double toMicros(double v, String unit) {
        switch (unitShort(unit)) {
            case "ns": return v / 1e3;
            case "ms": return v * 1e3;
            case "s": return v * 1e6;
            default: return v;
        }
    }

    static double toSeconds(double v, String unit) {
        return toMicros(v, unit) / 1e6;
    }

    static String unitShort(String unit) {
        return unit == null ? "" : unit.replace("/op", "");
    }

    /** Ratio a/b with its error propagated to first order (relative errors in quadrature). */
    static double[] ratio(double a, double ea, double b, double eb) {
        return CompareTransports.ratio(a, ea, b, eb);
    }

    /**
     * The ratio of two series' quantities (a over b) with its 99.9% confidence interval, from the iterations the two ran
     * side by side (same round, same iteration number: adjacent in time). Load from other work on the machine scales
     * both members of a pair alike, so the analysis is on log ratios: ratio = exp(mean of log(x/y)) (the geometric mean
     * of the paired ratios), interval = exp(mean ± Student t x standard error). With fewer than 3 pairs: the ratio of
     * the scores and the unpaired propagation of both errors. Returns {ratio, half-width of the interval (for "±"),
     * pairs, low, high}.
     */
    static double[] pairedRatio(Series a, Series b) {
        Quantity qa = quantity(a), qb = quantity(b);
        ListStatistics lr = new ListStatistics();
        for (Map.Entry<String, Double> e : a.pairs.entrySet()) {
            Double y = b.pairs.get(e.getKey());
            if (y != null && y > 0 && e.getValue() > 0) lr.addValue(Math.log(e.getValue() / y));
        }
        long n = lr.getN();
        if (n < 3) {
            double[] u = ratio(qa.value, qa.error, qb.value, qb.error);
            return new double[] {u[0], u[1], n, u[0] - u[1], u[0] + u[1]};
        }
        double m = lr.getMean(), h = lr.getMeanErrorAt(0.999);
        double t = Math.exp(m), lo = Math.exp(m - h), hi = Math.exp(m + h);   // ratio of times
        if (qa.higherIsBetter) {   // a rate: the inverse
            double l2 = 1 / hi, h2 = 1 / lo;
            t = 1 / t;
            lo = l2;
            hi = h2;
        }
        return new double[] {t, (hi - lo) / 2, n, lo, hi};
    }

    // ------------------------------------------------------------------------------------------ summary

    static Map<String, Object> summary(Settings s, Instant started, double seconds, Map<String, String> machine, Map<String, String> jvmInfo,
                                       List<Config> configs, Map<String, Map<String, Series>> results, Map<String, Object> baseline) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("format", FORMAT);
        m.put("started", DateTimeFormatter.ISO_INSTANT.format(started.truncatedTo(java.time.temporal.ChronoUnit.SECONDS)));
        m.put("profile", s.profile);
        m.put("command", s.command);
        m.put("duration_s", seconds);
        m.put("rounds", (double) s.rounds);
        m.put("confidence", CI);
        m.put("machine", new LinkedHashMap<>(machine));
        m.put("jvm", new LinkedHashMap<>(jvmInfo));
        m.put("jvm_args", String.join(" ", s.forkJvmArgs));
        m.put("database", Jcc.externalUrl() != null ? "external: " + Jcc.externalUrl()
                : "Apache Derby " + Db2BatchMain.derbyVersion() + " Network Server (DRDA) in the measuring JVM, " + host()
                        + (Boolean.getBoolean("sdp4j.bench.durable") ? "" : ", derby.system.durability=test"));
        m.put("driver", driverDescription(s.out.resolve("logs")));
        m.put("agent", s.agent.toString());
        List<Object> cs = new ArrayList<>();
        for (Config c : configs) {
            Map<String, Object> x = new LinkedHashMap<>();
            x.put("name", c.name);
            x.put("agent", c.probe.family != null);
            x.put("status", !c.available() ? "unavailable" : c.failures.isEmpty() ? "ok" : "failed");
            if (!c.available()) x.put("reason", c.probe.unavailable);
            if (!c.probe.note.isEmpty()) x.put("probe", c.probe.note);
            if (!c.decisions.isEmpty()) x.put("decisions", new LinkedHashMap<String, Object>(c.decisions));
            if (!c.fallbacks.isEmpty()) x.put("fallbacks", new ArrayList<Object>(c.fallbacks));
            if (!c.failures.isEmpty()) {
                List<Object> fs = new ArrayList<>();
                for (String[] f : c.failures) fs.add(new LinkedHashMap<String, Object>(Map.of("benchmark", f[0], "reason", f[1], "log", f[2])));
                x.put("failures", fs);
            }
            cs.add(x);
        }
        m.put("configs", cs);
        Map<String, Map<String, Object>> base = baselineIndex(baseline);
        List<Object> rs = new ArrayList<>();
        for (Map.Entry<String, Map<String, Series>> e : results.entrySet()) {
            Series none = e.getValue().get("none");
            Quantity q0 = none == null ? null : quantity(none);
            for (Config c : configs) {
                Series s1 = e.getValue().get(c.name);
                if (s1 == null) continue;
                Quantity q = quantity(s1);
                Map<String, Object> r = new LinkedHashMap<>();
                r.put("benchmark", s1.bench);
                r.put("params", s1.params);
                r.put("config", c.name);
                r.put("mode", s1.mode);
                r.put("unit", s1.unit);
                r.put("score", s1.score());
                r.put("error", s1.error());
                r.put("statistic", "geometric mean");
                r.put("iterations", (double) s1.iterations());
                r.put("rounds", (double) s1.byRound.size());
                if (s1.perOp) {
                    r.put("executions", (double) s1.count);
                    r.put("total", s1.total);
                    r.put("min", s1.min);
                    r.put("max", s1.max);
                    r.put("mean", s1.mean());
                }
                r.put("quantity", q.name);
                r.put("value", q.value);
                r.put("value_error", q.error);
                r.put("value_unit", q.unit);
                if (q0 != null && !c.name.equals("none")) {
                    double[] ratio = pairedRatio(s1, none);
                    r.put("ratio_to_none", ratio[0]);
                    r.put("ratio_error", ratio[1]);
                    r.put("ratio_low", ratio[3]);
                    r.put("ratio_high", ratio[4]);
                    r.put("ratio_pairs", ratio[2]);
                }
                Map<String, Object> b = base.get(s1.label() + "|" + c.name);
                if (b != null) {
                    double bv = Json.num(b.get("value")), be = Json.num(b.get("value_error"));
                    if (Double.isFinite(bv) && bv != 0) {
                        double[] ch = ratio(q.value, q.error, bv, be);
                        r.put("baseline_value", bv);
                        r.put("baseline_error", be);
                        r.put("change", ch[0] - 1);
                        r.put("change_error", ch[1]);
                    }
                }
                rs.add(r);
            }
        }
        m.put("results", rs);
        if (baseline != null) {
            Map<String, Object> b = new LinkedHashMap<>();
            b.put("file", String.valueOf(s.baseline));
            b.put("started", baseline.get("started"));
            b.put("profile", baseline.get("profile"));
            m.put("baseline", b);
        }
        return m;
    }

    static Map<String, Object> loadBaseline(Path p) throws IOException {
        Path f = Files.isDirectory(p) ? p.resolve("summary.json") : p;
        if (!Files.isRegularFile(f)) throw new IllegalArgumentException("--baseline: no such file: " + f);
        Map<String, Object> m = Json.obj(Json.parse(Files.readString(f)));
        if (!FORMAT.equals(m.get("format"))) {
            throw new IllegalArgumentException("--baseline: " + f + " is not a report summary (format " + m.get("format") + ")");
        }
        return m;
    }

    static Map<String, Map<String, Object>> baselineIndex(Map<String, Object> baseline) {
        Map<String, Map<String, Object>> idx = new LinkedHashMap<>();
        if (baseline == null) return idx;
        for (Object o : Json.arr(baseline.get("results"))) {
            Map<String, Object> r = Json.obj(o);
            String params = Json.str(r.get("params"));
            String label = Json.str(r.get("benchmark")) + (params == null || params.isEmpty() ? "" : " " + params);
            idx.put(label + "|" + Json.str(r.get("config")), r);
        }
        return idx;
    }

    static final String[] CSV_COLUMNS = {"benchmark", "params", "config", "mode", "unit", "score", "error", "iterations", "executions", "min",
        "max", "mean", "quantity", "value", "value_error", "value_unit", "ratio_to_none", "ratio_error", "ratio_low", "ratio_high", "ratio_pairs", "baseline_value", "change",
        "change_error"};

    static String csv(Map<String, Object> summary) {
        StringBuilder b = new StringBuilder(String.join(",", CSV_COLUMNS)).append(",status,note\n");
        for (Object o : Json.arr(summary.get("results"))) {
            Map<String, Object> r = Json.obj(o);
            for (String col : CSV_COLUMNS) {
                Object v = r.get(col);
                b.append(v instanceof Double ? num((Double) v) : csvField(v == null ? "" : v.toString())).append(',');
            }
            b.append("ok,\n");
        }
        for (Object o : Json.arr(summary.get("configs"))) {
            Map<String, Object> c = Json.obj(o);
            if (!"ok".equals(c.get("status"))) {
                for (String col : CSV_COLUMNS) b.append(col.equals("config") ? csvField(Json.str(c.get("name"))) : "").append(',');
                Object why = c.containsKey("reason") ? c.get("reason") : c.get("failures");
                b.append(c.get("status")).append(',').append(csvField(String.valueOf(why))).append('\n');
            }
        }
        return b.toString();
    }

    private static String csvField(String f) {
        return f.contains(",") || f.contains("\"") || f.contains("\n") ? '"' + f.replace("\"", "\"\"").replace("\n", " ") + '"' : f;
    }

    static String num(double d) {
        return Double.isFinite(d) ? String.format(Locale.ROOT, "%.6g", d).replaceFirst("(\\.\\d*?)0+(e|$)", "$1$2").replaceFirst("\\.(e|$)", "$1") : "";
    }

    // ------------------------------------------------------------------------------------------ charts

    static Map<String, String> charts(Settings s, List<Config> configs, Map<String, Map<String, Series>> results) {
        Map<String, String> charts = new LinkedHashMap<>();
        String sub = s.profile + " profile, " + s.rounds + " round(s); geometric mean ± " + CI + " confidence interval; x = paired ratio to none";
        if (s.groups.contains("db")) {
            int rows = s.rows;
            charts.put("db-insert.svg", Charts.bars("INSERT through the IBM Db2 driver, per transport",
                    sub + "; lower is better",
                    List.of(panel(configs, results, "JccWorkload.insert rows=" + rows, "One INSERT (1 row, autocommit)", "µs per INSERT"),
                            panel(configs, results, "JccWorkload.insertBlock rows=" + rows, "Block of " + rows + " INSERTs (autocommit each)",
                                    "µs per INSERT (block time / " + rows + ")"))));
            charts.put("db-select.svg", Charts.bars("SELECT through the IBM Db2 driver, per transport", sub + "; lower is better",
                    List.of(panel(configs, results, "JccWorkload.select rows=" + rows, "SELECT of all " + rows + " rows (every row fetched)", "ms"),
                            panel(configs, results, "JccWorkload.pointSelect rows=" + rows, "Prepared SELECT of 1 row by key", "µs"))));
        }
        if (s.groups.contains("net")) {
            List<Double> ticks = xTicks(s.sweepSizes());
            String lsub = s.profile + " profile, " + s.rounds + " round(s); geometric mean ± " + CI + " confidence interval";
            charts.put("latency.svg", Charts.logLog("Round-trip time vs message size (NetPIPE-style ping-pong)",
                    lsub + "; lower is better", "message size (bytes, log scale)", "round-trip time (log scale)", ticks, Charts::bytes,
                    Charts::micros, sweepLines(configs, results, "Latency"), unavailableNotes(configs)));
            charts.put("bandwidth.svg", Charts.logLog("Streaming bandwidth vs message size (NetPIPE-style)",
                    lsub + "; higher is better", "message size (bytes, log scale)", "bandwidth (log scale)", ticks, Charts::bytes,
                    Charts::mbits, sweepLines(configs, results, "Stream"), unavailableNotes(configs)));
        }
        ReportGroups.charts(s, configs, results, charts);
        return charts;
    }

    static Charts.Panel panel(List<Config> configs, Map<String, Map<String, Series>> results, String label, String title, String unit) {
        List<Charts.Bar> bars = new ArrayList<>();
        Map<String, Series> row = results.getOrDefault(label, Map.of());
        for (Config c : configs) {
            String name = c.name.equals("none") ? "none (no agent)" : c.name;
            Series s = row.get(c.name);
            if (!c.available()) {
                bars.add(new Charts.Bar(name, Charts.color(c.name), Double.NaN, Double.NaN, null, "unavailable: " + c.shortReason));
            } else if (s == null || !s.ok()) {
                bars.add(new Charts.Bar(name, Charts.color(c.name), Double.NaN, Double.NaN, null, "failed (see the report)"));
            } else {
                Quantity q = quantity(s);
                double scale = q.unit.equals("ms") && unit.startsWith("µs") ? 1e3 : 1;
                Series none = row.get("none");
                String note = null;
                if (!c.name.equals("none") && none != null && none.ok()) {
                    double[] r = pairedRatio(s, none);
                    note = Double.isFinite(r[1]) ? String.format(Locale.ROOT, "x%.2f ± %.2f vs none", r[0], r[1])
                            : String.format(Locale.ROOT, "x%.2f vs none", r[0]);
                }
                bars.add(new Charts.Bar(name, Charts.color(c.name), q.value * scale, q.error * scale, note, null));
            }
        }
        return new Charts.Panel(title, unit, bars);
    }

    static List<Double> xTicks(List<Integer> sizes) {
        List<Double> t = new ArrayList<>();
        if (sizes.isEmpty()) return t;
        int max = sizes.get(sizes.size() - 1);
        if (sizes.size() <= 8) {
            for (int x : sizes) t.add((double) x);
        } else {
            for (long x = 1; x <= max; x <<= 4) t.add((double) x);
            if (t.get(t.size() - 1) != max) t.add((double) max);
        }
        return t;
    }

    static List<Charts.Line> sweepLines(List<Config> configs, Map<String, Map<String, Series>> results, String kind) {
        List<Charts.Line> lines = new ArrayList<>();
        for (String api : List.of("socket", "channel")) {
            for (Config c : configs) {
                if (!c.available()) continue;
                String apiName = api.equals("socket") ? "Socket" : "SocketChannel";
                Charts.Line l = new Charts.Line(c.name + ", " + apiName, Charts.color(c.name), api.equals("channel"), api.equals("channel"),
                        Charts.marker(c.name));
                for (Map.Entry<String, Map<String, Series>> e : results.entrySet()) {
                    if (!e.getKey().startsWith("NetPipe." + api + kind + " ")) continue;
                    Series s = e.getValue().get(c.name);
                    if (s == null || !s.ok()) continue;
                    Quantity q = quantity(s);
                    l.add(sizeOf(e.getKey()), q.value, q.error);
                }
                if (!l.points.isEmpty()) lines.add(l);
            }
        }
        return lines;
    }

    static List<String> unavailableNotes(List<Config> configs) {
        List<String> notes = new ArrayList<>();
        for (Config c : configs) {
            if (!c.available()) notes.add(c.name + ": unavailable");
            else if (!c.failures.isEmpty()) notes.add(c.name + ": some runs failed");
        }
        return notes;
    }

    // ------------------------------------------------------------------------------------------ markdown

    /** Three significant digits, no exponent for the magnitudes benchmarks produce. */
    public static String sig(double v) {
        if (!Double.isFinite(v)) return "?";
        double a = Math.abs(v);
        if (a == 0) return "0";
        a = Double.parseDouble(String.format(Locale.ROOT, "%.3g", a));   // 99.9998 is 100, not 100.0
        if (a >= 1000) return String.format(Locale.ROOT, "%,.0f", v).replace(',', ' ');
        int decimals = Math.max(0, 2 - (int) Math.floor(Math.log10(a)));
        return String.format(Locale.ROOT, "%." + Math.min(decimals, 6) + "f", v);
    }

    static String pm(double v, double e) {
        return sig(v) + (Double.isFinite(e) ? " ± " + sig(e) : " ± ?");
    }

    static String ratioText(double[] r) {
        if (!Double.isFinite(r[0])) return "?";
        return String.format(Locale.ROOT, "%.3f", r[0]) + (Double.isFinite(r[1]) ? String.format(Locale.ROOT, " ± %.3f", r[1]) : " ± ?");
    }

    /** The rows of the headline table: label, description. */
    static List<String[]> headlineRows(Map<String, Map<String, Series>> results) {
        List<String[]> rows = new ArrayList<>();
        String[][] wanted = {
            {"NetPipe.socketLatency size=64", "64 B round trip, Socket"},
            {"NetPipe.channelLatency size=64", "64 B round trip, SocketChannel"},
            {"NetPipe.socketLatency size=1", "1 B round trip, Socket"},
            {"NetPipe.socketStream size=8388608", "8 MiB streaming bandwidth, Socket"},
            {"NetPipe.channelStream size=8388608", "8 MiB streaming bandwidth, SocketChannel"},
        };
        for (String[] w : wanted) if (results.containsKey(w[0])) rows.add(w);
        for (String label : results.keySet()) {
            if (!label.startsWith("JccWorkload.")) continue;
            String b = label.split(" ")[0];
            String d;
            switch (b) {
                case "JccWorkload.insert": d = "INSERT, 1 row, autocommit (JCC)"; break;
                case "JccWorkload.insertBlock": d = "block of " + rowsOfLabel(label) + " INSERTs, per INSERT (JCC)"; break;
                case "JccWorkload.select": d = "SELECT of " + rowsOfLabel(label) + " rows (JCC)"; break;
                case "JccWorkload.pointSelect": d = "prepared point SELECT (JCC)"; break;
                default: d = label;
            }
            rows.add(new String[] {label, d});
        }
        return rows;
    }

    static int rowsOfLabel(String label) {
        Matcher m = Pattern.compile("rows=(\\d+)").matcher(label);
        return m.find() ? Integer.parseInt(m.group(1)) : 4000;
    }

    /** Cell text for config {@code c} in the ratio-to-none table. */
    static String ratioCell(Config c, Map<String, Series> row) {
        if (!c.available()) return "unavailable";
        Series s = row.get(c.name), n = row.get("none");
        if (s == null || !s.ok()) return "failed";
        if (n == null || !n.ok()) return "no baseline";
        return ratioText(pairedRatio(s, n));
    }

    static String headlineText(List<Config> configs, Map<String, Map<String, Series>> results) {
        StringBuilder b = new StringBuilder("Ratio to no agent (" + CI + " CI); time: lower is faster, bandwidth: higher is faster\n");
        String fmt = "%-44s %-22s";
        b.append(String.format(Locale.ROOT, fmt, "", "none"));
        for (Config c : configs) if (!c.name.equals("none")) b.append(String.format(Locale.ROOT, " %-17s", c.name));
        b.append('\n');
        for (String[] r : headlineRows(results)) {
            Map<String, Series> row = results.get(r[0]);
            Series n = row.get("none");
            String base = n == null || !n.ok() ? "failed" : pm(quantity(n).value, quantity(n).error) + " " + quantity(n).unit;
            b.append(String.format(Locale.ROOT, fmt, r[1], base));
            for (Config c : configs) if (!c.name.equals("none")) b.append(String.format(Locale.ROOT, " %-17s", ratioCell(c, row)));
            b.append('\n');
        }
        return b.toString();
    }

    static String markdown(Settings s, Map<String, Object> summary, List<Config> configs, Map<String, Map<String, Series>> results,
                           java.util.Set<String> charts, boolean withBaseline) {
        StringBuilder b = new StringBuilder();
        Map<String, Object> machine = Json.obj(summary.get("machine"));
        Map<String, Object> jvm = Json.obj(summary.get("jvm"));
        double seconds = Json.num(summary.get("duration_s"));
        b.append("# sdp4j transport report (").append(s.profile).append(" profile)\n\n");
        b.append("`").append(s.command).append("`, started ").append(summary.get("started")).append(", ")
                .append(String.format(Locale.ROOT, "%d min %02d s", (int) seconds / 60, (int) seconds % 60)).append(".\n\n");
        b.append("| | |\n|---|---|\n");
        b.append("| Machine | ").append(machine.get("cpus")).append(" CPUs (").append(machine.get("cpu")).append("), ")
                .append(machine.get("memory")).append(" RAM, ").append(machine.get("os")).append(", Linux ").append(machine.get("kernel"))
                .append("; load average ").append(machine.get("load_start")).append(" at the start, ").append(machine.get("load_end"))
                .append(" at the end |\n");
        b.append("| Network | ").append(host().equals("127.0.0.1") ? "loopback (127.0.0.1)" : host() + " (`-Dsdp4j.bench.host`)")
                .append(": client and server in the same JVM, on the same CPUs")
                .append(s.groups.contains("users") || s.groups.contains("pool") || s.concServer.equals("peer")
                        ? " (the database servers of `users` and `pool`" + (s.concServer.equals("peer") ? " and the echo server of `conc`" : "")
                                + ": in a second JVM on the agent)" : "")
                .append(" |\n");
        b.append("| JVM | ").append(jvm.getOrDefault("vm", "?")).append(" (JDK ").append(jvm.getOrDefault("jdk", "?")).append("), `")
                .append(summary.get("jvm_args")).append("`; JMH ").append(jvm.getOrDefault("jmh", "?"))
                .append(" in-process (`-f 0`) in one JVM per transport and round |\n");
        b.append("| Database | ").append(summary.get("database")).append("; driver ").append(summary.get("driver")).append(" |\n");
        b.append("| Agent | `").append(summary.get("agent")).append("` |\n");
        b.append("| Method | ").append(s.rounds).append(" round(s), each with a fresh JVM per transport. The JVMs take turns: every ")
                .append("measurement iteration runs in each of them, one after the other (order rotated), so load from other work ")
                .append("hits all transports alike. Sweeps: ").append(s.netWarmup).append(" x ").append(num(s.netWarmupMs))
                .append(" ms warm-up, then ").append(s.netIterations).append(" x ").append(num(s.netMs)).append(" ms per size and round. ")
                .append("Database: ").append(s.dbWarmup).append(" x ").append(num(s.dbWarmupMs)).append(" ms warm-up, then ")
                .append(s.dbIterations).append(" x ").append(num(s.dbMs)).append(" ms per statement and round; ")
                .append(s.blockIterations).append(" block(s) of ").append(s.rows).append(" INSERTs per round. Every execution is timed ")
                .append("(JMH sample mode) and a time is the **geometric mean** of the executions (db2batch's Geometric Mean; the ")
                .append("summary tables also give the arithmetic mean): one execution stalled by other work moves it little. ± is half ")
                .append("the ").append(CI).append(" confidence interval (Student t over the iterations, in log space; JMH's Error is ")
                .append("also ").append(CI).append("). A ratio is the geometric mean of the ratios of iterations that ran side by side ")
                .append("(same round and iteration number), ± half its ").append(CI).append(" interval: drift that hits both members ")
                .append("of a pair cancels. |\n\n");

        // transports
        b.append("## Transports\n\n| transport | how the measuring JVM is started | status | decisions the agent logged (listens and connects) |\n|---|---|---|---|\n");
        for (Config c : configs) {
            b.append("| **").append(c.name).append("** | ");
            b.append(c.probe.family == null ? "no agent (the baseline of every ratio)"
                    : "`-javaagent:sdp4j-agent.jar`, rules `use " + c.probe.family + " server * *:*`, `use " + c.probe.family
                    + " client * *:*`" + (c.probe.extraJvmArgs.isEmpty() ? "" : ", `" + String.join(" ", c.probe.extraJvmArgs) + "`"));
            b.append(" | ");
            if (!c.available()) b.append("**unavailable**: ").append(mdCell(c.probe.unavailable));
            else if (!c.failures.isEmpty()) b.append("**ran, with failures**: ").append(mdCell(failureSummary(c)));
            else b.append("ran");
            b.append(" | ");
            if (c.probe.family == null) {
                b.append("(no agent)");
            } else if (!c.decisions.isEmpty()) {
                List<String> d = new ArrayList<>();
                for (Map.Entry<String, Integer> e : c.decisions.entrySet()) d.add(e.getValue() + " x " + e.getKey());
                b.append(String.join(", ", d));
                if (!c.fallbacks.isEmpty()) b.append("; fallback: ").append(mdCell(c.fallbacks.get(0)));
            } else if (c.available()) {
                b.append("(no decision logged)");
            } else {
                b.append("-");
            }
            b.append(" |\n");
        }
        b.append('\n');

        // headline ratios
        List<String[]> head = headlineRows(results);
        if (!head.isEmpty()) {
            b.append("## Ratios to no agent\n\nEach transport's number divided by the same number without the agent (`none`). ")
                    .append("Times: below 1 is faster. Bandwidths: above 1 is faster.\n\n");
            b.append("| measurement | none (no agent) |");
            for (Config c : configs) if (!c.name.equals("none")) b.append(' ').append(c.name).append(" / none |");
            b.append("\n|---|---:|");
            for (Config c : configs) if (!c.name.equals("none")) b.append("---:|");
            b.append('\n');
            for (String[] r : head) {
                Map<String, Series> row = results.get(r[0]);
                Series n = row.get("none");
                b.append("| ").append(r[1]).append(" | ");
                b.append(n == null || !n.ok() ? "failed" : pm(quantity(n).value, quantity(n).error) + " " + unitText(quantity(n).unit)).append(" |");
                for (Config c : configs) if (!c.name.equals("none")) b.append(' ').append(ratioCell(c, row)).append(" |");
                b.append('\n');
            }
            b.append('\n');
        }

        if (s.groups.contains("db")) markdownDb(b, s, configs, results, charts);
        if (s.groups.contains("net")) markdownNet(b, s, configs, results, charts);
        ReportGroups.markdown(b, s, configs, results, charts);
        if (withBaseline) markdownBaseline(b, summary);

        b.append("## Files\n\n");
        b.append("- `summary.json`, `summary.csv`: every number above (score, error, executions, min, max, geometric mean, ratio, change)\n");
        b.append("- `jmh/<group>__<transport>__r<round>-<part>.json`: JMH's own result files\n");
        b.append("- `charts/*.svg`: the charts\n");
        b.append("- `logs/`: each measuring JVM's command line and output, the agent's decision log per JVM (`decisions-*.log`), ")
                .append("the rules (`libsdp-*.conf`), the availability probes (`probe-*.txt`) and the agent's `selftest.txt`\n");
        return b.toString();
    }

    static void markdownDb(StringBuilder b, Settings s, List<Config> configs, Map<String, Map<String, Series>> results, java.util.Set<String> charts) {
        b.append("## Database workload (db2batch-like)\n\n");
        b.append("IBM Db2 JDBC driver (JCC) over each transport: one INSERT with autocommit (every execution timed), a block of ")
                .append(s.rows).append(" such INSERTs timed as one, SELECT of all ").append(s.rows)
                .append(" rows (every row fetched) and a prepared SELECT of one row by its key.\n\n");
        if (charts.contains("db-insert.svg")) b.append("![INSERT per transport](charts/db-insert.svg)\n\n");
        if (charts.contains("db-select.svg")) b.append("![SELECT per transport](charts/db-select.svg)\n\n");
        String[][] statements = {
            {"JccWorkload.insert", "INSERT, 1 row, autocommit", "0"},
            {"JccWorkload.insertBlock", "INSERT block (" + s.rows + " rows)", "0"},
            {"JccWorkload.select", "SELECT, all " + s.rows + " rows", "" + s.rows},
            {"JccWorkload.pointSelect", "SELECT, 1 row by key", "1"},
        };
        for (Config c : configs) {
            b.append("### Summary table: ").append(c.name).append(c.name.equals("none") ? " (no agent)" : "").append("\n\n");
            if (!c.available()) {
                b.append("Unavailable: ").append(mdCell(c.probe.unavailable)).append("\n\n");
                continue;
            }
            b.append("| Type | Number | Repetitions | Total Time (s) | Min Time (s) | Max Time (s) | Arithmetic Mean (s) | Geometric Mean (s) | Row(s) Fetched |\n");
            b.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
            int n = 0;
            for (String[] st : statements) {
                n++;
                Series x = results.getOrDefault(st[0] + " rows=" + s.rows, Map.of()).get(c.name);
                if (x == null || x.count == 0) {
                    b.append("| ").append(st[1]).append(" | ").append(n).append(" | failed | | | | | | |\n");
                    continue;
                }
                b.append(String.format(Locale.ROOT, "| %s | %d | %d | %.6f | %.6f | %.6f | %.6f | %.6f | %s |%n", st[1], n, x.count,
                        toSeconds(x.total, x.unit), toSeconds(x.min, x.unit), toSeconds(x.max, x.unit), toSeconds(x.mean(), x.unit),
                        toSeconds(x.geomean(), x.unit), st[2]));
            }
            Series blk = results.getOrDefault("JccWorkload.insertBlock rows=" + s.rows, Map.of()).get(c.name);
            if (blk != null && blk.count > 0) {
                b.append(String.format(Locale.ROOT, "%nAverage time per INSERT in the blocks: %s µs (arithmetic mean of the blocks / %d).%n",
                        sig(toMicros(blk.mean(), blk.unit) / s.rows), s.rows));
            }
            b.append('\n');
        }
        b.append("### Side by side\n\n| statement | unit |");
        for (Config c : configs) b.append(' ').append(c.name).append(" |");
        b.append("\n|---|---|");
        for (int k = 0; k < configs.size(); k++) b.append("---:|");
        b.append('\n');
        for (String[] st : statements) {
            Map<String, Series> row = results.get(st[0] + " rows=" + s.rows);
            if (row == null) continue;
            String unit = null;
            StringBuilder cells = new StringBuilder();
            for (Config c : configs) {
                Series x = row.get(c.name);
                if (!c.available()) cells.append(" unavailable |");
                else if (x == null || !x.ok()) cells.append(" failed |");
                else {
                    Quantity q = quantity(x);
                    unit = q.unit;
                    cells.append(' ').append(pm(q.value, q.error)).append(" |");
                }
            }
            String desc = st[0].equals("JccWorkload.insertBlock") ? "INSERT in a block of " + s.rows + ", per INSERT" : st[1];
            b.append("| ").append(desc).append(" | ").append(unit == null ? "" : unitText(unit)).append(" |").append(cells).append('\n');
        }
        b.append("\nGeometric mean of the executions ± ").append(CI).append(" CI. The database is ").append(Json.str(summaryDatabase())).append(".\n\n");
    }

    static String summaryDatabase() {
        return Jcc.externalUrl() != null ? "the external " + Jcc.externalUrl()
                : "Derby 10.8.3.0's Network Server inside the measuring JVM"
                        + (Boolean.getBoolean("sdp4j.bench.durable") ? "" : ", committing without waiting for the disk "
                        + "(`derby.system.durability=test`; `-Dsdp4j.bench.durable=true` restores it), so INSERT times are driver, "
                        + "network and SQL work rather than this machine's disk");
    }

    static void markdownNet(StringBuilder b, Settings s, List<Config> configs, Map<String, Map<String, Series>> results, java.util.Set<String> charts) {
        b.append("## Socket sweeps (NetPIPE-like)\n\n");
        b.append("Round trip: send a message, the peer echoes it once it has all of it (NetPIPE prints half of this as its latency). ")
                .append("Streaming: a burst of messages (about 8 MiB, 4 to 1024 messages) until the receiver acknowledges the last byte; ")
                .append("bandwidth = bits sent / time. TCP_NODELAY on both ends, default socket buffers.\n\n");
        if (charts.contains("latency.svg")) b.append("![round trip vs message size](charts/latency.svg)\n\n");
        if (charts.contains("bandwidth.svg")) b.append("![bandwidth vs message size](charts/bandwidth.svg)\n\n");
        List<Config> ran = new ArrayList<>();
        for (Config c : configs) if (c.available()) ran.add(c);
        for (String api : List.of("socket", "channel")) {
            b.append("### ").append(api.equals("socket") ? "java.net.Socket" : "SocketChannel (blocking, direct buffers)").append("\n\n");
            b.append("| size |");
            for (Config c : ran) b.append(" round trip ").append(c.name).append(" (µs) |");
            for (Config c : ran) b.append(" bandwidth ").append(c.name).append(" (Mbit/s) |");
            b.append("\n|---:|");
            for (int k = 0; k < 2 * ran.size(); k++) b.append("---:|");
            b.append('\n');
            for (int size : s.sweepSizes()) {
                b.append("| ").append(Charts.bytes(size)).append(" |");
                for (String kind : List.of("Latency", "Stream")) {
                    Map<String, Series> row = results.getOrDefault("NetPipe." + api + kind + " size=" + size, Map.of());
                    for (Config c : ran) {
                        Series x = row.get(c.name);
                        if (x == null || !x.ok()) {
                            b.append(" failed |");
                            continue;
                        }
                        Quantity q = quantity(x);
                        b.append(' ').append(pm(q.value, q.error));
                        if (!c.name.equals("none") && row.get("none") != null && row.get("none").ok()) {
                            double[] r = pairedRatio(x, row.get("none"));
                            b.append(String.format(Locale.ROOT, " (x%.2f)", r[0]));
                        }
                        b.append(" |");
                    }
                }
                b.append('\n');
            }
            b.append('\n');
        }
        b.append("(xR) is the ratio to `none` for the same size.");
        List<String> na = new ArrayList<>();
        for (Config c : configs) if (!c.available()) na.add("`" + c.name + "` (" + mdCell(c.shortReason) + ")");
        if (!na.isEmpty()) b.append(" Not in the tables because they could not run here: ").append(String.join(", ", na)).append('.');
        b.append("\n\n");
    }

    @SuppressWarnings("unchecked")
    static void markdownBaseline(StringBuilder b, Map<String, Object> summary) {
        Map<String, Object> base = Json.obj(summary.get("baseline"));
        b.append("## Change against the baseline\n\nBaseline: `").append(base.get("file")).append("` (").append(base.get("profile"))
                .append(" profile, started ").append(base.get("started")).append("). Change = now / baseline - 1, ± propagated from both ")
                .append(CI).append(" intervals; **bold** where the interval excludes 0.\n\n");
        b.append("| benchmark | transport | baseline | now | unit | change |\n|---|---|---:|---:|---|---:|\n");
        int n = 0;
        for (Object o : Json.arr(summary.get("results"))) {
            Map<String, Object> r = Json.obj(o);
            if (!r.containsKey("change")) continue;
            n++;
            double ch = Json.num(r.get("change")), ce = Json.num(r.get("change_error"));
            if (Math.abs(ch) < 5e-4) ch = 0;   // no "-0.0 %"
            boolean sigf = Double.isFinite(ce) && Math.abs(ch) > ce;
            String text = String.format(Locale.ROOT, "%+.1f %% ± %s", ch * 100, Double.isFinite(ce) ? String.format(Locale.ROOT, "%.1f %%", ce * 100) : "?");
            b.append("| ").append(r.get("benchmark")).append(' ').append(r.get("params")).append(" | ").append(r.get("config")).append(" | ")
                    .append(sig(Json.num(r.get("baseline_value")))).append(" | ").append(sig(Json.num(r.get("value")))).append(" | ")
                    .append(unitText(Json.str(r.get("value_unit")))).append(" | ").append(sigf ? "**" + text + "**" : text).append(" |\n");
        }
        if (n == 0) b.append("| (no benchmark in common with the baseline) | | | | | |\n");
        b.append('\n');
    }

    /** "12 runs failed with REASON (NetPipe.channelLatency size=1 (round 1), ...; logs/sdp__r1.log)", per distinct reason. */
    static String failureSummary(Config c) {
        Map<String, List<String[]>> byReason = new LinkedHashMap<>();
        for (String[] f : c.failures) byReason.computeIfAbsent(f[1], x -> new ArrayList<>()).add(f);
        List<String> parts = new ArrayList<>();
        for (Map.Entry<String, List<String[]>> e : byReason.entrySet()) {
            List<String[]> fs = e.getValue();
            String which = fs.get(0)[0] + (fs.size() > 1 ? " and " + (fs.size() - 1) + " more" : "");
            parts.add(fs.size() + " benchmark run(s) failed: " + e.getKey() + " (" + which + "; " + fs.get(0)[2] + ")");
        }
        return String.join("; ", parts);
    }

    static String unitText(String unit) {
        return unit == null ? "" : unit.equals("us") ? "µs" : unit;
    }

    static String mdCell(String s) {
        return s == null ? "" : s.replace("|", "\\|").replace("\n", " ");
    }

    // ------------------------------------------------------------------------------------------ machine

    static Map<String, String> machine(String javaBin) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("cpus", Integer.toString(Runtime.getRuntime().availableProcessors()));
        m.put("cpu", firstMatch(Paths.get("/proc/cpuinfo"), "^model name\\s*:\\s*(.*)$", "unknown CPU"));
        String mem = firstMatch(Paths.get("/proc/meminfo"), "^MemTotal:\\s*(\\d+) kB", null);
        m.put("memory", mem == null ? "?" : String.format(Locale.ROOT, "%.0f GiB", Long.parseLong(mem) / 1048576.0));
        m.put("os", firstMatch(Paths.get("/etc/os-release"), "^PRETTY_NAME=\"?([^\"]*)\"?$", System.getProperty("os.name")));
        m.put("kernel", System.getProperty("os.version"));
        m.put("java", javaBin);
        return m;
    }

    static String firstMatch(Path f, String regex, String dflt) {
        try {
            Pattern p = Pattern.compile(regex);
            for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
                Matcher m = p.matcher(line);
                if (m.find()) return m.group(1).trim();
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or not readable
        }
        return dflt;
    }

    /** The address the benchmarks use (-Dsdp4j.bench.host on this JVM, passed on to the measuring JVMs). */
    static String host() {
        return System.getProperty("sdp4j.bench.host", "127.0.0.1");
    }

    static String loadAverage() {
        return String.format(Locale.ROOT, "%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }

    /** "IBM Data Server Driver for JDBC and SQLJ 4.38.7 -> Apache Derby ...", as a measuring JVM logged it. */
    static String driverDescription(Path logs) {
        try (var l = Files.list(logs)) {
            for (Path p : (Iterable<Path>) l.sorted()::iterator) {
                if (!p.getFileName().toString().endsWith(".log") || p.getFileName().toString().startsWith("decisions-")) continue;
                String d = firstMatch(p, "^bench-server: database: (.*)$", null);
                if (d != null) return d;
            }
        } catch (IOException e) {
            // below
        }
        return "IBM Data Server Driver for JDBC (JCC), version not logged";
    }
}
