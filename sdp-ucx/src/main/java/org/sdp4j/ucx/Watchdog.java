package org.sdp4j.ucx;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.sdp4j.log.SdpLog;

/**
 * The one thread the UCX transport adds to a process. It watches every connection's rendezvous socket (the peer's
 * end-of-stream marker and its hang-up when it dies) and wakes a thread blocked in a UCX worker when either
 * arrives (a sleeper's own bound, its read timeout included, is its timed poll: {@link UcxWait}).
 * It starts with the first UCX connection and stops {@link #IDLE_MILLIS} after the last one is gone: starting a
 * thread and opening a selector for every connection of a connect/close loop cost a quarter of a millisecond on
 * each side, about a sixth of a local UCX connect.
 */
final class Watchdog implements Runnable {
    private static Watchdog instance;

    private final Selector selector;
    private final ConcurrentLinkedQueue<Controlled> added = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<SocketChannel> retired = new ConcurrentLinkedQueue<>();
    private final ByteBuffer buf = ByteBuffer.allocate(13 * 64);
    private int watched;
    /** How long the thread outlives the last watched connection ({@code sdp4j.ucx.watchdog.idle}, ms). */
    static final long IDLE_MILLIS = org.sdp4j.transport.Props.intProperty("sdp4j.ucx.watchdog.idle", 2000, 0);
    private final Thread thread;
    /** How often kept pairs are looked at for their idle bound. */
    private static final long SWEEP_MILLIS = 500;
    private long lastSweep = System.nanoTime();

    private Watchdog() throws IOException {
        selector = Rendezvous.JDK.openSelector();
        thread = new Thread(this, "sdp4j-ucx-watchdog");
        thread.setDaemon(true);
    }

    /**
     * Watches the rendezvous socket of {@code c}, a new pair, from now on (for every connection it carries). It is
     * made non-blocking here, by the caller, so that the watchdog never takes the channel's read and write locks to
     * configure it while a user thread writes.
     */
    static void watch(Controlled c) throws IOException {
        c.control.configureBlocking(false);
        Watchdog w;
        synchronized (Watchdog.class) {
            if (instance == null) {
                instance = new Watchdog();
                instance.thread.start();
            }
            w = instance;
            w.watched++;
            w.added.add(c);
        }
        // outside the lock (a write to the selector's wake-up descriptor): a burst of handshakes queued on it. A
        // watchdog that stopped meanwhile has found this link queued and stayed (stopIfStillIdle)
        w.selector.wakeup();
    }

    /**
     * Called once per watched connection when it is released: the watchdog closes {@code control} itself. A user
     * thread must not: closing a non-blocking channel waits for its read lock, which the watchdog holds while it
     * reads the peer's marker, and {@code Socket.close} calls us holding a monitor, so a virtual thread would wait
     * pinned to its carrier (seen on JDK 21 when both ends closed at once). The last one stops the thread, which
     * closes what is still queued on its way out.
     */
    static void retire(SocketChannel control) {
        Watchdog w;
        synchronized (Watchdog.class) {
            w = instance;
            if (w != null) {
                w.retired.add(control);
                --w.watched; // the thread stops by itself once it has been idle long enough (run)
            }
        }
        if (w == null) {
            closeQuietly(control); // never watched (cannot happen after a handshake): nobody else reads it
        } else {
            w.selector.wakeup();
        }
    }

    @Override
    public void run() {
        try {
            while (!Thread.currentThread().isInterrupted()) {
                for (Controlled c; (c = added.poll()) != null; ) {
                    try {
                        c.control.configureBlocking(false);
                        c.selectionKey = c.control.register(selector, SelectionKey.OP_READ, c);
                        if (c.wantsWrite()) {
                            c.wantWrite();
                        }
                    } catch (ClosedChannelException | CancelledKeyException e) {
                        // released before we saw it
                    }
                }
                closeRetired();
                if (Links.any() || SharedLinks.any()) {
                    selector.select(SWEEP_MILLIS); // kept pairs and idle links end after their bound (sweep)
                    long now = System.nanoTime();
                    if (now - lastSweep >= SWEEP_MILLIS * 1_000_000L) {
                        lastSweep = now;
                        Links.sweep();
                        SharedLinks.sweep();
                    }
                } else if (!idle()) {
                    selector.select();
                } else if (selector.select(Math.max(1, IDLE_MILLIS)) == 0 && stopIfStillIdle()) {
                    return;
                }
                for (SelectionKey k : selector.selectedKeys()) {
                    try {
                        if (k.isWritable()) {
                            ((Controlled) k.attachment()).writable();
                        }
                        read(k);
                    } catch (CancelledKeyException e) {
                        // its connection was released meanwhile: nothing left to watch
                    }
                }
                selector.selectedKeys().clear();
            }
        } catch (IOException | RuntimeException e) {
            // without the watchdog no end-of-stream or peer death would be seen: say so loudly, with where
            java.io.StringWriter w = new java.io.StringWriter();
            e.printStackTrace(new java.io.PrintWriter(w));
            SdpLog.log(SdpLog.ERROR, "ucx watchdog stopped: " + w);
        } finally {
            closeRetired();
            try {
                selector.close();
            } catch (IOException ignore) {
                // exiting
            }
        }
    }

    private boolean idle() {
        synchronized (Watchdog.class) {
            return watched == 0;
        }
    }

    /** After an idle wait: stops (a later {@link #watch} starts a new watchdog) if nothing came meanwhile. */
    private boolean stopIfStillIdle() {
        synchronized (Watchdog.class) {
            if (watched != 0 || !added.isEmpty()) {
                return false;
            }
            if (instance == this) {
                instance = null;
            }
            return true;
        }
    }

    /** Closes the rendezvous sockets of released connections; their keys go with the next select. */
    private void closeRetired() {
        for (SocketChannel ch; (ch = retired.poll()) != null; ) {
            closeQuietly(ch);
        }
    }

    private static void closeQuietly(SocketChannel ch) {
        try {
            ch.close();
        } catch (IOException ignore) {
            // the peer learns of the close from the hang-up either way
        }
    }

    private void read(SelectionKey k) {
        Controlled c = (Controlled) k.attachment();
        int size = c.frame();
        SocketChannel ch = (SocketChannel) k.channel();
        try {
            while (true) {
                buf.clear();
                if (c.pendingControl != null) {
                    buf.put(c.pendingControl);
                    c.pendingControl = null;
                }
                int n = ch.read(buf);
                buf.flip();
                while (buf.remaining() >= size) {
                    byte type = buf.get(buf.position());
                    if (!c.control(buf)) {
                        k.cancel();
                        c.hangUp("control message " + type + " out of place on the rendezvous socket");
                        c.teardown();
                        closeQuietly(c.control); // the peer sees the hang-up; a connection on it fails as gone
                        return;
                    }
                }
                if (buf.hasRemaining()) {
                    c.pendingControl = ByteBuffer.allocate(buf.remaining()).put(buf).flip();
                }
                if (n < 0) {
                    k.cancel();
                    c.hangUp(null);
                    return;
                }
                if (n == 0) {
                    return;
                }
            }
        } catch (IOException e) {
            k.cancel();
            c.hangUp(e.toString());
        }
    }
}
