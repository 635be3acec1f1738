package org.sdp4j.rsocket;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/** Addresses as librdmacm gives them (Native.sockname: 6 bytes for IPv4, 22 for IPv6 with its scope). */
final class RsocketAddresses {
    private RsocketAddresses() {}

    /** The local address of an rsocket. */
    static InetSocketAddress local(int fd) throws IOException {
        return decode(Native.sockname(fd, false));
    }

    /** The peer's address of a connected rsocket. */
    static InetSocketAddress peer(int fd) throws IOException {
        return decode(Native.sockname(fd, true));
    }

    static int scope(InetAddress a) {
        return a instanceof Inet6Address ? ((Inet6Address) a).getScopeId() : 0;
    }


    static InetSocketAddress decode(byte[] b) throws UnknownHostException {
        if (b.length == 6) {
            return new InetSocketAddress(InetAddress.getByAddress(new byte[] {b[0], b[1], b[2], b[3]}),
                    (b[4] & 0xFF) << 8 | (b[5] & 0xFF));
        }
        byte[] a = new byte[16];
        System.arraycopy(b, 0, a, 0, 16);
        int p = (b[16] & 0xFF) << 8 | (b[17] & 0xFF);
        int scope = (b[18] & 0xFF) << 24 | (b[19] & 0xFF) << 16 | (b[20] & 0xFF) << 8 | (b[21] & 0xFF);
        InetAddress ia = scope != 0 ? Inet6Address.getByAddress(null, a, scope) : InetAddress.getByAddress(a);
        return new InetSocketAddress(ia, p);
    }

    static String hostPort(InetAddress a, int port) {
        String h = a.getHostAddress();
        return (a instanceof Inet6Address ? "[" + h + "]" : h) + ":" + port;
    }

    /**
     * A connect's destination as rconnect takes it: the wildcard means this host (as the JDK's connect does), the
     * address's bytes and IPv6 scope, the port.
     */
    record Destination(InetAddress address, byte[] bytes, int scope, int port) {
        static Destination of(InetSocketAddress isa) throws UnknownHostException {
            InetAddress ia = isa.getAddress();
            if (ia.isAnyLocalAddress()) {
                ia = InetAddress.getLocalHost();
            }
            return new Destination(ia, ia.getAddress(), RsocketAddresses.scope(ia), isa.getPort());
        }

        InetSocketAddress socketAddress() {
            return new InetSocketAddress(address, port);
        }

        @Override
        public String toString() {
            return hostPort(address, port);
        }
    }
}
