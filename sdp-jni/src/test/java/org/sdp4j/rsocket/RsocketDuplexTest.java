package org.sdp4j.rsocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sdp4j.rsocket.RsocketSocketImplTest.RsServerSocket;
import org.sdp4j.rsocket.RsocketSocketImplTest.RsSocket;

/**
 * Both directions of one connection at once, each end read and written by different threads, as java.net
 * programs do: a client thread streams a checked byte sequence through an 8 KiB send ring while another client
 * thread waits in read for the server's ticks, and the server answers every 4 KiB it verified with a tick written
 * by a thread of its own. librdmacm's send accounting is not safe against an rpoll in another thread (see
 * native/src/sdp4j_rslock.c): before sdp4j serialized them, a lost update let rsend copy past its ring (a heap
 * overflow, found as "double free or corruption" in rclose) or made it resend over unsent data. Here that shows as
 * a byte out of sequence, a count that does not add up, a stall, or a crash. Runs for
 * {@code -Dsdp4j.test.duplexSeconds} (3 s; longer in the VM, where it meets real librdmacm).
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RsocketDuplexTest {
    static final long SECONDS = Long.getLong("sdp4j.test.duplexSeconds", 3);
    static final int TICK_EVERY = 4096;

    @BeforeAll
    static void available() {
        Assumptions.assumeTrue(Rsocket.isAvailable(), () -> "rsockets unavailable: " + Rsocket.unavailabilityCause());
    }

    static final int STALL_MS = 30_000;

    private static int read(InputStream in, byte[] b, long pos) throws java.io.IOException {
        try {
            return in.read(b);
        } catch (java.net.SocketTimeoutException e) {
            throw new AssertionError("the stream stalled: nothing for " + STALL_MS + " ms after " + pos + " bytes", e);
        }
    }

    /** The byte at stream position i: not periodic in any power of two, so a slip or an overwrite shows. */
    static byte expected(long i) {
        return (byte) (i * 131 + (i >>> 9) * 7 + (i >>> 17));
    }

    @Test
    void aStreamWrittenWhileAnotherThreadReadsArrivesIntactBothWays() throws Exception {
        ExecutorService exec = Executors.newFixedThreadPool(5, r -> {
            Thread t = new Thread(r, "duplex");
            t.setDaemon(true);
            return t;
        });
        try (RsServerSocket ss = RsServerSocket.bound()) {
            ss.setSoTimeout(30_000);
            Future<RsSocket> acc = exec.submit(ss::accept);
            RsSocket c = new RsSocket();
            c.setSendBufferSize(4096); // librdmacm's smallest ring (8 KiB): it wraps on every write
            c.connect(new InetSocketAddress(RsocketSocketImplTest.ADDRESS, ss.getLocalPort()), 30_000);
            try (c; RsSocket s = acc.get(30, TimeUnit.SECONDS)) {
                AtomicLong ticksRead = new AtomicLong();
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(SECONDS);
                Future<Long> writer = exec.submit(() -> {
                    OutputStream out = c.getOutputStream();
                    byte[] b = new byte[64 * 1024];
                    long pos = 0;
                    while (System.nanoTime() - end < 0) {
                        int n = 1 + ThreadLocalRandom.current().nextInt(ThreadLocalRandom.current().nextBoolean() ? 100 : b.length);
                        for (int i = 0; i < n; i++) {
                            b[i] = expected(pos + i);
                        }
                        out.write(b, 0, n);
                        pos += n;
                    }
                    c.shutdownOutput();
                    return pos;
                });
                Future<?> clientReader = exec.submit(() -> {
                    InputStream in = c.getInputStream();
                    while (in.read() >= 0) {
                        ticksRead.incrementAndGet();
                    }
                    return null;
                });
                BlockingQueue<Long> owed = new LinkedBlockingQueue<>(); // ticks due; -1: the stream ended
                Future<?> ticker = exec.submit(() -> {
                    OutputStream out = s.getOutputStream();
                    for (long k; (k = owed.take()) >= 0; ) {
                        for (long t = 0; t < k; t++) {
                            out.write(1);
                        }
                    }
                    s.shutdownOutput();
                    return null;
                });
                InputStream in = s.getInputStream();
                s.setSoTimeout(STALL_MS); // a lost credit stalls the stream: say so, not the test's timeout
                byte[] b = new byte[32 * 1024];
                long pos = 0;
                String bad = null;
                for (int n; (n = read(in, b, pos)) > 0; ) { // to the end even after a mismatch: the writer must finish
                    for (int i = 0; i < n && bad == null; i++) {
                        if (b[i] != expected(pos + i)) {
                            bad = "byte " + (pos + i) + ": " + b[i] + ", expected " + expected(pos + i);
                        }
                    }
                    long due = (pos + n) / TICK_EVERY - pos / TICK_EVERY;
                    pos += n;
                    if (due > 0) {
                        owed.add(due);
                    }
                }
                owed.add(-1L);
                long written = writer.get(60, TimeUnit.SECONDS);
                ticker.get(60, TimeUnit.SECONDS);
                clientReader.get(60, TimeUnit.SECONDS);
                long received = pos;
                String mismatch = bad;
                System.out.println("RsocketDuplexTest: " + written + " bytes in " + SECONDS + " s, " + ticksRead.get()
                        + " ticks back");
                assertTrue(mismatch == null, () -> "the stream arrived corrupted at " + mismatch);
                assertEquals(written, received, "bytes written and received");
                assertEquals(received / TICK_EVERY, ticksRead.get(), "ticks");
                assertTrue(written > 0, "nothing was written");
            }
        } finally {
            exec.shutdownNow();
        }
    }
}
