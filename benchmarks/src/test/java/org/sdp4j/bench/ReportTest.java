package org.sdp4j.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The report's bookkeeping on made-up numbers: settings, JMH JSON, ratios, summary, baseline, Markdown. Nothing is run or timed. */
class ReportTest {

    @TempDir
    Path tmp;

    @Test
    void profilesAndOptions() {
        ReportSettings.Settings q = ReportSettings.parse(new String[] {"--agent", "/x/agent.jar"});
        assertEquals("quick", q.profile);
        assertEquals(ReportSettings.sizes("1", "64", "1K", "64K", "1M", "8M"), q.sweepSizes());
        assertEquals(List.of("none", "tcp", "both", "sdp", "ucx"), q.configs);
        ReportSettings.Settings f = ReportSettings.parse(new String[] {"--sizes", "1,64", "--full", "--agent", "/x/agent.jar"});
        assertEquals("full", f.profile);
        assertEquals(List.of(1, 64), f.sizes, "explicit options win over the profile wherever they stand");
        assertEquals(24, ReportSettings.parse(new String[] {"--full", "--agent", "/a"}).sizes.size());
        ReportSettings.Settings w = ReportSettings.parse(new String[] {"--warmup-ms", "10000", "--full", "--agent", "/a"});
        assertEquals(List.of(10000.0, 10000.0, 10000.0), List.of(w.netWarmupMs, w.dbWarmupMs, w.concWarmupMs),
                "--warmup-ms sets every group's warm-up, over the profile's");
        assertEquals(500.0, q.dbWarmupMs, "the quick profile's database warm-up stays as it was");
        ReportSettings.Settings p = ReportSettings.parse(new String[] {"--sizes", "4,64", "--perturb", "3", "--configs", "tcp", "--agent", "/a"});
        assertEquals(List.of(4, 61, 64, 67), p.sweepSizes());
        assertEquals(List.of("none", "tcp"), p.configs, "none is always there: the baseline of every ratio");
        assertEquals(8 << 20, ReportSettings.parseSize("8MiB"));
        assertEquals(1024, ReportSettings.parseSize("1k"));
        assertThrows(IllegalArgumentException.class, () -> ReportSettings.parse(new String[] {"--groups", "disk"}));
        assertThrows(IllegalArgumentException.class, () -> ReportSettings.parseSize("lots"));
    }

    @Test
    void planWarmsUpOncePerJvmThenRunsSingleIterations() {
        ReportSettings.Settings s = ReportSettings.parse(new String[] {"--sizes", "64", "--agent", "/a"});
        List<Report.Step> steps = Report.plan(s);
        assertEquals(4 + 4, steps.size());
        Report.Step block = steps.get(3);
        assertEquals("JccWorkload.insertBlock rows=4000", block.label);
        assertTrue(block.command("7", 0).startsWith("run 7 "), block.command("7", 0));
        Report.Step lat = steps.get(4);
        assertEquals("NetPipe.socketLatency size=64", lat.label);
        String[] w0 = lat.command("1", 0).split(" "), w1 = lat.command("2", 1).split(" ");
        assertTrue(Pattern.compile(w0[2]).matcher("org.sdp4j.bench.NetPipe.socketLatency").matches());
        assertFalse(Pattern.compile(w0[2]).matcher("org.sdp4j.bench.NetPipe.socketLatencyX").matches());
        assertEquals("1", w0[3], "iteration 0 brings the warm-up");
        assertEquals("0", w1[3], "later iterations do not");
        assertEquals("1", w1[5]);
        assertEquals("size=64", w1[7]);
    }

    static ReportModel.Series series(String bench, String params, String config, double... byIteration) {
        ReportModel.Series s = new ReportModel.Series(bench, params, config);
        for (int i = 0; i < byIteration.length; i++) s.addIteration(1 + i / 4, i % 4, byIteration[i], "us/op");
        return s;
    }

