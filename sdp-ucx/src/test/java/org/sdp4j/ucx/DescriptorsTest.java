package org.sdp4j.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * The descriptor budget says whether it works ({@code selftest}'s ucx line): through the agent it once counted
 * nothing for want of {@code jdk.management}, and nothing said so (issue 18, fourteenth pass).
 */
class DescriptorsTest {

    @Test
    void theBudgetNamesItsShareTheLimitAndTheOpenCount() {
        String b = Descriptors.budget();
        assertTrue(b.matches("descriptor budget \\d+ % of \\d+ \\(ulimit -n\\), \\d+ open"), b);
        String d = new UcxTransport().describe();
        assertTrue(d.startsWith("tls=") && d.contains("descriptor budget"), d);
    }

    /** A runtime without {@code jdk.management}: the budget cannot count, and says it is off and why. */
    @Test
    void aRuntimeThatCannotCountSaysTheBudgetIsOff() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(List.of(java.toString(), "--limit-modules", "java.base,java.management", "-cp",
                System.getProperty("java.class.path"), DescriptorsTest.class.getName()))
                .redirectErrorStream(true).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the child JVM exits");
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("descriptor budget OFF: open descriptors cannot be counted"), out);
        assertTrue(out.contains("REFUSAL null"), "blind, the guard lets connections through: " + out);
    }

    /** The child of {@link #aRuntimeThatCannotCountSaysTheBudgetIsOff}. */
    public static void main(String[] args) {
        System.out.println(Descriptors.budget());
        System.out.println("REFUSAL " + Descriptors.refusal());
    }
}
