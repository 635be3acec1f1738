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
 * Netty uses NIO and its sockets follow the rules.
 */
final class NativeSockets implements ClassFileTransformer {
    /** The class each native transport loads first when it is used, and what to call it. */
    static final Map<String, String> WATCHED = Map.of(
            "io/netty/channel/epoll/Native", "Netty's native epoll transport",
            "io/netty/channel/uring/Native", "Netty's native io_uring transport",
            "io/netty/incubator/channel/uring/Native", "Netty's incubator io_uring transport",
            "io/netty/channel/kqueue/Native", "Netty's native kqueue transport");
    /** What loaded so far in this JVM (for stat and selftest). */
    static final Set<String> SEEN = ConcurrentHashMap.newKeySet();

    private NativeSockets() {}

    static void install(Instrumentation inst, boolean nettyNio) {
        if (nettyNio && System.getProperty("io.netty.transport.noNative") == null) {
            System.setProperty("io.netty.transport.noNative", "true");
        }
        inst.addTransformer(new NativeSockets(), false);
    }

    @Override
    public byte[] transform(Module module, ClassLoader loader, String className, Class<?> redefined,
                            ProtectionDomain domain, byte[] classfile) {
        String what = className == null ? null : WATCHED.get(className);
        if (what != null && SEEN.add(what)) {
            org.sdp4j.ops.Counters.bypassed(what + (Boolean.getBoolean("io.netty.transport.noNative")
                    ? " (off: io.netty.transport.noNative=true)" : ": its sockets bypass the rules"));
            boolean off = Boolean.getBoolean("io.netty.transport.noNative");
            SdpLog.log(SdpLog.WARN, "sdp4j: WARNING " + what + " is loaded (" + className.replace('/', '.') + ")"
                    + (off ? ", but io.netty.transport.noNative=true keeps Netty on NIO: its sockets follow the rules"
                    : ": the sockets it creates are made in its own JNI, not through java.net or NIO, so no"
                    + " libsdp.conf rule applies to them (they stay on kernel TCP); the agent option netty=nio makes"
                    + " Netty use NIO, whose sockets follow the rules"));
        }
        return null; // observe only
    }
}
