package org.sdp4j.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

/** The SVG charts are well-formed XML and carry their axis labels, ticks, legend and the unavailable transports. */
class ChartsTest {

    static Document parse(String svg) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void logLogChartHasAxesLegendAndNotes() throws Exception {
        Charts.Line tcp = new Charts.Line("tcp, Socket", Charts.color("tcp"), false, false, Charts.marker("tcp"));
        Charts.Line ch = new Charts.Line("none, SocketChannel", Charts.color("none"), true, true, Charts.marker("none"));
        for (int s : new int[] {1, 64, 1024, 65536, 1 << 20, 8 << 20}) {
            tcp.add(s, 20 + s / 1000.0, 2);
            ch.add(s, 18 + s / 1100.0, Double.NaN);
        }
        String svg = Charts.logLog("Round trip <&>", "sub", "message size (bytes)", "round-trip time", ReportCharts.xTicks(ReportSettings.sizes("1", "64", "1K",
                "64K", "1M", "8M")), Charts::bytes, Charts::micros, List.of(tcp, ch), List.of("sdp: unavailable"));
        Document d = parse(svg);
        assertEquals("svg", d.getDocumentElement().getNodeName());
        String text = d.getDocumentElement().getTextContent();
        for (String want : new String[] {"Round trip <&>", "message size (bytes)", "round-trip time", "tcp, Socket", "none, SocketChannel",
            "sdp: unavailable", "1 B", "64 KiB", "8 MiB", "10 µs", "10 ms"}) {
            assertTrue(text.contains(want), want + " missing in " + text);
        }
        assertTrue(svg.contains("stroke-dasharray"), "SocketChannel lines are dashed");
    }

    @Test
    void emptyChartSaysSo() throws Exception {
        String svg = Charts.logLog("t", "", "x", "y", List.of(), Charts::bytes, Charts::mbits, List.of(), List.of());
        assertTrue(parse(svg).getDocumentElement().getTextContent().contains("no data"));
    }

    @Test
    void barsShowValuesErrorsNotesAndMissing() throws Exception {
        String svg = Charts.bars("INSERT", "sub", List.of(new Charts.Panel("One INSERT", "µs per INSERT", List.of(
                new Charts.Bar("none", Charts.color("none"), 212.0, 10.5, null, null),
                new Charts.Bar("tcp", Charts.color("tcp"), 215.0, 9.0, "x1.01 ± 0.03 vs none", null),
                new Charts.Bar("sdp", Charts.color("sdp"), Double.NaN, Double.NaN, null, "unavailable: no RDMA device")))));
        String text = parse(svg).getDocumentElement().getTextContent();
        assertTrue(text.contains("212 ± 10.5"), text);
        assertTrue(text.contains("x1.01 ± 0.03 vs none"), text);
        assertTrue(text.contains("unavailable: no RDMA device"), text);
        assertTrue(text.contains("µs per INSERT"), text);
        assertFalse(text.contains("NaN"), text);
    }

    @Test
    void tickLabels() {
        assertEquals("1 B", Charts.bytes(1));
        assertEquals("1000 B", Charts.bytes(1000));
        assertEquals("64 KiB", Charts.bytes(65536));
        assertEquals("8 MiB", Charts.bytes(8 << 20));
        assertEquals("10 µs", Charts.micros(10));
        assertEquals("1 ms", Charts.micros(1000));
        assertEquals("100 ms", Charts.micros(1e5));
        assertEquals("1 s", Charts.micros(1e6));
        assertEquals("100 kbit/s", Charts.mbits(0.1));
        assertEquals("10 Mbit/s", Charts.mbits(10));
        assertEquals("10 Gbit/s", Charts.mbits(1e4));
        assertEquals(50.0, Charts.niceStep(240), 1e-9);
        assertEquals(0.2, Charts.niceStep(0.9), 1e-9);
    }
}
