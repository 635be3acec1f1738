package org.sdp4j.testing;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;

import org.junit.jupiter.api.Test;

/** The leak verdict on samples seen in real runs, and on what real leaks would look like. */
class GrowthTest {
    @Test
    void growthInEveryRoundIsALeak() {
        // one descriptor per connection, 3,000 connections a round
        assertNotNull(Growth.leak("fds", List.of(18L, 3018L, 6018L, 9018L), 3000, Growth.usual("fds")));
        // one descriptor per thousand connections is still a leak: it grows every round
        assertNotNull(Growth.leak("fds", List.of(18L, 21L, 24L, 27L), 3000, Growth.usual("fds")));
        // a UCX worker (dozens of mappings) left behind every few connections
        assertNotNull(Growth.leak("maps", List.of(2000L, 12000L, 22000L, 32000L), 3000, Growth.usual("maps")));
        assertNotNull(Growth.leak("shm", List.of(14L, 15L, 16L, 17L), 3000, Growth.usual("shm")));
    }

    @Test
    void noiseIsNot() {
        // a descriptor opened lazily once, a JIT thread that came and went
        assertNull(Growth.leak("fds", List.of(18L, 19L, 19L, 19L), 3000, Growth.usual("fds")));
        assertNull(Growth.leak("os-threads", List.of(15L, 16L, 15L, 16L), 3000, Growth.usual("os-threads")));
        // UCX's mappings in three LeakTest runs (warm-up, then three rounds of 3,000 connections)
        assertNull(Growth.leak("maps", List.of(2660L, 4059L, 10453L, 1255L), 3000, Growth.usual("maps")));
        assertNull(Growth.leak("maps", List.of(2726L, 6314L, 1376L, 5774L), 3000, Growth.usual("maps")));
        // the one that failed the old fixed tolerance of 64 on a fresh machine ("memory mappings 667 -> 734")
        assertNull(Growth.leak("maps", List.of(667L, 734L, 730L, 741L), 3000, Growth.usual("maps")));
    }
}
