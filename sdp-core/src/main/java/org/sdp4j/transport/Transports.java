package org.sdp4j.transport;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

import org.sdp4j.conf.Family;
import org.sdp4j.log.SdpLog;

/**
 * The transports this JVM has: TCP (always) and whatever {@link ServiceLoader} finds for {@link Transport}
 * (sdp-jni's rsocket transport when it is on the class path). Loaded once; a transport that fails to load is
 * reported and left out, never fatal: TCP rules must work whatever happens to the native side.
 */
public final class Transports {
    private Transports() {}

    private static final class Holder {
        static final List<Transport> ALL = load();
    }

    private static List<Transport> load() {
        List<Transport> list = new ArrayList<>();
        list.add(TcpTransport.INSTANCE);
        try {
            ServiceLoader<Transport> loader = ServiceLoader.load(Transport.class, Transport.class.getClassLoader());
            for (var it = loader.iterator(); ; ) {
                try {
                    if (!it.hasNext()) {
                        break;
                    }
                    list.add(it.next());
                } catch (ServiceConfigurationError | LinkageError e) {
                    SdpLog.log(SdpLog.ERROR, "a transport could not be loaded and is left out: " + e);
                }
            }
        } catch (ServiceConfigurationError e) {
            SdpLog.log(SdpLog.ERROR, "transports could not be listed: " + e);
        }
        return List.copyOf(list);
    }

    /**
     * The first check of the RDMA device under a connection from {@code local} that a transport offers
     * ({@link Transport#rdmaDeviceCheck}), or null: for a transport that rides a device without watching it.
     */
    public static java.util.function.Supplier<String> rdmaDeviceCheck(java.net.InetAddress local) {
        for (Transport t : Holder.ALL) {
            try {
                java.util.function.Supplier<String> c = t.rdmaDeviceCheck(local);
                if (c != null) {
                    return c;
                }
            } catch (RuntimeException | LinkageError e) {
                // a transport that cannot tell says nothing: the connection is merely not watched
            }
        }
        return null;
    }

    /** TCP first, then the accelerated transports in class-path order. */
    public static List<Transport> all() {
        return Holder.ALL;
    }

    /**
     * The transport for a rule family: the first available one of that family, else the first of that family
     * (whose {@link Transport#unavailabilityCause()} says why), else {@code null} when none is installed.
     */
    public static Transport forFamily(Family family) {
        Transport first = null;
        for (Transport t : Holder.ALL) {
            if (t.family() == family) {
                if (t.isAvailable()) {
                    return t;
                }
                if (first == null) {
                    first = t;
                }
            }
        }
        return first;
    }
}
