package org.sdp4j.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.sdp4j.conf.Family;
import org.sdp4j.conf.ProgramIdentity;
import org.sdp4j.testing.FakeRdmaTransport;
import org.sdp4j.testing.Rules;

/** The fallback decision, with the two connect paths recorded instead of performed. */
class RouterTest {
    private static final InetSocketAddress DB = new InetSocketAddress("10.1.0.5", 50000);
    private static final InetSocketAddress OTHER = new InetSocketAddress("10.1.0.6", 50000);

    private final List<String> calls = new ArrayList<>();
    private final FakeRdmaTransport up = new FakeRdmaTransport(null);

    private Router router(Family f, Transport rdma, long bothTimeout, long retry) {
        return new Router(Rules.all(f), ProgramIdentity.of("test"), new Router.Settings(bothTimeout, retry),
                fam -> rdma);
    }

    private Transport connect(Router r, InetSocketAddress a, int timeout, boolean rdmaFails) throws IOException {
        return r.connect(a, timeout, (t, to) -> {
            calls.add("rdma " + t.name() + " " + to);
            if (rdmaFails) {
                throw new ConnectException("rconnect " + a + ": no route to RDMA device");
            }
        }, to -> calls.add("tcp " + to));
    }

    @Test
    void tcpRuleUsesTcpOnly() throws IOException {
        assertSame(TcpTransport.INSTANCE, connect(router(Family.TCP, up, 2000, 60000), DB, 500, false));
        assertEquals(List.of("tcp 500"), calls);
    }

    @Test
    void sdpWithoutTransportSaysWhyAndNeverTouchesTcp() {
        ConnectException e = assertThrows(ConnectException.class,
                () -> connect(router(Family.SDP, null, 2000, 60000), DB, 0, false));
        assertTrue(e.getMessage().contains("no RDMA transport is installed"), e.getMessage());
        assertTrue(e.getMessage().contains("10.1.0.5:50000"), e.getMessage());
        assertTrue(e.getMessage().contains("line 2"), e.getMessage());
        assertEquals(List.of(), calls);
    }

    @Test
    void sdpWithUnavailableTransportCarriesTheCause() {
        Transport down = new FakeRdmaTransport(new IOException("dlopen librdmacm.so.1: cannot open shared object file"));
        ConnectException e = assertThrows(ConnectException.class,
                () -> connect(router(Family.SDP, down, 2000, 60000), DB, 0, false));
        assertTrue(e.getMessage().contains("librdmacm.so.1"), e.getMessage());
        assertEquals(down.unavailabilityCause(), e.getCause());
        assertEquals(List.of(), calls);
    }

    @Test
    void sdpFailureIsTheApplicationsException() {
        IOException e = assertThrows(IOException.class, () -> connect(router(Family.SDP, up, 2000, 60000), DB, 0, true));
        assertTrue(e.getMessage().contains("rconnect"), e.getMessage());
        assertEquals(List.of("rdma fakerdma 0"), calls);
    }

    @Test
    void bothWithUnavailableTransportIsTcp() throws IOException {
        Transport down = new FakeRdmaTransport(new IOException("no RDMA device"));
        assertSame(TcpTransport.INSTANCE, connect(router(Family.BOTH, down, 2000, 60000), DB, 0, false));
        assertEquals(List.of("tcp 0"), calls);
    }

    @Test
    void bothPrefersRdma() throws IOException {
        assertSame(up, connect(router(Family.BOTH, up, 2000, 60000), DB, 0, false));
        assertEquals(List.of("rdma fakerdma 2000"), calls);
    }

    @Test
    void bothBoundsTheAttemptByTheSmallerTimeout() throws IOException {
        Router r = router(Family.BOTH, up, 2000, 0);
        connect(r, DB, 300, false);
        connect(r, DB, 0, false);
        connect(r, DB, 5000, false);
        assertEquals(List.of("rdma fakerdma 300", "rdma fakerdma 2000", "rdma fakerdma 2000"), calls);
    }

