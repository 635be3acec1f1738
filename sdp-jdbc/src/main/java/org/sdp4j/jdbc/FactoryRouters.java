package org.sdp4j.jdbc;

import java.io.IOException;
import java.net.SocketImpl;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import org.sdp4j.RuleSets;
import org.sdp4j.conf.ConfigException;
import org.sdp4j.conf.ConfigLocator;
import org.sdp4j.conf.ConfigParser;
import org.sdp4j.conf.Family;
import org.sdp4j.conf.ProgramIdentity;
import org.sdp4j.conf.RuleSet;
import org.sdp4j.log.SdpLog;
import org.sdp4j.ops.Jmx;
import org.sdp4j.transport.Router;
import org.sdp4j.transport.Transport;
import org.sdp4j.transport.Transports;

/**
 * The {@link Router} a socket factory asks, one per factory argument for the life of the JVM: drivers make a new
 * factory for every connection, and a {@code both} failure must be remembered across them.
 *
 * <p>The argument is what the driver's {@code socketFactoryArg} (pgjdbc), {@code socketFactoryConstructorArg}
 * (mssql-jdbc) or the system property {@code sdp4j.jdbc.rules} carries: an absolute path to a libsdp.conf, or rules
 * inline, one statement per {@code ;} ({@code "use both client * *:5432; use tcp client * *:*"}). Without one, the
 * config is found as the agent finds it ({@link ConfigLocator}).
 */
final class FactoryRouters {
    private FactoryRouters() {}

    /** The system property the factories without a constructor argument (MariaDB, Connector/J) read. */
    static final String PROPERTY = "sdp4j.jdbc.rules";

    private static final Map<String, Router> ROUTERS = new ConcurrentHashMap<>();

    /** @param arg the factory's argument; null or blank: {@link #PROPERTY}, else the usual config discovery */
    static Router forArgument(String arg) {
        String key = arg == null || arg.isBlank() ? System.getProperty(PROPERTY, "") : arg.strip();
        return ROUTERS.computeIfAbsent(key, FactoryRouters::create);
    }

    private static Router create(String key) {
        RuleSet rules;
        try {
            rules = parse(key);
            SdpLog.configure(rules.log(), null);
        } catch (ConfigException e) {
            // A driver cannot be told "refuse to start" as the agent can: every connection of this factory goes
            // over TCP, and the reason is at error level, as when sdp4j configures itself without the agent.
            SdpLog.log(SdpLog.ERROR, "ERROR socket factory: " + e.getMessage());
            SdpLog.log(SdpLog.ERROR, "ERROR every connection of this socket factory goes over TCP");
            rules = RuleSets.allTcp("<" + e.source() + " unusable>");
        }
        Router router = new Router(rules, ProgramIdentity.current(), Router.Settings.fromSystemProperties(),
                transports());
        // what an operator sees, as with the agent: `stat` lists JVMs that carry the marker, JMX shows the rules
        // (the first factory's, when a JVM has several) and the counters the Router keeps
        if (System.getProperty(MARKER) == null) {
            System.setProperty(MARKER, "socket-factory");
        }
        Jmx.registerRules(() -> router);
        return router;
    }

    /** The system property {@code stat} looks for before it attaches (StatCommand.MARKER). */
    private static final String MARKER = "sdp4j.agent";
    private static volatile boolean toldAgent;

    /**
     * True when the agent runs in this JVM: it routes every socket already, the factory's own included, so the
     * factory hands out plain sockets (one decision per connection, by the agent's rules) and says so once.
     */
    static boolean agentRouting() {
        if (!"running".equals(System.getProperty(MARKER))) {
            return false;
        }
        if (!toldAgent) {
            toldAgent = true;
            // at error level: the agent configured its own copy of the log, this copy keeps libsdp's default (errors)
            SdpLog.log(SdpLog.ERROR, "socket factory: the sdp4j agent routes this JVM's sockets by its own rules;"
                    + " the factory's rules are not used");
        }
        return true;
    }

    static RuleSet parse(String key) throws ConfigException {
        if (key.isEmpty()) {
            return ConfigLocator.load(null);
        }
        if (key.startsWith("/")) {
            return ConfigParser.parse(Path.of(key));
        }
        return ConfigParser.parse("socket factory argument", key.replace(';', '\n'));
    }

    /**
     * The transports, unless the JDK restricts native access and it is not enabled for this code: then no native
     * library is loaded at all (loading one would print the JDK's warning, and later JDKs refuse it), and RDMA
     * rules are answered with the reason, {@code both} falling back to TCP.
     */
    static Function<Family, Transport> transports() {
        String denied = nativeAccessDenied();
        boolean jdkOpen = org.sdp4j.jdk.JdkNet.isAccessible();
        return f -> f == Family.SMC && !jdkOpen ? new Unavailable(f, SMC_NEEDS_AGENT)
                : denied == null ? Transports.forFamily(f) : new Unavailable(f, denied);
    }

    /** Why the factory cannot make an SMC socket (docs/smc.md, limitations). */
    static final String SMC_NEEDS_AGENT = "use smc turns the JDK's own socket into an SMC socket, which needs the JDK"
            + " internals the agent opens; the socket factory opens none (use the agent for smc)";

    /** Why native code may not be loaded from here, or null when it may. */
    static String nativeAccessDenied() {
        int feature = Runtime.version().feature();
        if (feature < 24) { // JNI is restricted from JDK 24 on (JEP 472)
            return null;
        }
        Module m = FactoryRouters.class.getModule();
        try {
            if ((Boolean) Module.class.getMethod("isNativeAccessEnabled").invoke(m)) {
                return null;
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null; // cannot tell: behave as on older JDKs
        }
        return "JDK " + feature + " restricts native access and it is not enabled for " + m
                + ": start the JVM with --enable-native-access=" + (m.isNamed() ? m.getName() : "ALL-UNNAMED")
                + " to use RDMA";
    }

    /** A transport the factory cannot use here (no native access; smc without the agent), saying why. */
    private record Unavailable(Family family, String why) implements Transport {
        @Override
        public String name() {
            return family == Family.UCX ? "ucx" : family == Family.SMC ? "smc" : "rsocket";
        }

        @Override
        public boolean isAvailable() {
            return false;
        }

        @Override
        public Throwable unavailabilityCause() {
            return new UnsupportedOperationException(why);
        }

        @Override
        public SocketImpl newSocketImpl(boolean server) throws IOException {
            throw new IOException(why);
        }

        @Override
        public SocketChannel openSocketChannel(SelectorProvider provider) throws IOException {
            throw new IOException(why);
        }

        @Override
        public ServerSocketChannel openServerSocketChannel(SelectorProvider provider) throws IOException {
            throw new IOException(why);
        }
    }
}
