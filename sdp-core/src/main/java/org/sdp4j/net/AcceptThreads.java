package org.sdp4j.net;

import java.io.IOException;
import java.net.SocketException;
import java.net.SocketImpl;
import java.net.SocketTimeoutException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import org.sdp4j.jdk.JdkNet;
import org.sdp4j.transport.TcpTransport;
import org.sdp4j.transport.TcpUpgrade;
import org.sdp4j.transport.Transport;

/**
 * A dual listener for a transport whose listener no poller can wait on together with a kernel descriptor (UCX's
 * rendezvous): one accepting thread per listener, each handing its connections to the application's
 * {@code accept()} through a small queue. Two threads per listening port, none per connection; a connection accepted
 * ahead of the application waits in the queue as it would in the kernel's backlog.
 */
final class AcceptThreads {
    /** What an acceptor hands over: a connected implementation, or the error its listener raised. */
    record Accepted(SocketImpl impl, Transport transport, IOException error) {}

    private static final Accepted CLOSED = new Accepted(null, null, null);

    final SocketImpl other;
    private final Transport transport;
    private final BlockingQueue<Accepted> queue = new ArrayBlockingQueue<>(4);
    private volatile boolean closed;
    /** The TCP acceptor is inside the JDK's accept, which holds the kernel's listener open until it returns. */
    private volatile boolean inTcpAccept;
    private final int port;

    AcceptThreads(SocketImpl tcp, SocketImpl other, Transport transport, int port) {
        this.other = other;
        this.transport = transport;
        this.port = port;
        start("tcp", port, tcp, TcpTransport.INSTANCE);
        start(transport.name(), port, other, transport);
    }

    private final java.util.List<Thread> threads = new java.util.ArrayList<>(2);

    private void start(String name, int port, SocketImpl listener, Transport t) {
        Thread th = new Thread(() -> acceptLoop(listener, t), "sdp4j-accept-" + name + "-" + port);
        th.setDaemon(true);
        threads.add(th);
        th.start();
    }

    /**
     * Waits (bounded) for the accepting threads to leave, after both listeners are closed: from JDK 21 on, a
     * listener closed under a thread blocked in its accept releases its port only when that thread has left, and an
     * application that closes a ServerSocket and binds the same port again must not find it still in use.
     */
    void awaitExit() {
        long end = System.nanoTime() + 2_000_000_000L;
        boolean interrupted = false;
        for (Thread th : threads) {
            while (th.isAlive() && th != Thread.currentThread()) {
                long left = (end - System.nanoTime()) / 1_000_000L;
                if (left <= 0) {
                    break;
                }
                try {
                    th.join(left);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void acceptLoop(SocketImpl listener, Transport t) {
        while (!closed) {
            SocketImpl into = null;
            try {
                into = t == TcpTransport.INSTANCE ? JdkNet.newPlatformImpl(false) : t.newSocketImpl(false);
                if (t == TcpTransport.INSTANCE) {
                    inTcpAccept = true;
                    if (closed) { // close() may have looked before this thread set the flag
                        inTcpAccept = false;
                        JdkNet.closeQuietly(into);
                        break;
                    }
                }
                try {
                    JdkNet.accept(listener, into);
                } finally {
                    inTcpAccept = false;
                }
                if (t == TcpTransport.INSTANCE && other instanceof TcpUpgrade u
                        && u.claims(JdkNet.inetAddress(into), JdkNet.port(into))) {
                    // a client of the transport's that announced this TCP connection: the transport's listener
                    // serves the rest of its handshake and accepts it; unclaimed ones go to the application untouched
                    java.nio.channels.SocketChannel ch;
                    try {
                        ch = org.sdp4j.jdk.JdkNio.adoptAccepted(into);
                    } catch (IOException e) {
                        org.sdp4j.log.SdpLog.log(org.sdp4j.log.SdpLog.WARN, "upgrade of a TCP connection on port "
                                + port + ": " + e.getMessage());
                        JdkNet.closeQuietly(into);
                        continue;
                    }
                    u.upgrade(ch, into);
                    continue;
                }
                queue.put(new Accepted(into, t, null));
                into = null;
            } catch (java.net.SocketTimeoutException e) {
                // the application's SO_TIMEOUT, replayed on this listener: its accept() keeps time, not this thread
                JdkNet.closeQuietly(into);
            } catch (IOException e) {
                JdkNet.closeQuietly(into);
                if (closed) {
                    break;
                }
                try {
                    queue.put(new Accepted(null, t, e)); // the application's accept() reports it, as TCP's would
                } catch (InterruptedException ie) {
                    break;
                }
            } catch (InterruptedException | RuntimeException e) {
                JdkNet.closeQuietly(into);
                break;
            }
            if (closed) {
                drain();
            }
        }
    }

    /** The next connection from either listener; {@code timeoutMillis} 0 waits forever, as SO_TIMEOUT 0 does. */
    Accepted take(int timeoutMillis) throws IOException {
        boolean interrupted = false;
        try {
            long deadline = timeoutMillis > 0 ? System.nanoTime() + timeoutMillis * 1_000_000L : 0;
            while (true) {
                if (closed) {
                    throw new SocketException("Socket closed");
                }
                Accepted a;
                try {
                    if (deadline == 0) {
                        a = queue.take();
                    } else {
                        long left = deadline - System.nanoTime();
                        if (left <= 0) {
                            throw new SocketTimeoutException("Accept timed out");
                        }
                        a = queue.poll(left, TimeUnit.NANOSECONDS);
                        if (a == null) {
                            continue;
                        }
                    }
                } catch (InterruptedException e) {
                    interrupted = true; // a blocking java.net accept is not interruptible; neither is this one
                    continue;
                }
                if (a == CLOSED) {
                    queue.offer(CLOSED); // for any other thread in accept()
                    throw new SocketException("Socket closed");
                }
                if (a.error != null) {
                    throw a.error;
                }
                return a;
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Closes the transport's listener and wakes every waiting accept(); the caller closes the TCP listener first.
     * The connections still queued are closed only once the kernel's TCP listener is gone: each of their clients
     * hears end of stream, and a client that reconnects at once (a pool refilling) must find no listener. Closed in
     * the other order, such a reconnect raced the listener's close in the kernel, whose last handshake ACK was then
     * dropped without a reset: a client connected to nothing, waiting in silence (about one
     * {@code UcxListenerCloseTest} run in five; the capture showed the client's SYN, ACK and nothing back). The JDK
     * keeps a listener open while a thread is inside its accept, so this waits (bounded) for the TCP acceptor to
     * leave it.
     */
    void close() {
        closed = true;
        JdkNet.closeQuietly(other);
        long end = System.nanoTime() + 1_000_000_000L;
        while (inTcpAccept && System.nanoTime() - end < 0) {
            java.util.concurrent.locks.LockSupport.parkNanos(100_000L);
        }
        drain();
        queue.offer(CLOSED);
    }

    /**
     * Closes every connection queued for an accept() that will never come, wherever it sits: an acceptor blocked on
     * a full queue puts its connection after the close marker that close() offered, and stopping at the marker left
     * it queued for ever, its client waiting in silence (issue 23). The marker goes back for later accept() calls.
     */
    private void drain() {
        boolean marker = false;
        for (Accepted a; (a = queue.poll()) != null; ) {
            if (a == CLOSED) {
                marker = true;
            } else {
                JdkNet.closeQuietly(a.impl);
            }
        }
        if (marker) {
            queue.offer(CLOSED);
        }
    }
}
