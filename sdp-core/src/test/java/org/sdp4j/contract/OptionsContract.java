package org.sdp4j.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Set;

import org.junit.jupiter.api.Test;

/** Socket options as a program sees them: defaults, set/get round trips, invalid values, after close. */
public abstract class OptionsContract extends ContractBase {
    @Test
    void tcpNoDelayIsOffByDefault() throws Exception {
        limitation(Limitation.TCP_NODELAY_DEFAULT_ON);
        Pair p = pair();
        assertFalse(p.client.getTcpNoDelay(), "TCP_NODELAY of the client");
        assertFalse(p.server.getTcpNoDelay(), "TCP_NODELAY of the accepted socket");
        SocketChannel[] ch = channels();
        assertFalse(ch[0].getOption(StandardSocketOptions.TCP_NODELAY), "TCP_NODELAY of a channel");
    }

    @Test
    void defaultsOfAConnectedSocket() throws Exception {
        Pair p = pair();
        for (Socket s : new Socket[] {p.client, p.server}) {
            assertFalse(s.getKeepAlive(), "SO_KEEPALIVE");
            assertFalse(s.getOOBInline(), "SO_OOBINLINE");
            assertEquals(0, s.getSoTimeout(), "SO_TIMEOUT");
            assertEquals(-1, s.getSoLinger(), "SO_LINGER");
            assertTrue(s.getReceiveBufferSize() > 0, "SO_RCVBUF");
            assertTrue(s.getSendBufferSize() > 0, "SO_SNDBUF");
        }
    }

    @Test
    void roundTrips() throws Exception {
        Pair p = pair();
        Socket s = p.client;
        s.setTcpNoDelay(true);
        assertTrue(s.getTcpNoDelay());
        s.setTcpNoDelay(false);
        assertFalse(s.getTcpNoDelay());
        s.setKeepAlive(true);
        assertTrue(s.getKeepAlive());
        s.setSoTimeout(1234);
        assertEquals(1234, s.getSoTimeout());
        s.setSoLinger(true, 7);
        assertEquals(7, s.getSoLinger());
        s.setSoLinger(false, 0);
        assertEquals(-1, s.getSoLinger());
        s.setReceiveBufferSize(65536);
        assertTrue(s.getReceiveBufferSize() >= 65536 / 2, "SO_RCVBUF " + s.getReceiveBufferSize());
        s.setSendBufferSize(65536);
        assertTrue(s.getSendBufferSize() >= 65536 / 2, "SO_SNDBUF " + s.getSendBufferSize());
        // and the connection still works with them
        s.getOutputStream().write(3);
        assertEquals(3, await(async(() -> p.server.getInputStream().read())));
    }

    @Test
    void invalidValuesAreRejected() throws Exception {
        Pair p = pair();
        Socket s = p.client;
        assertThrows(IllegalArgumentException.class, () -> s.setSoTimeout(-1));
        assertThrows(IllegalArgumentException.class, () -> s.setReceiveBufferSize(0));
        assertThrows(IllegalArgumentException.class, () -> s.setSendBufferSize(-5));
        assertThrows(IllegalArgumentException.class, () -> s.setSoLinger(true, -1));
        assertThrows(IllegalArgumentException.class, () -> s.setOption(StandardSocketOptions.SO_RCVBUF, -1));
        assertThrows(NullPointerException.class, () -> s.setOption(null, 1));
        assertThrows(UnsupportedOperationException.class, () -> s.setOption(StandardSocketOptions.IP_MULTICAST_TTL, 1));
        assertEquals(0, s.getSoTimeout(), "a rejected value changes nothing");
    }

    @Test
    void afterCloseEveryOptionCallFails() throws Exception {
        Pair p = pair();
        Socket s = p.client;
        s.close();
        assertThrows(SocketException.class, () -> s.setTcpNoDelay(true));
        assertThrows(SocketException.class, s::getTcpNoDelay);
        assertThrows(SocketException.class, () -> s.setSoTimeout(5));
        assertThrows(SocketException.class, s::getSoTimeout);
        assertThrows(SocketException.class, s::getReceiveBufferSize);
        assertThrows(SocketException.class, () -> s.getOption(StandardSocketOptions.SO_KEEPALIVE));
    }

