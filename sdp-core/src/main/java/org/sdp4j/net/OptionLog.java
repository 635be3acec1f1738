package org.sdp4j.net;

import java.io.IOException;
import java.net.SocketImpl;
import java.net.SocketOption;
import java.util.LinkedHashMap;
import java.util.Map;

import org.sdp4j.jdk.JdkNet;
import org.sdp4j.log.SdpLog;

/**
 * The socket options an application set before its socket was decided, in order, so they can be applied again
 * to the transport that finally carries the connection. Keyed by option: a later set of the same option replaces
 * the earlier one, as it would on the socket.
 */
final class OptionLog {
    private final Map<Object, Object> options = new LinkedHashMap<>();

    synchronized void recordInt(int id, Object value) {
        options.put(id, value);
    }

    synchronized void record(SocketOption<?> name, Object value) {
        options.put(name, value);
    }

    synchronized Object recorded(SocketOption<?> name) {
        return options.get(name);
    }

    /** Applies every recorded option to {@code target}; one it rejects is logged, never fatal to the connect. */
    @SuppressWarnings("unchecked")
    void replay(SocketImpl target, String transport) {
        Map<Object, Object> copy;
        synchronized (this) {
            copy = new LinkedHashMap<>(options);
        }
        for (Map.Entry<Object, Object> e : copy.entrySet()) {
            try {
                if (e.getKey() instanceof Integer id) {
                    JdkNet.setOption(target, id, e.getValue());
                } else {
                    JdkNet.setOption(target, (SocketOption<Object>) e.getKey(), e.getValue());
                }
            } catch (IOException | RuntimeException x) {
                SdpLog.log(SdpLog.WARN, "socket option " + e.getKey() + "=" + e.getValue()
                        + " not applied on " + transport + ": " + x.getMessage());
            }
        }
    }
}
