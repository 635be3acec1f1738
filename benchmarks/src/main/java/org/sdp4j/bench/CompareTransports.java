package org.sdp4j.bench;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.format.OutputFormat;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;
import org.openjdk.jmh.util.ListStatistics;

/**
 * Runs each benchmark once per transport configuration in one invocation and prints a comparison table.
 *
 * <p>The transport is not a code path in the benchmarks: it is the forked JVM's command line. {@code none} forks a
 * plain JVM; every other configuration appends {@code -javaagent:sdp4j-agent.jar=conf=FILE} with a libsdp.conf whose
 * catch-all rules use that family ({@code use FAMILY server * *:*}, {@code use FAMILY client * *:*}), after one
 * {@code use tcp} rule that keeps JMH's own host-fork link (a fixed port) on TCP.
 *
 * <p>Configurations are interleaved to cancel drift on a noisy machine: for each benchmark, {@code rounds} rounds, and in
 * each round one fork of every configuration, the order rotated from round to round. Before measuring, every agent
 * configuration is probed ({@link TransportProbe} in a JVM started the same way); one that cannot run here is reported
 * as {@code unavailable: <reason>}, never dropped.
 *
 * <pre>
 * CompareTransports [--quick|--full] [--agent JAR] [--configs none,tcp,both,sdp] [--bench REGEX] [--rounds N]
 *                   [--warmup N --warmup-time S --iterations N --time S] [--jvm PATH] [--out DIR] [-p name=v1,v2]
 * </pre>
 * Output: the table on stdout; {@code OUT/*.json} (JMH JSON, one file per fork run), {@code OUT/summary.csv},
 * {@code OUT/summary.txt}, {@code OUT/probe-*.txt}, {@code OUT/selftest.txt}, {@code OUT/logs/*.log} (JMH's output).
 * Exit status 0 when every available configuration ran, 1 when a run failed, 2 for bad usage.
 */
public final class CompareTransports {

    /** JMH's GC profiler's bytes allocated per operation (all threads of the fork). */
    static final String ALLOC_NORM = "gc.alloc.rate.norm";

    static final String[] DEFAULT_BENCHMARKS = {
        "org.sdp4j.bench.SocketPingPong.socket",
        "org.sdp4j.bench.SocketPingPong.socketChannel",
        "org.sdp4j.bench.JccWorkload.insert",
        "org.sdp4j.bench.JccWorkload.select",
    };
    /** Run only when {@code --bench} names them. */
    static final String[] OTHER_BENCHMARKS = {
        "org.sdp4j.bench.SlowReader.write",
    };

    /** Settings of one invocation. */
    static final class Settings {
        int rounds = 2, warmup = 2, iterations = 3;
        double warmupTime = 1, time = 1;
        List<String> configs = new ArrayList<>(List.of("none", "tcp", "both", "sdp"));
        String benchRegex;
        Path agent;
        Path out = Paths.get("benchmarks", "target", "results");
        String jvm;
        Map<String, String[]> params = new LinkedHashMap<>();
        List<String> forkJvmArgs = new ArrayList<>(List.of("-Xms512m", "-Xmx512m"));
        String mode = "quick";
    }

