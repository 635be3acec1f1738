package org.sdp4j.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The server side of {@link RdmaVsRstream} on another host, as {@code rstream}'s server is another process there:
 * <pre>RstreamPeer HOST PORT</pre>
 * Listens on HOST:PORT (rstream's 512 KiB receive buffer, set before bind where rsockets takes it), prints
 * {@code @@listening PORT}, then serves one connection at a time until killed. Each connection starts with a
 * {@link #HEADER}-byte header from the measuring side, {@code magic size count} (big-endian ints), which the peer checks
 * and echoes back before the first exchange: every run says which exchange it measures, and a peer that disagrees
 * fails the run at once instead of measuring something else. Then rstream's server loop ({@link RdmaVsRstream}): receive
 * {@code count} x {@code size}, send them back, until the client closes. The header comes from another host: sizes are
 * bounded before anything is allocated, and a silent client is dropped after {@link #idleMs} (a watchdog, not a
 * read timeout, once the exchanges run: see {@link #serve}).
 */
public final class RstreamPeer {
    /** "RSTR": the first word of every connection's header. */
    static final int MAGIC = 0x52535452;
    static final int HEADER = 12;
    /** Largest message and largest exchange (one way) a client may ask for. */
    static final int MAX_SIZE = 16 << 20, MAX_EXCHANGE = 256 << 20;
    /**
     * A client that sends nothing for this long is dropped (JMH pauses far less between iterations);
     * {@code -Dsdp4j.bench.peer.idleMs}, default 120 s.
     */
    static int idleMs = Integer.getInteger("sdp4j.bench.peer.idleMs", 120_000);

    private RstreamPeer() {}

    static byte[] header(int size, int count) {
        return ByteBuffer.allocate(HEADER).putInt(MAGIC).putInt(size).putInt(count).array();
    }

    /** {@code {size, count}} of a valid header; otherwise an IOException naming what is wrong. */
    static int[] parse(byte[] h) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(h);
        int magic = b.getInt(), size = b.getInt(), count = b.getInt();
        if (magic != MAGIC) throw new IOException(String.format(Locale.ROOT, "bad header: magic 0x%08x, not 0x%08x", magic, MAGIC));
        if (size < 1 || size > MAX_SIZE) throw new IOException("bad header: size " + size + " outside 1.." + MAX_SIZE);
        if (count < 1 || (long) count * size > MAX_EXCHANGE) {
            throw new IOException("bad header: count " + count + " x size " + size + " outside 1.." + MAX_EXCHANGE + " bytes");
        }
        return new int[] {size, count};
    }

    /** The measuring side's half: send the header, expect it back. */
    static void handshake(InputStream in, OutputStream out, int size, int count) throws IOException {
        byte[] h = header(size, count);
        out.write(h);
        out.flush();
        byte[] back = in.readNBytes(HEADER);
        if (!Arrays.equals(h, back)) {
            throw new IOException("the peer did not confirm size " + size + " count " + count + " (" + back.length + " bytes back)");
        }
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: RstreamPeer HOST PORT");
            System.exit(2);
        }
        InetAddress host = InetAddress.getByName(args[0]);
        try (ServerSocket server = new ServerSocket()) {
            server.setReceiveBufferSize(RdmaVsRstream.RSTREAM_BUFFER);
            server.bind(new InetSocketAddress(host, Integer.parseInt(args[1])), 4);
            System.out.println("@@listening " + server.getLocalPort());
            System.out.flush();
            for (int n = 1; ; n++) {
                try (Socket s = server.accept()) {
                    serve(n, s);
                } catch (IOException e) {
                    System.out.println("rstream-peer: connection " + n + ": " + e);
                }
            }
        }
    }

    /**
     * Serves one connection: its header, then exchanges until the client closes; returns their number. The header
     * read is bounded by SO_TIMEOUT; the exchanges are not (a read timeout costs sdp4j a timer per wait, which
     * rstream's server does not pay): a watchdog closes the socket when no exchange completed for {@link #idleMs}.
     */
    static long serve(int n, Socket s) throws IOException {
        s.setTcpNoDelay(true);
        s.setSendBufferSize(RdmaVsRstream.RSTREAM_BUFFER);
        s.setSoTimeout(idleMs);
        InputStream in = s.getInputStream();
        OutputStream out = s.getOutputStream();
        byte[] h;
        try {
            h = in.readNBytes(HEADER);
        } catch (SocketTimeoutException idle) {
            throw new IOException("no header within " + idleMs + " ms", idle);
        }
        if (h.length != HEADER) throw new IOException("closed after " + h.length + " header bytes");
        int[] sc = parse(h);
        s.setSoTimeout(0);
        out.write(h);
        out.flush();
        System.out.printf(Locale.ROOT, "rstream-peer: connection %d from %s: size %d, count %d%n", n,
                s.getRemoteSocketAddress(), sc[0], sc[1]);
        long t0 = System.nanoTime();
        AtomicLong progress = new AtomicLong();
        AtomicBoolean idle = new AtomicBoolean();
        ScheduledFuture<?> watch = WATCHDOG.scheduleWithFixedDelay(new Runnable() {
            long last = -1, since = System.nanoTime();

            @Override
            public void run() {
                long p = progress.get(), now = System.nanoTime();
                if (p != last) {
                    last = p;
                    since = now;
                } else if (now - since > idleMs * 1_000_000L) {
                    idle.set(true);
                    try {
                        s.close();   // wakes the blocked read
                    } catch (IOException e) {
                        // closing anyway
                    }
                }
            }
        }, period(), period(), TimeUnit.MILLISECONDS);
        try {
            long exchanges = RdmaVsRstream.Exchange.serve(s, sc[0], sc[1], progress);
            System.out.printf(Locale.ROOT, "rstream-peer: connection %d: %d exchanges in %.1f s, closed by the client%n",
                    n, exchanges, (System.nanoTime() - t0) / 1e9);
            return exchanges;
        } catch (IOException e) {
            if (idle.get()) throw new IOException("no exchange for " + idleMs + " ms: dropped", e);
            throw e;
        } finally {
            watch.cancel(false);
        }
    }

    static long period() {
        return Math.max(100, Math.min(5_000, idleMs / 4));
    }

    private static final ScheduledExecutorService WATCHDOG = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "rstream-peer-watchdog");
        t.setDaemon(true);
        return t;
    });
}
