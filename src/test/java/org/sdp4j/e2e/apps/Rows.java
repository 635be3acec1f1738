package org.sdp4j.e2e.apps;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

/** The seed workload's rows: c1 = i, c2 and c3 functions of i, and a checksum over all of them in order. */
public final class Rows {
    public static final int COUNT = 4000;

    private Rows() {}

    public static long c1(int i) {
        return i;
    }

    /** Not a round number, so a lossy conversion anywhere shows. */
    public static double c2(int i) {
        return i * 1.25 + Math.sqrt(i) / 3.0;
    }

    /** At most 8 characters (varchar(8)). */
    public static String c3(int i) {
        return "r" + Integer.toString(i * 7919 % 1_000_003, 36);
    }

    /** Accumulates (c1, c2, c3) rows in order. */
    public static final class Checksum {
        private final CRC32 crc = new CRC32();
        private final ByteBuffer b = ByteBuffer.allocate(16);
        private int rows;

        public void add(long c1, double c2, String c3) {
            b.clear();
            b.putLong(c1).putLong(Double.doubleToLongBits(c2)).flip();
            crc.update(b);
            crc.update(c3.getBytes(StandardCharsets.UTF_8));
            rows++;
        }

        public int rows() {
            return rows;
        }

        public String value() {
            return String.format("%08x", crc.getValue());
        }
    }

    /** The checksum a correct run must print. */
    public static String expectedChecksum(int count) {
        Checksum c = new Checksum();
        for (int i = 0; i < count; i++) {
            c.add(c1(i), c2(i), c3(i));
        }
        return c.value();
    }
}
