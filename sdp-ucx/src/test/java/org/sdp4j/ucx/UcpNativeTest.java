package org.sdp4j.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openucx.jucx.UcxUtils;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpEndpointParams;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;
import org.sdp4j.ucp.Ucp;
import org.sdp4j.ucp.UcpNative;

/**
 * The data path's own libucp calls ({@link UcpNative}) on two real UCX workers in this JVM, wired up as
 * {@link Handshake} does: what a completed-at-once receive says it received is what it received (a receive whose
 * length was read before the call returned lost every message that was already queued), requests complete in
 * order, and Java mistakes are exceptions.
 */
@Timeout(60)
class UcpNativeTest {
    UcpWorker w1, w2;
    UcpEndpoint e1, e2;
    final ByteBuffer src = ByteBuffer.allocateDirect(64), dst = ByteBuffer.allocateDirect(16384);

    @BeforeEach
    void wire() throws Exception {
        assertTrue(Ucx.isAvailable(), () -> "UCX: " + Ucx.unavailabilityCause());
        assertTrue(Ucp.isAvailable(), () -> "libucp calls: " + Ucp.unavailabilityCause());
        w1 = WorkerPool.take();
        w2 = WorkerPool.take();
        e1 = w1.newEndpoint(new UcpEndpointParams().setUcpAddress(w2.getAddress()));
        e2 = w2.newEndpoint(new UcpEndpointParams().setUcpAddress(w1.getAddress()));
        ByteBuffer a = ByteBuffer.allocateDirect(8), b = ByteBuffer.allocateDirect(16);
        UcpRequest s1 = e1.sendStreamNonBlocking(UcxUtils.getAddress(a), 8, null);
        UcpRequest s2 = e2.sendStreamNonBlocking(UcxUtils.getAddress(a), 8, null);
        UcpRequest r1 = e1.recvStreamNonBlocking(UcxUtils.getAddress(b), 8, 1, null);
        UcpRequest r2 = e2.recvStreamNonBlocking(UcxUtils.getAddress(b) + 8, 8, 1, null);
        while (!s1.isCompleted() || !s2.isCompleted() || !r1.isCompleted() || !r2.isCompleted()) {
            w1.progress();
            w2.progress();
        }
    }

    @AfterEach
    void release() throws Exception {
        UcpRequest c1 = e1.closeNonBlockingFlush(), c2 = e2.closeNonBlockingFlush();
        for (int i = 0; i < 1_000_000 && !(c1.isCompleted() && c2.isCompleted()); i++) {
            w1.progress();
            w2.progress();
        }
        WorkerPool.destroy(w1);
        WorkerPool.destroy(w2);
    }

    /** Sends message k (2 bytes: k) natively and waits for the send. */
    private void send(int k) {
        src.putShort(0, (short) k);
        long r = UcpNative.send(e1.getNativeId(), UcxUtils.getAddress(src), 2);
        assertTrue(r > 0, "send: " + r);
        if ((r & UcpNative.DONE) == 0) {
            while (UcpNative.status(r) == UcpNative.IN_PROGRESS) {
                UcpNative.progress(w1.getNativeId());
                UcpNative.progress(w2.getNativeId());
            }
            assertEquals(0, UcpNative.status(r));
            UcpNative.free(r);
        } else {
            assertEquals(UcpNative.DONE | 2, r);
        }
    }

    @Test
    void messagesAlreadyQueuedAreReceivedAtOnceWithTheirLength() {
        for (int k = 0; k < 5; k++) {
            send(k);
        }
        for (int i = 0; i < 1000; i++) { // the receiver takes them off its FIFO into its stream queue
            UcpNative.progress(w2.getNativeId());
        }
        long r = UcpNative.recv(e2.getNativeId(), UcxUtils.getAddress(dst), dst.capacity());
        assertEquals(UcpNative.DONE | 10, r, Long.toHexString(r));
        for (int k = 0; k < 5; k++) {
            assertEquals(k, dst.getShort(2 * k));
        }
    }

    @Test
    void aPostedReceiveCompletesWithWhatCameInOrder() {
        long w2h = w2.getNativeId(), e2h = e2.getNativeId();
        long got = 0;
        int next = 0;
        for (int k = 0; k < 1000; k++) {
            send(k);
            long r = UcpNative.recv(e2h, UcxUtils.getAddress(dst), dst.capacity());
            assertTrue(r > 0, "recv: " + r);
            long n;
            if ((r & UcpNative.DONE) != 0) {
                n = r & ~UcpNative.DONE;
            } else {
                for (int spins = 0; UcpNative.status(r) == UcpNative.IN_PROGRESS; spins++) {
                    assertTrue(spins < 50_000_000, "message " + k + " never arrived");
                    UcpNative.progress(w1.getNativeId());
                    UcpNative.progress(w2h);
                }
                n = UcpNative.received(r);
                UcpNative.free(r);
            }
            assertTrue(n > 0 && n % 2 == 0, "length " + n);
            for (int i = 0; i < n; i += 2) {
                assertEquals((short) next++, dst.getShort(i), "message order");
            }
            got += n;
        }
        assertEquals(2000, got);
    }

    @Test
    void javaMistakesAreExceptionsNotCrashes() {
        assertThrows(IllegalArgumentException.class, () -> UcpNative.progress(0));
        assertThrows(IllegalArgumentException.class, () -> UcpNative.send(0, UcxUtils.getAddress(src), 2));
        assertThrows(IllegalArgumentException.class, () -> UcpNative.send(e1.getNativeId(), 0, 2));
        assertThrows(IllegalArgumentException.class, () -> UcpNative.recv(e2.getNativeId(), UcxUtils.getAddress(dst), 0));
        assertThrows(IllegalArgumentException.class, () -> UcpNative.status(-5));
        assertThrows(IllegalArgumentException.class, () -> UcpNative.free(0));
        assertThrows(IllegalArgumentException.class, () -> UcpNative.cancel(w1.getNativeId(), 0));
        assertThrows(IllegalArgumentException.class, () -> UcpNative.await(w1.getNativeId(), -1));
        while (UcpNative.progress(w1.getNativeId()) != 0) {
            // nothing left to do, so the sleep below has nothing to wake it but its bound
        }
        // a bounded sleep returns by itself (the class's @Timeout catches one that does not): timed out, woken or busy
        int woke = UcpNative.await(w1.getNativeId(), 20);
        assertTrue(woke >= 0 && woke <= 2, "await: " + woke);
    }
}
