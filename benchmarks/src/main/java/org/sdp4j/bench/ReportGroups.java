package org.sdp4j.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.openjdk.jmh.util.ListStatistics;

import org.sdp4j.bench.Report.Step;
import org.sdp4j.bench.ReportMath.Quantity;
import org.sdp4j.bench.ReportModel.Config;
import org.sdp4j.bench.ReportModel.Series;
import org.sdp4j.bench.ReportSettings.Settings;

/**
 * The report's groups for issue 13, next to {@link Report}'s {@code db} and {@code net}:
 * <ul>
 *   <li>{@code conc}: {@link Concurrency}: round trips per second with N connections at once, platform and virtual
 *       threads; connect bursts; connect+close;</li>
 *   <li>{@code perftest}: UCX's own {@code ucx_perftest -t stream_lat -s 64} run in turn with the 64 B ping-pong;</li>
 *   <li>{@code users}: {@link H2Workload}, H2's TCP server in a second JVM: INSERT and point SELECT, per round;</li>
 *   <li>{@code pool}: {@link PoolWorkload}, 32 virtual threads through HikariCP to Derby in a second JVM.</li>
 * </ul>
 */
final class ReportGroups {
    private ReportGroups() {}

    static final List<String> GROUPS = List.of("conc", "perftest", "users", "pool");
    static final String PERFTEST = "UcxPerftest.streamLat size=64";

    static String concLabel(String bench, int n, String threads, Settings s) {
        return "Concurrency." + bench + " connections=" + n + " server=" + s.concServer + " threads=" + threads;
    }

    /** The steps of the new groups, in the order they run in a round. */
    static void plan(Settings s, List<Step> steps) {
        if (s.groups.contains("perftest")) {
            Step socket = null;
            for (Step st : steps) if (st.label.equals("NetPipe.socketLatency size=64")) socket = st;
            if (socket == null) {   // the net group does not run 64 B: run it here, with channelLatency
                socket = new Step("NetPipe.socketLatency", "size=64", s.netWarmup, s.netWarmupMs, s.perftestIterations, s.netMs);
                steps.add(socket);
                steps.add(new Step("NetPipe.channelLatency", "size=64", s.netWarmup, s.netWarmupMs, s.perftestIterations, s.netMs));
            }
            socket.perftest = true;
            // jucx alone between the two: splits sdp4j's distance from ucx_perftest into jucx's part and sdp4j's
            steps.add(new Step("JucxPipe.latency", "size=64", s.netWarmup, s.netWarmupMs, s.perftestIterations, s.netMs));
        }
        if (s.groups.contains("users")) {
            for (String b : List.of("insert", "pointSelect")) {
                steps.add(new Step("H2Workload." + b, "rows=1000", s.dbWarmup, s.dbWarmupMs, s.dbIterations, s.dbMs));
            }
        }
        if (s.groups.contains("pool")) {
            steps.add(new Step("PoolWorkload.requests", "pool=10 requests=4 threads=32", 1, s.concWarmupMs, s.concIterations, s.concMs));
        }
        if (s.groups.contains("conc")) {
            // platform threads first: a transport that pins carriers can only hang the virtual-thread steps after them
            List<String> kinds = new ArrayList<>(s.concThreads);
            kinds.sort((a, b) -> a.equals(b) ? 0 : a.equals("platform") ? -1 : 1);
            for (String k : kinds) {
                for (int n : s.concN) {
                    String p = "connections=" + n + " server=" + s.concServer + " threads=" + k;
                    steps.add(new Step("Concurrency.roundTrips", p, 1, s.concWarmupMs, s.concIterations, s.concMs));
                }
                if (k.equals("platform")) {
                    for (String m : List.of("connectClose", "connectExchangeClose")) {
                        steps.add(new Step("Concurrency." + m, "connections=1 server=" + s.concServer + " threads=platform", 1,
                                s.concWarmupMs, s.concIterations, s.concMs));
                    }
                }
                for (String m : List.of("connectBurst", "connectWorkClose")) {
                    for (int n : s.concN) {
                        steps.add(new Step("Concurrency." + m, "connections=" + n + " server=" + s.concServer + " threads=" + k, 0, 0,
                                s.burstIterations, s.concMs));
                    }
                }
            }
        }
    }

