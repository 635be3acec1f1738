package org.sdp4j.boot;

import java.lang.instrument.Instrumentation;
import java.lang.module.Configuration;
import java.lang.module.ModuleFinder;
import java.lang.reflect.InvocationTargetException;
import java.nio.channels.spi.SelectorProvider;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The agent's entry point ({@code Premain-Class}), on the application's class path like every agent. It does not
 * run sdp4j here: it loads sdp4j from this jar as the named module {@code org.sdp4j} in a module layer of its own
 * ({@link AgentJarModule}) and starts it there, so that the JDK internals sdp4j needs ({@code java.net},
 * {@code sun.nio.ch}) are opened to that module only, never to the class path (as {@code --add-opens
 * ...=ALL-UNNAMED} would), and so that native access can be granted to that module alone.
 *
 * <p>The copy of sdp4j's classes at the top of the jar stays for {@code java -jar sdp4j-agent.jar check} and the
 * documented agent-less NIO mode; with the agent it is inert: nothing is opened to it.
 */
public final class AgentBoot {
    private AgentBoot() {}

    private static boolean started;

    public static void premain(String args, Instrumentation inst) {
        start(args, inst, false);
    }

    /** Late attach: sockets created from now on are routed; NIO only if nothing has asked for a provider yet. */
    public static void agentmain(String args, Instrumentation inst) {
        start(args, inst, true);
    }

    private static synchronized void start(String args, Instrumentation inst, boolean late) {
        if (started) {
            System.err.println("sdp4j: the agent is already running in this JVM; not started twice");
            return;
        }
        started = true;
        Function<Object[], Object> entry;
        ModuleLayer.Controller controller;
        Module module;
        try {
            Path jar = Path.of(AgentBoot.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            AgentJarModule finder = new AgentJarModule(jar);
            Configuration cf = ModuleLayer.boot().configuration().resolve(finder, ModuleFinder.of(),
                    Set.of(AgentJarModule.NAME));
            // parent: the platform loader, so sdp4j never resolves a class of the application's class path
            controller = ModuleLayer.defineModulesWithOneLoader(cf, List.of(ModuleLayer.boot()),
                    ClassLoader.getPlatformClassLoader());
            module = controller.layer().findModule(AgentJarModule.NAME).orElseThrow();
            entry = entry(controller.layer(), module);
        } catch (Exception | LinkageError e) {
            System.err.println("sdp4j: cannot load sdp4j into a module layer of its own: " + e);
            System.err.println("sdp4j: refusing to start");
            System.err.flush();
            System.exit(2);
            return;
        }
        Consumer<SelectorProvider> publish = LayerSelectorProvider::publish;
        Runnable nativeAccess = () -> enableNativeAccess(controller, module);
        entry.apply(new Object[] {args, inst, late, publish, LayerSelectorProvider.class.getName(), nativeAccess});
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Function<Object[], Object> entry(ModuleLayer layer, Module module) {
        for (Function f : java.util.ServiceLoader.load(layer, Function.class)) {
            if (f.getClass().getModule() == module) {
                return f;
            }
        }
        throw new IllegalStateException("no entry point in module " + module);
    }

    /**
     * JDK 22+: {@code ModuleLayer.Controller.enableNativeAccess(module)} (reflective: built for release 17), so
     * loading libsdp4j.so and jucx from the module is not a restricted-method warning. The method is restricted
     * itself: its caller (this class, on the class path) needs native access, so without
     * {@code --enable-native-access=ALL-UNNAMED} the JDK prints one warning for this call instead of one per
     * library; with a flag that does not name ALL-UNNAMED it refuses, and the libraries then warn as before.
     */
    private static void enableNativeAccess(ModuleLayer.Controller controller, Module module) {
        try {
            ModuleLayer.Controller.class.getMethod("enableNativeAccess", Module.class).invoke(controller, module);
        } catch (NoSuchMethodException e) {
            // JDK 17-21: no restricted methods, nothing to grant
        } catch (InvocationTargetException e) {
            System.err.println("sdp4j: WARNING could not grant native access to module " + module.getName() + ": "
                    + e.getCause());
        } catch (ReflectiveOperationException | RuntimeException e) {
            System.err.println("sdp4j: WARNING could not grant native access to module " + module.getName() + ": "
                    + e);
        }
    }
}
