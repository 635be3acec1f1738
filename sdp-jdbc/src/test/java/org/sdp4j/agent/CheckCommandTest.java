package org.sdp4j.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code check} command as a user runs it: the real parser, a real file, exit statuses. */
class CheckCommandTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String out() { return out.toString(StandardCharsets.UTF_8); }
    private String err() { return err.toString(StandardCharsets.UTF_8); }

    private Path conf(String text) throws Exception {
        Path f = dir.resolve("libsdp.conf");
        Files.writeString(f, text);
        return f;
    }

    @Test
    void printsTheMatchingRuleAndFamily() throws Exception {
        Path f = conf("# DB2 on SDP, LDAP on TCP\n"
                + "use tcp client * 10.0.0.9:389\n"
                + "use sdp client * 10.0.0.0/8:50000-50010\n");
        assertEquals(0, run("check", "--conf", f.toString(), "client", "10.1.2.3:50001"), err());
        assertTrue(out().contains("line 3: use sdp client * 10.0.0.0/8:50000-50010"), out());
        assertTrue(out().contains("family:  sdp"), out());
    }

    @Test
    void ldapGoesToTcp() throws Exception {
        Path f = conf("use tcp client * 10.0.0.9:389\nuse sdp client * 10.0.0.0/8:*\n");
        assertEquals(0, run("check", "--conf", f.toString(), "client", "10.0.0.9:389"), err());
        assertTrue(out().contains("line 1: use tcp client * 10.0.0.9:389"), out());
        assertTrue(out().contains("family:  tcp"), out());
    }

    @Test
    void programNameSelectsRules() throws Exception {
        Path f = conf("use sdp client db2* *:*\nuse tcp client * *:*\n");
        assertEquals(0, run("check", "--conf", f.toString(), "--program", "db2batch", "client", "127.0.0.1:50000"));
        assertTrue(out().contains("family:  sdp"), out());
        out.reset();
        assertEquals(0, run("check", "--conf", f.toString(), "--program", "ldapsearch", "client", "127.0.0.1:50000"));
        assertTrue(out().contains("family:  tcp"), out());
    }

    @Test
    void noMatchSaysSo() throws Exception {
        Path f = conf("use sdp server * *:50000\n");
        assertEquals(0, run("check", "--conf", f.toString(), "client", "[::1]:50000"), err());
        assertTrue(out().contains("none matched"), out());
        assertTrue(out().contains("family:  "), out());
    }

    @Test
    void badConfigIsExitTwoWithFileAndLine() throws Exception {
        Path f = conf("use tcp client * *:*\nuse rdma client * *:*\n");
        assertEquals(2, run("check", "--conf", f.toString(), "client", "127.0.0.1:1"));
        assertTrue(err().contains(f + ":2"), err());
    }

    @Test
    void badUsageIsExitTwo() {
        assertEquals(2, run("check", "client"));
        assertEquals(2, run("check", "sideways", "127.0.0.1:1"));
        assertEquals(2, run("check", "client", "127.0.0.1:99999"));
        assertEquals(2, run("check", "client", "::1:80"));
        assertEquals(2, run("frobnicate"));
    }
}