    @Test
    void pairedRatiosCancelSharedDrift() {
        // the machine's load doubles the times in round 2; tcp is 10% slower than none in every pair
        ReportModel.Series none = series("NetPipe.socketLatency", "size=64", "none", 100, 100, 100, 100, 200, 200, 200, 200);
        ReportModel.Series tcp = series("NetPipe.socketLatency", "size=64", "tcp", 110, 110, 110, 110, 220, 220, 220, 220);
        double[] r = ReportMath.pairedRatio(tcp, none);
        assertEquals(1.1, r[0], 1e-9);
        assertEquals(0, r[1], 1e-9);
        assertEquals(8, r[2]);
        double[] unpaired = ReportMath.ratio(tcp.score(), tcp.error(), none.score(), none.error());
        assertTrue(unpaired[1] > 0.2, "without pairing the drift swamps the 10%: " + unpaired[1]);
        // a rate: the ratio of bandwidths is the inverse of the ratio of times
        ReportModel.Series sn = series("NetPipe.socketStream", "size=1024", "none", 1000, 1000, 1000, 1000);
        ReportModel.Series st = series("NetPipe.socketStream", "size=1024", "tcp", 800, 800, 800, 800);
        assertEquals(1.25, ReportMath.pairedRatio(st, sn)[0], 1e-9);
        // too few pairs: the ratio of the (geometric mean) scores with propagated errors
        ReportModel.Series a = series("JccWorkload.insert", "rows=4000", "tcp", 10, 12);
        ReportModel.Series b = series("JccWorkload.insert", "rows=4000", "none", 10, 10);
        assertEquals(Math.sqrt(120) / 10, ReportMath.pairedRatio(a, b)[0], 1e-9);
    }

    @Test
    void quantities() {
        // 1024 messages of 1 KiB in 1000 µs: 8 388 608 bits / 1000 µs = 8388.608 Mbit/s
        ReportMath.Quantity q = ReportMath.quantity(series("NetPipe.channelStream", "size=1024", "none", 1000, 1000, 1000));
        assertEquals("Mbit/s", q.unit);
        assertEquals(8388.608, q.value, 1e-6);
        assertTrue(q.higherIsBetter);
        ReportModel.Series blk = new ReportModel.Series("JccWorkload.insertBlock", "rows=4000", "none");
        blk.addIteration(1, 0, 800, "ms/op");
        blk.addIteration(1, 1, 1000, "ms/op");
        blk.addValue(800, 1);
        blk.addValue(1000, 1);
        // geometric mean of the blocks / 4000 INSERTs
        assertEquals(Math.sqrt(800.0 * 1000) * 1000 / 4000, ReportMath.quantity(blk).value, 1e-9);
        assertEquals("us", ReportMath.quantity(blk).unit);
    }

    @Test
    void readsJmhJsonPerExecution() {
        String json = "[{\"jmhVersion\":\"1.37\",\"benchmark\":\"org.sdp4j.bench.JccWorkload.insert\",\"mode\":\"sample\",\"jdkVersion\":\"17\","
                + "\"vmName\":\"VM\",\"vmVersion\":\"1\",\"params\":{\"rows\":\"4000\"},\"primaryMetric\":{\"score\":150,\"scoreUnit\":\"us/op\","
                + "\"rawDataHistogram\":[[[[100.0,2],[200.0,1]],[[150.0,1]]]]}},"
                + "{\"benchmark\":\"org.sdp4j.bench.JccWorkload.insertBlock\",\"mode\":\"ss\",\"params\":{\"rows\":\"4000\"},"
                + "\"primaryMetric\":{\"score\":800,\"scoreUnit\":\"ms/op\",\"rawData\":[[700.0,900.0]]}}]";
        Map<String, Map<String, ReportModel.Series>> results = new LinkedHashMap<>();
        Map<String, String> jvm = new LinkedHashMap<>();
        ReportJmh.addJmh(Json.parse(json), "tcp", results, jvm);
        ReportModel.Series ins = results.get("JccWorkload.insert rows=4000").get("tcp");
        assertEquals(4, ins.count);
        assertEquals(550, ins.total, 1e-9);
        assertEquals(100, ins.min, 1e-9);
        assertEquals(200, ins.max, 1e-9);
        assertEquals(Math.exp((2 * Math.log(100) + Math.log(200) + Math.log(150)) / 4), ins.geomean(), 1e-9);
        assertEquals("sample", ins.mode);
        ReportModel.Series blk = results.get("JccWorkload.insertBlock rows=4000").get("tcp");
        assertEquals(2, blk.count);
        assertEquals(800, blk.total / blk.count, 1e-9);
        assertEquals("17", jvm.get("jdk"));
    }

