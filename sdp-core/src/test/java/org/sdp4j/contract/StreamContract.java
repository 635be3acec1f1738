package org.sdp4j.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Bytes arrive intact and in order: echo sizes, buffer kinds, many small writes, a slow reader, EOF, available(). */
public abstract class StreamContract extends ContractBase {
    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {1, 1000, 65_537, 1 << 20, 8 << 20})
    void javaNetEcho(int n) throws Exception {
        Pair p = pair();
        Future<Long> echo = async(() -> {
            long copied = p.server.getInputStream().transferTo(p.server.getOutputStream());
            p.server.shutdownOutput();
            return copied;
        });
        byte[] data = random(n, n);
        Future<?> w = async(() -> {
            p.client.getOutputStream().write(data);
            p.client.shutdownOutput();
            return null;
        });
        byte[] back = async(() -> p.client.getInputStream().readAllBytes()).get(60, TimeUnit.SECONDS);
        await(w);
        assertEquals(n, (long) await(echo));
        assertSameBytes(data, back, "echoed");
    }

    @ParameterizedTest(name = "{0} bytes, direct={1}")
    @org.junit.jupiter.params.provider.CsvSource({"1,false", "1,true", "65537,false", "65537,true",
            "1048576,true", "8388608,false", "8388608,true"})
    void channelEcho(int n, boolean direct) throws Exception {
        SocketChannel[] ch = channels();
        Future<?> echo = async(() -> {
            ByteBuffer b = direct ? ByteBuffer.allocateDirect(50_000) : ByteBuffer.allocate(50_000);
            while (ch[1].read(b) >= 0) {
                b.flip();
                writeFully(ch[1], b);
                b.clear();
            }
            ch[1].shutdownOutput();
            return null;
        });
        byte[] data = random(n, n + 1);
        Future<?> w = async(() -> {
            ByteBuffer b = direct ? ByteBuffer.allocateDirect(n) : ByteBuffer.allocate(n);
            b.put(data).flip();
            writeFully(ch[0], b);
            ch[0].shutdownOutput();
            return null;
        });
        byte[] back = async(() -> readFully(ch[0], n, direct)).get(60, TimeUnit.SECONDS);
        await(w);
        await(echo);
        assertSameBytes(data, back, "echoed");
        assertEquals(-1, ch[0].read(ByteBuffer.allocate(1)), "end of stream after the echo");
    }

    @Test
    void scatterGather() throws Exception {
        SocketChannel[] ch = channels();
        byte[] data = random(300_001, 5);
        Future<?> w = async(() -> {
            Random sizes = new Random(3);
            for (int off = 0; off < data.length; ) {
                int n = Math.min(data.length - off, 1 + sizes.nextInt(40_000));
                int h = n / 3;
                ByteBuffer a = ByteBuffer.wrap(data, off, h);
                ByteBuffer d = ByteBuffer.allocateDirect(n - h - 1).put(data, off + h, n - h - 1).flip();
                ByteBuffer c = ByteBuffer.wrap(data, off + n - 1, 1);
                ByteBuffer[] g = {ByteBuffer.allocate(0), a, d, c};
                while (c.hasRemaining()) {
                    ch[0].write(g, 1, 3);
                }
                off += n;
            }
            ch[0].shutdownOutput();
            return null;
        });
        ByteBuffer out = ByteBuffer.allocate(data.length + 10);
        Future<?> r = async(() -> {
            while (true) {
                ByteBuffer x = ByteBuffer.allocate(777);
                ByteBuffer y = ByteBuffer.allocateDirect(1500);
                long n = ch[1].read(new ByteBuffer[] {x, y});
                if (n < 0) {
                    return null;
                }
                out.put(x.flip()).put(y.flip());
            }
        });
        await(w);
        await(r);
        assertSameBytes(data, Arrays.copyOf(out.array(), out.position()), "gathered and scattered");
    }

    @Test
    void manySmallWrites() throws Exception {
        Pair p = pair();
        int writes = 20_000;
        Future<?> w = async(() -> {
            OutputStream o = p.client.getOutputStream();
            for (int i = 0; i < writes; i++) {
                int len = 1 + i % 5;
                byte[] b = new byte[len];
                Arrays.fill(b, (byte) i);
                o.write(b);
            }
            p.client.shutdownOutput();
            return null;
        });
        byte[] got = async(() -> p.server.getInputStream().readAllBytes()).get(60, TimeUnit.SECONDS);
        await(w);
        java.io.ByteArrayOutputStream bo = new java.io.ByteArrayOutputStream();
        for (int i = 0; i < writes; i++) {
            for (int k = 0; k <= i % 5; k++) {
                bo.write((byte) i);
            }
        }
        assertSameBytes(bo.toByteArray(), got, "20,000 small writes");
    }

    @Test
    void slowReaderHoldsBackTheWriterWithoutLoss() throws Exception {
        Pair p = pair();
        byte[] data = random(4 << 20, 9);
        Blocked.Call<?> w = Blocked.call(() -> {
            p.client.getOutputStream().write(data);
            p.client.shutdownOutput();
            return null;
        });
        // the writer outruns the reader: flow control must stall it, not drop or reorder; it stays blocked in its
        // write (a single call: nothing to count while it copies, so only the sightings say it stopped)
        Blocked.awaitStalled(w, () -> 0, "a writer of 4 MiB nobody reads yet");
        assertTrue(!w.isDone(), "4 MiB cannot all be buffered while nobody reads");
        InputStream in = p.server.getInputStream();
        java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
        byte[] b = new byte[64 * 1024];
        Future<?> r = async(() -> {
            int n;
            int chunks = 0;
            while ((n = in.read(b)) >= 0) {
                got.write(b, 0, n);
                if (chunks++ < 20) {
                    Thread.sleep(20); // pacing, not a settle: the reader is slow at first on purpose
                }
            }
            return null;
        });
        r.get(60, TimeUnit.SECONDS);
        await(w);
        assertSameBytes(data, got.toByteArray(), "received by the slow reader");
    }

    @Test
    void endOfStreamRepeats() throws Exception {
        Pair p = pair();
        p.server.getOutputStream().write(7);
        p.server.close();
        InputStream in = p.client.getInputStream();
        assertEquals(7, (int) await(async(in::read)));
        assertEquals(-1, (int) await(async(in::read)));
        assertEquals(-1, (int) await(async(in::read)), "end of stream is sticky");
        assertEquals(-1, (int) await(async(() -> in.read(new byte[10], 0, 10))));
        assertEquals(0, in.read(new byte[10], 0, 0), "a zero-length read at end of stream");
    }

    @Test
    void channelEndOfStreamRepeats() throws Exception {
        SocketChannel[] ch = channels();
        writeFully(ch[1], ByteBuffer.wrap(new byte[] {7}));
        ch[1].close();
        ByteBuffer b = ByteBuffer.allocate(4);
        assertEquals(1, (int) await(async(() -> ch[0].read(b))));
        assertEquals(-1, (int) await(async(() -> ch[0].read(b))));
        assertEquals(-1, (int) await(async(() -> ch[0].read(b))), "end of stream is sticky");
    }

    @Test
    void available() throws Exception {
        Pair p = pair();
        InputStream in = p.client.getInputStream();
        assertEquals(0, in.available(), "nothing sent yet");
        p.server.getOutputStream().write(new byte[10]);
        Blocked.until(() -> in.available() >= 10, "10 bytes available");
        assertEquals(10, in.available(), "10 bytes sent, none read");
        assertEquals(4, in.read(new byte[4]));
        assertEquals(6, in.available(), "after reading 4");
        in.readNBytes(6);
        assertEquals(0, in.available());
        p.server.close();
        assertEquals(-1, (int) await(async(in::read)));
        assertEquals(0, in.available(), "at end of stream");
        p.client.close();
        assertThrows(SocketException.class, in::available, "available() on a closed socket");
    }
}