    @Test
    void bothFallsBackAndRemembersTheDestination() throws IOException {
        Router r = router(Family.BOTH, up, 2000, 60000);
        assertSame(TcpTransport.INSTANCE, connect(r, DB, 0, true));
        assertSame(TcpTransport.INSTANCE, connect(r, DB, 0, true));
        assertSame(TcpTransport.INSTANCE, connect(r, OTHER, 0, true));
        assertEquals(List.of("rdma fakerdma 2000", "tcp 0", "tcp 0", "rdma fakerdma 2000", "tcp 0"), calls);
    }

    @Test
    void retryZeroTriesEveryTime() throws IOException {
        Router r = router(Family.BOTH, up, 2000, 0);
        connect(r, DB, 0, true);
        connect(r, DB, 0, true);
        assertEquals(List.of("rdma fakerdma 2000", "tcp 0", "rdma fakerdma 2000", "tcp 0"), calls);
    }

    @Test
    void fallbackKeepsWhatIsLeftOfTheApplicationsTimeout() throws IOException {
        Router r = router(Family.BOTH, up, 2000, 0);
        r.connect(DB, 1000, (t, to) -> {
            try {
                Thread.sleep(to);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            throw new java.net.SocketTimeoutException("rconnect timed out");
        }, to -> calls.add("tcp " + to));
        assertEquals(1, calls.size());
        int left = Integer.parseInt(calls.get(0).substring(4));
        assertTrue(left >= 1 && left <= 1000, calls.toString());
    }

    @Test
    void unresolvedAddressGoesToTheJdkUntouched() throws IOException {
        Router r = router(Family.SDP, null, 2000, 0);
        assertSame(TcpTransport.INSTANCE, connect(r, InetSocketAddress.createUnresolved("db.invalid", 1), 0, false));
        assertEquals(List.of("tcp 0"), calls);
    }

    @Test
    void tcpFailureAfterFallbackIsRethrown() {
        Router r = router(Family.BOTH, up, 2000, 0);
        ConnectException e = assertThrows(ConnectException.class, () -> r.connect(DB, 0,
                (t, to) -> { throw new ConnectException("rdma refused"); },
                to -> { throw new ConnectException("Connection refused"); }));
        assertEquals("Connection refused", e.getMessage());
    }

    @Test
    void listenDecisions() throws IOException {
        InetSocketAddress local = new InetSocketAddress("0.0.0.0", 1527);
        List<String> l = new ArrayList<>();
        Router.ListenPaths paths = new Router.ListenPaths() {
            @Override public void tcp() { l.add("tcp"); }
            @Override public void rdma(Transport t) { l.add("rdma"); }
            @Override public void both(Transport t) { l.add("both"); }
        };
        assertSame(TcpTransport.INSTANCE, router(Family.TCP, up, 2000, 0).listen(local, paths));
        assertSame(up, router(Family.SDP, up, 2000, 0).listen(local, paths));
        assertSame(up, router(Family.BOTH, up, 2000, 0).listen(local, paths));
        assertSame(TcpTransport.INSTANCE, router(Family.BOTH, null, 2000, 0).listen(local, paths));
        assertEquals(List.of("tcp", "rdma", "both", "tcp"), l);
        SocketException e = assertThrows(SocketException.class, () -> router(Family.SDP, null, 2000, 0).listen(local, paths));
        assertTrue(e.getMessage().contains("0.0.0.0:1527"), e.getMessage());
        assertEquals(4, l.size());
    }

    @Test
    void bothListenFailureFallsBackToTcp() throws IOException {
        List<String> l = new ArrayList<>();
        Transport used = router(Family.BOTH, up, 2000, 0).listen(new InetSocketAddress("0.0.0.0", 1527),
                new Router.ListenPaths() {
                    @Override public void tcp() { l.add("tcp"); }
                    @Override public void rdma(Transport t) { l.add("rdma"); }
                    @Override public void both(Transport t) throws IOException { throw new IOException("rbind: EADDRINUSE"); }
                });
        assertSame(TcpTransport.INSTANCE, used);
        assertEquals(List.of("tcp"), l);
    }
}
