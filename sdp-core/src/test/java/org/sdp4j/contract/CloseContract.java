package org.sdp4j.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Half-close each way, shutdownInput under a reader, close from another thread waking every blocking call (with one
 * and with several blocked threads), and what reads and writes see after close.
 */
public abstract class CloseContract extends ContractBase {
    static Throwable failure(Future<?> f) throws Exception {
        ExecutionException e = assertThrows(ExecutionException.class, () -> await(f), "the blocked call must fail");
        return e.getCause();
    }

    @Test
    void clientHalfClosesAndStillGetsTheReply() throws Exception {
        Pair p = pair();
        p.client.getOutputStream().write("request".getBytes());
        p.client.shutdownOutput();
        assertTrue(p.client.isOutputShutdown());
        byte[] req = await(async(() -> p.server.getInputStream().readAllBytes()));
        assertEquals("request", new String(req));
        p.server.getOutputStream().write("reply".getBytes());
        p.server.close();
        assertEquals("reply", new String(await(async(() -> p.client.getInputStream().readAllBytes()))));
        assertThrows(SocketException.class, () -> p.client.getOutputStream().write(1), "write after shutdownOutput");
    }

    @Test
    void serverHalfClosesAndStillReceives() throws Exception {
        Pair p = pair();
        p.server.getOutputStream().write("greeting".getBytes());
        p.server.shutdownOutput();
        assertEquals("greeting", new String(await(async(() -> p.client.getInputStream().readAllBytes()))));
        byte[] big = random(200_000, 1);
        Future<byte[]> got = async(() -> p.server.getInputStream().readNBytes(big.length));
        p.client.getOutputStream().write(big);
        assertSameBytes(big, await(got), "sent after the peer's shutdownOutput");
    }

    @Test
    void channelHalfCloseBothWays() throws Exception {
        SocketChannel[] ch = channels();
        writeFully(ch[0], ByteBuffer.wrap("ab".getBytes()));
        ch[0].shutdownOutput();
        assertEquals("ab", new String(await(async(() -> readFully(ch[1], 10, false)))));
        writeFully(ch[1], ByteBuffer.wrap("cd".getBytes()));
        ch[1].shutdownOutput();
        assertEquals("cd", new String(await(async(() -> readFully(ch[0], 10, true)))));
        assertTrue(ch[0].isOpen() && ch[1].isOpen(), "half-closed both ways, still open");
    }

    @Test
    void shutdownInputWakesABlockedReader() throws Exception {
        limitation(Limitation.SHUTDOWN_INPUT_NO_WAKE);
        Pair p = pair();
        InputStream in = p.client.getInputStream();
        Blocked.Call<Integer> r = Blocked.call(() -> in.read());
        // blocked, not about to read: a shutdown before the read would test something else
        Blocked.awaitBlocked(r, "a reader of a connection nobody writes to");
        // the JDK returns at once and the reader sees end of stream
        Future<?> sd = async(() -> {
            p.client.shutdownInput();
            return null;
        });
        await(sd);
        assertEquals(-1, (int) await(r), "the blocked reader sees end of stream");
        assertTrue(p.client.isInputShutdown());
        assertEquals(-1, in.read(), "and every later read");
        assertThrows(SocketException.class, p.client::getInputStream, "the JDK refuses a new stream after it");
        p.client.getOutputStream().write(1);
        assertEquals(1, await(async(() -> p.server.getInputStream().read())), "output still works");
    }

    @Test
    void channelShutdownInputWakesABlockedReader() throws Exception {
        SocketChannel[] ch = channels();
        Blocked.Call<Integer> r = Blocked.call(() -> ch[0].read(ByteBuffer.allocate(8)));
        Blocked.awaitBlocked(r, "a channel reader of a connection nobody writes to");
        await(async(() -> ch[0].shutdownInput()));
        assertEquals(-1, (int) await(r), "the blocked reader sees end of stream");
        assertTrue(ch[0].isOpen());
    }

