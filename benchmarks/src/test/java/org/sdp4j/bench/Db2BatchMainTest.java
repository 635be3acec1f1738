package org.sdp4j.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/** The db2batch main in this JVM (no agent): Derby starts, the workload runs, the summary has db2batch's columns. */
class Db2BatchMainTest {

    @Test
    void printsDb2batchSummary() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int rc = Db2BatchMain.run(new String[] {"--rows", "40", "--ldap-port", "0"},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        String o = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, rc, o + err.toString(StandardCharsets.UTF_8));
        assertTrue(o.contains("* Summary Table:"), o);
        assertTrue(o.matches("(?s).*Type\\s+Number\\s+Repetitions\\s+Total Time \\(s\\)\\s+Min Time \\(s\\)\\s+Max Time \\(s\\)"
                + "\\s+Arithmetic Mean\\s+Geometric Mean.*"), o);
        assertTrue(o.matches("(?s).*\\nStatement\\s+2\\s+40\\s.*"), o);          // 40 INSERT repetitions
        assertTrue(o.matches("(?s).*\\nStatement\\s+3\\s+1\\s+(\\S+\\s+){5}40\\s.*"), o);  // SELECT fetched 40 rows
        assertTrue(o.contains("* Checksum of rows read: " + Long.toHexString(SeedWorkload.expectedChecksum(40))), o);
    }

    @Test
    void badUsageIsExit2() throws Exception {
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        PrintStream p = new PrintStream(sink, true, StandardCharsets.UTF_8);
        assertEquals(2, Db2BatchMain.run(new String[] {"--rows"}, p, p));
        assertEquals(2, Db2BatchMain.run(new String[] {"--bogus"}, p, p));
        assertEquals(2, Db2BatchMain.run(new String[] {"--rows", "0"}, p, p));
    }
}
