package org.sdp4j.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** The runner's bookkeeping: confs, ratios, probe parsing, table and CSV. No benchmark is run, no timing asserted. */
class CompareTransportsTest {

    @Test
    void confKeepsJmhLinkOnTcpThenCatchAll() {
        String conf = CompareTransports.confText("both", 40123);
        List<String> rules = conf.lines().filter(l -> l.startsWith("use ")).toList();
        assertEquals(List.of("use tcp client * *:40123", "use both server * *:*", "use both client * *:*"), rules);
    }

    @Test
    void ratioPropagatesRelativeErrors() {
        double[] r = CompareTransports.ratio(12, 1.2, 10, 1.0);   // 10% and 10%
        assertEquals(1.2, r[0], 1e-12);
        assertEquals(1.2 * Math.sqrt(0.02), r[1], 1e-12);
    }

    @Test
    void probeOutputGivesReasonAndNote() {
        String failed = "sdp4j: server 127.0.0.1:1 program=x rule=line 5 family=sdp transport=none\n"
                + "probe FAILED: java.net.SocketException: no RDMA device <- java.lang.UnsupportedOperationException: x\n\tat x.y(z)\n";
        assertEquals("java.net.SocketException: no RDMA device", Probes.probeReason(failed, 1));
        String refused = "sdp4j: /tmp/x.conf:3: unknown family 'ucx'\nsdp4j: refusing to start\n";
        assertEquals("probe JVM exited 2: sdp4j: /tmp/x.conf:3: unknown family 'ucx' / sdp4j: refusing to start",
                Probes.probeReason(refused, 2));
        String selftest = "transport tcp      available\ntransport rsocket  unavailable: no RDMA device: none found\nselftest: ok\n";
        assertEquals("no RDMA device: none found", Probes.selftestReason(selftest, "rsocket"));
        assertEquals(null, Probes.selftestReason(selftest, "ucx"));
        String ok = "sdp4j: client 127.0.0.1:1 program=x rule=line 6 family=both transport=tcp fallback=\"no RDMA device\"\nprobe ok\n";
        assertEquals("transport tcp, fallback: no RDMA device", Probes.probeNote(ok));
    }

    @Test
    void tableListsUnavailableAndFailedConfigurations() {
        CompareTransports.Config none = new CompareTransports.Config("none");
        CompareTransports.Config tcp = new CompareTransports.Config("tcp");
        CompareTransports.Config sdp = new CompareTransports.Config("sdp");
        sdp.unavailable = "no RDMA device";
        Map<String, Map<String, CompareTransports.Cell>> cells = new LinkedHashMap<>();
        Map<String, CompareTransports.Cell> row = new LinkedHashMap<>();
        row.put("none", cell(10, 11, 10, 9));
        row.put("tcp", cell(12, 13, 11, 12));
        cells.put("SocketPingPong.socket size=64", row);
        Map<String, Map<String, List<String>>> failures = new LinkedHashMap<>();
        failures.put("JccWorkload.insert", new LinkedHashMap<>(Map.of("tcp", new java.util.ArrayList<>(List.of("boom")))));
        CompareTransports.mergeFailures(cells, failures);
        List<CompareTransports.Config> configs = List.of(none, tcp, sdp);
        String table = CompareTransports.table(cells, configs);
        assertTrue(table.contains("unavailable: no RDMA device"), table);
        assertTrue(table.contains("FAILED: boom"), table);
        assertTrue(table.contains("per round"), table);
        String csv = CompareTransports.csv(cells, configs);
        assertTrue(csv.startsWith("benchmark,transport,status,score,error_999,unit,ratio_to_none,ratio_error"), csv);
        assertTrue(csv.contains("SocketPingPong.socket size=64,sdp,unavailable,"), csv);
        assertTrue(csv.contains("JccWorkload.insert,tcp,failed,"), csv);
    }

    private static CompareTransports.Cell cell(double... values) {
        CompareTransports.Cell c = new CompareTransports.Cell();
        c.unit = "us/op";
        for (double v : values) c.iterations.addValue(v);
        c.forkScores.add((values[0] + values[1]) / 2);
        c.forkScores.add((values[2] + values[3]) / 2);
        return c;
    }
}
