package org.sdp4j.agent;

import java.lang.instrument.Instrumentation;
import java.nio.channels.spi.SelectorProvider;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.sdp4j.RuleSets;
import org.sdp4j.Sdp4j;
import org.sdp4j.conf.ConfigException;
import org.sdp4j.conf.ConfigLocator;
import org.sdp4j.conf.LogSettings;
import org.sdp4j.conf.ProgramIdentity;
import org.sdp4j.conf.RuleSet;
import org.sdp4j.log.SdpLog;
import org.sdp4j.nio.SdpSelectorProvider;
import org.sdp4j.transport.Transport;
import org.sdp4j.transport.Transports;

/**
 * {@code -javaagent:sdp4j-agent.jar[=conf=PATH,log=SPEC,onerror=fail|tcp,program=NAME]}.
 *
 * <p>Order matters: open the JDK internals first (the factories need them), then read the rules (a bad file must
 * stop us before anything is installed), then install the socket factories and the SelectorProvider, all before
 * the application's {@code main} can open a connection.
 */
public final class Agent {
    static final String PROVIDER_PROPERTY = "java.nio.channels.spi.SelectorProvider";

    private Agent() {}

    public static void premain(String args, Instrumentation inst) {
        start(args, inst, false);
    }

    /** Late attach: sockets created from now on are routed; NIO only if nothing has asked for a provider yet. */
    public static void agentmain(String args, Instrumentation inst) {
        start(args, inst, true);
    }

    private static void start(String args, Instrumentation inst, boolean late) {
        AgentOptions options;
        try {
            options = AgentOptions.parse(args);
        } catch (IllegalArgumentException e) {
            refuse(e.getMessage());
            return;
        }
        if (options.program() != null) {
            System.setProperty("sdp4j.program", options.program());
        }
        openJdkInternals(inst);

        RuleSet rules;
        try {
            rules = ConfigLocator.load(options.conf());
        } catch (ConfigException e) {
            if (!options.tcpOnError()) {
                refuse(e.getMessage() + "\nsdp4j: refusing to start (fix the file, or add onerror=tcp to the agent"
                        + " options to run everything on TCP)");
                return;
            }
            System.err.println("sdp4j: ERROR " + e.getMessage());
            System.err.println("sdp4j: ERROR onerror=tcp: every connection of this JVM goes over TCP");
            rules = RuleSets.allTcp("<onerror=tcp: " + e.source() + " unusable>");
        }
        SdpLog.configure(rules.log(), options.log());
        Sdp4j.configure(rules, ProgramIdentity.current());
        try {
            Sdp4j.installSocketFactories();
        } catch (java.io.IOException e) {
            refuse("cannot install the socket factories: " + e.getMessage());
            return;
        }
        boolean nio = installSelectorProvider(late);
        announce(rules, nio);
    }

    /**
     * Opens java.net (platform SocketImpl) and sun.nio.ch (the JDK's channels and selectors) to the module sdp4j
     * lives in, so users need no --add-opens.
     */
    static void openJdkInternals(Instrumentation inst) {
        Module base = Object.class.getModule();
        Module self = Agent.class.getModule();
        Map<String, Set<Module>> both = Map.of("java.net", Set.of(self), "sun.nio.ch", Set.of(self));
        inst.redefineModule(base, Set.of(), both, both, Set.of(), Map.of());
    }

    private static boolean installSelectorProvider(boolean late) {
        String configured = System.getProperty(PROVIDER_PROPERTY);
        if (configured != null && !configured.equals(SdpSelectorProvider.class.getName())) {
            SdpLog.log(SdpLog.WARN, "the application sets " + PROVIDER_PROPERTY + "=" + configured
                    + "; NIO channels are not routed by sdp4j");
            return false;
        }
        System.setProperty(PROVIDER_PROPERTY, SdpSelectorProvider.class.getName());
        SelectorProvider p = SelectorProvider.provider();
        if (!(p instanceof SdpSelectorProvider)) {
            SdpLog.log(SdpLog.WARN, "the SelectorProvider was chosen before sdp4j started ("
                    + p.getClass().getName() + (late ? ", late attach" : "") + "); NIO channels are not routed");
            return false;
        }
        return true;
    }

    private static void announce(RuleSet rules, boolean nio) {
        if (rules.rules().isEmpty()) {
            // libsdp's "simple SDP" mode: easy to get by accident (no /etc/libsdp.conf), so always said
            SdpLog.log(SdpLog.ERROR, "note: no 'use' rules (" + rules.source() + "), so as in libsdp every connect"
                    + " and listen goes to sdp (RDMA only, no TCP fallback); add 'use both server * *:*' and"
                    + " 'use both client * *:*' to fall back to TCP");
        }
        if (!SdpLog.enabled(SdpLog.INFO)) {
            return;
        }
        StringBuilder b = new StringBuilder("agent started: config ").append(rules.source())
                .append(" (").append(rules.rules().size()).append(" rules), program ")
                .append(ProgramIdentity.current().names()).append(", nio ").append(nio ? "routed" : "not routed");
        List<Transport> all = Transports.all();
        for (Transport t : all) {
            b.append(", ").append(t.name()).append(t.isAvailable() ? " available"
                    : " unavailable (" + SelfTest.causeChain(t.unavailabilityCause()) + ")");
        }
        SdpLog.log(SdpLog.INFO, b.toString());
    }

    private static void refuse(String message) {
        System.err.println("sdp4j: " + message);
        System.err.flush();
        // premain runs before main: exiting here stops the JVM before the application does anything.
        System.exit(2);
    }

    static LogSettings logOf(AgentOptions o) {
        return o.log();
    }
}
