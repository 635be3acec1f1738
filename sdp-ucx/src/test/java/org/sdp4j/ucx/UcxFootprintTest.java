package org.sdp4j.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sdp4j.Sdp4j;
import org.sdp4j.conf.ConfigParser;
import org.sdp4j.conf.ProgramIdentity;

/**
 * What one UCX connection costs in shared memory, counted from /proc/self/maps, and in direct memory (measures
 * noise cannot blur), and the {@code sdp4j.ucx.config} list that keeps the first small (issue 13: a worker per connection end must not add up to a
 * collapse at 1,000 connections).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UcxFootprintTest {
    static final int CONNECTIONS = 8;

    @BeforeAll
    static void rules() throws Exception {
        UcxSocketTest.rules();
        Sdp4j.configure(ConfigParser.parse("test.conf", "use ucx server * *:*\nuse ucx client * *:*\n"),
                ProgramIdentity.of("ucx-test"));
    }

    /** Bytes of /dev/shm mapped into this process (UCX's posix segments: FIFOs and receive buffers). */
    static long sharedMemoryMapped() throws IOException {
        long total = 0;
        for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 6 && f[5].startsWith("/dev/shm/")) {
                String[] range = f[0].split("-");
                total += Long.parseUnsignedLong(range[1], 16) - Long.parseUnsignedLong(range[0], 16);
            }
        }
        return total;
    }

    /** Bytes of the JVM's direct buffers in use (the staging buffers; -XX:MaxDirectMemorySize bounds them). */
    static long directMemoryUsed() {
        for (java.lang.management.BufferPoolMXBean b : java.lang.management.ManagementFactory.getPlatformMXBeans(
                java.lang.management.BufferPoolMXBean.class)) {
            if (b.getName().equals("direct")) {
                return b.getMemoryUsed();
            }
        }
        throw new IllegalStateException("no direct buffer pool");
    }

    /**
     * A connection (two ends, two workers, both in this process) maps less than 2 MiB of shared memory. With UCX's
     * defaults a worker mapped 4.1 MiB (512 receive buffers of 8 KiB up front), 8.4 MiB a connection: 8 GiB of
     * /dev/shm for 1,000 connections, and most of a handshake's CPU. Its four staging buffers start small (they
     * were 256 KiB each: 1 MiB of direct memory per connection before it moved a byte).
     */
    @Test
    void anIdleConnectionMapsLessThanTwoMebibytesOfSharedMemoryAndHoldsLittleDirectMemory() throws Exception {
        WorkerPool.drain(); // pooled workers would be reused, not created
        int pool = WorkerPool.MAX_IDLE;
        List<Socket> open = new ArrayList<>();
        try (ServerSocket ss = UcxSocketTest.listen()) {
            // a first connection: UCX's per-process setup (the context's own segments) is not per connection
            Socket c0 = new Socket(InetAddress.getLoopbackAddress(), ss.getLocalPort());
            open.add(c0);
            open.add(ss.accept());
            long before = sharedMemoryMapped();
            long directBefore = directMemoryUsed();
            long fdsBefore = org.sdp4j.testing.Growth.openFds();
            long established = UcxConnection.ESTABLISHED.get();
            for (int i = 0; i < CONNECTIONS; i++) {
                open.add(new Socket(InetAddress.getLoopbackAddress(), ss.getLocalPort()));
                open.add(ss.accept());
            }
            assertEquals(2L * CONNECTIONS, UcxConnection.ESTABLISHED.get() - established, "every end on UCX");
            long perConnection = (sharedMemoryMapped() - before) / CONNECTIONS;
            assertTrue(perConnection < 2L << 20, "a UCX connection maps " + (perConnection >> 10)
                    + " KiB of /dev/shm (pool " + pool + ", -Dsdp4j.ucx.config=" + System.getProperty(
                    "sdp4j.ucx.config", Ucx.DEFAULT_CONFIG) + ")");
            assertTrue(perConnection > 0, "no shared memory counted: is posix still in sdp4j.ucx.tls?");
            System.out.println("UCX footprint per connection (both ends): " + (perConnection >> 10) + " KiB /dev/shm, "
                    + (org.sdp4j.testing.Growth.openFds() - fdsBefore) / (double) CONNECTIONS + " descriptors");
            long direct = (directMemoryUsed() - directBefore) / CONNECTIONS;
            assertTrue(direct < 128 << 10, "a UCX connection that moved nothing holds " + (direct >> 10)
                    + " KiB of direct memory (4 staging buffers start at " + Staging.STAGING_INITIAL / 1024
                    + " KiB)");
        } finally {
            for (Socket s : open) {
                s.close();
            }
        }
    }

    @Test
    void theEnvironmentWinsOverTheDefaults() {
        List<String[]> all = Ucx.config("MM_RX_BUFS_GROW=16, MM_FIFO_SIZE=32,ZCOPY_THRESH=4k", Map.of());
        assertEquals(3, all.size());
        assertEquals("MM_FIFO_SIZE", all.get(1)[0]);
        assertEquals("32", all.get(1)[1]);
        // UCX_POSIX_FIFO_SIZE (the transport's own name) and UCX_ZCOPY_THRESH are the user's
        List<String[]> left = Ucx.config("MM_RX_BUFS_GROW=16,MM_FIFO_SIZE=32,ZCOPY_THRESH=4k",
                Map.of("UCX_POSIX_FIFO_SIZE", "128", "UCX_ZCOPY_THRESH", "inf"));
        assertEquals(1, left.size());
        assertEquals("MM_RX_BUFS_GROW", left.get(0)[0]);
        assertEquals(0, Ucx.config("", Map.of()).size());
    }

    @Test
    void maxDirectMemorySizeIsReadAsTheJvmReadsIt() {
        assertEquals(3L << 20, Staging.parseSize("3m"));
        assertEquals(512L << 10, Staging.parseSize("512K"));
        assertEquals(2L << 30, Staging.parseSize("2g"));
        assertEquals(4096, Staging.parseSize("4096"));
        assertEquals(-1, Staging.parseSize("lots"));
        assertTrue(Staging.directLimit() > 0);
    }

    @Test
    void aMalformedListIsRefusedNamingTheItem() {
        for (String bad : new String[] {"MM_FIFO_SIZE", "=3", "MM_FIFO_SIZE=", "mm_fifo_size=3", "A B=1"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Ucx.config(bad,
                    Map.of()));
            assertTrue(e.getMessage().contains("sdp4j.ucx.config") && e.getMessage().contains(bad.trim()),
                    e.getMessage());
        }
    }
}
