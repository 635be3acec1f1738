package org.sdp4j.transport;

import java.net.InetAddress;
import java.net.SocketImpl;
import java.nio.channels.SocketChannel;

/**
 * A transport listener that upgrades some TCP connections of the application's own listener (UCX across hosts: a
 * client announced on the transport's own rendezvous that it will connect from one source address and port, and
 * proves it over that TCP connection). sdp4j's listener asks {@link #claims} for every TCP connection it accepts; a
 * connection no one claimed goes to the application at once, untouched, with no byte read or written.
 */
public interface TcpUpgrade {

    /** True when a pending upgrade waits for a TCP connection from {@code peer:peerPort}; nothing is consumed. */
    boolean claims(InetAddress peer, int peerPort);

    /**
     * Takes a claimed connection: the transport serves the rest of its handshake on threads of its own, bounded, and
     * hands the result to its listener's {@code accept}, or closes {@code ch}. {@code ch} owns the descriptor
     * ({@link org.sdp4j.jdk.JdkNio#adoptAccepted}); {@code impl}, the JDK socket that accepted it, is inert now.
     */
    void upgrade(SocketChannel ch, SocketImpl impl);
}
