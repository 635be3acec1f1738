package org.sdp4j.conf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Thousands of random and mutated configs, seeded so a failure can be replayed: the parser returns a RuleSet or
 * throws a ConfigException whose line is within the input — nothing else, and never slowly. Every rule it accepts
 * must parse back from its own text to the same rule.
 */
class FuzzTest {
    private static final long SEED = 0x5D94L ^ 20240601L;
    private static final int CASES = 20_000;

    private static final String[] VALID = {
            "use sdp client * *:*", "use tcp server * *:80", "use both listen db2* 10.1.0.0/16:50000-50010",
            "use sdp connect org.example.Main 192.168.1.0/24:*", "use tcp client t?cp fe80::1:80",
            "use both server [a-c]* 1234:5678::0/64:*", "use sdp client app.jar ::ffff:10.0.0.1:5432",
            "use tcp connect * 0.0.0.0/0:1-65535", "use sdp client * :::*", "log min-level 9",
            "log destination stderr", "log destination syslog min-level 3",
            "log min-level 7 destination file /tmp/sdp.log", "# comment", "", "   \t  ",
            "use sdp client * *:* # trailing", "use tcp client * 10.0.0.1/32:8080#c"};

    private static final String ALPHABET = ":/-*#.\t \r\u0000\n?[]!^\\0123456789abcdefxyzABCDEF"
            + "usetcpbothlogmin-leveldestinationfile\u00e9\u00a0\uFFFD\uD800\u007f";

