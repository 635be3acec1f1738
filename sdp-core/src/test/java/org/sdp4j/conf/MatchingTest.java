package org.sdp4j.conf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.sdp4j.conf.Conf.ip;
import static org.sdp4j.conf.Conf.mapped;
import static org.sdp4j.conf.Conf.parse;

import java.net.InetAddress;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** RuleSet.match: first match wins per role, prefixes, ports, programs, and libsdp's defaults. */
class MatchingTest {
    private static final ProgramIdentity JAVA = ProgramIdentity.of("java");

    private static boolean matches(String target, String address, int port) throws ConfigException {
        RuleSet set = parse("use tcp client * " + target);
        return !set.match(Role.CLIENT, JAVA, ip(address), port).isDefault();
    }

    @ParameterizedTest
    @CsvSource({
            // IPv4 prefixes, /32 exact, /0 via 0.0.0.0
            "10.1.0.0/16:*,   10.1.255.3,   1,     true",
            "10.1.0.0/16:*,   10.2.0.1,     1,     false",
            "10.0.0.1:*,      10.0.0.1,     1,     true",
            "10.0.0.1/32:*,   10.0.0.2,     1,     false",
            "128.0.0.0/1:*,   200.1.1.1,    1,     true",
            "128.0.0.0/1:*,   127.255.255.255, 1,  false",
            "10.1.2.0/23:*,   10.1.3.255,   1,     true",
            "10.1.2.0/23:*,   10.1.4.0,     1,     false",
            "0.0.0.0/0:*,     192.168.7.7,  1,     true",
            // libsdp's zero-address rule: 0.0.0.0 matches every address, even with /32, even IPv6
            "0.0.0.0:*,       192.168.7.7,  1,     true",
            "0.0.0.0/8:*,     fe80::1,      1,     true",
            // IPv6
            "fe80::0/10:*,    fe80::1234,   1,     true",
            "fe80::0/10:*,    febf::1,      1,     true",
            "fe80::0/10:*,    fec0::1,      1,     false",
            "2001:db8::0/32:*, 2001:db8:ffff::1, 1, true",
            "2001:db8::0/32:*, 2001:db9::1, 1,     false",
            "::1:*,           ::1,          1,     true",
            "::1/128:*,       ::2,          1,     false",
            "1:2:3:4:5:6:7:8/127:*, 1:2:3:4:5:6:7:9, 1, true",
            "1:2:3:4:5:6:7:8/127:*, 1:2:3:4:5:6:7:a, 1, false",
            // families do not cross, except through IPv4-mapped addresses
            "10.0.0.0/8:*,    fe80::1,      1,     false",
            "fe80::0/10:*,    10.0.0.1,     1,     false",
            "::ffff:10.0.0.0/104:*, 10.9.9.9, 1,   true",
            "::ffff:10.0.0.0/104:*, 11.9.9.9, 1,   false",
            // ports and ranges, bounds included
            "*:5000-5010,     1.1.1.1,      5000,  true",
            "*:5000-5010,     1.1.1.1,      5010,  true",
            "*:5000-5010,     1.1.1.1,      4999,  false",
            "*:5000-5010,     1.1.1.1,      5011,  false",
            "*:1,             1.1.1.1,      1,     true",
            "*:65535,         1.1.1.1,      65535, true",
            "*:65535,         1.1.1.1,      65534, false",
            "*:*,             1.1.1.1,      0,     true",
            "*:*,             ::,           65535, true",
            "10.0.0.0/8:80,   10.0.0.1,     81,    false"})
    void addressAndPortMatching(String target, String address, int port, boolean expected) throws ConfigException {
        assertEquals(expected, matches(target, address, port));
    }

    @Test
    void ipv4MappedIpv6AddressesMatchIpv4Rules() throws ConfigException {
        RuleSet set = parse("use sdp client * 10.1.0.0/16:50000");
        InetAddress m = mapped("10.1.2.3");
        assertEquals(16, m.getAddress().length);
        assertEquals(Family.SDP, set.match(Role.CLIENT, JAVA, m, 50000).family());
        assertTrue(set.match(Role.CLIENT, JAVA, mapped("10.2.0.1"), 50000).isDefault());
    }

    @Test
    void firstMatchWins() throws ConfigException {
        RuleSet set = parse(
                "use tcp client * 10.1.0.9:389",
                "use sdp client * 10.1.0.0/16:*",
                "use both client * *:*");
        Match ldap = set.match(Role.CLIENT, JAVA, ip("10.1.0.9"), 389);
        assertEquals(Family.TCP, ldap.family());
        assertEquals("line 1", ldap.origin());
        Match db = set.match(Role.CLIENT, JAVA, ip("10.1.0.9"), 50000);
        assertEquals(Family.SDP, db.family());
        assertEquals(2, db.rule().line());
        assertEquals(Family.BOTH, set.match(Role.CLIENT, JAVA, ip("8.8.8.8"), 53).family());
        assertEquals(3, set.match(Role.CLIENT, JAVA, ip("8.8.8.8"), 53).rule().line());
    }

