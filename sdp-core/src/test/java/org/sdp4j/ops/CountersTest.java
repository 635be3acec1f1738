package org.sdp4j.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.sdp4j.conf.Role;

/** The counters behind stat and JMX: what a decision counts, and how a fallback's free text becomes a kind. */
class CountersTest {
    @Test
    void decisionsAreCountedByTransportAndFallbacksByKind() {
        String t = "counters-test";
        TransportCounters c = Counters.of(t);
        Counters.decision(Role.CLIENT, t, null, null);
        Counters.decision(Role.CLIENT, t, "rsocket is unavailable: no RDMA device", null);
        Counters.decision(Role.CLIENT, t, "ucx to 10.0.0.1:5 failed 3 s ago (x); next attempt after 60000 ms", null);
        Counters.decision(Role.CLIENT, t, "ucx connect failed: refused", null);
        Counters.decision(Role.SERVER, t + "+tcp", null, null);
        Counters.decision(Role.CLIENT, t, null, "java.net.ConnectException: Connection refused");
        Counters.accepted(t, () -> "127.0.0.1:1");
        assertEquals(4, c.connects());
        assertEquals(1, c.listens());
        assertEquals(1, c.accepts());
        assertEquals(3, c.fallbacks());
        assertEquals(1, c.errors());
        assertEquals(Map.of("unavailable", 1L, "recently-failed", 1L, "connect-failed", 1L), c.fallbackReasons());
        assertEquals("ucx connect failed: refused", c.lastFallback());
        assertEquals("java.net.ConnectException: Connection refused", c.lastError());
    }
}
