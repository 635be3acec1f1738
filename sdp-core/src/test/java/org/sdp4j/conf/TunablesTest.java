package org.sdp4j.conf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.junit.jupiter.api.Test;

/** Per-rule tunables ({@code #sdp4j:} directives) and the global ones (system properties). */
class TunablesTest {

    private static String err(String... lines) {
        return assertThrows(ConfigException.class, () -> Conf.parse(lines)).getMessage();
    }

    @Test
    void directiveAppliesToTheNextRuleOnly() throws Exception {
        RuleSet rs = Conf.parse(
                "log min-level 7 destination stderr",
                "#sdp4j: rsocket sqsize=1024 rqsize=512 inline=256",
                "# an ordinary comment in between",
                "",
                "use sdp client * 10.1.0.0/16:50000",
                "  #sdp4j: sndbuf=1m rcvbuf=256k busypoll=50   # after the values: a comment",
                "use both server * *:*",
                "use both client * *:*");
        List<Rule> r = rs.rules();
        assertEquals(3, r.size());
        assertEquals(Map.of(Tunables.Key.SQSIZE, 1024, Tunables.Key.RQSIZE, 512, Tunables.Key.INLINE, 256),
                r.get(0).tunables().values());
        assertEquals(5, r.get(0).line());
        assertEquals(Map.of(Tunables.Key.SNDBUF, 1 << 20, Tunables.Key.RCVBUF, 256 << 10, Tunables.Key.BUSYPOLL, 50),
                r.get(1).tunables().values());
        assertTrue(r.get(2).tunables().isEmpty());
        assertEquals("sqsize=1024 rqsize=512 inline=256", r.get(0).tunables().toString());
    }

    @Test
    void twoDirectivesForOneRuleMerge() throws Exception {
        RuleSet rs = Conf.parse("#sdp4j: sqsize=64", "#sdp4j: rqsize=32", "use sdp client * *:*");
        assertEquals(Map.of(Tunables.Key.SQSIZE, 64, Tunables.Key.RQSIZE, 32), rs.rules().get(0).tunables().values());
        assertTrue(err("#sdp4j: sqsize=64", "#sdp4j: sqsize=32", "use sdp client * *:*")
                .startsWith(Conf.SOURCE + ":2: #sdp4j: sqsize is already set for the next rule (line 1)"));
    }

    /** libsdp reads a directive as a comment: the rules are exactly those of the file without directives. */
    @Test
    void rulesAreThoseOfTheFileWithoutDirectives() throws Exception {
        String[] with = {"#sdp4j: sqsize=64", "use sdp client * 10.0.0.1:5000", "#sdp4j: inline=128",
                "use both server * *:*"};
        String[] without = {"#", "use sdp client * 10.0.0.1:5000", "# x", "use both server * *:*"};
        List<Rule> a = Conf.parse(with).rules(), b = Conf.parse(without).rules();
        assertEquals(b.size(), a.size());
        for (int i = 0; i < a.size(); i++) {
            assertEquals(b.get(i).toString(), a.get(i).toString());
            assertEquals(b.get(i).family(), a.get(i).family());
            assertEquals(b.get(i).role(), a.get(i).role());
        }
    }

    @Test
    void errorsNameFileAndLine() {
        String p = Conf.SOURCE + ":";
        assertTrue(err("use sdp client * *:*", "#sdp4j: sqsize=abc", "use sdp server * *:*")
                .startsWith(p + "2: #sdp4j: sqsize=abc: expected a whole number"), err("#sdp4j: sqsize=abc"));
        assertTrue(err("#sdp4j: sqsize=0", "use sdp client * *:*").startsWith(p + "1: #sdp4j: sqsize=0: out of range 1..65534"));
        assertTrue(err("#sdp4j: sqsize=70000", "use sdp client * *:*").contains("out of range"));
        assertTrue(err("#sdp4j: sqsize=99999999999", "use sdp client * *:*").contains("expected a whole number"));
        assertTrue(err("#sdp4j: sqsize=-1", "use sdp client * *:*").contains("expected a whole number"));
        assertTrue(err("#sdp4j: busypoll=10k", "use sdp client * *:*").contains("of microseconds"));
        assertTrue(err("#sdp4j: zcopy=1", "use sdp client * *:*")
                .startsWith(p + "1: #sdp4j: unknown tunable 'zcopy' (known: sndbuf, rcvbuf, sqsize, rqsize, inline, busypoll)"));
        assertTrue(err("#sdp4j: sqsize", "use sdp client * *:*").contains("expected KEY=VALUE, found 'sqsize'"));
        assertTrue(err("#sdp4j:", "use sdp client * *:*").startsWith(p + "1: #sdp4j: expected KEY=VALUE"));
        assertTrue(err("#sdp4j: rsocket", "use sdp client * *:*").startsWith(p + "1: #sdp4j: expected KEY=VALUE"));
        assertTrue(err("#sdp4j: sqsize=1 sqsize=2", "use sdp client * *:*").contains("sqsize given twice"));
        assertTrue(err("use sdp client * *:*", "#sdp4j: sqsize=64")
                .startsWith(p + "2: #sdp4j: directive without a use statement after it"));
        assertTrue(err("#sdp4j: sqsize=64", "use tcp client * *:*")
                .startsWith(p + "1: #sdp4j: line 1 sets rsocket tunables for line 2, a 'use tcp' rule"));
        assertTrue(err("#sdp4j: sqsize=64", "use smc client * *:*")
                .startsWith(p + "1: #sdp4j: line 1 sets rsocket tunables for line 2, a 'use smc' rule"));
        // a bad statement after a directive is reported on its own line, as always
        assertTrue(err("#sdp4j: sqsize=64", "use sdp klient * *:*").startsWith(p + "2:"));
    }

    @Test
    void ordinaryCommentsAreNotDirectives() throws Exception {
        RuleSet rs = Conf.parse("# sdp4j: sqsize=abc", "#SDP4J: junk", "##sdp4j: junk", "use sdp client * *:*");
        assertTrue(rs.rules().get(0).tunables().isEmpty());
    }

    @Test
    void globalFromSystemProperties() {
        Properties p = new Properties();
        p.setProperty("sdp4j.rsocket.sqsize", "256");
        p.setProperty("sdp4j.rsocket.sndbuf", " 64k ");
        p.setProperty("sdp4j.rsocket.inline", "banana"); // logged and ignored
        p.setProperty("sdp4j.rsocket.busypoll", "");
        Tunables t = Tunables.fromProperties(p);
        assertEquals(Map.of(Tunables.Key.SQSIZE, 256, Tunables.Key.SNDBUF, 65536), t.values());
        Tunables rule = Tunables.of(Map.of(Tunables.Key.SQSIZE, 1024));
        assertEquals(Map.of(Tunables.Key.SQSIZE, 1024, Tunables.Key.SNDBUF, 65536), t.with(rule).values());
    }
}