    /**
     * Configurations that are a transport with sdp4j settings of their own, to measure a change side by side with
     * what it replaced: name -> {family, JVM arguments...}.
     */
    static final Map<String, List<String>> VARIANTS = Map.ofEntries(
            // UCX's own shared-memory defaults (a 4 MiB receive pool and a 64-entry FIFO per worker), as before
            // issue 13's sdp4j.ucx.config
            Map.entry("ucx-ucxdefaults", List.of("ucx", "-Dsdp4j.ucx.config=")),
            // half sdp4j's FIFO and receive-buffer growth: a worker pair makes and unmaps half the shared memory
            Map.entry("ucx-fifo16", List.of("ucx", "-Dsdp4j.ucx.config=MM_RX_BUFS_GROW=8,MM_FIFO_SIZE=16")),
            // spins as before the shared spin policy (issue 18): every turn yields, whatever the load
            Map.entry("ucx-yield", List.of("ucx", "-Dsdp4j.spin.policy=false")),
            // a 100 us busy-poll set explicitly (the default since issue 18's eleventh pass, on 2 CPUs or more)
            Map.entry("ucx-poll100", List.of("ucx", "-Dsdp4j.ucx.poll=100")),
            // no busy-poll at all: what a local connection on fewer than 4 CPUs did from issue 18's third pass on
            Map.entry("ucx-nospin", List.of("ucx", "-Dsdp4j.ucx.poll=0")),
            // the runnable count's verdict as in the eleventh pass: sampled every 10 ms, one sample stops spins
            Map.entry("ucx-sample10", List.of("ucx", "-Dsdp4j.spin.sample=10000", "-Dsdp4j.spin.confirm=1")),
            // sampled every 2 ms (the default), one sample stops spins
            Map.entry("ucx-confirm1", List.of("ucx", "-Dsdp4j.spin.confirm=1")),
            // virtual threads do not busy-poll (platform threads do)
            Map.entry("ucx-vspin0", List.of("ucx", "-Dsdp4j.ucx.poll.virtual=0")),
            // one thread of a process busy-polls at a time (the default: as many as CPUs)
            Map.entry("ucx-spinners1", List.of("ucx", "-Dsdp4j.ucx.spinners=1")),
            // a platform thread that UCX will not let sleep yields at once (the tenth pass) / goes round 8 times first
            Map.entry("ucx-retry0", List.of("ucx", "-Dsdp4j.ucx.busy.retries=0")),
            Map.entry("ucx-retry8", List.of("ucx", "-Dsdp4j.ucx.busy.retries=8")),
            // a sleeping waiter's first bound as the watchdog's alarms had it, 1 ms (issue 18: now 100 ms)
            Map.entry("ucx-tick1ms", List.of("ucx", "-Dsdp4j.ucx.tick=1000")),
            // a sleeping waiter's first bound 10 ms, as from issue 18's ninth pass to its fourteenth (now 100 ms)
            Map.entry("ucx-tick10ms", List.of("ucx", "-Dsdp4j.ucx.tick=10000")),
            // the first bound of 50 us that issue 18's ninth pass replaced with 10 ms
            Map.entry("ucx-tick50", List.of("ucx", "-Dsdp4j.ucx.tick=50")),
            // virtual threads' tick-bounded parks timed (the JDK's unparker), as before the parker's sweep
            Map.entry("ucx-timedpark", List.of("ucx", "-Dsdp4j.ucx.park.timed=true")),
            // the JDK's own pollers as platform threads (its default before JDK 22 on Linux): what ucx's parker is
            Map.entry("tcp-syspollers", List.of("tcp", "-Djdk.pollerMode=1")),
            // virtual threads parked through sdp4j's own poller thread only, not the JDK's pollers
            Map.entry("ucx-ownpoller", List.of("ucx", "-Dsdp4j.ucx.parker=own")),
            // no spare workers made ahead: a new pair's connect makes its own when the pool is empty (as before)
            Map.entry("ucx-nospares", List.of("ucx", "-Dsdp4j.ucx.pool.spares=0")),
            // connects of virtual threads on shared links (SharedLink; off by default, issue 18)
            Map.entry("ucx-links", List.of("ucx", "-Dsdp4j.ucx.links=virtual")));

    /** One transport configuration and whether it can run here. */
    static final class Config {
        final String name;
        final String family;         // null for "none"
        final List<String> extraJvmArgs;
        Path conf;
        String unavailable;          // null when it can run
        String note = "";            // e.g. "TCP after RDMA attempt: <reason>"

        Config(String name) {
            this.name = name;
            List<String> v = VARIANTS.get(name);
            this.family = name.equals("none") ? null : v != null ? v.get(0) : name;
            this.extraJvmArgs = v == null ? List.of() : List.copyOf(v.subList(1, v.size()));
        }

