package org.sdp4j.net;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.SocketImpl;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sdp4j.conf.Family;
import org.sdp4j.jdk.JdkNet;
import org.sdp4j.transport.Transport;

/**
 * A connection an accepting thread hands over after the listener's close (issue 23 item 5), made to happen every
 * time: the transport's listener here is a stand-in whose accepts the test releases one by one. Four connections
 * fill the hand-over queue, a fifth is held inside its accept while {@link AcceptThreads#close} runs (drain, then
 * the close marker), then released: it lands behind the marker. It must be closed like the four; before the fix it
 * stayed queued for ever (its client heard nothing; a UCX connection kept its worker and descriptors).
 */
@Timeout(60)
class AcceptThreadsCloseTest {
    private static final InetAddress LO = InetAddress.getLoopbackAddress();

    /** A connection the stand-in listener accepted: records its close. */
    static final class Conn extends StubSocketImpl {
        volatile boolean closed;

        @Override
        protected void close() {
            closed = true;
        }
    }

    /** The transport's listener: each accept waits for a permit, then accepts. */
    static final class Gate extends StubSocketImpl {
        final Semaphore permits = new Semaphore(0);
        final Semaphore entered = new Semaphore(0);
        volatile boolean closed;

        @Override
        protected void accept(SocketImpl s) throws IOException {
            entered.release();
            permits.acquireUninterruptibly();
        }

        @Override
        protected void close() {
            closed = true; // a real listener would end a waiting accept; this one leaves it to the test
        }
    }

    private static final List<Conn> MADE = new CopyOnWriteArrayList<>();

    private static final Transport STAND_IN = new Transport() {
        @Override public String name() { return "stand-in"; }
        @Override public Family family() { return Family.UCX; }
        @Override public boolean isAvailable() { return true; }
        @Override public Throwable unavailabilityCause() { return null; }
        @Override public SocketImpl newSocketImpl(boolean server) {
            Conn c = new Conn();
            MADE.add(c);
            return c;
        }
        @Override public SocketChannel openSocketChannel(SelectorProvider p) { throw new UnsupportedOperationException(); }
        @Override public ServerSocketChannel openServerSocketChannel(SelectorProvider p) {
            throw new UnsupportedOperationException();
        }
    };

    @Test
    void aConnectionHandedOverBehindTheCloseMarkerIsClosed() throws Exception {
        MADE.clear();
        SocketImpl tcp = JdkNet.newPlatformImpl(true);
        JdkNet.create(tcp, true);
        JdkNet.bind(tcp, LO, 0);
        JdkNet.listen(tcp, 50);
        Gate gate = new Gate();
        AcceptThreads threads = new AcceptThreads(tcp, gate, STAND_IN, JdkNet.localPort(tcp));
        try {
            gate.permits.release(4); // four connections fill the hand-over queue (nobody accepts)
            assertTrue(gate.entered.tryAcquire(5, 10, TimeUnit.SECONDS), "the fifth accept started");
            threads.close(); // drain, then the close marker, while the fifth is inside its accept
            gate.permits.release(1); // the fifth is accepted now: it lands behind the marker
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (MADE.size() >= 5 && !MADE.get(4).closed && System.nanoTime() < end) {
                Thread.sleep(5);
            }
            assertTrue(MADE.size() >= 5, "five accepts: " + MADE.size());
            for (int i = 0; i < 5; i++) {
                assertTrue(MADE.get(i).closed, "connection " + (i + 1) + " of 5 closed with the listener");
            }
        } finally {
            gate.permits.release(100);
            JdkNet.close(tcp);
            threads.awaitExit();
        }
    }
}