    /** What a series of the new groups stands for, or null (then {@link ReportMath#quantity} decides). */
    static Quantity quantity(Series s) {
        double v = s.score(), e = s.error();
        double sec = ReportMath.toSeconds(v, s.unit);
        double rel = Double.isFinite(e) ? e / v : Double.NaN;
        switch (s.bench) {
            case "Concurrency.roundTrips": {
                double r = Concurrency.roundTripsPerOp(param(s.params, "connections")) / sec;
                return new Quantity("round trips per second", "/s", true, r, r * rel);
            }
            case "Concurrency.connectBurst": {
                double r = param(s.params, "connections") / sec;
                return new Quantity("connects per second (connect, 64 B round trip, close)", "/s", true, r, r * rel);
            }
            case "Concurrency.connectWorkClose": {
                int n = param(s.params, "connections");
                double r = (double) n * Concurrency.workPerConnection(n) / sec;
                return new Quantity("round trips per second, connects included", "/s", true, r, r * rel);
            }
            case "UcxPerftest.streamLat":
                return new Quantity("round trip", "us", false, v, e);
            default:
                return null;
        }
    }

    static int param(String params, String name) {
        Matcher m = Pattern.compile("\\b" + name + "=(\\d+)").matcher(params);
        return m.find() ? Integer.parseInt(m.group(1)) : 1;
    }

    /** Runs ucx_perftest once for iteration {@code k} of {@code round} and files it under {@link #PERFTEST}. */
    static String perftest(Settings s, Map<String, Map<String, Series>> results, int round, int k) {
        Series x = results.computeIfAbsent(PERFTEST, l -> new java.util.LinkedHashMap<>())
                .computeIfAbsent("ucx", l -> new Series("UcxPerftest.streamLat", "size=64", "ucx"));
        x.mode = "median";
        try {
            Path log = s.out.resolve("logs").resolve("ucx_perftest.log");
            UcxPerftest.Result r = UcxPerftest.run(64, s.perftestExchanges, log);
            x.addIteration(round, k, r.roundTripUs(), "us/op");
            return String.format(Locale.ROOT, "%.3f us", r.roundTripUs());
        } catch (Exception e) {
            if (x.failures.size() < 3) x.failures.add("round " + round + ": " + e.getMessage());
            return "FAILED: " + e.getMessage();
        }
    }

    // ------------------------------------------------------------------------------------------ charts

    static void charts(Settings s, List<Config> configs, Map<String, Map<String, Series>> results, Map<String, String> charts) {
        if (!s.groups.contains("conc")) return;
        List<Double> ticks = new ArrayList<>();
        for (int n : s.concN) ticks.add((double) n);
        String sub = s.profile + " profile, " + s.rounds + " round(s); geometric mean ± " + ReportMath.CI + " interval; higher is better";
        for (String[] b : new String[][] {{"roundTrips", "conc-roundtrips.svg", "64 B round trips per second vs concurrent connections",
                "round trips per second (log)"}, {"connectBurst", "conc-connect.svg",
                "Connect bursts: N threads connect, do one 64 B round trip and close, at once", "connects per second (log)"}}) {
            List<Charts.Line> lines = new ArrayList<>();
            for (String k : s.concThreads) {
                for (Config c : configs) {
                    if (!c.available()) continue;
                    Charts.Line l = new Charts.Line(c.name + ", " + k + " threads", Charts.color(c.name), k.equals("virtual"),
                            k.equals("virtual"), Charts.marker(c.name));
                    for (int n : s.concN) {
                        Series x = results.getOrDefault(concLabel(b[0], n, k, s), Map.of()).get(c.name);
                        if (x == null || !x.ok()) continue;
                        Quantity q = ReportMath.quantity(x);
                        l.add(n, q.value, q.error);
                    }
                    if (!l.points.isEmpty()) lines.add(l);
                }
            }
            charts.put(b[1], Charts.logLog(b[2], sub, "concurrent connections (log scale)", b[3], ticks, v -> Long.toString(Math.round(v)),
                    ReportGroups::rate, lines, ReportCharts.unavailableNotes(configs)));
        }
    }

    static String rate(double v) {
        if (v >= 1e6) return trim(v / 1e6) + "M/s";
        if (v >= 1e3) return trim(v / 1e3) + "k/s";
        return trim(v) + "/s";
    }

    private static String trim(double v) {
        return ReportMarkdown.sig(v);
    }

