package org.sdp4j.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The seed workload through JCC against in-process Derby 10.8.3.0 (no agent). No timing assertions. */
class SeedWorkloadTest {

    static DerbyDrdaServer server;

    @BeforeAll
    static void start() throws Exception {
        server = DerbyDrdaServer.start();
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) server.close();
    }

    @Test
    void rowValuesFitTheTable() {
        assertEquals("r0000001", SeedWorkload.c3(1));
        assertEquals(8, SeedWorkload.c3(9_999_999).length());
        assertEquals(1.75, SeedWorkload.c2(1));
    }

    @Test
    void runsAndChecksEveryRow() throws Exception {
        try (Connection c = Jcc.connect(server.jccUrl("testdb"), Jcc.derbyProperties())) {
            SeedWorkload.Result r = SeedWorkload.run(c, 250);
            assertEquals(250, r.rowsRead());
            assertEquals(SeedWorkload.expectedChecksum(250), r.checksum());
            assertEquals(250, r.insert().count());
            assertEquals(1, r.select().count());
            assertEquals(1, r.create().count());
            assertEquals(1, r.drop().count());
            assertTrue(r.insert().minNanos() <= r.insert().geometricMeanNanos());
            assertTrue(r.insert().geometricMeanNanos() <= r.insert().meanNanos() + 1e-6);
            assertTrue(r.insert().meanNanos() <= r.insert().maxNanos());
            // the table was dropped: a second run works
            assertEquals(SeedWorkload.expectedChecksum(3), SeedWorkload.run(c, 3).checksum());
        }
    }

    @Test
    void namesTheFirstWrongRowAndCleansUp() throws Exception {
        try (Connection real = Jcc.connect(server.jccUrl("testdb"), Jcc.derbyProperties())) {
            Connection corrupting = corruptRow(real, 7);
            SeedWorkload.WorkloadException e = assertThrows(SeedWorkload.WorkloadException.class, () -> SeedWorkload.run(corrupting, 20));
            assertTrue(e.getMessage().contains("row 7 "), e.getMessage());
            assertTrue(e.getMessage().contains("'x0000007'"), e.getMessage());
            // the table was dropped after the failure: a clean run works
            assertEquals(20, SeedWorkload.run(real, 20).rowsRead());
        }
    }

    /** A connection whose INSERTs write a wrong c3 for row {@code bad}. */
    static Connection corruptRow(Connection real, long bad) {
        InvocationHandler conn = (proxy, m, args) -> {
            Object out = invoke(real, m, args);
            if (out instanceof PreparedStatement && m.getName().equals("prepareStatement")) {
                PreparedStatement ps = (PreparedStatement) out;
                long[] row = {0};
                return Proxy.newProxyInstance(SeedWorkloadTest.class.getClassLoader(), new Class<?>[] {PreparedStatement.class},
                        (p2, m2, a2) -> {
                            if (m2.getName().equals("setLong") && (Integer) a2[0] == 1) row[0] = (Long) a2[1];
                            if (m2.getName().equals("setString") && row[0] == bad) a2 = new Object[] {a2[0], "x0000007"};
                            return invoke(ps, m2, a2);
                        });
            }
            return out;
        };
        return (Connection) Proxy.newProxyInstance(SeedWorkloadTest.class.getClassLoader(), new Class<?>[] {Connection.class}, conn);
    }

    static Object invoke(Object target, java.lang.reflect.Method m, Object[] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
