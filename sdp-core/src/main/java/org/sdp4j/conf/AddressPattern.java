package org.sdp4j.conf;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;

/** {@code ADDRESS[/PREFIX]} or {@code *} of a libsdp rule. IPv4 patterns also match IPv4-mapped IPv6 addresses. */
public final class AddressPattern {
    public static final AddressPattern ANY = new AddressPattern(null, 0);

    private final byte[] network; // null for ANY
    private final int prefix;

    private AddressPattern(byte[] network, int prefix) {
        this.network = network;
        this.prefix = prefix;
    }

    /** @param prefix 0..32 for IPv4, 0..128 for IPv6 */
    public static AddressPattern of(InetAddress address, int prefix) {
        byte[] b = address.getAddress();
        if (prefix < 0 || prefix > b.length * 8) {
            throw new IllegalArgumentException("prefix " + prefix + " out of range for " + address.getHostAddress());
        }
        return new AddressPattern(b, prefix);
    }

    public boolean isAny() {
        return network == null;
    }

    public int prefix() {
        return prefix;
    }

    public boolean matches(InetAddress a) {
        if (network == null) {
            return true;
        }
        if (a == null) {
            return false;
        }
        byte[] b = a.getAddress();
        if (network.length == 4 && b.length == 16 && isV4Mapped(b)) {
            b = java.util.Arrays.copyOfRange(b, 12, 16);
        }
        if (b.length != network.length) {
            return false;
        }
        int full = prefix / 8, rest = prefix % 8;
        for (int i = 0; i < full; i++) {
            if (b[i] != network[i]) {
                return false;
            }
        }
        if (rest == 0) {
            return true;
        }
        int mask = (0xff << (8 - rest)) & 0xff;
        return (b[full] & mask) == (network[full] & mask);
    }

    private static boolean isV4Mapped(byte[] b) {
        for (int i = 0; i < 10; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff;
    }

    @Override
    public String toString() {
        if (network == null) {
            return "*";
        }
        try {
            String host = InetAddress.getByAddress(network).getHostAddress();
            return host + "/" + prefix;
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    static boolean isV4(InetAddress a) { return a instanceof Inet4Address; }
    static boolean isV6(InetAddress a) { return a instanceof Inet6Address; }
}
