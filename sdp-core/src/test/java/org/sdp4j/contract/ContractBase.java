package org.sdp4j.contract;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.Timeout;

/**
 * What every contract group shares: the fixture, connected pairs on java.net and NIO, bounded waits. Every wait
 * in the suite is bounded (futures with timeouts, and this class-level timeout as the last resort), so a transport
 * that hangs fails a test instead of stalling the build.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
@ExtendWith(Outcome.class)
public abstract class ContractBase {
    /** How long something that "must happen" may take on a loaded 2-core machine. */
    protected static final long BOUND_S = 20;

    /**
     * A thread per task: peers in one JVM block on each other, which a bounded pool would deadlock. Threads that a
     * broken transport leaves blocked are daemons and do not keep the JVM alive.
     */
    protected static final ExecutorService EXEC = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "contract");
        t.setDaemon(true);
        return t;
    });

    private final List<AutoCloseable> closeAfter = new ArrayList<>();

    /** The transport under test; a subclass returns its fixture. */
    protected abstract Transport transport();

    @BeforeEach
    void setUpTransport(TestInfo test) throws Exception {
        // names the test in the log before it runs: a transport that kills the JVM (a native abort) is then found
        System.err.println("contract " + transport().name() + ": " + getClass().getSimpleName() + "."
                + test.getTestMethod().map(m -> m.getName()).orElse("?") + " " + test.getDisplayName());
        ContractDoc.assertDocumented(transport());
        transport().setUp();
    }

    @AfterEach
    void closeAll() {
        for (AutoCloseable c : closeAfter) {
            try {
                c.close();
            } catch (Exception ignore) {
                // already closed or broken: the test said what mattered
            }
        }
    }

    protected <T extends AutoCloseable> T closeLater(T c) {
        closeAfter.add(c);
        return c;
    }

    /** Skips when the transport has this documented limitation, naming the key and the doc. */
    protected void limitation(Limitation l) {
        Assumptions.assumeFalse(transport().limitations().contains(l), () -> "known limitation '" + l.key() + "' of "
                + transport().name() + ": see docs/transport-contract.md");
    }

    protected static <T> T await(Future<T> f) throws Exception {
        return f.get(BOUND_S, TimeUnit.SECONDS);
    }

    /** {@link #await}, failing with what did not happen (not a bare TimeoutException). */
    protected static <T> T awaitOr(Future<T> f, String what) throws Exception {
        try {
            return f.get(BOUND_S, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            f.cancel(true);
            throw new AssertionError(what + " within " + BOUND_S + " s");
        }
    }

    protected static <T> Future<T> async(Callable<T> c) {
        return EXEC.submit(c);
    }

    protected static byte[] random(int n, long seed) {
        byte[] d = new byte[n];
        new Random(seed).nextBytes(d);
        return d;
    }

    /** A connected java.net pair: client and accepted server end. */
    protected final class Pair implements AutoCloseable {
        public final Socket client;
        public final Socket server;

        Pair(Socket client, Socket server) {
            this.client = client;
            this.server = server;
        }

        @Override
        public void close() throws IOException {
            try (client; server) {
                // both closed
            }
        }
    }

    protected ServerSocket listen() throws IOException {
        return listen(50);
    }

    protected ServerSocket listen(int backlog) throws IOException {
        ServerSocket ss = closeLater(transport().serverSocket());
        ss.bind(new InetSocketAddress(transport().address(), 0), backlog);
        return ss;
    }

    protected InetSocketAddress addressOf(ServerSocket ss) {
        return new InetSocketAddress(transport().address(), ss.getLocalPort());
    }

    protected Pair pair() throws Exception {
        try (ServerSocket ss = listen()) {
            Future<Socket> accepted = async(ss::accept);
            Socket c = closeLater(transport().socket());
            c.connect(addressOf(ss), (int) TimeUnit.SECONDS.toMillis(BOUND_S));
            Socket s = closeLater(await(accepted));
            transport().assertCarried(c, false);
            transport().assertCarried(s, true);
            return closeLater(new Pair(c, s));
        }
    }

    /** A connected NIO pair (blocking mode): [client, accepted]. */
    protected SocketChannel[] channels() throws Exception {
        try (ServerSocketChannel ss = listenChannel()) {
            Future<SocketChannel> accepted = async(ss::accept);
            SocketChannel c = closeLater(transport().provider().openSocketChannel());
            assertTrue(c.connect(ss.getLocalAddress()), "a blocking connect completes");
            SocketChannel s = closeLater(await(accepted));
            transport().assertCarried(c, false);
            transport().assertCarried(s, true);
            return new SocketChannel[] {c, s};
        }
    }

    protected ServerSocketChannel listenChannel() throws IOException {
        ServerSocketChannel ss = closeLater(transport().provider().openServerSocketChannel());
        ss.bind(new InetSocketAddress(transport().address(), 0));
        return ss;
    }

    protected static void writeFully(SocketChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            ch.write(b);
        }
    }

    protected static byte[] readFully(SocketChannel ch, int n, boolean direct) throws IOException {
        ByteBuffer b = direct ? ByteBuffer.allocateDirect(n) : ByteBuffer.allocate(n);
        while (b.hasRemaining()) {
            if (ch.read(b) < 0) {
                break;
            }
        }
        b.flip();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    protected static void assertSameBytes(byte[] expected, byte[] actual, String what) {
        assertTrue(expected.length == actual.length, () -> what + ": " + actual.length + " bytes, expected "
                + expected.length);
        assertArrayEquals(expected, actual, what);
    }
}