    // ------------------------------------------------------------------------------------------ markdown

    static void markdown(StringBuilder b, Settings s, List<Config> configs, Map<String, Map<String, Series>> results, java.util.Set<String> charts) {
        if (s.groups.contains("conc")) markdownConc(b, s, configs, results, charts);
        if (s.groups.contains("perftest")) markdownPerftest(b, configs, results);
        if (s.groups.contains("users")) {
            b.append("## Where users feel it: H2 2.2 over TCP server, in-memory database\n\n")
                    .append("H2 2.2.224's TCP server in a second JVM (started with the measuring JVM's arguments: the same agent and rules), ")
                    .append("H2's JDBC driver in the measuring JVM; a table of 1000 rows. Every execution timed; per round: the round's ")
                    .append("geometric mean over its executions and, in brackets, the range of its iterations' geometric means; the ratio column is ucx / tcp from ")
                    .append("iterations run side by side (below 1: ucx faster). A gain that comes and goes shows as rounds that disagree.\n\n");
            roundTable(b, s, configs, results, "H2Workload.insert rows=1000", "single INSERT, autocommit");
            roundTable(b, s, configs, results, "H2Workload.pointSelect rows=1000", "prepared point SELECT");
        }
        if (s.groups.contains("pool")) {
            b.append("## JCC from 32 virtual threads through HikariCP\n\n")
                    .append("32 virtual threads (one per request), 4 requests each per operation, share a HikariCP 5 pool of 10 IBM Db2 ")
                    .append("driver connections to Derby 10.8.3.0's Network Server in a second JVM on the agent; a request borrows a ")
                    .append("connection, runs one INSERT with autocommit and one prepared point SELECT (checked) and returns it. ")
                    .append("The time per operation (256 statements) per round; the ratio column is ucx / tcp of times (below 1: ucx faster).\n\n");
            roundTable(b, s, configs, results, "PoolWorkload.requests pool=10 requests=4 threads=32", "256 statements from 32 virtual threads");
        }
    }

    static void markdownConc(StringBuilder b, Settings s, List<Config> configs, Map<String, Map<String, Series>> results, java.util.Set<String> charts) {
        b.append("## Many connections: 64 B round trips per second, N connections at once\n\n")
                .append("N clients, each on its own thread (platform or virtual), each with its own connection to an echo server whose ")
                .append("per-connection threads are of the same kind, ")
                .append(s.concServer.equals("jvm") ? "**in the same JVM** (both ends on the agent in one JVM)" : "**in a second JVM** on the agent")
                .append(". One operation: every connection does about 2000/N (at least 2) round trips of 64 bytes over `java.net.Socket`, ")
                .append("all at once; every echoed byte is checked. The connections are opened once per JVM (a burst of N connects) ")
                .append("and kept. Round trips per second = round trips per operation / geometric mean time of an operation. ")
                .append("Ratios are paired (iterations side by side); above 1: more round trips per second.\n\n");
        if (charts.contains("conc-roundtrips.svg")) b.append("![round trips per second vs connections](charts/conc-roundtrips.svg)\n\n");
        concTable(b, s, configs, results, "roundTrips");
        markdownWhere(b, s, configs);
        b.append("**UCX against TCP, at every N** (ucx / tcp round trips per second, paired, ").append(ReportMath.CI).append(" interval):\n\n");
        verdicts(b, s, results, "roundTrips");
        b.append("### Connect bursts (connect included)\n\n")
                .append("N new threads each connect, do one 64 B round trip and close, all at once (a pool filling up): connects per second.\n\n");
        if (charts.contains("conc-connect.svg")) b.append("![connect bursts](charts/conc-connect.svg)\n\n");
        concTable(b, s, configs, results, "connectBurst");
        b.append("### Connect, 12,800 / N round trips, close (issue 18's workload)\n\n")
                .append("N new threads each connect, do 12,800 / N round trips of 64 B (at least 1) and close, all at once: round ")
                .append("trips per second, the connects' time included.\n\n");
        concTable(b, s, configs, results, "connectWorkClose");
        b.append("**UCX against TCP, connects included** (ucx / tcp, paired, ").append(ReportMath.CI).append(" interval; above 1: ucx ")
                .append("faster):\n\n");
        verdicts(b, s, results, "connectWorkClose");
        b.append("### Connect + close, one connection (with and without a round trip)\n\n");
        b.append("| measurement | ");
        for (Config c : configs) b.append(c.name).append(" | ");
        b.append("ucx / tcp |\n|---|");
        for (int i = 0; i <= configs.size(); i++) b.append("---:|");
        b.append('\n');
        for (String[] m : new String[][] {{"connectClose", "connect + close (µs)"},
                {"connectExchangeClose", "connect + 64 B round trip + close (µs)"}}) {
            Map<String, Series> row = results.getOrDefault("Concurrency." + m[0] + " connections=1 server=" + s.concServer + " threads=platform", Map.of());
            b.append("| ").append(m[1]).append(" | ");
            for (Config c : configs) b.append(cell(c, row.get(c.name))).append(" | ");
            b.append(pair(row.get("ucx"), row.get("tcp"))).append(" |\n");
        }
        b.append('\n');
    }

