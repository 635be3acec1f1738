package org.sdp4j.conf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.sdp4j.conf.Conf.parse;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every statement form libsdp accepts, read the way libsdp reads it. */
class GrammarTest {

    @Test
    void libsdpsOwnSampleFileParses() throws ConfigException {
        // the statements of OFED libsdp's libsdp.conf, including its commented examples uncommented
        RuleSet set = parse(
                "# libsdp.conf - configuration file for libsdp",
                "#",
                "log min-level 9 destination file libsdp.log",
                "use both server * *:*",
                "use both client * *:*",
                "use sdp    connect *         192.168.1.0/24:* ",
                "use sdp    connect *         1234:5678::0/64:* ",
                "use sdp    listen  ttcp      *:5001 ",
                "use tcp    server  ttcp*     *:22-25",
                "use both   server  *         *:8080",
                "use both   connect *         11.4.8.0/24:22");
        assertEquals(8, set.rules().size());
        assertEquals(new LogSettings(9, LogSettings.Destination.FILE, "libsdp.log"), set.log());
        Rule r = set.rules().get(3);
        assertEquals(7, r.line());
        assertEquals("use sdp    connect *         1234:5678::0/64:*", r.text());
        assertEquals("1234:5678::/64", r.address().toString());
        assertEquals(Role.CLIENT, r.role());
        assertEquals(Family.SDP, r.family());
        Rule ttcp = set.rules().get(5);
        assertEquals("ttcp*", ttcp.program());
        assertEquals(22, ttcp.portLow());
        assertEquals(25, ttcp.portHigh());
        assertEquals(Conf.SOURCE, set.source());
    }

