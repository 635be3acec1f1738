package org.sdp4j.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** SO_TIMEOUT: not early, re-armed for every call, and the socket still usable after a timeout. */
public abstract class TimeoutContract extends ContractBase {
    static final int TIMEOUT_MS = 400;

    static long timedOutAfterMs(org.junit.jupiter.api.function.Executable call) {
        long t0 = System.nanoTime();
        assertThrows(SocketTimeoutException.class, call);
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    }

    static void assertTimeout(long ms, String what) {
        // never early (a few ms of clock granularity), never more than the generous bound
        assertTrue(ms >= TIMEOUT_MS - 20, what + " timed out early: after " + ms + " ms of " + TIMEOUT_MS);
        assertTrue(ms < TIMEOUT_MS + TimeUnit.SECONDS.toMillis(BOUND_S), what + " took " + ms + " ms");
    }

    @Test
    void readTimesOutReArmsAndStaysUsable() throws Exception {
        Pair p = pair();
        p.client.setSoTimeout(TIMEOUT_MS);
        assertEquals(TIMEOUT_MS, p.client.getSoTimeout());
        InputStream in = p.client.getInputStream();
        assertTimeout(timedOutAfterMs(in::read), "first read");
        assertTimeout(timedOutAfterMs(() -> in.read(new byte[100])), "second read (re-armed)");
        assertTrue(!p.client.isClosed() && p.client.isConnected(), "a timeout does not close the socket");
        p.server.getOutputStream().write(new byte[] {1, 2, 3});
        assertEquals(1, in.read(), "usable after two timeouts");
        byte[] b = new byte[2];
        assertEquals(2, in.readNBytes(b, 0, 2));
        p.client.getOutputStream().write(9);
        assertEquals(9, await(async(() -> p.server.getInputStream().read())), "writes too");
        p.client.setSoTimeout(0);
        Blocked.Call<Integer> blocked = Blocked.call(() -> in.read());
        Blocked.awaitBlocked(blocked, "a read with timeout 0");
        // blocked, it outlives its former timeout: not done within twice that
        assertThrows(java.util.concurrent.TimeoutException.class,
                () -> blocked.get(TIMEOUT_MS * 2L, TimeUnit.MILLISECONDS), "timeout 0 waits forever again");
        p.server.getOutputStream().write(4);
        assertEquals(4, (int) await(blocked));
    }

    @Test
    void timeoutChangedWhileBlockedAppliesToTheNextRead() throws Exception {
        Pair p = pair();
        p.client.setSoTimeout(TIMEOUT_MS);
        InputStream in = p.client.getInputStream();
        assertTimeout(timedOutAfterMs(in::read), "read");
        p.client.setSoTimeout(TIMEOUT_MS * 2);
        long ms = timedOutAfterMs(in::read);
        assertTrue(ms >= TIMEOUT_MS * 2L - 20, "the new timeout applies: " + ms + " ms");
    }

    @Test
    void acceptTimesOutAndStillAccepts() throws Exception {
        ServerSocket ss = listen();
        ss.setSoTimeout(TIMEOUT_MS);
        assertTimeout(timedOutAfterMs(ss::accept), "accept");
        assertTimeout(timedOutAfterMs(ss::accept), "second accept (re-armed)");
        assertTrue(!ss.isClosed());
        Socket c = closeLater(transport().socket());
        c.connect(addressOf(ss), (int) TimeUnit.SECONDS.toMillis(BOUND_S));
        Socket s = closeLater(ss.accept());
        transport().assertCarried(s, true);
    }

    @Test
    void channelAdaptorReadTimesOut() throws Exception {
        SocketChannel[] ch = channels();
        Socket adaptor = ch[0].socket();
        adaptor.setSoTimeout(TIMEOUT_MS);
        InputStream in = adaptor.getInputStream();
        assertTimeout(timedOutAfterMs(in::read), "adaptor read");
        assertTrue(ch[0].isOpen(), "a timeout does not close the channel");
        ch[1].write(java.nio.ByteBuffer.wrap(new byte[] {5}));
        assertEquals(5, in.read());
    }
}