    static final Pattern OPENED = Pattern.compile("concurrency: \\d+ (\\w+)-thread connections to \\S*?:(\\d+) opened");
    static final Pattern DECISION = Pattern.compile(" client \\S+:(\\d+) .*transport=(\\S+)(?:.*fallback=\"([^\"]*)\")?");

    /**
     * Which transport the connects to the echo servers really took, per transport and round, from the agent's decision
     * log: a configuration's rules ask for UCX, but a connect whose handshake fails falls back to TCP (and the agent
     * may keep sending that destination to TCP), so the rows above are only "ucx" where these counts say so.
     */
    static void markdownWhere(StringBuilder b, Settings s, List<Config> configs) {
        Path logs = s.out.resolve("logs");
        StringBuilder t = new StringBuilder();
        for (Config c : configs) {
            if (c.probe.family == null || !c.available()) continue;
            for (int r = 1; r <= s.rounds; r++) {
                String tag = c.name + "__r" + r;
                Map<String, String> ports = new java.util.TreeMap<>();   // port -> thread kind of its echo server
                Map<String, Map<String, Integer>> counts = new java.util.TreeMap<>();
                Map<String, String> why = new java.util.HashMap<>();
                try {
                    for (String line : java.nio.file.Files.readAllLines(logs.resolve(tag + ".log"))) {
                        Matcher m = OPENED.matcher(line);
                        if (m.find()) ports.put(m.group(2), m.group(1));
                    }
                    Path d = logs.resolve("decisions-" + tag + ".log");
                    if (java.nio.file.Files.isRegularFile(d)) {
                        for (String line : java.nio.file.Files.readAllLines(d)) {
                            Matcher m = DECISION.matcher(line);
                            if (!m.find() || !ports.containsKey(m.group(1))) continue;
                            counts.computeIfAbsent(m.group(1), x -> new java.util.TreeMap<>()).merge(m.group(2), 1, Integer::sum);
                            if (m.group(3) != null) why.putIfAbsent(m.group(1), m.group(3));
                        }
                    }
                } catch (java.io.IOException e) {
                    continue;
                }
                for (Map.Entry<String, String> p : ports.entrySet()) {
                    Map<String, Integer> n = counts.getOrDefault(p.getKey(), Map.of());
                    List<String> l = new ArrayList<>();
                    for (Map.Entry<String, Integer> e : n.entrySet()) l.add(e.getValue() + " x " + e.getKey());
                    t.append("| ").append(c.name).append(" | ").append(r).append(" | ").append(p.getValue()).append(" | ")
                            .append(l.isEmpty() ? "(none logged)" : String.join(", ", l)).append(" | ")
                            .append(why.containsKey(p.getKey()) ? ReportMarkdown.mdCell(why.get(p.getKey())) : "").append(" |\n");
                }
            }
        }
        if (t.length() == 0) return;
        b.append("**Where the connections went.** The agent's decision log for every connect to the echo servers (fleets, bursts, ")
                .append("connect+close) per transport, round and thread kind: a connect whose UCX handshake fails falls back to TCP, so a ")
                .append("`ucx` column measures UCX only as far as these counts say.\n\n")
                .append("| transport | round | threads | connects by transport taken | first fallback reason |\n|---|---:|---|---|---|\n")
                .append(t).append('\n');
    }