        List<String> jvmArgs(Path agent) {
            if (family == null) return List.of();
            List<String> a = new ArrayList<>();
            a.add("-javaagent:" + agent.toAbsolutePath() + "=conf=" + conf.toAbsolutePath());
            a.addAll(extraJvmArgs);
            return a;
        }
    }

    /** Measurements of one benchmark (with params) in one configuration, pooled over rounds. */
    static final class Cell {
        final ListStatistics iterations = new ListStatistics();
        final List<Double> forkScores = new ArrayList<>();
        String unit = "";
        final List<String> failures = new ArrayList<>();
    }

    private CompareTransports() {}

    public static void main(String[] args) {
        int rc;
        try {
            rc = run(args, System.out, System.err);
        } catch (IllegalArgumentException e) {
            System.err.println("compare: " + e.getMessage());
            usage(System.err);
            rc = 2;
        } catch (Exception e) {
            System.err.println("compare: FAILED: " + e);
            e.printStackTrace(System.err);
            rc = 1;
        }
        System.exit(rc);
    }

    static void usage(PrintStream s) {
        s.println("usage: CompareTransports [--quick|--full] [--agent JAR] [--configs none,tcp,both,sdp] [--bench REGEX]");
        s.println("         [--rounds N] [--warmup N] [--warmup-time S] [--iterations N] [--time S] [--jvm PATH]");
        s.println("         [--out DIR] [-p name=v1,v2] [--fork-jvm-args \"-Xmx512m ...\"]");
        s.println("  -Djdbc.url=... -Djdbc.user=... -Djdbc.password=... on this JVM are passed to the forks (real Db2).");
    }

