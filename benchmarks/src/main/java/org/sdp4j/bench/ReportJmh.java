package org.sdp4j.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.sdp4j.bench.ReportModel.Config;
import org.sdp4j.bench.ReportModel.Series;

/** Reads what the measuring JVMs left behind: JMH's JSON result files and the agent's decision logs ({@link Report}). */
final class ReportJmh {

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
        labels.sort(Comparator.comparing(ReportJmh::order).thenComparing(ReportJmh::sizeOf).thenComparing(x -> x));
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
}
