package org.sdp4j.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** Non-blocking connect and finishConnect, every interest op, key cancel and re-register, wakeup. */
public abstract class SelectorContract extends ContractBase {
    /** Selects until {@code key} is selected with all of {@code ops} ready, bounded. */
    static void awaitReady(Selector sel, SelectionKey key, int ops) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_S);
        while (System.nanoTime() < end) {
            sel.select(200);
            boolean hit = sel.selectedKeys().remove(key) && (key.readyOps() & ops) == ops;
            if (hit) {
                return;
            }
        }
        throw new AssertionError("ops " + ops + " never ready on " + key.channel() + " (interest "
                + key.interestOps() + ")");
    }

    @Test
    void nonBlockingConnectAcceptReadWrite() throws Exception {
        Selector sel = closeLater(transport().provider().openSelector());
        ServerSocketChannel ss = listenChannel();
        ss.configureBlocking(false);
        SelectionKey ak = ss.register(sel, SelectionKey.OP_ACCEPT);
        assertEquals(null, ss.accept(), "no pending connection: a non-blocking accept returns null");

        SocketChannel c = closeLater(transport().provider().openSocketChannel());
        c.configureBlocking(false);
        SelectionKey ck = c.register(sel, 0, "client"); // registered before connecting, as Netty does
        SocketChannel a = null;
        if (!c.connect(ss.getLocalAddress())) {
            assertTrue(c.isConnectionPending());
            ck.interestOps(SelectionKey.OP_CONNECT);
        }
        // one event loop for both ends, as a single-threaded server with its own client would run it
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_S);
        while ((a == null || !c.isConnected()) && System.nanoTime() < end) {
            sel.select(200);
            for (var it = sel.selectedKeys().iterator(); it.hasNext(); ) {
                SelectionKey k = it.next();
                it.remove();
                if (k == ak && k.isAcceptable() && a == null) {
                    a = ss.accept();
                } else if (k == ck && k.isConnectable()) {
                    assertTrue(c.finishConnect() || c.isConnectionPending());
                }
            }
        }
        assertTrue(a != null, "accepted");
        closeLater(a);
        assertTrue(c.isConnected(), "connected");
        assertFalse(c.isConnectionPending());
        assertTrue(c.finishConnect(), "finishConnect on a connected channel");
        ck.interestOps(0);
        transport().assertCarried(c, false);
        transport().assertCarried(a, true);
        assertEquals(null, ss.accept(), "nothing else pending");

        a.configureBlocking(false);
        SelectionKey rk = a.register(sel, SelectionKey.OP_READ);
        assertEquals(0, a.read(ByteBuffer.allocate(4)), "nothing to read yet: 0, not a block");

        ck.interestOps(SelectionKey.OP_WRITE);
        awaitReady(sel, ck, SelectionKey.OP_WRITE);
        assertEquals(3, c.write(ByteBuffer.wrap(new byte[] {1, 2, 3})));
        awaitReady(sel, rk, SelectionKey.OP_READ);
        ByteBuffer b = ByteBuffer.allocate(8);
        end = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_S);
        while (b.position() < 3 && System.nanoTime() < end) {
            a.read(b);
        }
        assertEquals(3, b.position());

        // end of stream is readable too
        c.close();
        awaitReady(sel, rk, SelectionKey.OP_READ);
        assertEquals(-1, a.read(ByteBuffer.allocate(4)));
    }

    @Test
    void nonBlockingWriteFillsAndSelectSaysWhenWritableAgain() throws Exception {
        SocketChannel[] ch = channels();
        Selector sel = closeLater(transport().provider().openSelector());
        ch[0].configureBlocking(false);
        SelectionKey k = ch[0].register(sel, SelectionKey.OP_WRITE);
        ByteBuffer chunk = ByteBuffer.allocateDirect(64 * 1024);
        long written = 0;
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_S);
        int n;
        do {
            chunk.clear();
            n = ch[0].write(chunk);
            written += n;
            assertTrue(System.nanoTime() < end, "a non-blocking writer never saw a full buffer");
        } while (n > 0);
        assertTrue(written > 0);
        final long total = written;
        Future<Long> drain = async(() -> {
            ByteBuffer r = ByteBuffer.allocate(64 * 1024);
            long got = 0;
            while (got < total) {
                r.clear();
                got += ch[1].read(r);
            }
            return got;
        });
        awaitReady(sel, k, SelectionKey.OP_WRITE);
        assertEquals(total, (long) await(drain));
    }

    @Test
    void cancelThenReRegister() throws Exception {
        SocketChannel[] ch = channels();
        Selector sel = closeLater(transport().provider().openSelector());
        ch[0].configureBlocking(false);
        SelectionKey k = ch[0].register(sel, SelectionKey.OP_READ);
        k.cancel();
        assertFalse(k.isValid());
        assertThrows(CancelledKeyException.class, () -> k.interestOps(SelectionKey.OP_READ));
        sel.selectNow(); // deregisters
        assertFalse(sel.keys().contains(k));
        SelectionKey k2 = ch[0].register(sel, SelectionKey.OP_READ);
        assertTrue(k2 != k && k2.isValid());
        ch[1].write(ByteBuffer.wrap(new byte[] {9}));
        awaitReady(sel, k2, SelectionKey.OP_READ);
    }

    @Test
    void noInterestNoSelection() throws Exception {
        SocketChannel[] ch = channels();
        Selector sel = closeLater(transport().provider().openSelector());
        ch[0].configureBlocking(false);
        SelectionKey k = ch[0].register(sel, 0);
        ch[1].write(ByteBuffer.wrap(new byte[] {9}));
        // wait until the byte has arrived: a second selector, interested in reads, says when (a channel may be
        // registered with several selectors); reading the byte to find out would take it away
        try (Selector probe = transport().provider().openSelector()) {
            awaitReady(probe, ch[0].register(probe, SelectionKey.OP_READ), SelectionKey.OP_READ);
        }
        assertEquals(0, sel.select(300), "interest 0: nothing selected though data is there");
        k.interestOps(SelectionKey.OP_READ);
        awaitReady(sel, k, SelectionKey.OP_READ);
        assertThrows(java.nio.channels.IllegalBlockingModeException.class, () -> ch[0].configureBlocking(true));
    }

    /**
     * A connected channel registered with interest 0 (Netty registers every channel first; auto-read off keeps it
     * there) hides nothing else: a ready pipe in the same selector is selected, and a select with nothing ready
     * waits out its timeout instead of returning 0 at once (issue 23: with a transport key at interest 0 the
     * selector polled nothing and spun).
     */
    @Test
    void aKeyWithInterestZeroNeitherHidesOtherChannelsNorSpins() throws Exception {
        SocketChannel[] ch = channels();
        Selector sel = closeLater(transport().provider().openSelector());
        java.nio.channels.Pipe pipe = transport().provider().openPipe();
        closeLater(pipe.sink());
        closeLater(pipe.source());
        ch[0].configureBlocking(false);
        SelectionKey quiet = ch[0].register(sel, 0);
        pipe.source().configureBlocking(false);
        SelectionKey pk = pipe.source().register(sel, SelectionKey.OP_READ);
        ch[1].write(ByteBuffer.wrap(new byte[] {7})); // data on the quiet channel too: its interest says no
        pipe.sink().write(ByteBuffer.wrap(new byte[] {1}));
        assertEquals(1, sel.select(BOUND_S * 1000), "the ready pipe is selected");
        assertTrue(sel.selectedKeys().contains(pk) && !sel.selectedKeys().contains(quiet), sel.selectedKeys()::toString);
        sel.selectedKeys().clear();
        assertEquals(1, pipe.source().read(ByteBuffer.allocate(4)));
        for (int i = 0; i < 3; i++) {
            long start = System.nanoTime();
            assertEquals(0, sel.select(200), "nothing ready");
            long ms = (System.nanoTime() - start) / 1_000_000;
            // a lower bound only: a loaded machine makes the wait longer, never shorter
            assertTrue(ms >= 150, "select(200) with nothing ready returned after " + ms + " ms: a busy loop");
        }
        quiet.interestOps(SelectionKey.OP_READ);
        awaitReady(sel, quiet, SelectionKey.OP_READ);
    }

    @Test
    void wakeupWakesABlockedSelect() throws Exception {
        SocketChannel[] ch = channels();
        Selector sel = closeLater(transport().provider().openSelector());
        ch[0].configureBlocking(false);
        ch[0].register(sel, SelectionKey.OP_READ);
        Blocked.Call<Integer> s = Blocked.call(() -> sel.select());
        // woken while blocked in the select (a wakeup before it is the case below)
        Blocked.awaitBlocked(s, "a select with nothing ready");
        assertFalse(s.isDone(), "nothing ready: select blocks");
        sel.wakeup();
        assertEquals(0, (int) await(s));
        sel.wakeup(); // a wakeup before select makes the next select return at once
        assertEquals(0, (int) await(async(() -> sel.select())));
    }

    @Test
    void closingARegisteredChannelCancelsItsKey() throws Exception {
        SocketChannel[] ch = channels();
        Selector sel = closeLater(transport().provider().openSelector());
        ch[0].configureBlocking(false);
        SelectionKey k = ch[0].register(sel, SelectionKey.OP_READ);
        ch[0].close();
        assertFalse(k.isValid());
        sel.selectNow();
        assertTrue(sel.keys().isEmpty(), "the key of a closed channel is gone after a select");
    }
}
