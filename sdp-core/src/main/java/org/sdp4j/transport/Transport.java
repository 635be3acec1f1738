package org.sdp4j.transport;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketImpl;
import java.net.SocketOption;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.util.Set;

import org.sdp4j.conf.Family;

/**
 * A way to carry a stream connection. sdp-core ships the TCP transport (the JDK's own implementation);
 * accelerated transports (rsockets in sdp-jni, UCX later) are found with {@link java.util.ServiceLoader}
 * and never know about rules: the {@link Router} decides, a transport only carries.
 */
public interface Transport {

    /** Short name for logs and the connection registry: {@code tcp}, {@code rsocket}, {@code ucx}. */
    String name();

    /** The rule family this transport serves ({@link Family#SDP} for rsockets). */
    Family family();

    /** Whether this transport can carry connections in this process. */
    boolean isAvailable();

    /** Why {@link #isAvailable()} is false (names the missing library, device, ...); {@code null} when available. */
    Throwable unavailabilityCause();

    /**
     * A new, not yet created {@link SocketImpl} of this transport for the {@code java.net} path.
     * The caller invokes {@code create(true)} and then connect/bind/listen/accept on it.
     *
     * @param server true for a {@code ServerSocket}'s impl
     */
    SocketImpl newSocketImpl(boolean server) throws IOException;

    /**
     * Creates {@code impl} (from {@link #newSocketImpl}) before its bind, connect or listen. A transport that rides
     * the kernel's own socket (smc) turns the JDK's socket into its own here.
     */
    default void create(SocketImpl impl) throws IOException {
        org.sdp4j.jdk.JdkNet.create(impl, true);
    }

    /**
     * A connection over this transport was established (connected, or {@code accepted} by a listener of this
     * transport): {@code socket} is the {@link SocketImpl} or the {@link SocketChannel} that carries it; {@code remote}
     * is null for an accepted one (the transport asks the socket, so nothing is computed for transports that ignore
     * this). smc reports here whether the kernel used SMC-R or fell back to TCP.
     */
    default void established(Object socket, InetSocketAddress remote, boolean accepted) {
    }

    /**
     * For a transport that rides an RDMA device without watching it (ucx across hosts): a check of the device under
     * a connection from local address {@code local}, which returns why that device is gone, naming it, or null while
     * it is there. Null when this transport cannot tell; the rsocket transport can: it reads the kernel's RDMA device
     * list ({@link Transports#rdmaDeviceCheck} asks every transport).
     */
    default java.util.function.Supplier<String> rdmaDeviceCheck(java.net.InetAddress local) {
        return null;
    }

    /** What {@code selftest} adds after "available" (smc: its RDMA devices and User EIDs), or null. */
    default String describe() {
        return null;
    }

    /** A new unconnected NIO socket channel of this transport. */
    SocketChannel openSocketChannel(SelectorProvider provider) throws IOException;

    /** A new unbound NIO server socket channel of this transport. */
    ServerSocketChannel openServerSocketChannel(SelectorProvider provider) throws IOException;

    /**
     * A poller that can wait on this transport's descriptors and on kernel descriptors in one call
     * (rsockets' {@code rpoll}); {@code null} when the transport's channels are plain kernel descriptors.
     */
    default Poller newPoller() throws IOException {
        return null;
    }

    /**
     * Socket options of this transport's own that the JDK's sockets do not know (rsockets' {@code RDMA_SQSIZE}
     * ...). An sdp4j channel accepts them before {@code connect}/{@code bind}, while it does not know its transport
     * yet, and hands them to the transport's channel if the rules choose this transport (TCP ignores them).
     */
    default Set<SocketOption<?>> transportOptions() {
        return Set.of();
    }
}
