package org.sdp4j.agent;

import java.lang.instrument.Instrumentation;
import java.nio.channels.spi.SelectorProvider;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

import org.sdp4j.RuleSets;
import org.sdp4j.Sdp4j;
import org.sdp4j.conf.ConfigException;
import org.sdp4j.conf.ConfigLocator;
import org.sdp4j.conf.Family;
import org.sdp4j.conf.LogSettings;
import org.sdp4j.conf.ProgramIdentity;
import org.sdp4j.conf.Rule;
import org.sdp4j.conf.RuleSet;
import org.sdp4j.log.SdpLog;
import org.sdp4j.nio.SdpSelectorProvider;
import org.sdp4j.transport.Transport;
import org.sdp4j.transport.Transports;

/**
 * {@code -javaagent:sdp4j-agent.jar[=conf=PATH,log=SPEC,onerror=fail|tcp,program=NAME]}, once
 * {@code org.sdp4j.boot.AgentBoot} loaded sdp4j into a module layer of its own.
 *
 * <p>Order matters: open the JDK internals first (the factories need them), then read the rules (a bad file must
 * stop us before anything is installed), then install the socket factories and the SelectorProvider, all before
 * the application's {@code main} can open a connection.
 */
public final class Agent {
    static final String PROVIDER_PROPERTY = "java.nio.channels.spi.SelectorProvider";

    private Agent() {}

    /**
     * What the boot class hands sdp4j's module: how to publish the provider to the class path's forwarding
     * {@code SelectorProvider} (whose class name the property must name), and how to grant the module native access.
     */
    record Layer(Consumer<SelectorProvider> publish, String providerClass, Runnable nativeAccess) {}

    /** Started by {@link LayerEntry}, in the module layer {@code org.sdp4j.boot.AgentBoot} defined. */
    static void start(String args, Instrumentation inst, boolean late, Layer layer) {
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
        if (inst != null) {
            NativeSockets.install(inst, options.nettyNio());
        }

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
        if (SdpLog.enabled(SdpLog.INFO) || !allTcp(rules)) {
            grantNativeAccess(inst, layer); // before a transport loads its library; a TCP-only JVM loads none
        }
        Sdp4j.configure(rules, ProgramIdentity.current());
        try {
            Sdp4j.installSocketFactories();
        } catch (java.io.IOException e) {
            refuse("cannot install the socket factories: " + e.getMessage());
            return;
        }
        boolean nio = installSelectorProvider(late, layer);
        System.setProperty(StatCommand.MARKER, "running"); // how `stat` tells a JVM with the agent before attaching
        announce(rules, nio);
    }

    /**
     * Opens java.net (platform SocketImpl) and sun.nio.ch (the JDK's channels and selectors) to the module sdp4j
     * lives in — the named module {@code org.sdp4j} of the agent's own layer, which exports and opens nothing — so
     * users need no --add-opens and the application's class path gains no access.
     */
    static void openJdkInternals(Instrumentation inst) {
        Module base = Object.class.getModule();
        Module self = Agent.class.getModule();
        Map<String, Set<Module>> both = Map.of("java.net", Set.of(self), "sun.nio.ch", Set.of(self));
        inst.redefineModule(base, Set.of(), both, both, Set.of(), Map.of());
    }

    /**
     * JDK 22+: native access for sdp4j's module, so that loading libsdp4j.so and jucx is not a restricted-method
     * warning (JDK 24+) and keeps working when the JDK denies it by default. What {@code
     * --enable-native-access=org.sdp4j} would do: the JDK's own {@code JavaLangAccess.addEnableNativeAccess}, reached
     * by exporting {@code jdk.internal.access} to this module alone. If that is gone (a later JDK), the public
     * {@code ModuleLayer.Controller.enableNativeAccess}, which is restricted itself: its caller, the boot class on
     * the class path, then gets the one warning instead.
     */
    static void grantNativeAccess(Instrumentation inst, Layer layer) {
        Module self = Agent.class.getModule();
        java.lang.reflect.Method enabled;
        try {
            enabled = Module.class.getMethod("isNativeAccessEnabled");
        } catch (NoSuchMethodException e) {
            return; // JDK 17-21: JNI is not restricted
        }
        try {
            if ((boolean) enabled.invoke(self)) {
                return;
            }
            inst.redefineModule(Object.class.getModule(), Set.of(), Map.of("jdk.internal.access", Set.of(self)),
                    Map.of(), Set.of(), Map.of());
            Object jla = Class.forName("jdk.internal.access.SharedSecrets").getMethod("getJavaLangAccess")
                    .invoke(null);
            Class.forName("jdk.internal.access.JavaLangAccess").getMethod("addEnableNativeAccess", Module.class)
                    .invoke(jla, self);
            if ((boolean) enabled.invoke(self)) {
                return;
            }
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            SdpLog.log(SdpLog.DEBUG, "native access through JavaLangAccess failed (" + e + "); using"
                    + " ModuleLayer.Controller.enableNativeAccess");
        }
        layer.nativeAccess().run();
    }

    private static boolean allTcp(RuleSet rules) {
        if (rules.rules().isEmpty()) {
            return false; // libsdp's simple SDP mode: everything on sdp
        }
        for (Rule r : rules.rules()) {
            if (r.family() != Family.TCP) {
                return false;
            }
        }
        return true;
    }

    /**
     * The JDK instantiates the property's class from the class path; sdp4j's provider lives in the layer, so the
     * property names the class path's forwarding provider, which hands every call to this one. A property set to
     * sdp4j's own class name (as the agent-less mode documents) means the same and is replaced.
     */
    private static boolean installSelectorProvider(boolean late, Layer layer) {
        String configured = System.getProperty(PROVIDER_PROPERTY);
        String ours = SdpSelectorProvider.class.getName();
        if (configured != null && !configured.equals(ours) && !configured.equals(layer.providerClass())) {
            SdpLog.log(SdpLog.WARN, "the application sets " + PROVIDER_PROPERTY + "=" + configured
                    + "; NIO channels are not routed by sdp4j");
            return false;
        }
        layer.publish().accept(new SdpSelectorProvider());
        System.setProperty(PROVIDER_PROPERTY, layer.providerClass());
        SelectorProvider p = SelectorProvider.provider();
        if (!p.getClass().getName().equals(layer.providerClass())) {
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