    @Test
    void serverSocketOptions() throws Exception {
        ServerSocket ss = listen();
        assertEquals(0, ss.getSoTimeout());
        ss.setSoTimeout(250);
        assertEquals(250, ss.getSoTimeout());
        assertTrue(ss.getReuseAddress(), "the JDK sets SO_REUSEADDR on server sockets");
        assertTrue(ss.getReceiveBufferSize() > 0);
        assertThrows(IllegalArgumentException.class, () -> ss.setSoTimeout(-1));
        assertThrows(IllegalArgumentException.class, () -> ss.setReceiveBufferSize(0));
        ss.close();
        assertThrows(SocketException.class, ss::getSoTimeout);
        assertThrows(SocketException.class, () -> ss.setReceiveBufferSize(1024));
    }

    @Test
    void channelOptions() throws Exception {
        SocketChannel[] ch = channels();
        SocketChannel c = ch[0];
        Set<SocketOption<?>> supported = c.supportedOptions();
        for (SocketOption<?> o : Set.of(StandardSocketOptions.TCP_NODELAY, StandardSocketOptions.SO_KEEPALIVE,
                StandardSocketOptions.SO_RCVBUF, StandardSocketOptions.SO_SNDBUF, StandardSocketOptions.SO_LINGER,
                StandardSocketOptions.SO_REUSEADDR)) {
            assertTrue(supported.contains(o), "supported: " + o);
        }
        c.setOption(StandardSocketOptions.TCP_NODELAY, false);
        assertFalse(c.getOption(StandardSocketOptions.TCP_NODELAY));
        c.setOption(StandardSocketOptions.TCP_NODELAY, true);
        assertTrue(c.getOption(StandardSocketOptions.TCP_NODELAY));
        c.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
        assertTrue(c.getOption(StandardSocketOptions.SO_KEEPALIVE));
        assertEquals(-1, (int) c.getOption(StandardSocketOptions.SO_LINGER));
        c.setOption(StandardSocketOptions.SO_LINGER, 3);
        assertEquals(3, (int) c.getOption(StandardSocketOptions.SO_LINGER));
        assertThrows(IllegalArgumentException.class, () -> c.setOption(StandardSocketOptions.SO_RCVBUF, -1));
        assertThrows(IllegalArgumentException.class, () -> c.setOption(StandardSocketOptions.SO_SNDBUF, -1));
        assertThrows(NullPointerException.class, () -> c.setOption(null, 1));
        assertThrows(UnsupportedOperationException.class,
                () -> c.setOption(StandardSocketOptions.IP_MULTICAST_TTL, 1));
        // the adaptor shares the channel's options
        assertTrue(c.socket().getTcpNoDelay());
        c.close();
        assertThrows(ClosedChannelException.class, () -> c.getOption(StandardSocketOptions.TCP_NODELAY));
        assertThrows(ClosedChannelException.class, () -> c.setOption(StandardSocketOptions.TCP_NODELAY, false));
    }

    @Test
    void serverChannelOptions() throws Exception {
        ServerSocketChannel ss = listenChannel();
        assertTrue(ss.supportedOptions().contains(StandardSocketOptions.SO_RCVBUF));
        assertTrue(ss.supportedOptions().contains(StandardSocketOptions.SO_REUSEADDR));
        assertTrue(ss.getOption(StandardSocketOptions.SO_REUSEADDR), "the JDK sets SO_REUSEADDR on listeners");
        assertThrows(IllegalArgumentException.class, () -> ss.setOption(StandardSocketOptions.SO_RCVBUF, -1));
        ss.close();
        assertThrows(ClosedChannelException.class, () -> ss.getOption(StandardSocketOptions.SO_RCVBUF));
    }
}
