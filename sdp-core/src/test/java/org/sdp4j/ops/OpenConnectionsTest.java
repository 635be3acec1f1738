package org.sdp4j.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

/** The open-connection list behind stat's lines: bytes read from the connection, totals kept when it closes. */
class OpenConnectionsTest {
    @Test
    void aConnectionIsListedWithItsBytesUntilItClosesAndItsBytesStayInTheTotals() {
        String t = "open-connections-test";
        AtomicLong in = new AtomicLong(), out = new AtomicLong();
        OpenConnections.Entry e = OpenConnections.opened(t, "client", new InetSocketAddress("127.0.0.1", 4000),
                new InetSocketAddress("::1", 5000), in::get, out::get, "shm");
        in.set(10);
        out.set(20);
        String line = Arrays.stream(OpenConnections.lines()).filter(l -> l.startsWith(t + "\t")).findFirst()
                .orElseThrow();
        String[] f = line.split("\t", -1);
        assertEquals(OpenConnections.FIELDS.length, f.length, line);
        assertEquals("client", f[1]);
        assertEquals("127.0.0.1:4000", f[2]);
        assertEquals("[0:0:0:0:0:0:0:1]:5000", f[3]);
        assertTrue(Long.parseLong(f[5]) >= 0, line);
        assertEquals("10", f[6]);
        assertEquals("20", f[7]);
        assertEquals("shm", f[8]);
        TransportCounters c = Counters.of(t);
        assertEquals(1, c.open());
        assertEquals(10, c.bytesIn());

        OpenConnections.closed(e);
        OpenConnections.closed(e); // idempotent
        in.set(1000); // a closed connection is no longer read
        assertEquals(0, c.open());
        assertEquals(10, c.bytesIn());
        assertEquals(20, c.bytesOut());
        assertTrue(Arrays.stream(OpenConnections.lines()).noneMatch(l -> l.startsWith(t + "\t")));
    }
}
