package org.sdp4j.conf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** fnmatch(3) with flags 0, as glibc answers. */
class GlobTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
            "*             | anything        | true",
            "*             | \"\"            | true",
            "db2*          | db2sysc         | true",
            "db2*          | db2             | true",
            "db2*          | xdb2            | false",
            "t?cp          | ttcp            | true",
            "t?cp          | tcp             | false",
            "*.jar         | app.jar         | true",
            "*.jar         | app.jar.bak     | false",
            "*Main         | org.example.Main| true",
            "org.*.Main    | org.a.b.Main    | true",
            "*             | /usr/bin/x      | true",
            "*x            | .x              | true",
            "a*b*c         | aXbYc           | true",
            "a*b*c         | aXbYd           | false",
            "**            | x               | true",
            "[abc]         | b               | true",
            "[abc]         | d               | false",
            "[a-c]x        | bx              | true",
            "[!a-c]x       | dx              | true",
            "[!a-c]x       | ax              | false",
            "[^a-c]x       | ax              | false",
            "[]]           | ]               | true",
            "[]a]          | a               | true",
            "[!]]          | ]               | false",
            "[!]]          | x               | true",
            "[a-]          | -               | true",
            "[-a]          | -               | true",
            "[\\]]         | ]               | true",
            "[a\\-c]       | b               | false",
            "[a\\-c]       | -               | true",
            "[[:digit:]]*  | 9lives          | true",
            "[[:digit:]]*  | lives           | false",
            "[[:upper:][:digit:]] | Q        | true",
            "[[:alpha:]]   | 1               | false",
            "[[:space:]]   | \" \"           | true",
            "[[.a.]]       | a               | true",
            "[[=b=]]       | b               | true",
            "\\*           | *               | true",
            "\\*           | x               | false",
            "\\?           | ?               | true",
            "\\a           | a               | true",
            "a\\           | a\\             | false",
            "a[b           | a[b             | true",
            "a[b           | ab              | false",
            "[z-a]         | m               | false",
            "prö*          | prögram         | true",
            "?             | ö               | true",
            "java          | java            | true",
            "Java          | java            | false"})
    void fnmatch(String glob, String name, boolean expected) {
        assertEquals(expected, Glob.matches(glob, name), glob + " vs " + name);
    }

    @Test
    void problemsTheParserRefuses() {
        assertNull(Glob.problem("db2*"));
        assertNull(Glob.problem("[a-z]*\\[x\\]"));
        assertNull(Glob.problem("[[:alpha:]]"));
        assertEquals("unterminated [ (write \\[ for a literal [)", Glob.problem("a[b"));
        assertEquals("unterminated [ (write \\[ for a literal [)", Glob.problem("[]"));
        assertEquals("ends with a lone backslash, which fnmatch never matches", Glob.problem("a\\"));
        assertEquals("unknown character class [:foo:]", Glob.problem("[[:foo:]]"));
        assertEquals("range z-a is backwards and matches nothing", Glob.problem("[z-a]"));
        assertEquals("unsupported [.ab.] (only single characters)", Glob.problem("[[.ab.]]"));
    }

    @Test
    void pathologicalPatternsStayLinear() {
        String glob = "*a".repeat(50) + "*b";
        String name = "a".repeat(5000);
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> assertEquals(false, Glob.matches(glob, name)));
    }

    @Test
    void identityMatchesAnyOfItsNamesAndRemembersAnswers() {
        ProgramIdentity id = new ProgramIdentity(java.util.List.of("org.example.Main", "Main", "app.jar", "app",
                "java"));
        assertEquals(true, id.matches("app"));
        assertEquals(true, id.matches("*.jar"));
        assertEquals(true, id.matches("jav?"));
        assertEquals(false, id.matches("db2*"));
        assertEquals(false, id.matches("db2*"));
        assertEquals(true, id.matches("*"));
        assertEquals("org.example.Main", id.toString());
        assertEquals("?", new ProgramIdentity(java.util.List.of()).toString());
        for (int i = 0; i < 1000; i++) {
            assertEquals(false, id.matches("x" + i)); // the cache is bounded, answers stay right
        }
    }
}
