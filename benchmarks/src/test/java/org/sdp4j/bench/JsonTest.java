package org.sdp4j.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** The module's small JSON reader and writer. */
class JsonTest {

    @Test
    void readsWhatJmhWrites() {
        Object o = Json.parse("[{\"benchmark\":\"a.B.c\",\"params\":{\"size\":\"64\"},\"primaryMetric\":{\"score\":1.5e1,"
                + "\"scoreError\":\"NaN\",\"rawData\":[[1,2.5,-3]]},\"ok\":true,\"none\":null,\"s\":\"q\\\"\\u00b5\\n\"}]");
        Map<String, Object> b = Json.obj(Json.arr(o).get(0));
        assertEquals("a.B.c", b.get("benchmark"));
        assertEquals("64", Json.obj(b.get("params")).get("size"));
        Map<String, Object> pm = Json.obj(b.get("primaryMetric"));
        assertEquals(15.0, Json.num(pm.get("score")));
        assertTrue(Double.isNaN(Json.num(pm.get("scoreError"))));
        assertEquals(List.of(1.0, 2.5, -3.0), Json.arr(Json.arr(pm.get("rawData")).get(0)));
        assertEquals(Boolean.TRUE, b.get("ok"));
        assertTrue(b.containsKey("none") && b.get("none") == null);
        assertEquals("q\"µ\n", b.get("s"));
    }

    @Test
    void writesWhatItReads() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", "tab\there \"quoted\"");
        m.put("n", 3.0);
        m.put("x", 0.000123456789);
        m.put("nan", Double.NaN);
        m.put("list", List.of(1.0, "two"));
        m.put("nested", List.of(Map.of("k", 1.0)));
        Map<String, Object> back = Json.obj(Json.parse(Json.write(m)));
        assertEquals("tab\there \"quoted\"", back.get("name"));
        assertEquals(3.0, back.get("n"));
        assertEquals(0.000123457, Json.num(back.get("x")), 1e-12);
        assertTrue(back.containsKey("nan") && back.get("nan") == null);
        assertEquals(List.of(1.0, "two"), back.get("list"));
        assertEquals(1.0, Json.obj(Json.arr(back.get("nested")).get(0)).get("k"));
    }

    @Test
    void rejectsMalformedInput() {
        assertThrows(IllegalArgumentException.class, () -> Json.parse("{\"a\":1"));
        assertThrows(IllegalArgumentException.class, () -> Json.parse("[1,]"));
        assertThrows(IllegalArgumentException.class, () -> Json.parse("{} x"));
    }
}