    @ParameterizedTest(name = "{0} blocked reader(s)")
    @ValueSource(ints = {1, 3})
    void closeWakesBlockedReaders(int readers) throws Exception {
        Pair p = pair();
        InputStream in = p.client.getInputStream();
        List<Blocked.Call<Integer>> rs = new ArrayList<>();
        for (int i = 0; i < readers; i++) {
            rs.add(Blocked.call(in::read));
        }
        // every reader blocked (in the read or waiting for the stream's lock): a close before would test less
        for (Blocked.Call<Integer> r : rs) {
            Blocked.awaitBlocked(r, "a reader of a connection nobody writes to");
        }
        await(async(() -> {
            p.client.close();
            return null;
        }));
        for (Blocked.Call<Integer> r : rs) {
            assertInstanceOf(SocketException.class, failure(r), "a reader woken by close");
        }
    }

    @ParameterizedTest(name = "{0} blocked reader(s)")
    @ValueSource(ints = {1, 3})
    void channelCloseWakesBlockedReaders(int readers) throws Exception {
        SocketChannel[] ch = channels();
        List<Blocked.Call<Integer>> rs = new ArrayList<>();
        for (int i = 0; i < readers; i++) {
            rs.add(Blocked.call(() -> ch[0].read(ByteBuffer.allocate(8))));
        }
        for (Blocked.Call<Integer> r : rs) {
            Blocked.awaitBlocked(r, "a channel reader of a connection nobody writes to");
        }
        await(async(() -> {
            ch[0].close();
            return null;
        }));
        for (Blocked.Call<Integer> r : rs) {
            // one reader is in the read (AsynchronousCloseException), the others waited for the channel's read lock
            assertInstanceOf(ClosedChannelException.class, failure(r), "a reader woken by close");
        }
    }

    /** Fills the send path (the peer reads nothing) until a write blocks, then closes the writer's socket. */
    @ParameterizedTest(name = "{0} blocked writer(s)")
    @ValueSource(ints = {1, 3})
    void closeWakesBlockedWriters(int writers) throws Exception {
        Pair p = pair();
        AtomicLong written = new AtomicLong(); // moves while any writer still gets rid of bytes
        List<Blocked.Call<Object>> ws = new ArrayList<>();
        for (int i = 0; i < writers; i++) {
            ws.add(Blocked.call(() -> {
                byte[] chunk = new byte[64 * 1024];
                while (true) {
                    p.client.getOutputStream().write(chunk);
                    written.addAndGet(chunk.length);
                }
            }));
        }
        // a writer can only block once every buffer on the way is full
        for (Blocked.Call<Object> w : ws) {
            Blocked.awaitStalled(w, written::get, "a writer to a peer that reads nothing");
        }
        for (Blocked.Call<Object> w : ws) {
            assertFalse(w.isDone(), "writers must block when nobody reads");
        }
        await(async(() -> {
            p.client.close();
            return null;
        }));
        for (Blocked.Call<Object> w : ws) {
            assertInstanceOf(SocketException.class, failure(w), "a writer woken by close");
        }
    }

    @Test
    void channelCloseWakesABlockedWriter() throws Exception {
        SocketChannel[] ch = channels();
        AtomicLong written = new AtomicLong();
        Blocked.Call<Object> w = Blocked.call(() -> {
            ByteBuffer chunk = ByteBuffer.allocateDirect(64 * 1024);
            while (true) {
                chunk.clear();
                written.addAndGet(ch[0].write(chunk));
            }
        });
        // a writer can only block once every buffer on the way is full
        Blocked.awaitStalled(w, written::get, "a channel writer to a peer that reads nothing");
        assertFalse(w.isDone(), "the writer must block when nobody reads");
        await(async(() -> {
            ch[0].close();
            return null;
        }));
        // AsynchronousCloseException, or ClosedChannelException when the write in progress returned a partial count
        assertInstanceOf(ClosedChannelException.class, failure(w), "a writer woken by close");
    }