    @ParameterizedTest
    @CsvSource({
            "use sdp server * *:*,       SDP,  SERVER",
            "use sdp listen * *:*,       SDP,  SERVER",
            "use tcp client * *:*,       TCP,  CLIENT",
            "use tcp connect * *:*,      TCP,  CLIENT",
            "use both server * *:*,      BOTH, SERVER",
            "use both connect * *:*,     BOTH, CLIENT",
            "use ucx server * *:*,       UCX,  SERVER",
            "use ucx connect * *:*,      UCX,  CLIENT",
            "use smc server * *:*,       SMC,  SERVER",
            "use smc client * *:*,       SMC,  CLIENT"})
    void familiesAndRolesIncludingSynonyms(String line, Family family, Role role) throws ConfigException {
        Rule r = parse(line).rules().get(0);
        assertEquals(family, r.family());
        assertEquals(role, r.role());
        assertEquals("*", r.program());
        assertTrue(r.address().isAny());
        assertEquals(0, r.portLow());
        assertEquals(65535, r.portHigh());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "*:*                     | *                 | 0     | 65535",
            "*:80                    | *                 | 80    | 80",
            "*:1                     | *                 | 1     | 1",
            "*:65535                 | *                 | 65535 | 65535",
            "*:1-65535               | *                 | 1     | 65535",
            "*:5000-5000             | *                 | 5000  | 5000",
            "10.0.0.1:*              | 10.0.0.1/32       | 0     | 65535",
            "10.0.0.1/32:50000       | 10.0.0.1/32       | 50000 | 50000",
            "10.1.0.0/16:50000-50010 | 10.1.0.0/16       | 50000 | 50010",
            "0.0.0.0/0:*             | 0.0.0.0/0         | 0     | 65535",
            "0.0.0.0:*               | 0.0.0.0/32        | 0     | 65535",
            "128.0.0.0/1:*           | 128.0.0.0/1       | 0     | 65535",
            "fe80::1:80              | fe80::1/128       | 80    | 80",
            "fe80::1:*               | fe80::1/128       | 0     | 65535",
            "fe80::0/10:*            | fe80::/10         | 0     | 65535",
            "2001:db8::0/32:443      | 2001:db8::/32     | 443   | 443",
            "::1:5432                | ::1/128           | 5432  | 5432",
            ":::*                    | ::/128            | 0     | 65535",
            "::ffff:10.0.0.1:80      | ::ffff:a00:1/128  | 80    | 80",
            "1:2:3:4:5:6:7:8/128:1-2 | 1:2:3:4:5:6:7:8/128 | 1   | 2"})
    void addressesPrefixesAndPorts(String target, String address, int lo, int hi) throws ConfigException {
        Rule r = parse("use sdp client * " + target).rules().get(0);
        assertEquals(address, r.address().toString());
        assertEquals(lo, r.portLow());
        assertEquals(hi, r.portHigh());
    }

    @Test
    void programNamesAreGlobsKeptAsWritten() throws ConfigException {
        RuleSet set = parse(
                "use sdp client db2* *:*",
                "use sdp client t?cp *:*",
                "use sdp client [a-c]x[!0-9] *:*",
                "use sdp client org.example.Main *:*",
                "use sdp client app.jar *:*",
                "use sdp client \\[literal\\] *:*",
                "use sdp client 0123 *:*",
                "use sdp client sdpx *:*",
                "use sdp client app:1 *:*");
        List<String> programs = set.rules().stream().map(Rule::program).toList();
        assertEquals(List.of("db2*", "t?cp", "[a-c]x[!0-9]", "org.example.Main", "app.jar", "\\[literal\\]", "0123",
                "sdpx", "app:1"), programs);
    }

    @Test
    void blanksTabsCommentsAndEmptyLines() throws ConfigException {
        RuleSet set = parse(
                "",
                "   ",
                "\t",
                "# whole-line comment",
                "   \t# indented comment with use sdp client * *:* in it",
                "\tuse\tsdp \t client\t*\t*:*\t",
                "use tcp client * *:* # trailing comment",
                "use tcp client * *:*#comment right after the ports",
                "use both client * 10.0.0.0/8:80-90#c",
                "log min-level 7#comment",
                "log destination stderr # comment");
        assertEquals(4, set.rules().size());
        assertEquals(6, set.rules().get(0).line());
        assertEquals("use\tsdp \t client\t*\t*:*", set.rules().get(0).text());
        assertEquals("use tcp client * *:*", set.rules().get(1).text());
        assertEquals("use tcp client * *:*", set.rules().get(2).text());
        assertEquals(new LogSettings(7, LogSettings.Destination.STDERR, null), set.log());
    }

    @Test
    void emptyAndCommentOnlyFilesHaveNoRules() throws ConfigException {
        assertTrue(ConfigParser.parse("x", "").rules().isEmpty());
        assertTrue(ConfigParser.parse("x", "\n\n").rules().isEmpty());
        RuleSet set = parse("# nothing", "#use sdp client * *:*");
        assertTrue(set.rules().isEmpty());
        assertNull(set.log());
    }

    @Test
    void lastLineWithoutNewlineIsAStatementToo() throws ConfigException {
        // libsdp's grammar needs the final newline; refusing a file for lacking one helps nobody
        RuleSet set = ConfigParser.parse("x", "use sdp client * *:*");
        assertEquals(1, set.rules().size());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "log min-level 1                                 | 1 | ",
            "log min-level 9                                 | 9 | ",
            "log destination stderr                          | 0 | STDERR",
            "log destination syslog                          | 0 | SYSLOG",
            "log min-level 7 destination stderr              | 7 | STDERR",
            "log destination syslog min-level 3              | 3 | SYSLOG"})
    void logStatements(String line, int level, LogSettings.Destination dest) throws ConfigException {
        assertEquals(new LogSettings(level, dest, null), parse(line).log());
    }

    @Test
    void logFileNamesAreNamesUpToTheNextBlank() throws ConfigException {
        assertEquals(new LogSettings(4, LogSettings.Destination.FILE, "/var/tmp/sdp.log"),
                parse("log destination file /var/tmp/sdp.log min-level 4").log());
        assertEquals(new LogSettings(0, LogSettings.Destination.FILE, "a:b,c=d"),
                parse("log destination file a:b,c=d").log());
    }

    @Test
    void laterLogStatementsOverrideWhatTheySet() throws ConfigException {
        RuleSet set = parse(
                "log min-level 9 destination file libsdp.log",
                "use sdp client * *:*",
                "log min-level 4",
                "log destination stderr");
        assertEquals(new LogSettings(4, LogSettings.Destination.STDERR, null), set.log());
    }

    @Test
    void ruleTextAndLineNumbersSurviveCrlfFreeUnicodeNames() throws ConfigException {
        Rule r = parse("# α comment with non-ASCII", "use sdp client prögram *:*").rules().get(0);
        assertEquals("prögram", r.program());
        assertEquals(2, r.line());
    }

    @Test
    void ucxIsAFamilyWordOnlySoAProgramNamedUcxParsesAsInLibsdp() throws ConfigException {
        // libsdp rejects 'use ucx', so the addition cannot change a valid libsdp.conf; but 'ucx' as a program
        // name is valid libsdp and must keep meaning the program
        RuleSet set = parse("use sdp server ucx *:1527", "use ucx client ucx *:1527");
        assertEquals(Family.SDP, set.rules().get(0).family());
        assertEquals("ucx", set.rules().get(0).program());
        assertEquals(Family.UCX, set.rules().get(1).family());
        assertEquals("ucx", set.rules().get(1).program());
        assertEquals(Family.SDP, Family.BOTH.transportFamily());
        assertEquals(Family.UCX, Family.UCX.transportFamily());
    }

    @Test
    void smcIsAFamilyWordOnlyToo() throws ConfigException {
        RuleSet set = parse("use sdp server smc *:1527", "use smc client smc *:1527");
        assertEquals(Family.SDP, set.rules().get(0).family());
        assertEquals("smc", set.rules().get(0).program());
        assertEquals(Family.SMC, set.rules().get(1).family());
        assertEquals("smc", set.rules().get(1).program());
        assertEquals(Family.SMC, Family.SMC.transportFamily());
    }
}
