package org.sdp4j.ucx;

import java.io.IOException;
import java.net.InetAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.Pipe;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.sdp4j.log.SdpLog;

/**
 * The serving half of a UCX listener: the rendezvous socket, one acceptor thread that takes connections off it as
 * fast as they come, and handshakes served concurrently (one platform thread each, up to {@link #MAX_PARALLEL};
 * they progress a UCX worker, which a virtual thread must not do). The acceptor refuses a client of another account
 * by its peer credentials before a byte of it is read, and acknowledges every other one at once with
 * {@link Rendezvous#QUEUED}: the client then knows UCX can serve it and waits its turn (a burst of 1,000 connects
 * queues here) instead of falling back to TCP. At most {@link #MAX_QUEUED} wait; beyond that a connection is closed
 * unacknowledged and its client uses TCP. A same-account client that stalls holds a handshake thread for at most
 * the handshake bound. Completed connections wait in a queue for {@code accept}; a pipe carries one byte per
 * completed connection so that a poller can wait on a kernel descriptor ({@link #readySource}).
 */
final class HandshakeServer implements AutoCloseable {
    static final int MAX_PARALLEL = org.sdp4j.transport.Props.intProperty("sdp4j.ucx.handshakes", 64, 1);
    /** Acknowledged connections waiting for a handshake thread ({@code sdp4j.ucx.backlog}). */
    static final int MAX_QUEUED = org.sdp4j.transport.Props.intProperty("sdp4j.ucx.backlog", 4096, 1);
    /** The handshake threads' name prefix; they end {@link #KEEP_ALIVE_SECONDS} after their last handshake. */
    static final String THREAD_PREFIX = Rendezvous.PREFIX + "handshake-";
    static final int KEEP_ALIVE_SECONDS = 1;
    private static final Object CLOSED = new Object();
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final Path path;
    private final String where;
    private final ServerSocketChannel listener;
    private final Pipe ready;
    private final LinkedBlockingQueue<Object> done = new LinkedBlockingQueue<>();
    private final ThreadPoolExecutor handshakes;
    private final Thread acceptor;
    private final UserPrincipal own;
    private volatile boolean closed;