    static Settings parse(String[] args) {
        Settings s = new Settings();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--quick":
                    s.mode = "quick"; s.rounds = 2; s.warmup = 2; s.warmupTime = 1; s.iterations = 3; s.time = 1;
                    break;
                case "--full":
                    s.mode = "full"; s.rounds = 5; s.warmup = 3; s.warmupTime = 2; s.iterations = 5; s.time = 2;
                    break;
                case "--agent": s.agent = Paths.get(value(args, ++i, a)); break;
                case "--configs": s.configs = new ArrayList<>(List.of(value(args, ++i, a).split(","))); break;
                case "--bench": s.benchRegex = value(args, ++i, a); break;
                case "--rounds": s.rounds = positive(value(args, ++i, a), a); break;
                case "--warmup": s.warmup = Integer.parseInt(value(args, ++i, a)); break;
                case "--warmup-time": s.warmupTime = Double.parseDouble(value(args, ++i, a)); break;
                case "--iterations": s.iterations = positive(value(args, ++i, a), a); break;
                case "--time": s.time = Double.parseDouble(value(args, ++i, a)); break;
                case "--jvm": s.jvm = value(args, ++i, a); break;
                case "--out": s.out = Paths.get(value(args, ++i, a)); break;
                case "--fork-jvm-args": s.forkJvmArgs = new ArrayList<>(List.of(value(args, ++i, a).trim().split("\\s+"))); break;
                case "-p": {
                    String kv = value(args, ++i, a);
                    int eq = kv.indexOf('=');
                    if (eq <= 0) throw new IllegalArgumentException("-p needs name=v1,v2");
                    s.params.put(kv.substring(0, eq), kv.substring(eq + 1).split(","));
                    break;
                }
                case "-h": case "--help": usage(System.out); System.exit(0); break;
                default: throw new IllegalArgumentException("unknown option " + a);
            }
        }
        for (String c : s.configs) {
            if (!c.matches("[a-z][a-z0-9]*(-[a-z0-9]+)*")) throw new IllegalArgumentException("bad configuration name '" + c + "'");
        }
        if (!s.configs.contains("none")) s.configs.add(0, "none");   // the baseline of every ratio
        if (s.agent == null) s.agent = findAgent();
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

    /** -Dsdp4j.agent, else sdp-jdbc/target/sdp4j-agent.jar under the current directory or next to benchmarks.jar. */
    static Path findAgent() {
        String p = System.getProperty("sdp4j.agent");
        if (p != null) return Paths.get(p);
        List<Path> candidates = new ArrayList<>();
        candidates.add(Paths.get("sdp-jdbc", "target", "sdp4j-agent.jar"));
        candidates.add(Paths.get("..", "sdp-jdbc", "target", "sdp4j-agent.jar"));
        String cp = System.getProperty("java.class.path", "");
        for (String e : cp.split(File.pathSeparator)) {
            Path jar = Paths.get(e).toAbsolutePath();
            if (jar.getParent() != null && jar.getParent().getParent() != null && jar.getParent().getParent().getParent() != null) {
                candidates.add(jar.getParent().getParent().getParent().resolve(Paths.get("sdp-jdbc", "target", "sdp4j-agent.jar")));
            }
        }
        for (Path c : candidates) if (Files.isRegularFile(c)) return c.toAbsolutePath().normalize();
        return candidates.get(0).toAbsolutePath().normalize();
    }

    static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        Settings s = parse(args);
        long start = System.nanoTime();
        Files.createDirectories(s.out.resolve("logs"));
        cleanOldResults(s.out);

        // JMH's host-fork link on a fixed port, so the agent configurations can keep it on TCP with one rule
        int linkPort = DerbyDrdaServer.freePort(java.net.InetAddress.getLoopbackAddress());
        System.setProperty("jmh.link.port", Integer.toString(linkPort));

        String javaBin = s.jvm != null ? s.jvm : Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        out.printf(Locale.ROOT, "compare: mode %s: %d round(s) x (%d warmup x %.1fs + %d x %.1fs) per fork, configurations %s%n",
                s.mode, s.rounds, s.warmup, s.warmupTime, s.iterations, s.time, s.configs);
        out.println("compare: fork JVM " + javaBin + " " + String.join(" ", s.forkJvmArgs));
        out.println("compare: agent " + s.agent + (Files.isRegularFile(s.agent) ? "" : " (MISSING)"));
        out.println("compare: machine: " + Runtime.getRuntime().availableProcessors() + " CPUs, load average "
                + String.format(Locale.ROOT, "%.2f", java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage())
                + " (shared machines make absolute numbers noisy; compare ratios)");

        // ---- configurations and their availability ----
        List<Config> configs = new ArrayList<>();
        for (String name : s.configs) configs.add(new Config(name));
        String selftest = null;
        if (Files.isRegularFile(s.agent)) {
            selftest = Probes.exec(List.of(javaBin, "-jar", s.agent.toString(), "selftest"), 60).output;
            Files.writeString(s.out.resolve("selftest.txt"), selftest);
        }
        for (Config c : configs) {
            if (c.family == null) continue;
            if (!Files.isRegularFile(s.agent)) {
                c.unavailable = "agent jar not found at " + s.agent + " (build it: mvn -B -ntp -DskipTests package)";
                continue;
            }
            c.conf = s.out.resolve("libsdp-" + c.name + ".conf");
            Files.writeString(c.conf, confText(c.family, linkPort));
            Probes.probe(c, javaBin, s, selftest);
            out.println("compare: configuration " + c.name + ": " + (c.unavailable == null ? "available" + (c.note.isEmpty() ? "" : " (" + c.note + ")")
                    : "unavailable: " + c.unavailable));
        }

        // ---- benchmarks ----
        List<String> benchmarks = new ArrayList<>();
        for (String b : DEFAULT_BENCHMARKS) {
            if (s.benchRegex == null || Pattern.compile(s.benchRegex).matcher(b).find()) benchmarks.add(b);
        }
        for (String b : OTHER_BENCHMARKS) {
            if (s.benchRegex != null && Pattern.compile(s.benchRegex).matcher(b).find()) benchmarks.add(b);
        }
        if (benchmarks.isEmpty()) throw new IllegalArgumentException("--bench " + s.benchRegex + " matches no benchmark");
        List<Config> runnable = new ArrayList<>();
        for (Config c : configs) if (c.unavailable == null) runnable.add(c);

        // label -> config -> cell; labels include params ("JccWorkload.select rows=4000")
        Map<String, Map<String, Cell>> cells = new LinkedHashMap<>();
        int total = benchmarks.size() * s.rounds * runnable.size(), done = 0;
        Map<String, Map<String, List<String>>> failures = new LinkedHashMap<>();
        boolean failed = false;
        for (String bench : benchmarks) {
            for (int round = 0; round < s.rounds; round++) {
                for (int k = 0; k < runnable.size(); k++) {
                    Config c = runnable.get((k + round) % runnable.size());   // rotate the order every round
                    done++;
                    String tag = shortName(bench) + "__" + c.name + "__r" + (round + 1);
                    Path json = s.out.resolve(tag + ".json");
                    Path log = s.out.resolve("logs").resolve(tag + ".log");
                    String head = String.format(Locale.ROOT, "[%2d/%d] %-28s %-5s round %d/%d", done, total, shortName(bench), c.name,
                            round + 1, s.rounds);
                    out.print(head + " ... ");
                    out.flush();
                    try (PrintStream logOut = new PrintStream(new FileOutputStream(log.toFile()), true, StandardCharsets.UTF_8)) {
                        Collection<RunResult> results = runOnce(bench, c, s, javaBin, json, logOut);
                        if (results.isEmpty()) throw new RunnerException("JMH returned no result");
                        StringBuilder line = new StringBuilder();
                        for (RunResult rr : results) {
                            String label = label(rr);
                            Cell cell = cells.computeIfAbsent(label, x -> new LinkedHashMap<>()).computeIfAbsent(c.name, x -> new Cell());
                            cell.unit = rr.getPrimaryResult().getScoreUnit();
                            // CPU time per operation: a row of its own ("<label> cpu"), compared as the time is
                            Cell cpu = cells.computeIfAbsent(label + " cpu", x -> new LinkedHashMap<>()).computeIfAbsent(c.name, x -> new Cell());
                            // bytes allocated per operation, every thread of the fork (JMH's GC profiler): noise-proof
                            Cell alloc = cells.computeIfAbsent(label + " alloc", x -> new LinkedHashMap<>()).computeIfAbsent(c.name, x -> new Cell());
                            for (BenchmarkResult br : rr.getBenchmarkResults()) {
                                for (IterationResult ir : br.getIterationResults()) {
                                    cell.iterations.addValue(ir.getPrimaryResult().getScore());
                                    Result<?> r = ir.getSecondaryResults().get(CpuTimeProfiler.NAME);
                                    if (r != null) {
                                        cpu.iterations.addValue(r.getScore());
                                        cpu.unit = "us CPU/op";
                                    }
                                    Result<?> a = ir.getSecondaryResults().get(ALLOC_NORM);
                                    if (a != null) {
                                        alloc.iterations.addValue(a.getScore());
                                        alloc.unit = "B/op";
                                    }
                                }
                                cell.forkScores.add(br.getPrimaryResult().getScore());
                                Result<?> r = br.getSecondaryResults().get(CpuTimeProfiler.NAME);
                                if (r != null) cpu.forkScores.add(r.getScore());
                                Result<?> a = br.getSecondaryResults().get(ALLOC_NORM);
                                if (a != null) alloc.forkScores.add(a.getScore());
                            }
                            line.append(String.format(Locale.ROOT, "%s %.3f %s", label.contains(" ") ? label.substring(label.indexOf(' ') + 1) : "",
                                    rr.getPrimaryResult().getScore(), cell.unit).trim()).append("  ");
                        }
                        out.printf(Locale.ROOT, "%s(%.0f s)%n", line, (System.nanoTime() - start) / 1e9);
                    } catch (RunnerException | RuntimeException e) {
                        failed = true;
                        String why = Probes.failureReason(e, log);
                        out.println("FAILED: " + why + " (log: " + log + ")");
                        failures.computeIfAbsent(shortName(bench), x -> new LinkedHashMap<>())
                                .computeIfAbsent(c.name, x -> new ArrayList<>()).add(why);
                    }
                }
            }
        }

        // ---- the table ----
        mergeFailures(cells, failures);
        String table = table(cells, configs);
        out.println();
        out.print(table);
        Files.writeString(s.out.resolve("summary.txt"), table);
        Files.writeString(s.out.resolve("summary.csv"), csv(cells, configs));
        out.printf(Locale.ROOT, "%ncompare: %d fork runs in %.0f s, load average now %.2f; JMH JSON, summary.csv and logs in %s%n", done,
                (System.nanoTime() - start) / 1e9, java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
                s.out.toAbsolutePath().normalize());
        return failed ? 1 : 0;
    }

    /** Attaches failed runs to the rows (labels with params) of their benchmark, or gives them a row of their own. */
    static void mergeFailures(Map<String, Map<String, Cell>> cells, Map<String, Map<String, List<String>>> failures) {
        for (Map.Entry<String, Map<String, List<String>>> f : failures.entrySet()) {
            List<String> labels = new ArrayList<>();
            for (String label : cells.keySet()) if (label.equals(f.getKey()) || label.startsWith(f.getKey() + " ")) labels.add(label);
            if (labels.isEmpty()) {
                cells.put(f.getKey(), new LinkedHashMap<>());
                labels.add(f.getKey());
            }
            for (String label : labels) {
                for (Map.Entry<String, List<String>> byConfig : f.getValue().entrySet()) {
                    cells.get(label).computeIfAbsent(byConfig.getKey(), x -> new Cell()).failures.addAll(byConfig.getValue());
                }
            }
        }
    }

    static String confText(String family, int linkPort) {
        return "# written by CompareTransports: every connection of the fork on '" + family + "'\n"
                + "# JMH's own link between the host JVM (no agent) and this fork stays on TCP\n"
                + "use tcp client * *:" + linkPort + "\n"
                + "use " + family + " server * *:*\n"
                + "use " + family + " client * *:*\n";
    }

    static Collection<RunResult> runOnce(String bench, Config c, Settings s, String java, Path json, PrintStream log) throws RunnerException {
        List<String> jvmArgs = new ArrayList<>(s.forkJvmArgs);
        for (String p : List.of("jdbc.url", "jdbc.user", "jdbc.password", "jdbc.securityMechanism")) {
            if (System.getProperty(p) != null) jvmArgs.add("-D" + p + "=" + System.getProperty(p));
        }
        ChainedOptionsBuilder o = new OptionsBuilder()
                .include("^" + Pattern.quote(bench) + "$")
                .forks(1)
                .warmupIterations(s.warmup)
                .warmupTime(time(s.warmupTime))
                .measurementIterations(s.iterations)
                .measurementTime(time(s.time))
                .jvm(java)
                .jvmArgs(jvmArgs.toArray(new String[0]))
                .jvmArgsAppend(c.jvmArgs(s.agent).toArray(new String[0]))
                .shouldFailOnError(true)
                .addProfiler(CpuTimeProfiler.class)
                .addProfiler(org.openjdk.jmh.profile.GCProfiler.class)
                .resultFormat(ResultFormatType.JSON)
                .result(json.toString());
        for (Map.Entry<String, String[]> p : s.params.entrySet()) o = o.param(p.getKey(), p.getValue());
        log.println("# transport configuration: " + c.name + (c.conf != null ? " (" + c.conf + ")" : " (no agent)"));
        OutputFormat fmt = OutputFormatFactory.createFormatInstance(log, VerboseMode.NORMAL);
        return new Runner(o.build(), fmt).run();
    }

    static TimeValue time(double seconds) {
        return new TimeValue(Math.max(1, Math.round(seconds * 1000)), TimeUnit.MILLISECONDS);
    }

    static String shortName(String bench) {
        String[] parts = bench.split("\\.");
        return parts[parts.length - 2] + "." + parts[parts.length - 1];
    }

    static String label(RunResult rr) {
        String name = shortName(rr.getParams().getBenchmark());
        StringBuilder b = new StringBuilder(name);
        for (String k : rr.getParams().getParamsKeys()) b.append(' ').append(k).append('=').append(rr.getParams().getParam(k));
        return b.toString();
    }

    static void cleanOldResults(Path out) throws IOException {
        try (var files = Files.list(out)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                String n = f.getFileName().toString();
                if (n.endsWith(".json") || n.startsWith("summary.") || n.startsWith("probe-") || n.startsWith("libsdp-")
                        || n.equals("selftest.txt")) Files.delete(f);
            }
        }
        try (var files = Files.list(out.resolve("logs"))) {
            for (Path f : (Iterable<Path>) files::iterator) Files.delete(f);
        }
    }

    // ---- statistics ----

    /** Mean and its 99.9% confidence half-width (Student t), as JMH reports "score ± error". */
    static double[] scoreAndError(Cell cell) {
        ListStatistics st = cell.iterations;
        double mean = st.getMean();
        double err = st.getN() > 1 ? st.getMeanErrorAt(0.999) : Double.NaN;
        return new double[] {mean, err};
    }

    /** Ratio a/b with the error propagated from both (first order, relative errors added in quadrature). */
    static double[] ratio(double a, double ea, double b, double eb) {
        double r = a / b;
        double e = Math.abs(r) * Math.sqrt(sq(ea / a) + sq(eb / b));
        return new double[] {r, e};
    }

    private static double sq(double x) { return x * x; }

    static String table(Map<String, Map<String, Cell>> cells, List<Config> configs) {
        StringBuilder b = new StringBuilder();
        int w = 9;
        for (String label : cells.keySet()) w = Math.max(w, label.length());
        String fmt = "%-" + w + "s %-9s %24s %-6s %20s  %s%n";
        String na = "%-" + w + "s %-9s %s%n";
        b.append(String.format(Locale.ROOT, fmt, "Benchmark", "Transport", "Score ± Error (99.9%)", "Units", "Ratio to none", "Notes"));
        b.append(String.format(Locale.ROOT, fmt, "-".repeat(w), "-".repeat(9), "-".repeat(24), "-".repeat(6), "-".repeat(20), "-----"));
        for (Map.Entry<String, Map<String, Cell>> e : cells.entrySet()) {
            Map<String, Cell> byConfig = e.getValue();
            Cell base = byConfig.get("none");
            double[] b0 = base != null && base.iterations.getN() > 0 ? scoreAndError(base) : null;
            boolean first = true;
            for (Config c : configs) {
                String name = first ? e.getKey() : "";
                first = false;
                if (c.unavailable != null) {
                    b.append(String.format(Locale.ROOT, na, name, c.name, "unavailable: " + clip(c.unavailable, 110)));
                    continue;
                }
                Cell cell = byConfig.get(c.name);
                if (cell == null || cell.iterations.getN() == 0) {
                    String why = cell == null || cell.failures.isEmpty() ? "no result" : String.join("; ", cell.failures);
                    b.append(String.format(Locale.ROOT, na, name, c.name, "FAILED: " + why));
                    continue;
                }
                double[] se = scoreAndError(cell);
                String ratio = "";
                if (b0 != null) {
                    double[] r = ratio(se[0], se[1], b0[0], b0[1]);
                    ratio = c.name.equals("none") ? "1.000" : Double.isNaN(r[1]) ? String.format(Locale.ROOT, "%.3f ± ?", r[0])
                            : String.format(Locale.ROOT, "%.3f ± %.3f", r[0], r[1]);
                }
                String notes = cell.forkScores.size() + " forks, " + cell.iterations.getN() + " iterations"
                        + roundRatios(cell, base, c.name)
                        + (cell.failures.isEmpty() ? "" : "; " + cell.failures.size() + " failed: " + cell.failures.get(0))
                        + (c.note.isEmpty() ? "" : "; " + clip(c.note, 90));
                b.append(String.format(Locale.ROOT, fmt, name, c.name, fmtScore(se[0], se[1]), cell.unit, ratio, notes));
            }
        }
        return b.toString();
    }

    /** "; per round 0.97 1.02": each round's fork score over the same round's none fork (drift cancels in each). */
    static String roundRatios(Cell cell, Cell base, String config) {
        if (base == null || config.equals("none") || cell.forkScores.size() != base.forkScores.size() || cell.forkScores.size() < 2) {
            return "";
        }
        StringBuilder b = new StringBuilder("; per round");
        for (int i = 0; i < cell.forkScores.size(); i++) {
            b.append(String.format(Locale.ROOT, " %.2f", cell.forkScores.get(i) / base.forkScores.get(i)));
        }
        return b.toString();
    }

    /** Long reasons are cut in the table (summary.csv and the run's header lines keep them whole). */
    static String clip(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max - 3) + "...";
    }

    static String fmtScore(double s, double e) {
        int decimals = s >= 1000 ? 1 : s >= 100 ? 2 : 3;
        String f = "%." + decimals + "f ± %." + decimals + "f";
        return Double.isNaN(e) ? String.format(Locale.ROOT, "%." + decimals + "f ± ?", s) : String.format(Locale.ROOT, f, s, e);
    }

    static String csv(Map<String, Map<String, Cell>> cells, List<Config> configs) {
        StringBuilder b = new StringBuilder("benchmark,transport,status,score,error_999,unit,ratio_to_none,ratio_error,forks,iterations,note\n");
        for (Map.Entry<String, Map<String, Cell>> e : cells.entrySet()) {
            Cell base = e.getValue().get("none");
            double[] b0 = base != null && base.iterations.getN() > 0 ? scoreAndError(base) : null;
            for (Config c : configs) {
                Cell cell = e.getValue().get(c.name);
                if (c.unavailable != null) {
                    b.append(csvRow(e.getKey(), c.name, "unavailable", "", "", "", "", "", "", "", c.unavailable));
                } else if (cell == null || cell.iterations.getN() == 0) {
                    b.append(csvRow(e.getKey(), c.name, "failed", "", "", "", "", "", "", "",
                            cell == null ? "no result" : String.join("; ", cell.failures)));
                } else {
                    double[] se = scoreAndError(cell);
                    String r = "", re = "";
                    if (b0 != null) {
                        double[] rr = ratio(se[0], se[1], b0[0], b0[1]);
                        r = c.name.equals("none") ? "1" : num(rr[0]);
                        re = c.name.equals("none") ? "0" : num(rr[1]);
                    }
                    b.append(csvRow(e.getKey(), c.name, cell.failures.isEmpty() ? "ok" : "partial", num(se[0]), num(se[1]), cell.unit, r, re,
                            Integer.toString(cell.forkScores.size()), Long.toString(cell.iterations.getN()),
                            c.note + (cell.failures.isEmpty() ? "" : " failed: " + String.join("; ", cell.failures))));
                }
            }
        }
        return b.toString();
    }

    private static String num(double d) {
        return Double.isNaN(d) ? "" : String.format(Locale.ROOT, "%.6g", d);
    }

    private static String csvRow(String... fields) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < fields.length; i++) {
            if (i > 0) b.append(',');
            String f = fields[i] == null ? "" : fields[i].trim();
            if (f.contains(",") || f.contains("\"") || f.contains("\n")) f = '"' + f.replace("\"", "\"\"").replace("\n", " ") + '"';
            b.append(f);
        }
        return b.append('\n').toString();
    }
}
