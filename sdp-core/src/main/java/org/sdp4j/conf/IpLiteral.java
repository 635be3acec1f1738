package org.sdp4j.conf;

/**
 * Numeric IPv4 / IPv6 addresses as glibc's {@code inet_pton} reads them (libsdp's {@code __sdp_set_ip_addr} hands the
 * address text to {@code inet_pton(AF_INET)}, then {@code inet_pton(AF_INET6)}). Never resolves names: the parser
 * must not touch the network, and {@code InetAddress.getByName} would for anything that is not a literal.
 */
final class IpLiteral {
    private IpLiteral() {}

    /** Four bytes, or null unless {@code s} is a dotted quad of 0-255 without leading zeros (inet_pton4 rejects them). */
    static byte[] parseIpv4(String s) {
        byte[] out = new byte[4];
        int i = 0, n = s.length();
        for (int part = 0; part < 4; part++) {
            int start = i, v = 0;
            while (i < n && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
                v = v * 10 + (s.charAt(i) - '0');
                if (v > 255) {
                    return null;
                }
                i++;
            }
            int len = i - start;
            if (len == 0 || (len > 1 && s.charAt(start) == '0')) {
                return null;
            }
            out[part] = (byte) v;
            if (part < 3) {
                if (i >= n || s.charAt(i) != '.') {
                    return null;
                }
                i++;
            }
        }
        return i == n ? out : null;
    }

    /**
     * Sixteen bytes, or null. Groups of 1-4 lower-case hex digits, at most one {@code ::} standing for at least one
     * zero group, an optional dotted quad in the last 32 bits.
     */
    static byte[] parseIpv6(String s) {
        int n = s.length();
        if (n < 2) {
            return null;
        }
        byte[] out = new byte[16];
        int o = 0, colonAt = -1, i = 0;
        if (s.charAt(0) == ':') {
            if (s.charAt(1) != ':') {
                return null;
            }
            i = 1;
        }
        int tokenStart = i, val = 0, digits = 0;
        boolean sawHex = false;
        while (i < n) {
            char c = s.charAt(i++);
            int d = hex(c);
            if (d >= 0) {
                if (++digits > 4) {
                    return null;
                }
                val = (val << 4) | d;
                sawHex = true;
                continue;
            }
            if (c == ':') {
                tokenStart = i;
                if (!sawHex) {
                    if (colonAt >= 0) {
                        return null;
                    }
                    colonAt = o;
                    continue;
                }
                if (i == n || o + 2 > 16) {
                    return null;
                }
                out[o++] = (byte) (val >> 8);
                out[o++] = (byte) val;
                sawHex = false;
                val = 0;
                digits = 0;
                continue;
            }
            if (c == '.' && o + 4 <= 16) {
                byte[] v4 = parseIpv4(s.substring(tokenStart));
                if (v4 == null) {
                    return null;
                }
                System.arraycopy(v4, 0, out, o, 4);
                o += 4;
                sawHex = false;
                break;
            }
            return null;
        }
        if (sawHex) {
            if (o + 2 > 16) {
                return null;
            }
            out[o++] = (byte) (val >> 8);
            out[o++] = (byte) val;
        }
        if (colonAt >= 0) {
            if (o == 16) {
                return null;
            }
            int tail = o - colonAt;
            System.arraycopy(out, colonAt, out, 16 - tail, tail);
            java.util.Arrays.fill(out, colonAt, 16 - tail, (byte) 0);
            o = 16;
        }
        return o == 16 ? out : null;
    }

    private static int hex(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        return -1;
    }

    /** Dotted quad, or RFC 5952 text (longest run of two or more zero groups compressed, lower case). */
    static String format(byte[] a) {
        if (a.length == 4) {
            return (a[0] & 0xff) + "." + (a[1] & 0xff) + "." + (a[2] & 0xff) + "." + (a[3] & 0xff);
        }
        int[] g = new int[8];
        for (int i = 0; i < 8; i++) {
            g[i] = ((a[2 * i] & 0xff) << 8) | (a[2 * i + 1] & 0xff);
        }
        int bestStart = -1, bestLen = 1;
        for (int i = 0; i < 8; ) {
            if (g[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && g[j] == 0) {
                j++;
            }
            if (j - i > bestLen) {
                bestStart = i;
                bestLen = j - i;
            }
            i = j;
        }
        StringBuilder b = new StringBuilder(39);
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                b.append("::");
                i += bestLen - 1;
                continue;
            }
            if (b.length() > 0 && b.charAt(b.length() - 1) != ':') {
                b.append(':');
            }
            b.append(Integer.toHexString(g[i]));
        }
        return b.toString();
    }
}