    private HandshakeServer(Path path, String where, ServerSocketChannel listener, Pipe ready, UserPrincipal own) {
        this.path = path;
        this.where = where;
        this.listener = listener;
        this.ready = ready;
        this.own = own;
        // up to MAX_PARALLEL handshake threads, started as connections come and ended 1 s after their last
        // handshake; beyond them acknowledged connections wait in a bounded queue (the acceptor never runs one)
        this.handshakes = new ThreadPoolExecutor(MAX_PARALLEL, MAX_PARALLEL, KEEP_ALIVE_SECONDS, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(MAX_QUEUED), r -> {
                    Thread t = new Thread(r, THREAD_PREFIX + THREADS.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                }, (r, pool) -> closeQuietly(r instanceof Serve sv ? sv.ch : ((Upgrading) r).ch)); // closed, or full
        handshakes.allowCoreThreadTimeOut(true);
        this.acceptor = new Thread(this::acceptLoop, "sdp4j-ucx-rendezvous " + where);
        acceptor.setDaemon(true);
    }

    /** Binds the rendezvous socket of a listener on {@code addr:port} and starts serving it. */
    static HandshakeServer bind(InetAddress addr, int port, int backlog) throws IOException {
        Ucx.context(); // unavailable UCX fails here, with the reason
        int euid = PeerCheck.euid();
        Path dir = Rendezvous.ownDir(euid);
        Path p = dir.resolve(Rendezvous.name(addr, port));
        String where = Rendezvous.hostPort(addr != null ? addr : new java.net.InetSocketAddress(0).getAddress(), port);
        if (Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
            // only this account can have made it (the directory is 0700): a live listener of ours, or a dead one's
            boolean live;
            try {
                Rendezvous.connect(p, System.nanoTime() + 1_000_000_000L).close();
                live = true;
            } catch (SocketTimeoutException stuck) {
                live = true; // a listener that never accepts (its backlog full for a second) is not ours to replace
            } catch (IOException stale) {
                live = false;
            }
            if (live) {
                throw new SocketException("UCX rendezvous " + p + " is served by another live listener");
            }
            Files.deleteIfExists(p);
        }
        ServerSocketChannel ch = Rendezvous.JDK.openServerSocketChannel(StandardProtocolFamily.UNIX);
        Pipe pipe = null;
        try {
            ch.bind(UnixDomainSocketAddress.of(p), backlog > 0 ? Math.max(backlog, 512) : 512);
            pipe = Rendezvous.JDK.openPipe();
            HandshakeServer s = new HandshakeServer(p, where, ch, pipe, Rendezvous.owner(dir));
            s.acceptor.start();
            return s;
        } catch (IOException | RuntimeException e) {
            ch.close();
            if (pipe != null) {
                pipe.source().close();
                pipe.sink().close();
            }
            Files.deleteIfExists(p);
            throw new IOException("UCX listener " + p + ": " + e.getMessage(), e);
        }
    }

    private void acceptLoop() {
        while (!closed) {
            SocketChannel ch;
            try {
                ch = listener.accept();
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                if (closed) {
                    return;
                }
                SdpLog.log(SdpLog.WARN, "ucx: listener " + where + ": accept: " + e);
                continue;
            }
            admit(ch);
        }
    }

    /**
     * Refuses another account's client, acknowledges the rest ({@link Rendezvous#QUEUED}: one byte into an empty
     * socket buffer, so never a wait) and queues it for a handshake thread.
     */
    private void admit(SocketChannel ch) {
        try {
            Handshake.admit(ch, where, own, path.getParent());
        } catch (IOException e) {
            SdpLog.log(SdpLog.WARN, "ucx: " + e.getMessage());
            return;
        }
        Serve task = new Serve(ch);
        if (handshakes.getQueue().remainingCapacity() == 0) {
            SdpLog.log(SdpLog.WARN, "ucx: listener " + where + ": " + MAX_QUEUED + " connections wait for a "
                    + "handshake (sdp4j.ucx.backlog); this one goes to TCP");
            closeQuietly(ch);
            return;
        }
        try {
            ch.configureBlocking(false);
            int n = ch.write(ByteBuffer.wrap(new byte[] {Rendezvous.QUEUED}));
            ch.configureBlocking(true);
            if (n != 1) {
                throw new IOException("its socket buffer is full");
            }
        } catch (IOException e) {
            SdpLog.log(SdpLog.WARN, "ucx: listener " + where + ": acknowledging a client: " + e);
            closeQuietly(ch);
            return;
        }
        try {
            handshakes.execute(task);
        } catch (RuntimeException e) { // rejected: shut down by close
            closeQuietly(ch);
        }
    }

    /** One accepted rendezvous socket to serve; the rejection handler closes it after close(). */
    private final class Serve implements Runnable {
        final SocketChannel ch;

        Serve(SocketChannel ch) {
            this.ch = ch;
        }

        @Override
        public void run() {
            serve(ch);
        }
    }

    /** A TCP connection a client announced on the cross-host rendezvous, to upgrade on a handshake thread. */
    private final class Upgrading implements Runnable {
        final SocketChannel ch;
        final java.util.concurrent.Callable<UcxConnection> task;

        Upgrading(SocketChannel ch, java.util.concurrent.Callable<UcxConnection> task) {
            this.ch = ch;
            this.task = task;
        }

        @Override
        public void run() {
            UcxConnection c;
            try {
                c = task.call();
            } catch (Exception e) {
                SdpLog.log(SdpLog.WARN, "ucx: listener " + where + ": " + e.getMessage());
                closeQuietly(ch);
                return;
            }
            completed(c);
        }
    }

    /**
     * Runs {@code task} (the TCP half of a cross-host upgrade on {@code ch}) on a handshake thread and queues its
     * connection for {@code accept}; {@code ch} is closed if the listener is closed or its queue is full.
     */
    void serveUpgrade(SocketChannel ch, java.util.concurrent.Callable<UcxConnection> task) {
        if (closed) {
            closeQuietly(ch);
            return;
        }
        try {
            handshakes.execute(new Upgrading(ch, task));
        } catch (RuntimeException e) { // rejected: shut down by close
            closeQuietly(ch);
        }
    }

    private void serve(SocketChannel ch) {
        UcxConnection c;
        try {
            c = Handshake.serve(ch, where, this);
        } catch (IOException | RuntimeException e) {
            // a client that failed its handshake costs only itself
            SdpLog.log(SdpLog.WARN, "ucx: listener " + where + ": " + e.getMessage());
            return;
        }
        c.acceptedBy(this); // its pair or link may carry this listener's next connections from that client
        completed(c);
    }

    /** Whether this listener still takes connections. */
    boolean isOpen() {
        return !closed;
    }

    /** Whether a connection may still be queued for {@code accept} ({@link #MAX_QUEUED} wait at most). */
    boolean hasRoom() {
        return done.size() < MAX_QUEUED;
    }

    /** Queues a made connection for {@code accept}; closes it if the listener closed. */
    void completed(UcxConnection c) {
        synchronized (done) {
            if (closed) {
                c.close();
                return;
            }
            done.add(c);
        }
        try {
            ready.sink().write(ByteBuffer.wrap(new byte[1]));
        } catch (IOException e) {
            // closed meanwhile: close() drains the queue
        }
    }

    /** The kernel descriptor that is readable while a completed connection waits. */
    Pipe.SourceChannel readySource() {
        return ready.source();
    }

    /** A completed connection, waiting at most {@code timeoutMillis} (0: forever; -1: not at all). */
    UcxConnection take(int timeoutMillis) throws IOException {
        Object o;
        try {
            o = timeoutMillis < 0 ? done.poll() : timeoutMillis == 0 ? done.take()
                    : done.poll(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("accept interrupted");
        }
        if (o == CLOSED) {
            done.add(CLOSED); // for every other waiter
            throw new SocketException("Socket closed");
        }
        if (o == null) {
            if (closed) {
                throw new SocketException("Socket closed");
            }
            if (timeoutMillis > 0) {
                throw new SocketTimeoutException("Accept timed out");
            }
            return null;
        }
        // its byte was written right after it was queued: a short blocking read
        ready.source().read(ByteBuffer.allocate(1));
        return (UcxConnection) o;
    }

    String where() {
        return where;
    }

    Path path() {
        return path;
    }

    @Override
    public void close() {
        synchronized (done) {
            if (closed) {
                return;
            }
            closed = true;
        }
        // no join of the acceptor (a virtual thread closing its listener would wait pinned under the ServerSocket's
        // monitor): a connection it takes from now on is closed by the rejection handler, or by serve() below
        closeQuietly(listener);
        handshakes.shutdown();
        Links.closeFor(this);
        SharedLinks.closeFor(this);
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            SdpLog.log(SdpLog.WARN, "ucx: removing " + path + ": " + e);
        }
        synchronized (done) {
            for (Object o; (o = done.poll()) != null; ) {
                if (o instanceof UcxConnection c) {
                    c.close();
                }
            }
            done.add(CLOSED);
        }
        closeQuietly(ready.sink());
        // the source stays open until the owner is done polling it; closeSource() releases it
    }

    /** Releases the readiness descriptor (after every poller let go of it). */
    void closeSource() {
        closeQuietly(ready.source());
    }

    private static void closeQuietly(java.io.Closeable c) {
        try {
            c.close();
        } catch (IOException ignore) {
            // nothing to do
        }
    }
}