    @ParameterizedTest(name = "{0} blocked acceptor(s)")
    @ValueSource(ints = {1, 3})
    void closeWakesBlockedAccepts(int acceptors) throws Exception {
        ServerSocket ss = listen();
        List<Blocked.Call<Socket>> as = new ArrayList<>();
        for (int i = 0; i < acceptors; i++) {
            as.add(Blocked.call(ss::accept));
        }
        for (Blocked.Call<Socket> a : as) {
            Blocked.awaitBlocked(a, "an accept with nobody connecting");
        }
        await(async(() -> {
            ss.close();
            return null;
        }));
        for (Blocked.Call<Socket> a : as) {
            assertInstanceOf(SocketException.class, failure(a), "an acceptor woken by close");
        }
        assertTrue(ss.isClosed());
    }

    @Test
    void channelCloseWakesABlockedAccept() throws Exception {
        ServerSocketChannel ss = listenChannel();
        Blocked.Call<SocketChannel> a = Blocked.call(ss::accept);
        Blocked.awaitBlocked(a, "a channel accept with nobody connecting");
        await(async(() -> {
            ss.close();
            return null;
        }));
        assertInstanceOf(AsynchronousCloseException.class, failure(a), "an acceptor woken by close");
    }

    /**
     * A connect that blocks: a listener with backlog 1 that never accepts; clients are added until one does not
     * complete within half a second (the kernel drops its SYN), then that blocking connect is closed from another
     * thread.
     */
    @Test
    void closeWakesABlockedConnect() throws Exception {
        limitation(Limitation.BACKLOG_UNBOUNDED);
        ServerSocket ss = listen(1);
        InetSocketAddress to = addressOf(ss);
        Socket blocked = null;
        for (int i = 0; i < 16 && blocked == null; i++) {
            Socket s = closeLater(transport().socket());
            try {
                s.connect(to, 500);
            } catch (SocketTimeoutException timedOut) {
                blocked = closeLater(transport().socket());
            }
        }
        assertTrue(blocked != null, "16 connects to a full backlog all completed: no connect to block");
        Socket b = blocked;
        Blocked.Call<Object> c = Blocked.call(() -> {
            b.connect(to);
            return null;
        });
        Blocked.awaitBlocked(c, "a connect to a full backlog");
        assertFalse(c.isDone(), "the connect to a full backlog blocks");
        await(async(() -> {
            b.close();
            return null;
        }));
        assertInstanceOf(SocketException.class, failure(c), "a connect woken by close");
    }

    @Test
    void closeWakesASelect() throws Exception {
        Selector sel = closeLater(transport().provider().openSelector());
        Blocked.Call<Integer> s = Blocked.call(() -> sel.select());
        Blocked.awaitBlocked(s, "a select with nothing registered");
        await(async(() -> {
            sel.close();
            return null;
        }));
        assertEquals(0, (int) await(s), "select woken by the selector's close");
        assertFalse(sel.isOpen());
    }

    @Test
    void readsAndWritesAfterCloseFailAtOnceFromSeveralThreads() throws Exception {
        Pair p = pair();
        InputStream in = p.client.getInputStream();
        var out = p.client.getOutputStream();
        p.client.close();
        List<Future<Object>> calls = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            calls.add(async(() -> in.read()));
            calls.add(async(() -> {
                out.write(new byte[1000]);
                return null;
            }));
        }
        for (Future<Object> f : calls) {
            assertInstanceOf(SocketException.class, failure(f), "use after close");
        }
        assertThrows(SocketException.class, p.client::getInputStream);
        assertTrue(p.client.isClosed());
        p.client.close(); // a second close is a no-op
    }

    @Test
    void channelReadsAndWritesAfterCloseFailFromSeveralThreads() throws Exception {
        SocketChannel[] ch = channels();
        ch[0].close();
        List<Future<Object>> calls = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            calls.add(async(() -> ch[0].read(ByteBuffer.allocate(4))));
            calls.add(async(() -> ch[0].write(ByteBuffer.allocate(4))));
        }
        for (Future<Object> f : calls) {
            assertInstanceOf(ClosedChannelException.class, failure(f), "use after close");
        }
        ch[0].close();
    }

    @Test
    void peerSeesEndOfStreamAfterClose() throws Exception {
        Pair p = pair();
        p.client.close();
        assertEquals(-1, await(async(() -> p.server.getInputStream().read())));
    }
}
