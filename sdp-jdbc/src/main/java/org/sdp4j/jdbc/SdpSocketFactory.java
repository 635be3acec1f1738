package org.sdp4j.jdbc;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;

import javax.net.SocketFactory;

import org.sdp4j.transport.Router;

/**
 * sdp4j without the agent: a {@link SocketFactory} for the JDBC drivers that take one, so that one
 * {@code DataSource} rides RDMA under libsdp.conf rules and nothing else in the JVM changes. Needs only
 * {@code sdp4j-agent.jar} on the class path: no {@code -javaagent}, no {@code --add-opens}; on JDK 24+ RDMA needs
 * {@code --enable-native-access=ALL-UNNAMED}, and without it every connection goes over TCP ({@code both}) or fails
 * with that reason ({@code sdp}).
 *
 * <pre>
 * jdbc:postgresql://db:5432/app?socketFactory=org.sdp4j.jdbc.SdpSocketFactory&amp;socketFactoryArg=use both client * *:5432
 * jdbc:mariadb://db:3306/app?socketFactory=org.sdp4j.jdbc.SdpSocketFactory      (rules: -Dsdp4j.jdbc.rules or libsdp.conf)
 * jdbc:sqlserver://db:1433;socketFactoryClass=org.sdp4j.jdbc.SdpSocketFactory;socketFactoryConstructorArg=/etc/app-sdp.conf
 * </pre>
 * The argument, when given, is an absolute path to a libsdp.conf or rules inline separated by {@code ;}; without
 * one, the system property {@code sdp4j.jdbc.rules} (the same syntax), else the config the agent would read
 * (system property {@code sdp4j.conf}, {@code LIBSDP_CONFIG_FILE}, {@code /etc/libsdp.conf}). Each decision is
 * logged as the agent logs it. MySQL Connector/J takes its own interface: {@link MysqlSocketFactory}.
 */
public class SdpSocketFactory extends SocketFactory {
    private final Router router;

    /** Rules from {@code -Dsdp4j.jdbc.rules}, else found as the agent finds them. */
    public SdpSocketFactory() {
        this(null);
    }

    /** @param rules an absolute path to a libsdp.conf, or rules separated by {@code ;} (null: as {@link #SdpSocketFactory()}) */
    public SdpSocketFactory(String rules) {
        this.router = FactoryRouters.agentRouting() ? null : FactoryRouters.forArgument(rules);
    }

    /** An unconnected socket, decided by the rules at {@code connect} (with the agent running: the agent's). */
    @Override
    public Socket createSocket() throws SocketException {
        return router == null ? new Socket() : new FactorySocket(router);
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        return connected(new InetSocketAddress(host, port), null);
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        return connected(new InetSocketAddress(host, port), new InetSocketAddress(localHost, localPort));
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        return connected(new InetSocketAddress(host, port), null);
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
            throws IOException {
        return connected(new InetSocketAddress(address, port), new InetSocketAddress(localAddress, localPort));
    }

    private Socket connected(InetSocketAddress remote, InetSocketAddress local) throws IOException {
        Socket s = createSocket();
        try {
            if (local != null) {
                s.bind(local);
            }
            s.connect(remote);
            return s;
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }
}
