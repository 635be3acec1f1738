package org.sdp4j.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.sql.ResultSet;
import java.sql.Statement;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** The JCC benchmark methods against in-process Derby 10.8.3.0, called directly (no JMH, no timing). */
class JccWorkloadTest {

    @AfterAll
    static void stopDerby() {
        JccWorkload.DerbyFixture.shutdown();
    }

    @Test
    void everyStatementDoesWhatItSays() throws Exception {
        JccWorkload w = new JccWorkload();
        w.rows = 50;
        w.setup();                                   // one INSERT, one SELECT (checked), one point SELECT (checked)
        assertEquals(1, w.insert());
        assertEquals(50, w.insertBlock());
        assertEquals(52, count(w, JccWorkload.INS));
        assertEquals(50L * 51 / 2, w.select());
        for (int k = 0; k < 60; k++) {               // keys wrap around after the last row
            double c2 = w.pointSelect();
            assertEquals(SeedWorkload.c2(w.key), c2);
        }
        w.trimInsertTable();
        assertEquals(0, count(w, JccWorkload.INS));
        w.tearDown();

        // a second trial in the same JVM reuses the database, table and rows
        JccWorkload again = new JccWorkload();
        again.rows = 50;
        again.setup();
        assertEquals(50, count(again, JccWorkload.SEL));
        again.tearDown();
    }

    static int count(JccWorkload w, String table) throws Exception {
        try (Statement st = w.conn.createStatement(); ResultSet rs = st.executeQuery("select count(*) from " + table)) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
