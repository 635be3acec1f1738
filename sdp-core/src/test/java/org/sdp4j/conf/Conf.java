package org.sdp4j.conf;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** Test helpers: a config from lines, and numeric addresses without any lookup. */
final class Conf {
    static final String SOURCE = "/etc/test-libsdp.conf";

    private Conf() {}

    static RuleSet parse(String... lines) throws ConfigException {
        return ConfigParser.parse(SOURCE, String.join("\n", lines) + "\n");
    }

    static InetAddress ip(String literal) {
        byte[] b = literal.indexOf(':') >= 0 ? IpLiteral.parseIpv6(literal) : IpLiteral.parseIpv4(literal);
        if (b == null) {
            throw new IllegalArgumentException(literal);
        }
        try {
            return InetAddress.getByAddress(b);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    /** An IPv4-mapped address kept as an Inet6Address (InetAddress.getByAddress would turn it into IPv4). */
    static InetAddress mapped(String v4) {
        byte[] b = new byte[16];
        b[10] = (byte) 0xff;
        b[11] = (byte) 0xff;
        System.arraycopy(IpLiteral.parseIpv4(v4), 0, b, 12, 4);
        try {
            return java.net.Inet6Address.getByAddress(null, b, -1);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }
}
