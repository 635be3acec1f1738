package org.sdp4j.conf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.net.InetAddress;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** inet_pton-strict literals, checked against the JDK's own reading of the same text. */
class IpLiteralTest {

    @ParameterizedTest
    @ValueSource(strings = {"0.0.0.0", "255.255.255.255", "10.0.0.1", "192.168.100.200"})
    void validIpv4(String s) throws Exception {
        assertArrayEquals(InetAddress.getByName(s).getAddress(), IpLiteral.parseIpv4(s));
        assertEquals(s, IpLiteral.format(IpLiteral.parseIpv4(s)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "1", "1.2.3", "1.2.3.4.", ".1.2.3.4", "1..2.3", "256.0.0.0", "01.2.3.4", "1.2.3.4x",
            "1.2.3.-4", "1.2.3.4 ", "99999999999.1.1.1", "0x1.2.3.4"})
    void invalidIpv4(String s) {
        assertNull(IpLiteral.parseIpv4(s));
    }

    @ParameterizedTest
    @CsvSource({
            "::,                        ::",
            "::1,                       ::1",
            "1::,                       1::",
            "fe80::1,                   fe80::1",
            "2001:db8:0:0:1:0:0:1,      2001:db8::1:0:0:1",
            "2001:0db8:0000:0000:0000:0000:0000:0001, 2001:db8::1",
            "1:2:3:4:5:6:7:8,           1:2:3:4:5:6:7:8",
            "1:0:3:4:5:6:7:8,           1:0:3:4:5:6:7:8",
            "::ffff:10.0.0.1,           ::ffff:a00:1",
            "1:2:3:4:5:6:1.2.3.4,       1:2:3:4:5:6:102:304",
            "::1.2.3.4,                 ::102:304"})
    void validIpv6(String s, String formatted) throws Exception {
        byte[] b = IpLiteral.parseIpv6(s);
        assertNotNull(b, s);
        byte[] jdk = InetAddress.getByName(s).getAddress(); // a literal: no lookup
        if (jdk.length == 16) { // the JDK turns ::ffff:a.b.c.d into IPv4
            assertArrayEquals(jdk, b);
        }
        assertEquals(formatted, IpLiteral.format(b));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ":", ":::", "1:::2", "1::2::3", ":1::", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7::8",
            "12345::", "g::1", "FE80::1", "1:2:3:4:5:6:7", "::1.2.3", "::1.2.3.4:5", "1:2:3:4:5:6:7:1.2.3.4",
            "1:", "[::1]", "::1%eth0"})
    void invalidIpv6(String s) {
        assertNull(IpLiteral.parseIpv6(s));
    }
}
