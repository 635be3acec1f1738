package org.sdp4j.conf;

import static org.sdp4j.conf.ConfigParser.allDigits;
import static org.sdp4j.conf.ConfigParser.quote;

/**
 * The {@code ADDRESS[/PREFIX]:PORTS} word of a use statement.
 * <p>
 * libsdp's scanner reads the address with
 * {@code ::|[0-9a-f:\.]*[0-9a-f](\/[0-9]+)?/:[0-9*]} — a trailing context, so the address ends at the last colon that
 * is followed by a digit or {@code *}: {@code fe80::1:80} is fe80::1 port 80. It follows that an address is lower
 * case, has no brackets, ends in a hex digit ({@code fe80::/64} is a syntax error, {@code fe80::0/64} is not) and is
 * never without a port. Then {@code __sdp_set_ip_addr()} uses {@code inet_pton} and {@code atoi} for the prefix,
 * with {@code prefixlen ?: 32} (or 128) — so {@code /0} silently means an exact address. sdp4j mirrors the scanner
 * and refuses what the C code would misread: out-of-range prefixes and ports, bits after the prefix, backwards
 * ranges, {@code /0} on anything but 0.0.0.0.
 */
final class TargetParser {
    record Target(AddressPattern address, int portLow, int portHigh) {}

    private TargetParser() {}

    static Target parse(LineScanner in, String word) throws ConfigException {
        if (word.indexOf('[') >= 0 || word.indexOf(']') >= 0) {
            throw in.error(quote(word) + ": write IPv6 addresses without brackets; the port follows the last ':'"
                    + " (e.g. fe80::1:80 or fe80::0/64:*)");
        }
        int colon = word.lastIndexOf(':');
        if (colon < 0) {
            String hint = word.equals("*") ? " (libsdp needs the ports too: *:*)" : " (e.g. " + word + ":*)";
            throw in.error("expected ADDRESS:PORTS, found " + quote(word) + " without ':PORTS'" + hint);
        }
        String addr = word.substring(0, colon), ports = word.substring(colon + 1);
        if (ports.isEmpty()) {
            throw in.error("expected PORT, PORT-PORT or * after the last ':' of " + quote(word)
                    + ", found nothing (write ADDRESS:PORTS as one word, without blanks)");
        }
        AddressPattern a = address(in, addr, word);
        int[] p = ports(in, ports, word);
        return new Target(a, p[0], p[1]);
    }