    static void concTable(StringBuilder b, Settings s, List<Config> configs, Map<String, Map<String, Series>> results, String bench) {
        b.append("| threads | N | ");
        for (Config c : configs) b.append(c.name).append(" | ");
        b.append("tcp / none | ucx / none | **ucx / tcp** |\n|---|---:|");
        for (int i = 0; i < configs.size() + 3; i++) b.append("---:|");
        b.append('\n');
        for (String k : s.concThreads) {
            for (int n : s.concN) {
                Map<String, Series> row = results.getOrDefault(concLabel(bench, n, k, s), Map.of());
                b.append("| ").append(k).append(" | ").append(n).append(" | ");
                for (Config c : configs) b.append(cell(c, row.get(c.name))).append(" | ");
                b.append(pair(row.get("tcp"), row.get("none"))).append(" | ").append(pair(row.get("ucx"), row.get("none"))).append(" | **")
                        .append(pair(row.get("ucx"), row.get("tcp"))).append("** |\n");
            }
        }
        b.append('\n');
    }

    static String cell(Config c, Series x) {
        if (!c.available()) return "unavailable";
        if (x == null || !x.ok()) return x != null && !x.failures.isEmpty() ? "failed: " + ReportMarkdown.mdCell(Report.shortReason(x.failures.get(0))) : "-";
        Quantity q = ReportMath.quantity(x);
        if (!(q.error < 10 * q.value)) {   // few iterations on a loaded machine: Student t makes the interval meaningless
            return (q.unit.equals("/s") ? rate(q.value) : ReportMarkdown.sig(q.value)) + " (interval > 10x: too few or too scattered iterations)";
        }
        return q.unit.equals("/s") ? rate(q.value) + " ± " + rate(q.error).replace("/s", "") : ReportMarkdown.pm(q.value, q.error);
    }

    static String pair(Series a, Series b) {
        if (a == null || b == null || !a.ok() || !b.ok()) return "-";
        double[] r = ReportMath.pairedRatio(a, b);
        if (!(r[1] < 10 * r[0])) return String.format(Locale.ROOT, "%.3f (interval > 10x)", r[0]);
        return ReportMarkdown.ratioText(r);
    }

    /** One verdict line per thread kind and N for {@code bench}, then a blank line. */
    static void verdicts(StringBuilder b, Settings s, Map<String, Map<String, Series>> results, String bench) {
        for (String k : s.concThreads) {
            for (int n : s.concN) {
                Map<String, Series> row = results.getOrDefault(concLabel(bench, n, k, s), Map.of());
                b.append("- ").append(k).append(" threads, N = ").append(n).append(": ").append(verdict(row.get("ucx"), row.get("tcp"))).append('\n');
            }
        }
        b.append('\n');
    }

    static String verdict(Series ucx, Series tcp) {
        if (ucx == null || !ucx.ok()) return "ucx **did not run**" + (ucx != null && !ucx.failures.isEmpty() ? ": " + ReportMarkdown.mdCell(ucx.failures.get(0)) : "");
        if (tcp == null || !tcp.ok()) return "tcp did not run";
        double[] r = ReportMath.pairedRatio(ucx, tcp);
        String t = ReportMarkdown.ratioText(r);
        if (r[3] >= 1) return t + ": UCX ahead";
        if (r[4] <= 1) return t + ": **UCX behind TCP**";
        return t + ": no difference this run can resolve";
    }

    static void markdownPerftest(StringBuilder b, List<Config> configs, Map<String, Map<String, Series>> results) {
        Series pt = results.getOrDefault(PERFTEST, Map.of()).get("ucx");
        b.append("## sdp4j over UCX next to UCX's own ucx_perftest (64 B)\n\n")
                .append("`ucx_perftest -t stream_lat -s 64` between two processes (UCX_TLS as sdp4j's `sdp4j.ucx.tls`, default `sm,self`), ")
                .append("run by the report in turn with the measuring JVMs: each of its iterations runs right before the JVMs' iteration of ")
                .append("the 64 B `Socket` ping-pong. Its round trip is twice its median one-way latency; sdp4j's is the geometric mean ")
                .append("of every 64 B round trip (client and echo thread in one JVM). Ratio: sdp4j / ucx_perftest, paired (above 1: sdp4j slower).\n\n");
        b.append("| measurement | round trip | ucx sdp4j / ucx_perftest |\n|---|---:|---:|\n");
        b.append("| ucx_perftest stream_lat, 64 B | ")
                .append(pt == null || !pt.ok() ? "failed" + (pt != null && !pt.failures.isEmpty() ? ": " + ReportMarkdown.mdCell(pt.failures.get(0)) : "")
                        : ReportMarkdown.pm(pt.score(), pt.error()) + " µs")
                .append(" | 1 |\n");
        for (String[] r : new String[][] {{"NetPipe.socketLatency size=64", "Socket"}, {"NetPipe.channelLatency size=64", "SocketChannel"}}) {
            Map<String, Series> row = results.getOrDefault(r[0], Map.of());
            for (Config c : configs) {
                Series x = row.get(c.name);
                if (x == null || !x.ok()) continue;
                Quantity q = ReportMath.quantity(x);
                b.append("| ").append(c.name).append(", 64 B round trip, ").append(r[1]).append(" | ").append(ReportMarkdown.pm(q.value, q.error)).append(' ')
                        .append(ReportMarkdown.unitText(q.unit)).append(" | ").append(pt == null || !pt.ok() ? "-" : ReportMarkdown.ratioText(ReportMath.pairedRatio(x, pt)))
                        .append(" |\n");
            }
        }
        b.append('\n');
    }

