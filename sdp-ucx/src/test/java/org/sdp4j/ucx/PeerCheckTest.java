package org.sdp4j.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.ServerSocketChannel;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The owner of the TCP listener a client would reach ({@link PeerCheck}): the kernel's socket diagnostics (netlink)
 * and /proc/net/tcp{,6} name the same listener - owner, inode, bound address - for an exact bind, a wildcard, a
 * dual-stack IPv6 wildcard and no listener at all.
 */
class PeerCheckTest {
    @BeforeAll
    static void ucx() {
        assertTrue(Ucx.isAvailable(), () -> "UCX (and libsdp4j) must be installed for these tests: "
                + Ucx.unavailabilityCause());
    }

    @Test
    void anExactBindIsFoundByBothAndIsThisAccounts() throws Exception {
        InetAddress lo = InetAddress.getLoopbackAddress();
        try (ServerSocket s = new ServerSocket(0, 50, lo)) {
            PeerCheck.Listener l = same(lo, s.getLocalPort());
            assertNotNull(l, "the listener");
            assertEquals(PeerCheck.euid(), l.uid());
            assertEquals(lo, l.address());
            assertTrue(l.inode() > 0);
            // another local address of the host is not served by a loopback bind
            assertNull(same(InetAddress.getByName("127.0.0.2"), s.getLocalPort()));
        }
    }

    @Test
    void wildcardsAreFoundByBoth() throws Exception {
        try (ServerSocketChannel v6 = ServerSocketChannel.open()) { // the JDK's default: a dual-stack IPv6 socket
            v6.bind(new InetSocketAddress(0));
            int port = ((InetSocketAddress) v6.getLocalAddress()).getPort();
            PeerCheck.Listener l = same(InetAddress.getLoopbackAddress(), port);
            assertNotNull(l, "the dual-stack wildcard serves a v4 client");
            assertNull(l.address(), "a wildcard");
            assertNotNull(same(InetAddress.getByName("::1"), port), "and a v6 one");
        }
        try (ServerSocketChannel v4 = ServerSocketChannel.open(java.net.StandardProtocolFamily.INET)) {
            v4.bind(new InetSocketAddress(InetAddress.getByName("0.0.0.0"), 0));
            int port = ((InetSocketAddress) v4.getLocalAddress()).getPort();
            assertNotNull(same(InetAddress.getLoopbackAddress(), port), "a v4 wildcard serves a v4 client");
            assertNull(same(InetAddress.getByName("::1"), port), "but not a v6 one");
        }
    }

    @Test
    void noListenerIsNoneForBoth() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        assertNull(same(InetAddress.getLoopbackAddress(), port));
    }

    /** The listener both ways find, checked equal. */
    private static PeerCheck.Listener same(InetAddress addr, int port) throws Exception {
        byte[] diag = PeerCheck.kernelListeners(port);
        assertNotNull(diag, "the kernel's socket diagnostics answer here");
        PeerCheck.Listener fromDiag = PeerCheck.fromDiag(diag, addr, port);
        PeerCheck.Listener fromProc = PeerCheck.fromProc(addr, port);
        assertEquals(fromProc, fromDiag, "netlink and /proc name the same listener for " + addr + ":" + port);
        return fromDiag;
    }
}
