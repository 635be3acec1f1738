package org.sdp4j.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The seed's db2batch workload over any JDBC {@link Connection}:
 * <ol>
 *   <li>{@code create table demo (c1 bigint, c2 double, c3 varchar(8))}</li>
 *   <li>N single-row INSERTs through one prepared statement, autocommit on, each timed</li>
 *   <li>one SELECT of all rows ordered by c1, timed (execute + fetch of every row), then EVERY row is checked:
 *       row i (1-based) must be {@code c1 = i, c2 = }{@link #c2(long) c2(i)}{@code , c3 = }{@link #c3(long) c3(i)}</li>
 *   <li>{@code drop table demo}, timed</li>
 * </ol>
 * Nothing here knows about sdp4j: the transport is whatever the JVM running it was started with.
 * The connection's autocommit setting is switched on for the run and restored afterwards. If anything fails after
 * the table was created, the table is dropped (best effort) before the exception propagates, so a rerun starts clean.
 */
public final class SeedWorkload {

    /** Table name used by the workload. */
    public static final String TABLE = "demo";
    public static final String CREATE_SQL = "create table " + TABLE + " (c1 bigint, c2 double, c3 varchar(8))";
    public static final String INSERT_SQL = "insert into " + TABLE + " (c1, c2, c3) values (?, ?, ?)";
    public static final String SELECT_SQL = "select c1, c2, c3 from " + TABLE + " order by c1";
    public static final String DROP_SQL = "drop table " + TABLE;

    /** Statement types, in the order the workload runs them. */
    public static final String CREATE = "CREATE", INSERT = "INSERT", SELECT = "SELECT", DROP = "DROP";

    private SeedWorkload() {}

    /** Expected c1 of row i (1-based). */
    public static long c1(long i) { return i; }

    /** Expected c2 of row i: exactly representable in a double, so equality is exact on every driver. */
    public static double c2(long i) { return i * 1.5 + 0.25; }

    /** Expected c3 of row i: at most 8 characters ("r" + 7 digits, wrapping at 10^7). */
    public static String c3(long i) {
        String digits = Long.toString(Math.floorMod(i, 10_000_000L));
        StringBuilder sb = new StringBuilder(8).append('r');
        for (int k = digits.length(); k < 7; k++) sb.append('0');
        return sb.append(digits).toString();
    }

    /** Checksum of one row, folded in order into {@link Result#checksum()}. */
    static long foldRow(long checksum, long c1, double c2, String c3) {
        long h = checksum * 0x9E3779B97F4A7C15L;
        h ^= c1;
        h = Long.rotateLeft(h, 17) ^ Double.doubleToLongBits(c2);
        h = Long.rotateLeft(h, 29) ^ (c3 == null ? 0 : c3.hashCode());
        return h;
    }

    /** The checksum {@link #run} must report for {@code rows} correct rows. */
    public static long expectedChecksum(int rows) {
        long cs = 0;
        for (int i = 1; i <= rows; i++) cs = foldRow(cs, c1(i), c2(i), c3(i));
        return cs;
    }

    /**
     * Runs the workload. Throws {@link SQLException} from the driver, or {@link WorkloadException} (an
     * {@code SQLException} too) naming the first wrong row when the SELECT does not return what was inserted.
     */
    public static Result run(Connection c, int rows) throws SQLException {
        if (rows < 0) throw new IllegalArgumentException("rows must be >= 0: " + rows);
        boolean autoCommit = c.getAutoCommit();
        if (!autoCommit) c.setAutoCommit(true);
        Timing create = new Timing(CREATE, 1), insert = new Timing(INSERT, rows),
                select = new Timing(SELECT, 1), drop = new Timing(DROP, 1);
        boolean created = false, dropped = false;
        try {
            try (Statement st = c.createStatement()) {
                long t0 = System.nanoTime();
                st.executeUpdate(CREATE_SQL);
                create.add(System.nanoTime() - t0);
                created = true;
            }
            try (PreparedStatement ps = c.prepareStatement(INSERT_SQL)) {
                for (int i = 1; i <= rows; i++) {
                    long t0 = System.nanoTime();
                    ps.setLong(1, c1(i));
                    ps.setDouble(2, c2(i));
                    ps.setString(3, c3(i));
                    int n = ps.executeUpdate();
                    insert.add(System.nanoTime() - t0);
                    if (n != 1) throw new WorkloadException("INSERT of row " + i + " reported " + n + " rows updated, expected 1");
                }
            }
            long[] r1 = new long[Math.max(rows, 16)];
            double[] r2 = new double[r1.length];
            String[] r3 = new String[r1.length];
            int read = 0;
            try (Statement st = c.createStatement()) {
                long t0 = System.nanoTime();
                try (ResultSet rs = st.executeQuery(SELECT_SQL)) {
                    while (rs.next()) {
                        if (read == r1.length) {
                            r1 = Arrays.copyOf(r1, read * 2); r2 = Arrays.copyOf(r2, read * 2); r3 = Arrays.copyOf(r3, read * 2);
                        }
                        r1[read] = rs.getLong(1);
                        if (rs.wasNull()) r1[read] = Long.MIN_VALUE;
                        r2[read] = rs.getDouble(2);
                        if (rs.wasNull()) r2[read] = Double.NaN;
                        r3[read] = rs.getString(3);
                        read++;
                    }
                }
                select.add(System.nanoTime() - t0);
            }
            // Verify outside the timed region: every row, in order.
            long checksum = 0;
            for (int k = 0; k < read; k++) {
                long i = k + 1;
                if (k >= rows) {
                    throw new WorkloadException("SELECT returned more rows than inserted: row " + i + " is (" + r1[k] + ", "
                            + r2[k] + ", " + quote(r3[k]) + "), expected " + rows + " rows");
                }
                if (r1[k] != c1(i) || Double.compare(r2[k], c2(i)) != 0 || !c3(i).equals(r3[k])) {
                    throw new WorkloadException("SELECT row " + i + " of " + rows + " is wrong: got (c1=" + fmt(r1[k]) + ", c2=" + r2[k]
                            + ", c3=" + quote(r3[k]) + "), expected (c1=" + c1(i) + ", c2=" + c2(i) + ", c3=" + quote(c3(i)) + ")");
                }
                checksum = foldRow(checksum, r1[k], r2[k], r3[k]);
            }
            if (read < rows) {
                throw new WorkloadException("SELECT returned " + read + " rows, expected " + rows + ": row " + (read + 1) + " is missing");
            }
            try (Statement st = c.createStatement()) {
                long t0 = System.nanoTime();
                st.executeUpdate(DROP_SQL);
                drop.add(System.nanoTime() - t0);
                dropped = true;
            }
            return new Result(rows, read, checksum, create, insert, select, drop);
        } finally {
            if (created && !dropped) {
                try (Statement st = c.createStatement()) {
                    st.executeUpdate(DROP_SQL);
                } catch (SQLException | RuntimeException ignored) {
                    // best effort: the original failure is what matters
                }
            }
            if (!autoCommit) {
                try { c.setAutoCommit(false); } catch (SQLException ignored) { /* connection may be gone */ }
            }
        }
    }

    private static String fmt(long c1) { return c1 == Long.MIN_VALUE ? "NULL" : Long.toString(c1); }

    private static String quote(String s) { return s == null ? "NULL" : "'" + s + "'"; }

    /** Thrown when the rows read back differ from the rows inserted. */
    public static final class WorkloadException extends SQLException {
        private static final long serialVersionUID = 1L;
        public WorkloadException(String message) { super(message); }
    }

    /** Timings of all statements of one type, in nanoseconds. Keeps every sample. */
    public static final class Timing {
        private final String type;
        private long[] samples;
        private int count;
        private long total;
        private long min = Long.MAX_VALUE, max = Long.MIN_VALUE;
        private double sumLog;

        Timing(String type, int expected) {
            this.type = type;
            this.samples = new long[Math.max(1, expected)];
        }

        void add(long nanos) {
            if (count == samples.length) samples = Arrays.copyOf(samples, count * 2);
            samples[count++] = nanos;
            total += nanos;
            min = Math.min(min, nanos);
            max = Math.max(max, nanos);
            sumLog += Math.log(Math.max(1L, nanos));
        }

        /** Statement type: CREATE, INSERT, SELECT or DROP. */
        public String type() { return type; }
        /** Number of timed executions. */
        public int count() { return count; }
        /** Sum of all executions' times, ns. */
        public long totalNanos() { return total; }
        /** Fastest execution, ns (0 if none). */
        public long minNanos() { return count == 0 ? 0 : min; }
        /** Slowest execution, ns (0 if none). */
        public long maxNanos() { return count == 0 ? 0 : max; }
        /** Arithmetic mean, ns (0 if none). */
        public double meanNanos() { return count == 0 ? 0 : (double) total / count; }
        /** Geometric mean, ns (0 if none). */
        public double geometricMeanNanos() { return count == 0 ? 0 : Math.exp(sumLog / count); }
        /** Every execution's time in order, ns (a copy). */
        public long[] samplesNanos() { return Arrays.copyOf(samples, count); }
        /** The p-th percentile (0..100, nearest rank), ns (0 if none). */
        public long percentileNanos(double p) {
            if (count == 0) return 0;
            long[] s = samplesNanos();
            Arrays.sort(s);
            int rank = (int) Math.ceil(p / 100.0 * count);
            return s[Math.min(count - 1, Math.max(0, rank - 1))];
        }

        @Override public String toString() {
            return String.format(java.util.Locale.ROOT, "%s n=%d total=%.6fs min=%.6fs max=%.6fs mean=%.6fs geomean=%.6fs", type, count,
                    total / 1e9, minNanos() / 1e9, maxNanos() / 1e9, meanNanos() / 1e9, geometricMeanNanos() / 1e9);
        }
    }

    /** Outcome of one {@link SeedWorkload#run}. */
    public static final class Result {
        private final int rows, rowsRead;
        private final long checksum;
        private final Map<String, Timing> timings;

        Result(int rows, int rowsRead, long checksum, Timing... ts) {
            this.rows = rows;
            this.rowsRead = rowsRead;
            this.checksum = checksum;
            Map<String, Timing> m = new LinkedHashMap<>();
            for (Timing t : ts) m.put(t.type(), t);
            this.timings = Collections.unmodifiableMap(m);
        }

        /** Rows inserted. */
        public int rows() { return rows; }
        /** Rows the SELECT returned (all verified). */
        public int rowsRead() { return rowsRead; }
        /** Order-dependent checksum of the rows read; equals {@link SeedWorkload#expectedChecksum(int)} for a correct run. */
        public long checksum() { return checksum; }
        /** Timings by statement type, in execution order: CREATE, INSERT, SELECT, DROP. */
        public Map<String, Timing> timings() { return timings; }
        public Timing create() { return timings.get(CREATE); }
        public Timing insert() { return timings.get(INSERT); }
        public Timing select() { return timings.get(SELECT); }
        public Timing drop() { return timings.get(DROP); }
        /** Sum of all timed statements, ns. */
        public long totalNanos() {
            long t = 0;
            for (Timing x : timings.values()) t += x.totalNanos();
            return t;
        }

        @Override public String toString() {
            StringBuilder sb = new StringBuilder("SeedWorkload.Result rows=").append(rows).append(" read=").append(rowsRead)
                    .append(" checksum=").append(Long.toHexString(checksum));
            for (Timing t : timings.values()) sb.append("\n  ").append(t);
            return sb.toString();
        }
    }
}