    @Test
    void randomAndMutatedInputOnlyEverYieldsARuleSetOrAConfigException() {
        assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
            Random rnd = new Random(SEED);
            int accepted = 0, rejected = 0;
            for (int c = 0; c < CASES; c++) {
                String text = config(rnd);
                if (check(c, text)) {
                    accepted++;
                } else {
                    rejected++;
                }
            }
            // both outcomes must be well exercised, or the generator is not testing anything
            assertTrue(accepted > CASES / 20, "accepted " + accepted);
            assertTrue(rejected > CASES / 5, "rejected " + rejected);
        });
    }

    @Test
    void randomBytesThroughTheFileReader(@TempDir Path dir) {
        assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
            Random rnd = new Random(SEED + 1);
            Path f = dir.resolve("fuzz.conf");
            for (int c = 0; c < 500; c++) {
                byte[] bytes;
                if (rnd.nextBoolean()) {
                    bytes = new byte[rnd.nextInt(300)];
                    rnd.nextBytes(bytes);
                } else {
                    bytes = config(rnd).getBytes(java.nio.charset.StandardCharsets.UTF_8);
                    for (int k = 0; k < 3 && bytes.length > 0; k++) {
                        bytes[rnd.nextInt(bytes.length)] = (byte) rnd.nextInt(256);
                    }
                }
                Files.write(f, bytes);
                int lines = 1;
                for (byte b : bytes) {
                    if (b == '\n') {
                        lines++;
                    }
                }
                try {
                    RuleSet set = ConfigParser.parse(f);
                    for (Rule r : set.rules()) {
                        assertTrue(r.line() >= 1 && r.line() <= lines);
                    }
                } catch (ConfigException e) {
                    assertTrue(e.line() >= 1 && e.line() <= lines, "case " + c + ": " + e.getMessage());
                    assertTrue(e.getMessage().startsWith(f + ":" + e.line() + ": "), e.getMessage());
                } catch (Throwable t) {
                    fail("case " + c + " " + Arrays.toString(bytes) + " threw " + t, t);
                }
            }
        });
    }

    @Test
    void hugeInputsStayFast() {
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            String manyRules = "use sdp client db2* 10.0.0.0/8:50000-50010\n".repeat(20_000);
            assertEquals(20_000, ConfigParser.parse("big", manyRules).rules().size());
            String longLine = "use sdp client " + "*".repeat(500_000) + " *:*\n";
            assertEquals(1, ConfigParser.parse("long", longLine).rules().size());
            String longComment = "#" + "x".repeat(1_000_000);
            assertTrue(ConfigParser.parse("comment", longComment).rules().isEmpty());
            check(-1, "use sdp client * " + "1".repeat(100_000) + ":" + "9".repeat(100_000));
            check(-2, "log min-level " + "9".repeat(1_000_000));
        });
    }

    /** @return true when accepted */
    private static boolean check(int c, String text) {
        int lines = text.split("\n", -1).length;
        try {
            RuleSet set = ConfigParser.parse("fuzz.conf", text);
            for (Rule r : set.rules()) {
                assertTrue(r.line() >= 1 && r.line() <= lines, "case " + c);
                Rule again = ConfigParser.parse("again", r.text()).rules().get(0);
                assertEquals(r.family(), again.family(), r.text());
                assertEquals(r.role(), again.role(), r.text());
                assertEquals(r.program(), again.program(), r.text());
                assertEquals(r.address(), again.address(), r.text());
                assertEquals(r.portLow(), again.portLow(), r.text());
                assertEquals(r.portHigh(), again.portHigh(), r.text());
            }
            return true;
        } catch (ConfigException e) {
            assertTrue(e.line() >= 1 && e.line() <= lines, () -> "case " + c + " line " + e.line() + " of "
                    + lines + ": " + e.getMessage() + "\n" + text);
            assertTrue(e.getMessage().startsWith("fuzz.conf:" + e.line() + ": "), e.getMessage());
            assertTrue(!e.getMessage().contains("internal error"), () -> e.getMessage() + "\n" + text);
            return false;
        } catch (Throwable t) {
            fail("case " + c + " threw " + t + " for:\n" + text, t);
            return false;
        }
    }

    private static String config(Random rnd) {
        int n = 1 + rnd.nextInt(6);
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            lines.add(line(rnd));
        }
        return String.join("\n", lines) + (rnd.nextBoolean() ? "\n" : "");
    }

    private static String line(Random rnd) {
        String base = VALID[rnd.nextInt(VALID.length)];
        int mutations = rnd.nextInt(4);
        if (rnd.nextInt(20) == 0) {
            return randomChars(rnd, rnd.nextInt(60));
        }
        for (int m = 0; m < mutations; m++) {
            base = mutate(rnd, base);
        }
        return base;
    }

    private static String mutate(Random rnd, String s) {
        List<String> words = new ArrayList<>(Arrays.asList(s.split(" ")));
        switch (rnd.nextInt(9)) {
            case 0 -> { // delete a word
                if (!words.isEmpty()) {
                    words.remove(rnd.nextInt(words.size()));
                }
                return String.join(" ", words);
            }
            case 1 -> { // duplicate a word
                if (!words.isEmpty()) {
                    int i = rnd.nextInt(words.size());
                    words.add(i, words.get(i));
                }
                return String.join(" ", words);
            }
            case 2 -> { // swap two words
                if (words.size() > 1) {
                    java.util.Collections.swap(words, rnd.nextInt(words.size()), rnd.nextInt(words.size()));
                }
                return String.join(" ", words);
            }
            case 3 -> { // a word from another valid line
                String[] other = VALID[rnd.nextInt(VALID.length)].split(" ");
                if (!words.isEmpty()) {
                    words.set(rnd.nextInt(words.size()), other[rnd.nextInt(other.length)]);
                }
                return String.join(" ", words);
            }
            case 4 -> { // delete a character
                if (s.isEmpty()) {
                    return s;
                }
                int i = rnd.nextInt(s.length());
                return s.substring(0, i) + s.substring(i + 1);
            }
            case 5 -> { // insert a character
                int i = rnd.nextInt(s.length() + 1);
                return s.substring(0, i) + ALPHABET.charAt(rnd.nextInt(ALPHABET.length())) + s.substring(i);
            }
            case 6 -> { // replace a character
                if (s.isEmpty()) {
                    return s;
                }
                int i = rnd.nextInt(s.length());
                return s.substring(0, i) + ALPHABET.charAt(rnd.nextInt(ALPHABET.length())) + s.substring(i + 1);
            }
            case 7 -> { // a number somewhere, of any size
                int i = rnd.nextInt(s.length() + 1);
                String num = rnd.nextBoolean() ? String.valueOf(rnd.nextInt(200_000))
                        : String.valueOf(Math.abs(rnd.nextLong())) + rnd.nextInt(10);
                return s.substring(0, i) + num + s.substring(i);
            }
            default -> { // random characters appended
                return s + randomChars(rnd, rnd.nextInt(8));
            }
        }
    }

    private static String randomChars(Random rnd, int n) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            b.append(rnd.nextInt(4) == 0 ? (char) rnd.nextInt(0x10000) : ALPHABET.charAt(rnd.nextInt(ALPHABET.length())));
        }
        return b.toString();
    }
}
