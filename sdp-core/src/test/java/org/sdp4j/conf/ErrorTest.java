package org.sdp4j.conf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every malformed input is a ConfigException naming the file, the 1-based line and what was expected there. The
 * faulty statement is always on line 3, after a valid rule and a comment, to prove the line count.
 */
class ErrorTest {

    private static ConfigException fail(String statement) {
        String text = "use tcp client * *:*\n# a comment\n" + statement + "\nuse sdp client * *:*\n";
        return assertThrows(ConfigException.class, () -> ConfigParser.parse(Conf.SOURCE, text));
    }

    private static void expect(String statement, String fragment) {
        ConfigException e = fail(statement);
        assertEquals(Conf.SOURCE, e.source());
        assertEquals(3, e.line(), e.getMessage());
        assertTrue(e.getMessage().startsWith(Conf.SOURCE + ":3: "), e.getMessage());
        assertTrue(e.getMessage().contains(fragment), () -> "expected '" + fragment + "' in: " + e.getMessage());
    }

    @Test
    void theExampleFromTheBrief() {
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigParser.parse("/etc/libsdp.conf",
                "\n\n\n\n\n\nuse rdma client * *:*\n"));
        assertEquals("/etc/libsdp.conf:7: expected sdp, tcp, both, ucx or smc after 'use', found 'rdma'", e.getMessage());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
            // statement keywords
            "rule sdp client * *:*                | expected 'use' or 'log' at the start of a statement, found 'rule'",
            "USE sdp client * *:*                 | found 'USE' (keywords are lower case, as in libsdp)",
            "Log min-level 9                      | found 'Log' (keywords are lower case",
            "sdp client * *:*                     | found 'sdp' (a rule starts with 'use'",
            "usesdp client * *:*                  | found 'usesdp'",
            "except tcp server * 22               | found 'except'",
            // use: family
            "use                                  | expected sdp, tcp, both, ucx or smc after 'use', found end of line",
            "use rdma client * *:*                | expected sdp, tcp, both, ucx or smc after 'use', found 'rdma'",
            "use SDP client * *:*                 | found 'SDP' (keywords are lower case",
            "use sdpclient * *:*                  | found 'sdpclient'",
            // use: role
            "use sdp                              | expected server, listen, client or connect after 'use sdp', found end of line",
            "use sdp both * 5000-6000             | expected server, listen, client or connect after 'use sdp', found 'both'",
            "use tcp Client * *:*                 | found 'Client' (keywords are lower case",
            "use sdp clientdb2 *:*                | found 'clientdb2'",
            // use: program
            "use sdp client                       | expected a program name or * after 'client', found end of line",
            "use sdp client # comment             | expected a program name or * after 'client', found end of line",
            "use sdp client sdp *:*               | a program name cannot be 'sdp': libsdp reads it as a keyword",
            "use sdp client listen *:*            | cannot be 'listen'",
            "use sdp client 123 *:*               | a program name cannot be the number '123'",
            "use sdp client 0 *:*                 | cannot be the number '0'",
            "use sdp client db#2 *:*              | '#' inside the program name 'db#2' is ambiguous",
            "use sdp client a[b *:*               | program pattern 'a[b': unterminated [",
            "use sdp client ab\\ *:*              | ends with a lone backslash",
            "use sdp client [[:foo:]] *:*         | unknown character class [:foo:]",
            "use sdp client [z-a] *:*             | range z-a is backwards",
            // use: address:ports missing or split
            "use sdp client *                     | expected ADDRESS:PORTS after the program name '*', found end of line",
            "use sdp client 10.0.0.1:80           | (is the program missing? write * for every program",
            "use sdp client * *                   | found '*' without ':PORTS' (libsdp needs the ports too: *:*)",
            "use sdp client * 1.2.3.4             | found '1.2.3.4' without ':PORTS' (e.g. 1.2.3.4:*)",
            "use sdp client * * : *               | found '*' without ':PORTS'",
            "use sdp client * *: *                | after the last ':' of '*:', found nothing",
            "use sdp client * 10.0.0.1 :80        | without ':PORTS'",
            "use sdp client * *:80 - 90           | unexpected '-' after '*:80' (write ADDRESS:PORTS as one word",
            "use sdp client * *:* extra           | unexpected 'extra' after '*:*' (a use statement ends",
            "use sdp client * *:* use tcp         | unexpected 'use'",
            "use sdp client * :80                 | no address before ':' in ':80'",
            // addresses
            "use sdp client * host.example.com:80 | 'host.example.com' in 'host.example.com:80' is not a numeric IPv4 or IPv6 address",
            "use sdp client * localhost:80        | is not a numeric IPv4 or IPv6 address",
            "use sdp client * 10.0.0.256:80       | '10.0.0.256' is not an IPv4 address",
            "use sdp client * 10.0.0:80           | '10.0.0' is not an IPv4 address",
            "use sdp client * 10.0.0.01:80        | '10.0.0.01' is not an IPv4 address",
            "use sdp client * 1.2.3.4.5:80        | is not an IPv4 address",
            "use sdp client * FE80::1:80          | IPv6 address 'FE80::1' must be written in lower case",
            "use sdp client * [fe80::1]:80        | write IPv6 addresses without brackets",
            "use sdp client * fe80::1%eth0:80     | is not a numeric IPv4 or IPv6 address",
            "use sdp client * fe80::/64:*         | libsdp's scanner needs an address that ends in a hex digit; write fe80::0/64",
            "use sdp client * ::/0:*              | needs an address that ends in a hex digit; write * to match every address",
            "use sdp client * ::1                 | '::1' looks like an IPv6 address without a port (write ::1:*)",
            "use sdp client * fe80::1             | 'fe80::1' looks like an IPv6 address without a port",
            "use sdp client * 1::2::3:80          | '1::2::3' is not an IPv6 address",
            "use sdp client * 1:2:3:4:5:6:7:8:9:80| is not an IPv6 address",
            "use sdp client * 12345::1:80         | is not an IPv6 address",
            "use sdp client * /8:80               | no address before '/'",
            // prefixes
            "use sdp client * 10.0.0.0/33:*       | prefix /33 is out of range for an IPv4 address (0-32)",
            "use sdp client * 10.0.0.0/999:*      | prefix /999 is out of range for an IPv4 address (0-32)",
            "use sdp client * 10.0.0.0/99999999999999999999:* | prefix /99999999999999999999 is out of range",
            "use sdp client * fe80::0/129:*       | prefix /129 is out of range for an IPv6 address (0-128)",
            "use sdp client * 10.0.0.0/:*         | prefix '/' of '10.0.0.0/' is not a number",
            "use sdp client * 10.0.0.0/x:*        | prefix '/x' of '10.0.0.0/x' is not a number",
            "use sdp client * 10.0.0.0/-8:*       | is not a number",
            "use sdp client * 10.0.0.0/08:*       | prefix '/08' of '10.0.0.0/08' has a leading zero",
            "use sdp client * 10.0.0.0/8/8:*      | not a number",
            "use sdp client * 10.1.2.3/16:*       | '10.1.2.3/16' has address bits set after the first 16 (libsdp would never match it); write 10.1.0.0/16",
            "use sdp client * 10.0.0.1/0:*        | '10.0.0.1/0': libsdp reads a /0 prefix as /32 (only 10.0.0.1), which is surely not meant; write 0.0.0.0/0 or *",
            "use sdp client * fe80::1/64:*        | 'fe80::1/64' has address bits set after the first 64 (libsdp would ignore them); write fe80::0/64",
            "use sdp client * ::0/0:*             | libsdp reads a /0 prefix as /128",
            // ports
            "use sdp client * *:70000             | port 70000 is out of range (1-65535",
            "use sdp client * *:65536             | port 65536 is out of range",
            "use sdp client * *:0                 | port 0 is out of range",
            "use sdp client * *:0-1023            | port 0 is out of range",
            "use sdp client * *:99999999999999999999999 | is out of range",
            "use sdp client * *:5-3               | port range 5-3 is backwards",
            "use sdp client * *:080               | port '080' has a leading zero",
            "use sdp client * *:80-090            | port '090' has a leading zero",
            "use sdp client * *:http              | ports 'http' of '*:http': expected PORT, PORT-PORT or *",
            "use sdp client * *:80-               | ports '80-' of '*:80-': expected PORT, PORT-PORT or *",
            "use sdp client * *:-80               | expected PORT, PORT-PORT or *",
            "use sdp client * *:1-2-3             | expected PORT, PORT-PORT or *",
            "use sdp client * *:**                | expected PORT, PORT-PORT or *",
            "use sdp client * *:*-*               | expected PORT, PORT-PORT or *",
            "use sdp client * *:+80               | expected PORT, PORT-PORT or *",
            // log
            "log                                  | expected min-level or destination after 'log', found end of line",
            "log # nothing                        | expected min-level or destination after 'log', found end of line",
            "log level 9                          | expected min-level or destination in a log statement, found 'level'",
            "log min-level                        | expected a level 1-9 after 'min-level', found end of line",
            "log min-level high                   | expected a level 1-9 after 'min-level', found 'high'",
            "log min-level 0                      | min-level 0 is out of range (1 debug ... 9 errors only)",
            "log min-level 10                     | min-level 10 is out of range",
            "log min-level 09                     | min-level '09' has a leading zero",
            "log min-level -1                     | found '-1'",
            "log min-level 5 min-level 6          | min-level given twice in one log statement",
            "log destination                      | expected stderr, syslog or file after 'destination', found end of line",
            "log destination console              | expected stderr, syslog or file after 'destination', found 'console'",
            "log destination STDERR               | found 'STDERR' (keywords are lower case",
            "log destination stderr destination syslog | destination given twice in one log statement",
            "log destination file                 | expected a file name after 'destination file', found end of line",
            "log destination file # x             | expected a file name after 'destination file', found end of line",
            "log destination file stderr          | a log file name cannot be 'stderr': libsdp reads it as a keyword",
            "log destination file 42              | a log file name cannot be the number '42'",
            "log destination file a#b             | '#' inside the log file name 'a#b' is ambiguous",
            "log min-level 5 use sdp client * *:* | expected min-level or destination in a log statement, found 'use'",
            "log destination stderr extra         | found 'extra'"})
    void malformedStatements(String statement, String fragment) {
        expect(statement.strip(), fragment);
    }

    @Test
    void controlCharactersAndBadText() {
        expect("use sdp client * *:*\r", "carriage return in a statement: the file has DOS (CRLF) line endings");
        expect("use sdp\u0000 client * *:*", "NUL byte in a statement");
        expect("use sdp client * *:*\u000b", "control character U+000B in a statement");
        expect("use\u000csdp client * *:*", "control character U+000C");
        expect("use sdp client \u007f *:*", "control character U+007F");
        expect("use sdp client \u0085 *:*", "control character U+0085");
        expect("use sdp client pr\uFFFDg *:*", "not UTF-8 text");
        expect("use sdp client a\uD800 *:*", "unpaired surrogate U+D800");
        expect("use\u00a0sdp client * *:*", "found 'use\\u00A0sdp'");
    }

    @Test
    void controlCharactersInCommentsAreIgnoredAsLibsdpDoes() throws ConfigException {
        RuleSet set = ConfigParser.parse("x", "# dos comment\r\nuse sdp client * *:* # \u0000\u0007\r\n");
        assertEquals(1, set.rules().size());
    }

    @Test
    void longWordsAreShortenedInMessages() {
        String longWord = "x".repeat(100_000);
        ConfigException e = fail("use " + longWord);
        assertTrue(e.getMessage().length() < 200, e.getMessage());
        assertTrue(e.getMessage().endsWith("found '" + "x".repeat(40) + "...'"), e.getMessage());
    }

    @Test
    void nullTextIsAConfigException() {
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigParser.parse("src", null));
        assertEquals("src", e.source());
    }

    @Test
    void nonUtf8BytesInAFileStatementAreRejectedOnTheirLine(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("bad.conf");
        byte[] head = "# ok\nuse sdp client prog".getBytes(StandardCharsets.US_ASCII);
        byte[] tail = " *:*\n".getBytes(StandardCharsets.US_ASCII);
        byte[] all = new byte[head.length + 2 + tail.length];
        System.arraycopy(head, 0, all, 0, head.length);
        all[head.length] = (byte) 0xff;
        all[head.length + 1] = (byte) 0xc3;
        System.arraycopy(tail, 0, all, head.length + 2, tail.length);
        Files.write(f, all);
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigParser.parse(f));
        assertEquals(2, e.line());
        assertTrue(e.getMessage().startsWith(f + ":2: "), e.getMessage());
        assertTrue(e.getMessage().contains("not UTF-8 text"), e.getMessage());
    }

    @Test
    void nonUtf8BytesInCommentsDoNotMatter(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("latin1.conf");
        Files.write(f, "# M\u00fcller's rules\nuse sdp client * *:* # \u00e9t\u00e9\n".getBytes(
                StandardCharsets.ISO_8859_1));
        assertEquals(1, ConfigParser.parse(f).rules().size());
    }

    @Test
    void unreadableFilesAreConfigExceptionsWithLineZero(@TempDir Path dir) throws Exception {
        ConfigException missing = assertThrows(ConfigException.class,
                () -> ConfigParser.parse(dir.resolve("none.conf")));
        assertEquals(0, missing.line());
        assertTrue(missing.getMessage().endsWith("none.conf: cannot read: no such file"), missing.getMessage());
        ConfigException directory = assertThrows(ConfigException.class, () -> ConfigParser.parse(dir));
        assertTrue(directory.getMessage().contains("is a directory"), directory.getMessage());
        Path big = dir.resolve("big.conf");
        Files.write(big, new byte[ConfigFile.MAX_BYTES + 1]);
        ConfigException tooBig = assertThrows(ConfigException.class, () -> ConfigParser.parse(big));
        assertTrue(tooBig.getMessage().contains("larger than 1 MiB"), tooBig.getMessage());
    }

    @Test
    void aBadLineRejectsTheWholeFileNotJustTheLine() {
        // libsdp kept the rules parsed before the error and then "used defaults"; sdp4j uses none of it
        assertThrows(ConfigException.class, () -> Conf.parse("use sdp client * *:*", "use sdp client * *:0"));
    }
}
