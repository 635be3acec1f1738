package org.sdp4j.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.sdp4j.bench.ReportMath.Quantity;
import org.sdp4j.bench.ReportModel.Config;
import org.sdp4j.bench.ReportModel.Series;
import org.sdp4j.bench.ReportSettings.Settings;

/** The report's summary: {@code summary.json} and {@code summary.csv}, and reading a baseline summary ({@link Report}). */
final class ReportSummary {

    static final String FORMAT = "sdp4j-bench-summary/1";

    static Map<String, Object> summary(Settings s, Instant started, double seconds, Map<String, String> machine, Map<String, String> jvmInfo,
                                       List<Config> configs, Map<String, Map<String, Series>> results, Map<String, Object> baseline) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("format", FORMAT);
        m.put("started", DateTimeFormatter.ISO_INSTANT.format(started.truncatedTo(java.time.temporal.ChronoUnit.SECONDS)));
        m.put("profile", s.profile);
        m.put("command", s.command);
        m.put("duration_s", seconds);
        m.put("rounds", (double) s.rounds);
        m.put("confidence", ReportMath.CI);
        m.put("machine", new LinkedHashMap<>(machine));
        m.put("jvm", new LinkedHashMap<>(jvmInfo));
        m.put("jvm_args", String.join(" ", s.forkJvmArgs));
        m.put("database", Jcc.externalUrl() != null ? "external: " + Jcc.externalUrl()
                : "Apache Derby " + Db2BatchMain.derbyVersion() + " Network Server (DRDA) in the measuring JVM, " + ReportMachine.host()
                        + (Boolean.getBoolean("sdp4j.bench.durable") ? "" : ", derby.system.durability=test"));
        m.put("driver", ReportMachine.driverDescription(s.out.resolve("logs")));
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
            Quantity q0 = none == null ? null : ReportMath.quantity(none);
            for (Config c : configs) {
                Series s1 = e.getValue().get(c.name);
                if (s1 == null) continue;
                Quantity q = ReportMath.quantity(s1);
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
                    double[] ratio = ReportMath.pairedRatio(s1, none);
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
                        double[] ch = ReportMath.ratio(q.value, q.error, bv, be);
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
}
