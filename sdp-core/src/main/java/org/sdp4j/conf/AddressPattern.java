package org.sdp4j.conf;

import java.net.InetAddress;
import java.util.Arrays;

/**
 * {@code ADDRESS[/PREFIX]} or {@code *} of a libsdp rule.
 * <p>
 * Two rules come from libsdp's {@code match_addr()} (match.c) and one from Java:
 * <ul>
 * <li>an IPv4 rule address of {@code 0.0.0.0} matches every address, whatever its prefix and family — libsdp tests
 * {@code !rule_sin->sin_addr.s_addr} before it compares families;</li>
 * <li>otherwise the first {@code prefix} bits must be equal;</li>
 * <li>IPv4 and IPv4-mapped IPv6 ({@code ::ffff:a.b.c.d}) are the same address: a Java program cannot tell which one
 * its socket used (the JDK maps them back and forth), so an IPv4 rule matches the mapped form and an IPv6 rule is
 * compared against the mapped form of an IPv4 address. Older libsdp did the same through
 * {@code __sdp_sockaddr_to_sdp}.</li>
 * </ul>
 */
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
        return of(address.getAddress(), prefix);
    }

    /** @param network 4 or 16 bytes; copied */
    static AddressPattern of(byte[] network, int prefix) {
        if (network.length != 4 && network.length != 16) {
            throw new IllegalArgumentException("address of " + network.length + " bytes");
        }
        if (prefix < 0 || prefix > network.length * 8) {
            throw new IllegalArgumentException("prefix " + prefix + " out of range for " + IpLiteral.format(network));
        }
        return new AddressPattern(network.clone(), prefix);
    }

    public boolean isAny() {
        return network == null;
    }

    public int prefix() {
        return prefix;
    }

    /** True for an IPv6 rule address. */
    public boolean isIpv6() {
        return network != null && network.length == 16;
    }

    /** libsdp's zero-address rule: {@code 0.0.0.0} with any prefix matches everything. */
    public boolean matchesEverything() {
        return network == null || (network.length == 4 && allZero(network, 0, 4));
    }

    public boolean matches(InetAddress a) {
        if (matchesEverything()) {
            return true;
        }
        if (a == null) {
            return false;
        }
        byte[] b = a.getAddress();
        if (network.length == 4 && b.length == 16) {
            if (!isV4Mapped(b)) {
                return false;
            }
            b = Arrays.copyOfRange(b, 12, 16);
        } else if (network.length == 16 && b.length == 4) {
            byte[] mapped = new byte[16];
            mapped[10] = (byte) 0xff;
            mapped[11] = (byte) 0xff;
            System.arraycopy(b, 0, mapped, 12, 4);
            b = mapped;
        }
        return samePrefix(network, b, prefix);
    }

    /** True when some bit after the first {@code prefix} bits is set, e.g. 10.1.2.3/16. */
    static boolean hasHostBits(byte[] address, int prefix) {
        int full = prefix / 8, rest = prefix % 8;
        if (rest != 0 && (address[full] & (0xff >>> rest)) != 0) {
            return true;
        }
        return !allZero(address, rest == 0 ? full : full + 1, address.length);
    }

    private static boolean samePrefix(byte[] a, byte[] b, int prefix) {
        int full = prefix / 8, rest = prefix % 8;
        for (int i = 0; i < full; i++) {
            if (a[i] != b[i]) {
                return false;
            }
        }
        if (rest == 0) {
            return true;
        }
        int mask = (0xff << (8 - rest)) & 0xff;
        return (a[full] & mask) == (b[full] & mask);
    }

    private static boolean allZero(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return true;
    }

    private static boolean isV4Mapped(byte[] b) {
        return allZero(b, 0, 10) && (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AddressPattern p && p.prefix == prefix && Arrays.equals(p.network, network);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(network) * 31 + prefix;
    }

    /** {@code *}, or {@code address/prefix} with the prefix always written out. */
    @Override
    public String toString() {
        return network == null ? "*" : IpLiteral.format(network) + "/" + prefix;
    }
}
