package org.sdp4j.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.sdp4j.bench.ReportMath.Quantity;
import org.sdp4j.bench.ReportModel.Config;
import org.sdp4j.bench.ReportModel.Series;
import org.sdp4j.bench.ReportSettings.Settings;

/** The report's Markdown ({@code report.md}) and the number formatting its tables share ({@link Report}). */
final class ReportMarkdown {

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
        return ratioText(ReportMath.pairedRatio(s, n));
    }

    static String headlineText(List<Config> configs, Map<String, Map<String, Series>> results) {
        StringBuilder b = new StringBuilder("Ratio to no agent (" + ReportMath.CI + " CI); time: lower is faster, bandwidth: higher is faster\n");
        String fmt = "%-44s %-22s";
        b.append(String.format(Locale.ROOT, fmt, "", "none"));
        for (Config c : configs) if (!c.name.equals("none")) b.append(String.format(Locale.ROOT, " %-17s", c.name));
        b.append('\n');
        for (String[] r : headlineRows(results)) {
            Map<String, Series> row = results.get(r[0]);
            Series n = row.get("none");
            String base = n == null || !n.ok() ? "failed" : pm(ReportMath.quantity(n).value, ReportMath.quantity(n).error) + " " + ReportMath.quantity(n).unit;
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
        b.append("| Network | ").append(ReportMachine.host().equals("127.0.0.1") ? "loopback (127.0.0.1)" : ReportMachine.host() + " (`-Dsdp4j.bench.host`)")
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
                .append("hits all transports alike. Sweeps: ").append(s.netWarmup).append(" x ").append(ReportSummary.num(s.netWarmupMs))
                .append(" ms warm-up, then ").append(s.netIterations).append(" x ").append(ReportSummary.num(s.netMs)).append(" ms per size and round. ")
                .append("Database: ").append(s.dbWarmup).append(" x ").append(ReportSummary.num(s.dbWarmupMs)).append(" ms warm-up, then ")
                .append(s.dbIterations).append(" x ").append(ReportSummary.num(s.dbMs)).append(" ms per statement and round; ")
                .append(s.blockIterations).append(" block(s) of ").append(s.rows).append(" INSERTs per round. Every execution is timed ")
                .append("(JMH sample mode) and a time is the **geometric mean** of the executions (db2batch's Geometric Mean; the ")
                .append("summary tables also give the arithmetic mean): one execution stalled by other work moves it little. ± is half ")
                .append("the ").append(ReportMath.CI).append(" confidence interval (Student t over the iterations, in log space; JMH's Error is ")
                .append("also ").append(ReportMath.CI).append("). A ratio is the geometric mean of the ratios of iterations that ran side by side ")
                .append("(same round and iteration number), ± half its ").append(ReportMath.CI).append(" interval: drift that hits both members ")
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
                b.append(n == null || !n.ok() ? "failed" : pm(ReportMath.quantity(n).value, ReportMath.quantity(n).error) + " " + unitText(ReportMath.quantity(n).unit)).append(" |");
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
                        ReportMath.toSeconds(x.total, x.unit), ReportMath.toSeconds(x.min, x.unit), ReportMath.toSeconds(x.max, x.unit), ReportMath.toSeconds(x.mean(), x.unit),
                        ReportMath.toSeconds(x.geomean(), x.unit), st[2]));
            }
            Series blk = results.getOrDefault("JccWorkload.insertBlock rows=" + s.rows, Map.of()).get(c.name);
            if (blk != null && blk.count > 0) {
                b.append(String.format(Locale.ROOT, "%nAverage time per INSERT in the blocks: %s µs (arithmetic mean of the blocks / %d).%n",
                        sig(ReportMath.toMicros(blk.mean(), blk.unit) / s.rows), s.rows));
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
                    Quantity q = ReportMath.quantity(x);
                    unit = q.unit;
                    cells.append(' ').append(pm(q.value, q.error)).append(" |");
                }
            }
            String desc = st[0].equals("JccWorkload.insertBlock") ? "INSERT in a block of " + s.rows + ", per INSERT" : st[1];
            b.append("| ").append(desc).append(" | ").append(unit == null ? "" : unitText(unit)).append(" |").append(cells).append('\n');
        }
        b.append("\nGeometric mean of the executions ± ").append(ReportMath.CI).append(" CI. The database is ").append(Json.str(summaryDatabase())).append(".\n\n");
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
                        Quantity q = ReportMath.quantity(x);
                        b.append(' ').append(pm(q.value, q.error));
                        if (!c.name.equals("none") && row.get("none") != null && row.get("none").ok()) {
                            double[] r = ReportMath.pairedRatio(x, row.get("none"));
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
                .append(ReportMath.CI).append(" intervals; **bold** where the interval excludes 0.\n\n");
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
}
