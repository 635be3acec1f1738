package org.sdp4j.contract;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Interrupts: a thread interrupted in (or before) a blocking channel call gets ClosedByInterruptException and the
 * channel is closed; a virtual thread interrupted in a blocking java.net read closes the socket, as the JDK does
 * since JDK 21. The build targets release 17, so virtual threads are reached by reflection and skipped on 17.
 */
public abstract class InterruptContract extends ContractBase {
    /** Runs {@code body} on a new thread (virtual if asked), interrupts it after it blocked, returns what it threw. */
    static Throwable interruptedIn(boolean virtual, ThrowingRunnable body) throws Exception {
        CompletableFuture<Throwable> out = new CompletableFuture<>();
        Runnable r = () -> {
            try {
                body.run();
                out.complete(null);
            } catch (Throwable t) {
                out.complete(t);
            }
        };
        Thread t = virtual ? virtualThread(r) : new Thread(r, "interrupted");
        t.setDaemon(true);
        t.start();
        // interrupted while blocked in the call, not before it (interruptBeforeAChannelRead is that case)
        Blocked.awaitBlocked(t, out, "the call to interrupt");
        assertFalse(out.isDone(), "the call blocks");
        t.interrupt();
        Throwable thrown = out.get(BOUND_S, TimeUnit.SECONDS);
        assertTrue(thrown != null, "the interrupted call returned normally");
        return thrown;
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    static void requireVirtualThreads() {
        Assumptions.assumeTrue(Runtime.version().feature() >= 21,
                "needs JDK 21+: virtual threads (this JVM is " + Runtime.version() + ")");
    }

    static Thread virtualThread(Runnable r) throws Exception {
        requireVirtualThreads();
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        return (Thread) Class.forName("java.lang.Thread$Builder").getMethod("unstarted", Runnable.class)
                .invoke(builder, r);
    }

    @Test
    void channelReadInterrupted() throws Exception {
        SocketChannel[] ch = channels();
        Throwable t = interruptedIn(false, () -> ch[0].read(ByteBuffer.allocate(4)));
        assertInstanceOf(ClosedByInterruptException.class, t);
        assertFalse(ch[0].isOpen(), "the interrupt closed the channel");
        assertEquals(-1, ch[1].read(ByteBuffer.allocate(4)), "and the peer sees end of stream");
    }

    @Test
    void channelAcceptInterrupted() throws Exception {
        ServerSocketChannel ss = listenChannel();
        Throwable t = interruptedIn(false, ss::accept);
        assertInstanceOf(ClosedByInterruptException.class, t);
        assertFalse(ss.isOpen());
    }

    @Test
    void interruptBeforeAChannelRead() throws Exception {
        SocketChannel[] ch = channels();
        CompletableFuture<Throwable> out = new CompletableFuture<>();
        Thread th = new Thread(() -> {
            Thread.currentThread().interrupt();
            try {
                ch[0].read(ByteBuffer.allocate(4));
                out.complete(null);
            } catch (Throwable e) {
                out.complete(e);
            }
        });
        th.start();
        assertInstanceOf(ClosedByInterruptException.class, out.get(BOUND_S, TimeUnit.SECONDS));
        assertFalse(ch[0].isOpen());
    }

    @Test
    void virtualThreadInterruptedInASocketReadClosesTheSocket() throws Exception {
        requireVirtualThreads();
        Pair p = pair();
        Socket s = p.client;
        InputStream in = s.getInputStream();
        Throwable t = interruptedIn(true, in::read);
        assertInstanceOf(SocketException.class, t);
        assertTrue(s.isClosed(), "the JDK closes a socket whose virtual-thread reader is interrupted");
    }

    @Test
    void virtualThreadInterruptedInAChannelRead() throws Exception {
        requireVirtualThreads();
        SocketChannel[] ch = channels();
        Throwable t = interruptedIn(true, () -> ch[0].read(ByteBuffer.allocate(4)));
        assertInstanceOf(ClosedByInterruptException.class, t);
        assertFalse(ch[0].isOpen());
    }

    @Test
    void virtualThreadsEchoOverManyConnections() throws Exception {
        // blocking reads on virtual threads must not pin the few carriers: 50 connections, each its own reader
        requireVirtualThreads();
        Pair[] ps = new Pair[50];
        for (int i = 0; i < ps.length; i++) {
            ps[i] = pair();
        }
        CompletableFuture<?>[] done = new CompletableFuture<?>[ps.length];
        Thread[] readers = new Thread[ps.length];
        for (int i = 0; i < ps.length; i++) {
            Pair p = ps[i];
            CompletableFuture<Integer> f = new CompletableFuture<>();
            done[i] = f;
            readers[i] = virtualThread(() -> {
                try {
                    f.complete(p.server.getInputStream().read());
                } catch (Exception e) {
                    f.completeExceptionally(e);
                }
            });
            readers[i].start();
        }
        // all 50 blocked in their reads at once before anything is sent: a reader that pinned its carrier would
        // keep the ones after it from ever starting
        for (int i = 0; i < ps.length; i++) {
            Blocked.awaitBlocked(readers[i], done[i], "virtual reader " + i + " of 50");
        }
        for (int i = 0; i < ps.length; i++) {
            ps[i].client.getOutputStream().write(i);
        }
        CompletableFuture.allOf(done).get(BOUND_S, TimeUnit.SECONDS);
        for (int i = 0; i < ps.length; i++) {
            assertTrue((Integer) done[i].get() == i);
        }
    }

    private static void assertEquals(int expected, int actual, String what) {
        org.junit.jupiter.api.Assertions.assertEquals(expected, actual, what);
    }
}
