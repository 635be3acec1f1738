package org.sdp4j.rsocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.SocketException;
import java.nio.ByteBuffer;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Every JNI entry, from Java, with bad arguments: negative, unknown, closed and wrong-kind descriptors, null
 * arrays and buffers, offsets and lengths out of bounds, heap buffers where direct ones are needed, bad addresses,
 * ports and option ids. Each must throw (never crash the JVM). The same checks run without a JVM under ASan and
 * valgrind in native/test/check_native.c.
 */
class NativeValidationTest {

    @BeforeAll
    static void loaded() {
        Assumptions.assumeTrue(Rsocket.isLoaded(), () -> "libsdp4j/librdmacm not loaded: " + Rsocket.unavailabilityCause());
    }

    private static void badFd(Executable e) {
        SocketException x = assertThrows(SocketException.class, e);
        assertTrue(x.getMessage().contains("Bad file descriptor"), x.getMessage());
    }

    @Test
    void descriptorsNotOpenedHereAreRejected() {
        byte[] b = new byte[8];
        byte[] a = {127, 0, 0, 1};
        ByteBuffer d = ByteBuffer.allocateDirect(8);
        for (int fd : new int[] {-1, Integer.MIN_VALUE, 0, 1, 2, 65535, 1 << 20, Integer.MAX_VALUE}) {
            badFd(() -> Native.read(fd, b, 0, 8));
            badFd(() -> Native.write(fd, b, 0, 8));
            badFd(() -> Native.readDirect(fd, d, 0, 8));
            badFd(() -> Native.writeDirect(fd, d, 0, 8));
            badFd(() -> Native.available(fd));
            badFd(() -> Native.bind(fd, a, 0, 1));
            badFd(() -> Native.listen(fd, 1));
            badFd(() -> Native.connect(fd, a, 0, 1));
            badFd(() -> Native.finishConnect(fd, Native.POLLOUT, a, 0, 1));
            badFd(() -> Native.accept(fd));
            badFd(() -> Native.sockname(fd, true));
            badFd(() -> Native.shutdown(fd, Native.SHUT_WR));
            badFd(() -> Native.close(fd));
            badFd(() -> Native.setOption(fd, Native.OPT_TCP_NODELAY, 1));
            badFd(() -> Native.getOption(fd, Native.OPT_TCP_NODELAY));
            badFd(() -> Native.poll(fd, Native.POLLIN, -1, 0));
            badFd(() -> Native.pollListener(fd, -1, 0, true));
            badFd(() -> Native.cmEventPending(fd));
            badFd(() -> Native.signal(fd));
            badFd(() -> Native.closeEvent(fd));
        }
    }

    @Test
    void eventfdsAreNotRsockets() throws IOException {
        int ev = Native.eventfd();
        try {
            SocketException x = assertThrows(SocketException.class, () -> Native.read(ev, new byte[1], 0, 1));
            assertTrue(x.getMessage().contains("a wakeup descriptor"), x.getMessage());
            assertThrows(SocketException.class, () -> Native.close(ev));
            int[] fds = {-1};
            assertEquals(0, Native.pollMany(fds, new short[] {Native.POLLIN}, new short[1], 1, ev, 0, true));
            Native.signal(ev);
            long t = System.nanoTime();
            assertEquals(0, Native.pollMany(fds, new short[] {Native.POLLIN}, new short[1], 1, ev, 10_000, true));
            assertTrue(System.nanoTime() - t < 5_000_000_000L, "wakeup should return at once");
        } finally {
            Native.closeEvent(ev);
        }
        badFd(() -> Native.closeEvent(ev)); // closed twice
        badFd(() -> Native.signal(ev));
    }

    @Test
    void pollManyArguments() throws IOException {
        int[] fds = new int[2];
        short[] ev = new short[2];
        short[] rev = new short[1];
        assertThrows(NullPointerException.class, () -> Native.pollMany(null, ev, rev, 0, -1, 0, true));
        assertThrows(NullPointerException.class, () -> Native.pollMany(fds, null, rev, 0, -1, 0, true));
        assertThrows(NullPointerException.class, () -> Native.pollMany(fds, ev, null, 0, -1, 0, true));
        assertThrows(ArrayIndexOutOfBoundsException.class, () -> Native.pollMany(fds, ev, rev, 2, -1, 0, true));
        assertThrows(ArrayIndexOutOfBoundsException.class, () -> Native.pollMany(fds, ev, rev, -1, -1, 0, true));
        badFd(() -> Native.pollMany(fds, ev, rev, 1, 12345, 0, true));
    }

