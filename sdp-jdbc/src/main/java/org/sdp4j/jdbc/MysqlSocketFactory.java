package org.sdp4j.jdbc;

import java.net.Socket;
import java.net.SocketException;

import com.mysql.cj.conf.PropertySet;
import com.mysql.cj.protocol.StandardSocketFactory;

/**
 * sdp4j for MySQL Connector/J, which takes its own {@code com.mysql.cj.protocol.SocketFactory} rather than a
 * {@code javax.net.SocketFactory}: Connector/J's standard factory with sdp4j's socket in place of a plain one, so
 * its timeouts, local bind, options and TLS stay Connector/J's own.
 * {@code jdbc:mysql://db:3306/app?socketFactory=org.sdp4j.jdbc.MysqlSocketFactory}; rules from
 * {@code -Dsdp4j.jdbc.rules}, else found as the agent finds them (see {@link SdpSocketFactory}). Connector/J is not
 * a dependency of sdp4j: this class is loaded only when Connector/J names it.
 */
public class MysqlSocketFactory extends StandardSocketFactory {
    @Override
    protected Socket createSocket(PropertySet props) {
        if (FactoryRouters.agentRouting()) {
            return new Socket(); // the agent decides it
        }
        try {
            return new FactorySocket(FactoryRouters.forArgument(null));
        } catch (SocketException e) { // Socket(SocketImpl) with no implementation throws nothing in practice
            throw new IllegalStateException(e);
        }
    }
}