    @Test
    void summaryCsvMarkdownAndBaseline() throws Exception {
        ReportSettings.Settings s = ReportSettings.parse(new String[] {"--sizes", "64", "--configs", "none,tcp,sdp", "--agent", "/x/agent.jar", "--out",
            tmp.toString()});
        List<ReportModel.Config> configs = List.of(new ReportModel.Config("none"), new ReportModel.Config("tcp"), new ReportModel.Config("sdp"));
        configs.get(2).probe.unavailable = "java.net.SocketException: rsocket is unavailable: no RDMA device; load a driver";
        configs.get(2).shortReason = Report.shortReason(configs.get(2).probe.unavailable);
        assertEquals("no RDMA device", configs.get(2).shortReason);
        Map<String, Map<String, ReportModel.Series>> results = new LinkedHashMap<>();
        for (String[] b : new String[][] {{"JccWorkload.insert", "rows=4000"}, {"NetPipe.socketLatency", "size=64"}}) {
            Map<String, ReportModel.Series> row = new LinkedHashMap<>();
            row.put("none", series(b[0], b[1], "none", 100, 101, 99, 100));
            row.put("tcp", series(b[0], b[1], "tcp", 105, 106, 104, 105));
            results.put(b[0] + " " + b[1], row);
        }
        Map<String, String> machine = new LinkedHashMap<>(Map.of("cpus", "2", "cpu", "AMD EPYC", "memory", "24 GiB", "os", "Debian", "kernel", "6.1",
                "load_start", "1.0", "load_end", "2.0"));
        Map<String, Object> sum = ReportSummary.summary(s, Instant.EPOCH, 123, machine, Map.of("jdk", "17"), configs, results, null);
        Path file = tmp.resolve("summary.json");
        Files.writeString(file, Json.write(sum));
        String csv = ReportSummary.csv(sum);
        assertTrue(csv.startsWith("benchmark,params,config,mode,unit,score,error"), csv);
        assertTrue(csv.contains("JccWorkload.insert,rows=4000,tcp,"), csv);
        assertTrue(csv.contains(",sdp,") && csv.contains("unavailable"), csv);

        String md = ReportMarkdown.markdown(s, sum, configs, results, java.util.Set.of("latency.svg", "db-insert.svg"), false);
        for (String want : new String[] {"## Transports", "## Ratios to no agent", "| 64 B round trip, Socket |", "tcp / none",
            "| Type | Number | Repetitions | Total Time (s) | Min Time (s) | Max Time (s) | Arithmetic Mean (s) | Geometric Mean (s) |",
            "**unavailable**", "no RDMA device", "![round trip vs message size](charts/latency.svg)", "1.050 ± "}) {
            assertTrue(md.contains(want), want + " missing in:\n" + md);
        }

        // the same run against itself as baseline: every change is 0
        Map<String, Object> base = ReportSummary.loadBaseline(tmp);
        s.baseline = tmp;
        Map<String, Object> again = ReportSummary.summary(s, Instant.EPOCH, 1, machine, Map.of(), configs, results, base);
        int changes = 0;
        for (Object o : Json.arr(again.get("results"))) {
            Map<String, Object> r = Json.obj(o);
            if (r.containsKey("change")) {
                changes++;
                assertEquals(0, Json.num(r.get("change")), 1e-4);   // the summary keeps 6 significant digits
            }
        }
        assertEquals(4, changes);
        String md2 = ReportMarkdown.markdown(s, again, configs, results, java.util.Set.of(), true);
        assertTrue(md2.contains("## Change against the baseline"), md2);
        assertTrue(md2.contains("+0.0 %"), md2);

        Files.writeString(tmp.resolve("other.json"), "{\"format\":\"something else\"}");
        assertThrows(IllegalArgumentException.class, () -> ReportSummary.loadBaseline(tmp.resolve("other.json")));
    }
}
