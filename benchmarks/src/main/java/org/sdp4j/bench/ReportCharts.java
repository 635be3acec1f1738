package org.sdp4j.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.sdp4j.bench.ReportMath.Quantity;
import org.sdp4j.bench.ReportModel.Config;
import org.sdp4j.bench.ReportModel.Series;
import org.sdp4j.bench.ReportSettings.Settings;

/** The report's SVG charts ({@link Report}, drawn by {@link Charts}). */
final class ReportCharts {

    static Map<String, String> charts(Settings s, List<Config> configs, Map<String, Map<String, Series>> results) {
        Map<String, String> charts = new LinkedHashMap<>();
        String sub = s.profile + " profile, " + s.rounds + " round(s); geometric mean ± " + ReportMath.CI + " confidence interval; x = paired ratio to none";
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
            String lsub = s.profile + " profile, " + s.rounds + " round(s); geometric mean ± " + ReportMath.CI + " confidence interval";
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
                Quantity q = ReportMath.quantity(s);
                double scale = q.unit.equals("ms") && unit.startsWith("µs") ? 1e3 : 1;
                Series none = row.get("none");
                String note = null;
                if (!c.name.equals("none") && none != null && none.ok()) {
                    double[] r = ReportMath.pairedRatio(s, none);
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
                    Quantity q = ReportMath.quantity(s);
                    l.add(ReportJmh.sizeOf(e.getKey()), q.value, q.error);
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
}
