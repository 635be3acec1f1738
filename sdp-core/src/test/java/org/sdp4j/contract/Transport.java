package org.sdp4j.contract;

import java.io.IOException;
import java.lang.reflect.Field;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.spi.SelectorProvider;
import java.util.List;
import java.util.Set;

/**
 * How the contract suite reaches one transport: the fixture a per-transport subclass names. {@link #setUp} runs
 * before every test (rules are process-wide, and several fixtures may share one JVM); the same fixture class is
 * instantiated by {@link Peer} in a second JVM for the kill -9 tests, so it needs a public no-argument constructor.
 */
public interface Transport {
    /** For messages and the transport column of docs/transport-contract.md: jdk, tcp, ucx, sdp, ... */
    String name();

    /** Installs what this transport needs in this JVM (factories once, rules every time). */
    void setUp() throws Exception;

    /** {@code -Dsdp4j.test.address} (in the VM: the address rxe0 serves), else 127.0.0.1. */
    static InetAddress testAddress() {
        try {
            return InetAddress.getByName(System.getProperty("sdp4j.test.address", "127.0.0.1"));
        } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException("-Dsdp4j.test.address: " + e.getMessage(), e);
        }
    }

    /** The address servers bind to and clients connect to. */
    default InetAddress address() {
        return InetAddress.getLoopbackAddress();
    }

    default ServerSocket serverSocket() throws IOException {
        return new ServerSocket();
    }

    default Socket socket() {
        return new Socket();
    }

    SelectorProvider provider();

    /** Known, documented deviations from the JDK reference (each a row of docs/transport-contract.md). */
    default Set<Limitation> limitations() {
        return Set.of();
    }

    /** JVM options a {@link Peer} JVM needs besides the class path and the sdp4j.* system properties. */
    default List<String> peerJvmOptions() {
        return List.of();
    }

    /**
     * Fails unless {@code endpoint} (a Socket, ServerSocket or channel) is really carried by this transport: a suite
     * that silently ran on TCP would prove nothing. {@code accepted}: the server end of a connection.
     */
    void assertCarried(Object endpoint, boolean accepted);

    /** What carries an endpoint: its channel's toString, or the SocketImpl behind a java.net socket. */
    static String describe(Object endpoint) {
        if (endpoint instanceof Socket || endpoint instanceof ServerSocket) {
            try {
                Field f = (endpoint instanceof Socket ? Socket.class : ServerSocket.class).getDeclaredField("impl");
                f.setAccessible(true); // java.net is opened to the tests (surefire argLine)
                Object impl = f.get(endpoint);
                return endpoint.getClass().getName() + "/" + (impl == null ? "no impl" : impl.getClass().getName()
                        + ":" + impl);
            } catch (ReflectiveOperationException | RuntimeException e) {
                return endpoint.getClass().getName() + "/? (" + e + ")";
            }
        }
        return endpoint.getClass().getName() + ":" + endpoint;
    }
}
