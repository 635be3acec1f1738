package org.sdp4j.agent;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.sdp4j.log.SdpLog;

/**
 * Sockets the agent cannot see: libraries that create and connect sockets in JNI of their own never reach
 * java.net's SocketImpl factory or the NIO SelectorProvider, so no rule applies to them. Netty's native transports
 * are the common case (Lettuce, Vert.x SQL clients, R2DBC drivers, the Cassandra driver and gRPC pick them when
 * available). This watches class loading (names only, no bytecode is changed) and, when one of them loads, says so
 * once at warning level; {@code netty=nio} sets {@code io.netty.transport.noNative=true} before Netty reads it, so
 * Netty uses NIO and its sockets follow the rules. A relocated copy of Netty is watched too (gRPC's
 * {@code grpc-netty-shaded} carries one under {@code io.grpc.netty.shaded.}, and reads the relocated property name,
 * which {@code netty=nio} sets as well).
 */
final class NativeSockets implements ClassFileTransformer {
    /** The class each native transport loads first when it is used, and what to call it. */
    static final Map<String, String> WATCHED = Map.of(
            "io/netty/channel/epoll/Native", "Netty's native epoll transport",
            "io/netty/channel/uring/Native", "Netty's native io_uring transport",
            "io/netty/incubator/channel/uring/Native", "Netty's incubator io_uring transport",
            "io/netty/channel/kqueue/Native", "Netty's native kqueue transport");
    /** Relocated copies of Netty whose noNative property netty=nio sets too (the shade plugin renames it). */
    static final java.util.List<String> SHADED_PREFIXES = java.util.List.of("io.grpc.netty.shaded.");

    /** What loaded so far in this JVM (for stat and selftest). */
    static final Set<String> SEEN = ConcurrentHashMap.newKeySet();

    private NativeSockets() {}

    static void install(Instrumentation inst, boolean nettyNio) {
        if (nettyNio) {
            for (String prefix : prefixes()) {
                if (System.getProperty(prefix + "io.netty.transport.noNative") == null) {
                    System.setProperty(prefix + "io.netty.transport.noNative", "true");
                }
            }
        }
        inst.addTransformer(new NativeSockets(), false);
    }

    private static java.util.List<String> prefixes() {
        java.util.List<String> l = new java.util.ArrayList<>(SHADED_PREFIXES);
        l.add(0, "");
        return l;
    }

    /** The watched transport {@code className} is, relocated or not, and the relocation prefix; null when none. */
    static String[] watched(String className) {
        if (className == null || !className.endsWith("/Native")) {
            return null;
        }
        for (Map.Entry<String, String> e : WATCHED.entrySet()) {
            if (className.endsWith(e.getKey())) {
                String prefix = className.substring(0, className.length() - e.getKey().length()).replace('/', '.');
                return new String[] {e.getValue(), prefix};
            }
        }
        return null;
    }

    @Override
    public byte[] transform(Module module, ClassLoader loader, String className, Class<?> redefined,
                            ProtectionDomain domain, byte[] classfile) {
        String[] w = watched(className);
        if (w == null) {
            return null;
        }
        String prefix = w[1];
        String what = w[0] + (prefix.isEmpty() ? "" : " (relocated under " + prefix + ")");
        if (SEEN.add(what)) {
            String property = prefix + "io.netty.transport.noNative";
            boolean off = Boolean.getBoolean(property);
            org.sdp4j.ops.Counters.bypassed(what + (off ? " (off: " + property + "=true)"
                    : ": its sockets bypass the rules"));
            SdpLog.log(SdpLog.WARN, "sdp4j: WARNING " + what + " is loaded (" + className.replace('/', '.') + ")"
                    + (off ? ", but " + property + "=true keeps Netty on NIO: its sockets follow the rules"
                    : ": the sockets it creates are made in its own JNI, not through java.net or NIO, so no"
                    + " libsdp.conf rule applies to them (they stay on kernel TCP); the agent option netty=nio makes"
                    + " Netty use NIO, whose sockets follow the rules"));
        }
        return null; // observe only
    }
}