    @Test
    void rolesAreSeparateListsIncludingSynonyms() throws ConfigException {
        RuleSet set = parse(
                "use tcp listen * *:80",
                "use sdp connect * *:80",
                "use both server * *:*",
                "use tcp client * *:*");
        assertEquals(Family.TCP, set.match(Role.SERVER, JAVA, ip("0.0.0.0"), 80).family());
        assertEquals(Family.SDP, set.match(Role.CLIENT, JAVA, ip("10.0.0.1"), 80).family());
        assertEquals(Family.BOTH, set.match(Role.SERVER, JAVA, ip("0.0.0.0"), 81).family());
        assertEquals(Family.TCP, set.match(Role.CLIENT, JAVA, ip("10.0.0.1"), 81).family());
    }

    @Test
    void programGlobsDecideWhichRulesApply() throws ConfigException {
        RuleSet set = parse(
                "use tcp client db2* *:*",
                "use sdp client org.example.* *:*",
                "use both client * *:*");
        ProgramIdentity app = new ProgramIdentity(List.of("org.example.Main", "Main", "app.jar", "app", "java"));
        assertEquals(Family.SDP, set.match(Role.CLIENT, app, ip("1.2.3.4"), 1).family());
        ProgramIdentity db2 = new ProgramIdentity(List.of("db2bp", "java"));
        assertEquals(Family.TCP, set.match(Role.CLIENT, db2, ip("1.2.3.4"), 1).family());
        assertEquals(Family.BOTH, set.match(Role.CLIENT, JAVA, ip("1.2.3.4"), 1).family());
    }

    @Test
    void noUseRulesAtAllMeansSdpForEveryConnectAndListen() throws ConfigException {
        // match.c: "if we do not have any rules we use sdp" (__sdp_config_empty)
        for (RuleSet set : List.of(parse("# only comments"), parse("log min-level 7 destination stderr"),
                new RuleSet("none", List.of(), null))) {
            for (Role role : Role.values()) {
                Match m = set.match(role, JAVA, ip("10.0.0.1"), 80);
                assertTrue(m.isDefault());
                assertNull(m.rule());
                assertEquals(Family.SDP, m.family());
                assertEquals("default", m.origin());
                assertEquals(Family.SDP, set.defaultFamily(role));
            }
        }
    }

    @Test
    void rulesThatDoNotMatchFallBackToBoth() throws ConfigException {
        // get_family_by_first_matching_rule returns USE_BOTH, also when the role has no rules at all
        RuleSet set = parse("use tcp client * 10.0.0.1:80");
        assertEquals(Family.BOTH, set.match(Role.CLIENT, JAVA, ip("10.0.0.2"), 80).family());
        assertEquals(Family.BOTH, set.match(Role.SERVER, JAVA, ip("10.0.0.1"), 80).family());
        assertTrue(set.match(Role.SERVER, JAVA, ip("10.0.0.1"), 80).isDefault());
        assertEquals(Family.BOTH, set.defaultFamily(Role.SERVER));
    }

    @Test
    void aRuleForAnotherProgramIsNotARuleForThisOne() throws ConfigException {
        RuleSet set = parse("use tcp client other *:*");
        Match m = set.match(Role.CLIENT, JAVA, ip("1.1.1.1"), 1);
        assertTrue(m.isDefault());
        assertEquals(Family.BOTH, m.family());
    }

    @Test
    void addressPatternBasics() {
        assertTrue(AddressPattern.ANY.isAny());
        assertTrue(AddressPattern.ANY.matches(null));
        AddressPattern p = AddressPattern.of(ip("10.0.0.0"), 8);
        assertFalse(p.matches(null));
        assertFalse(p.isIpv6());
        assertEquals("10.0.0.0/8", p.toString());
        assertEquals(p, AddressPattern.of(ip("10.0.0.0"), 8));
        assertEquals(p.hashCode(), AddressPattern.of(ip("10.0.0.0"), 8).hashCode());
        assertTrue(AddressPattern.of(ip("0.0.0.0"), 32).matchesEverything());
        assertFalse(AddressPattern.of(ip("::"), 0).matchesEverything()); // code can build it; the parser refuses ::0/0
        assertTrue(AddressPattern.of(ip("::"), 0).matches(ip("fe80::1")));
    }

    @Test
    void matchReportsTheRuleItUsed() throws ConfigException {
        RuleSet set = parse("", "use sdp client * *:*");
        Match m = set.match(Role.CLIENT, JAVA, ip("1.1.1.1"), 1);
        assertSame(set.rules().get(0), m.rule());
        assertEquals("line 2", m.origin());
        assertEquals("line 2: use sdp client * *:*", m.rule().toString());
    }
}
