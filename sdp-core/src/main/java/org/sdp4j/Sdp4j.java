package org.sdp4j;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;

import org.sdp4j.conf.ConfigException;
import org.sdp4j.conf.ConfigLocator;
import org.sdp4j.conf.ProgramIdentity;
import org.sdp4j.conf.RuleSet;
import org.sdp4j.jdk.JdkNet;
import org.sdp4j.log.SdpLog;
import org.sdp4j.net.SdpServerSocketImplFactory;
import org.sdp4j.net.SdpSocketImplFactory;
import org.sdp4j.transport.Router;

/**
 * The process-wide state: the {@link Router} every socket of this JVM asks. The agent configures it before
 * {@code main}; used without the agent (the {@code java.nio.channels.spi.SelectorProvider} property alone), it
 * configures itself on first use from the usual config discovery.
 */
public final class Sdp4j {
    private Sdp4j() {}

    private static volatile Router router;

    /** Sets the rules and program identity every later decision uses. */
    public static synchronized void configure(RuleSet rules, ProgramIdentity program) {
        router = new Router(rules, program, Router.Settings.fromSystemProperties());
    }

    /** The router if {@link #configure} ran (by the agent, or on first use), else null; never configures. */
    public static Router configuredRouter() {
        return router;
    }

    public static Router router() {
        Router r = router;
        return r != null ? r : selfConfigure();
    }

    private static synchronized Router selfConfigure() {
        if (router == null) {
            RuleSet rules;
            try {
                rules = ConfigLocator.load(null);
                SdpLog.configure(rules.log(), null);
            } catch (ConfigException e) {
                // No agent to refuse the start: keep the program running, all on TCP, and say so at error level.
                SdpLog.log(SdpLog.ERROR, "ERROR " + e.getMessage());
                SdpLog.log(SdpLog.ERROR, "ERROR every connection of this JVM goes over TCP");
                rules = RuleSets.allTcp("<" + e.source() + " unusable>");
            }
            configure(rules, ProgramIdentity.current());
        }
        return router;
    }

    private static boolean factoriesInstalled;

    /**
     * Installs sdp4j's client and server SocketImpl factories, so {@code new Socket(...)} and
     * {@code new ServerSocket(...)} are decided by the rules. Once per JVM; the JDK allows one factory only, so
     * this fails if the application installed its own first.
     */
    public static synchronized void installSocketFactories() throws IOException {
        if (factoriesInstalled) {
            return;
        }
        JdkNet.ensureAccessible();
        try {
            Socket.setSocketImplFactory(new SdpSocketImplFactory());
        } catch (SocketException e) {
            throw new IOException("a client SocketImplFactory is already installed: " + e.getMessage(), e);
        }
        try {
            ServerSocket.setSocketFactory(new SdpServerSocketImplFactory());
        } catch (SocketException e) {
            throw new IOException("a ServerSocket SocketImplFactory is already installed: " + e.getMessage(), e);
        }
        factoriesInstalled = true;
    }
}
