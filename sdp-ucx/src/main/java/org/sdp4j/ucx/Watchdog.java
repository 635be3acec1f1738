package org.sdp4j.ucx;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.PriorityQueue;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.sdp4j.log.SdpLog;

/**
 * The one thread the UCX transport adds to a process. It watches every connection's rendezvous socket (the peer's
 * end-of-stream marker and its hang-up when it dies) and wakes a thread blocked in a UCX worker when either
 * arrives, or when that thread's read timeout expires: {@code ucp_worker_wait} has no timeout of its own.
 * It starts with the first UCX connection and stops when the last one is gone.
 */
final class Watchdog implements Runnable {
    private static Watchdog instance;

    private final Selector selector;
    private final ConcurrentLinkedQueue<UcxConnection> added = new ConcurrentLinkedQueue<>();
    private final PriorityQueue<Alarm> alarms = new PriorityQueue<>();
    private final ByteBuffer buf = ByteBuffer.allocate(9 * 64);
    private int watched;
    private final Thread thread;

    private Watchdog() throws IOException {
        selector = Rendezvous.JDK.openSelector();
        thread = new Thread(this, "sdp4j-ucx-watchdog");
        thread.setDaemon(true);
    }

    /** A thread blocked until {@code atNanos} in {@code conn}'s worker. */
    static final class Alarm implements Comparable<Alarm> {
        final UcxConnection conn;
        final long atNanos;
        volatile boolean cancelled;

        Alarm(UcxConnection conn, long atNanos) {
            this.conn = conn;
            this.atNanos = atNanos;
        }

        @Override
        public int compareTo(Alarm o) {
            return Long.compare(atNanos, o.atNanos);
        }
    }

    static synchronized void watch(UcxConnection c) throws IOException {
        if (instance == null) {
            instance = new Watchdog();
            instance.thread.start();
        }
        instance.watched++;
        instance.added.add(c);
        instance.selector.wakeup();
    }

    /** Called once per watched connection when it is released; the last one stops the thread. */
    static synchronized void unwatch() {
        Watchdog w = instance;
        if (w != null && --w.watched == 0) {
            instance = null;
            w.thread.interrupt();
            w.selector.wakeup();
        }
    }

    static Alarm alarm(UcxConnection c, long atNanos) {
        Alarm a = new Alarm(c, atNanos);
        Watchdog w;
        synchronized (Watchdog.class) {
            w = instance;
        }
        if (w != null) {
            synchronized (w.alarms) {
                w.alarms.add(a);
            }
            w.selector.wakeup();
        }
        return a;
    }

    @Override
    public void run() {
        try {
            while (!Thread.currentThread().isInterrupted()) {
                for (UcxConnection c; (c = added.poll()) != null; ) {
                    try {
                        c.control().configureBlocking(false);
                        c.control().register(selector, SelectionKey.OP_READ, c);
                    } catch (ClosedChannelException | CancelledKeyException e) {
                        // released before we saw it
                    }
                }
                long wait = fireAlarms();
                selector.select(wait);
                for (SelectionKey k : selector.selectedKeys()) {
                    try {
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
            try {
                selector.close();
            } catch (IOException ignore) {
                // exiting
            }
        }
    }

    /** Fires due alarms; returns how long select may sleep (0 = until woken). */
    private long fireAlarms() {
        long now = System.nanoTime();
        synchronized (alarms) {
            while (true) {
                Alarm a = alarms.peek();
                if (a == null) {
                    return 0;
                }
                if (a.cancelled) {
                    alarms.poll();
                    continue;
                }
                long left = a.atNanos - now;
                if (left > 0) {
                    return Math.max(1, left / 1_000_000L);
                }
                alarms.poll();
                a.conn.wake();
            }
        }
    }

    private void read(SelectionKey k) {
        UcxConnection c = (UcxConnection) k.attachment();
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
                while (buf.remaining() >= 9) {
                    byte type = buf.get();
                    long v = buf.getLong();
                    if (type == Rendezvous.FIN) {
                        c.peerFinished(v);
                    } else {
                        c.peerGone("unknown control message " + type + " on the rendezvous socket");
                        k.cancel();
                        return;
                    }
                }
                if (buf.hasRemaining()) {
                    c.pendingControl = ByteBuffer.allocate(buf.remaining()).put(buf).flip();
                }
                if (n < 0) {
                    k.cancel();
                    c.peerGone(null);
                    return;
                }
                if (n == 0) {
                    return;
                }
            }
        } catch (IOException e) {
            k.cancel();
            c.peerGone(e.toString());
        }
    }
}