    private static AddressPattern address(LineScanner in, String addr, String word) throws ConfigException {
        if (addr.equals("*")) {
            return AddressPattern.ANY;
        }
        if (addr.isEmpty()) {
            throw in.error("no address before ':' in " + quote(word) + " (write * for any address)");
        }
        String text = addr, prefixText = null;
        int slash = addr.indexOf('/');
        if (slash >= 0) {
            text = addr.substring(0, slash);
            prefixText = addr.substring(slash + 1);
        }
        boolean upper = false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c >= 'A' && c <= 'F') {
                upper = true;
            } else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || c == ':' || c == '.')) {
                throw in.error(quote(text) + " in " + quote(word) + " is not a numeric IPv4 or IPv6 address"
                        + " (libsdp takes no host names; write * for any address)");
            }
        }
        if (upper) {
            throw in.error("IPv6 address " + quote(text) + " must be written in lower case: libsdp's scanner reads"
                    + " only 0-9 and a-f");
        }
        if (text.isEmpty()) {
            throw in.error("no address before '/' in " + quote(word));
        }
        if (text.endsWith(":") && !(text.equals("::") && prefixText == null)) {
            if (prefixText == null && IpLiteral.parseIpv6(word) != null) {
                throw in.error(quote(word) + " looks like an IPv6 address without a port (write " + word + ":*)");
            }
            throw in.error(quote(addr) + ": libsdp's scanner needs an address that ends in a hex digit; write "
                    + ("0".equals(prefixText) ? "* to match every address"
                    : text + "0" + (prefixText == null ? "" : "/" + prefixText)));
        }
        boolean v6 = text.indexOf(':') >= 0;
        byte[] bytes = v6 ? IpLiteral.parseIpv6(text) : IpLiteral.parseIpv4(text);
        if (bytes == null) {
            if (prefixText == null && IpLiteral.parseIpv6(word) != null) {
                throw in.error(quote(word) + " looks like an IPv6 address without a port (write " + word + ":*)");
            }
            throw in.error(quote(text) + " is not an " + (v6 ? "IPv6" : "IPv4") + " address"
                    + (v6 ? "" : " (four numbers 0-255 without leading zeros, e.g. 10.0.0.1)"));
        }
        int max = bytes.length * 8;
        int prefix = max;
        if (prefixText != null) {
            if (!allDigits(prefixText)) {
                throw in.error("prefix " + quote("/" + prefixText) + " of " + quote(addr) + " is not a number");
            }
            if (prefixText.length() > 1 && prefixText.charAt(0) == '0') {
                throw in.error("prefix " + quote("/" + prefixText) + " of " + quote(addr) + " has a leading zero");
            }
            if (prefixText.length() > 3 || Integer.parseInt(prefixText) > max) {
                throw in.error("prefix /" + prefixText + " is out of range for an " + (v6 ? "IPv6" : "IPv4")
                        + " address (0-" + max + ")");
            }
            prefix = Integer.parseInt(prefixText);
        }
        if (prefix == 0 && v6) {
            throw in.error(quote(addr) + ": libsdp reads a /0 prefix as /128 (one exact address), which is surely"
                    + " not meant; write * to match every address");
        }
        if (prefix == 0 && AddressPattern.hasHostBits(bytes, 0)) {
            throw in.error(quote(addr) + ": libsdp reads a /0 prefix as /32 (only " + text + "), which is surely not"
                    + " meant; write 0.0.0.0/0 or * to match every address");
        }
        if (AddressPattern.hasHostBits(bytes, prefix)) {
            throw in.error(quote(addr) + " has address bits set after the first " + prefix + " (libsdp would "
                    + (v6 ? "ignore them" : "never match it") + "); write " + writable(mask(bytes, prefix)) + "/"
                    + prefix);
        }
        return AddressPattern.of(bytes, prefix);
    }

    /** An address as libsdp's scanner accepts it back: "fe80::" must be written "fe80::0". */
    private static String writable(byte[] b) {
        String s = IpLiteral.format(b);
        return s.endsWith(":") ? s + "0" : s;
    }

    private static byte[] mask(byte[] b, int prefix) {
        byte[] m = b.clone();
        for (int bit = prefix; bit < m.length * 8; bit++) {
            m[bit / 8] &= (byte) ~(0x80 >>> (bit % 8));
        }
        return m;
    }

    private static int[] ports(LineScanner in, String ports, String word) throws ConfigException {
        if (ports.equals("*")) {
            return new int[] {0, 65535};
        }
        int dash = ports.indexOf('-');
        String lo = dash < 0 ? ports : ports.substring(0, dash);
        String hi = dash < 0 ? ports : ports.substring(dash + 1);
        if (!allDigits(lo) || !allDigits(hi)) {
            throw in.error("ports " + quote(ports) + " of " + quote(word) + ": expected PORT, PORT-PORT or *");
        }
        int l = port(in, lo), h = port(in, hi);
        if (l > h) {
            throw in.error("port range " + ports + " is backwards: the first port must not be above the last");
        }
        return new int[] {l, h};
    }

    private static int port(LineScanner in, String digits) throws ConfigException {
        if (digits.length() > 1 && digits.charAt(0) == '0') {
            throw in.error("port " + quote(digits) + " has a leading zero (libsdp reads it as two numbers)");
        }
        int v = digits.length() > 5 ? Integer.MAX_VALUE : Integer.parseInt(digits);
        if (v < 1 || v > 65535) {
            throw in.error("port " + (digits.length() > 12 ? quote(digits) : digits) + " is out of range (1-65535;"
                    + " libsdp.conf: port numbers are >0 and <65536; * is every port)");
        }
        return v;
    }
}