    /** Per round: each configuration's geometric mean [min, max of iterations], and ucx / tcp paired within the round. */
    static void roundTable(StringBuilder b, Settings s, List<Config> configs, Map<String, Map<String, Series>> results, String label, String title) {
        Map<String, Series> row = results.getOrDefault(label, Map.of());
        Series any = row.values().stream().filter(Series::ok).findFirst().orElse(null);
        String unit = any == null ? "" : " (" + ReportMarkdown.unitText(ReportMath.unitShort(any.unit)) + ")";
        b.append("**").append(title).append("**").append(unit).append("\n\n| round | ");
        for (Config c : configs) b.append(c.name).append(" | ");
        b.append("ucx / tcp |\n|---|");
        for (int i = 0; i <= configs.size(); i++) b.append("---:|");
        b.append('\n');
        for (int r = 1; r <= s.rounds; r++) {
            b.append("| ").append(r).append(" | ");
            for (Config c : configs) {
                Series x = row.get(c.name);
                ListStatistics st = x == null ? null : x.byRound.get(r);
                b.append(st == null || st.getN() == 0 ? (c.available() ? "failed" : "unavailable")
                        : ReportMarkdown.sig(geo(x, r)) + " [" + ReportMarkdown.sig(st.getMin()) + ", " + ReportMarkdown.sig(st.getMax()) + "]").append(" | ");
            }
            b.append(roundRatio(row.get("ucx"), row.get("tcp"), r)).append(" |\n");
        }
        b.append("| all | ");
        for (Config c : configs) b.append(cell(c, row.get(c.name))).append(" | ");
        b.append("**").append(pair(row.get("ucx"), row.get("tcp"))).append("** |\n\n");
    }

    /** The round's geometric mean over its executions (JMH's JSON), else over its iterations. */
    static double geo(Series x, int round) {
        double[] r = x.roundLogs.get(round);
        if (r != null && r[1] > 0) return Math.exp(r[0] / r[1]);
        ListStatistics l = new ListStatistics();
        for (Map.Entry<String, Double> e : x.pairs.entrySet()) if (e.getKey().startsWith(round + ":")) l.addValue(Math.log(e.getValue()));
        return Math.exp(l.getMean());
    }

    /** ucx / tcp of times within one round: geometric mean of the paired ratios [smallest, largest pair]. */
    static String roundRatio(Series a, Series b, int round) {
        if (a == null || b == null) return "-";
        ListStatistics l = new ListStatistics();
        for (Map.Entry<String, Double> e : a.pairs.entrySet()) {
            if (!e.getKey().startsWith(round + ":")) continue;
            Double y = b.pairs.get(e.getKey());
            if (y != null && y > 0) l.addValue(e.getValue() / y);
        }
        if (l.getN() == 0) return "-";
        double sumLog = 0;
        for (Map.Entry<String, Double> e : a.pairs.entrySet()) {
            Double y = b.pairs.get(e.getKey());
            if (e.getKey().startsWith(round + ":") && y != null && y > 0) sumLog += Math.log(e.getValue() / y);
        }
        return String.format(Locale.ROOT, "%.3f [%.2f, %.2f]", Math.exp(sumLog / l.getN()), l.getMin(), l.getMax());
    }
}