    /** Argument checks behind a live descriptor: needs a socket, so the TCP shim (there is no device here). */
    @Test
    void argumentsOfALiveSocket() throws IOException {
        Assumptions.assumeTrue(Rsocket.isAvailable(), "no rsocket can be created here");
        int fd = Native.socket(false);
        try {
            byte[] b = new byte[8];
            assertThrows(NullPointerException.class, () -> Native.bind(fd, null, 0, 0));
            assertThrows(IllegalArgumentException.class, () -> Native.bind(fd, new byte[5], 0, 0));
            assertThrows(IllegalArgumentException.class, () -> Native.bind(fd, new byte[4], 0, 65536));
            assertThrows(IllegalArgumentException.class, () -> Native.connect(fd, new byte[4], 0, -1));
            assertThrows(IllegalArgumentException.class, () -> Native.setOption(fd, 0, 1));
            assertThrows(IllegalArgumentException.class, () -> Native.getOption(fd, 99));
            // not connected yet: data calls refuse before touching librdmacm
            SocketException x = assertThrows(SocketException.class, () -> Native.read(fd, b, 0, 8));
            assertTrue(x.getMessage().contains("not connected"), x.getMessage());
            assertThrows(SocketException.class, () -> Native.write(fd, b, 0, 8));
            assertThrows(SocketException.class, () -> Native.available(fd));
            assertThrows(SocketException.class, () -> Native.accept(fd));
            assertThrows(SocketException.class, () -> Native.shutdown(fd, Native.SHUT_RD));
            assertThrows(SocketException.class, () -> Native.finishConnect(fd, Native.POLLOUT, new byte[4], 0, 1));
            assertThrows(SocketException.class, () -> Native.pollListener(fd, -1, 0, true)); // not listening
        } finally {
            Native.close(fd);
        }
        badFd(() -> Native.close(fd));
        badFd(() -> Native.read(fd, new byte[1], 0, 1));
    }

    @Test
    void buffersOfAConnectedSocket() throws Exception {
        Assumptions.assumeTrue(Rsocket.isAvailable(), "no rsocket can be created here");
        try (RsocketSocketImplTest.Pair p = RsocketSocketImplTest.Pair.open()) {
            int fd = p.client.impl.rsocketFd();
            byte[] b = new byte[8];
            ByteBuffer d = ByteBuffer.allocateDirect(8);
            assertThrows(NullPointerException.class, () -> Native.read(fd, null, 0, 1));
            assertThrows(NullPointerException.class, () -> Native.write(fd, null, 0, 1));
            assertThrows(ArrayIndexOutOfBoundsException.class, () -> Native.read(fd, b, -1, 1));
            assertThrows(ArrayIndexOutOfBoundsException.class, () -> Native.read(fd, b, 0, 9));
            assertThrows(ArrayIndexOutOfBoundsException.class, () -> Native.write(fd, b, 8, 1));
            assertThrows(ArrayIndexOutOfBoundsException.class, () -> Native.write(fd, b, Integer.MAX_VALUE, 2));
            assertThrows(NullPointerException.class, () -> Native.readDirect(fd, null, 0, 1));
            assertThrows(IllegalArgumentException.class, () -> Native.readDirect(fd, ByteBuffer.allocate(8), 0, 1));
            assertThrows(IllegalArgumentException.class, () -> Native.writeDirect(fd, ByteBuffer.allocate(8), 0, 1));
            assertThrows(ArrayIndexOutOfBoundsException.class, () -> Native.readDirect(fd, d, 4, 5));
            assertThrows(ArrayIndexOutOfBoundsException.class, () -> Native.writeDirect(fd, d, -1, 1));
            assertThrows(IllegalArgumentException.class, () -> Native.shutdown(fd, 7));
            assertThrows(SocketException.class, () -> Native.listen(fd, 1));
            assertThrows(SocketException.class, () -> Native.connect(fd, new byte[4], 0, 1));
            assertEquals(0, Native.read(fd, b, 0, 0));
            assertEquals(0, Native.write(fd, b, 0, 0));
            // direct buffers work in place
            d.put(0, (byte) 42);
            assertEquals(1, Native.writeDirect(fd, d, 0, 1));
            assertEquals(42, p.server.getInputStream().read());
        }
    }
}
