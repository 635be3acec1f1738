package org.sdp4j.conf;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

import org.sdp4j.log.SdpLog;

/**
 * RDMA socket tunables, as a libsdp or rsockets user knows them: buffer sizes, queue sizes, inline size, busy-poll
 * time. Set globally ({@code -Dsdp4j.rsocket.sqsize=1024}), per rule (an {@code #sdp4j:} directive in libsdp.conf,
 * see {@link ConfigParser}) and per socket (the transport's socket options). A socket's own setting wins over its
 * rule's, a rule's over the global one. docs/tunables.md lists each with its libsdp/rsocket equivalent.
 */
public final class Tunables {

    /** One tunable: its directive/property name, the socket option it sets, and its valid range. */
    public enum Key {
        /** rsocket send buffer (bytes): SO_SNDBUF through rsetsockopt; rsockets' default is 128 KiB. */
        SNDBUF("sndbuf", "SO_SNDBUF", 1, Integer.MAX_VALUE),
        /** rsocket receive buffer (bytes): SO_RCVBUF; rsockets' default is 128 KiB. */
        RCVBUF("rcvbuf", "SO_RCVBUF", 1, Integer.MAX_VALUE),
        /** send queue depth (work requests): RDMA_SQSIZE; rsockets clamps to 16..65534 (default 384, /etc/rdma/rsocket/sqsize_default). */
        SQSIZE("sqsize", "RDMA_SQSIZE", 1, 65534),
        /** receive queue depth: RDMA_RQSIZE; rsockets clamps to 16..65534 (default 384, /etc/rdma/rsocket/rqsize_default). */
        RQSIZE("rqsize", "RDMA_RQSIZE", 1, 65534),
        /** largest send carried inline (bytes): RDMA_INLINE; default 64, /etc/rdma/rsocket/inline_default. */
        INLINE("inline", "RDMA_INLINE", 1, 65534),
        /** busy-poll before sleeping (microseconds, 0 off): sdp4j's RDMA_BUSY_POLL; libsdp recv_poll's role. */
        BUSYPOLL("busypoll", "RDMA_BUSY_POLL", 0, 10_000_000);

        private final String word;
        private final String option;
        private final int min, max;

        Key(String word, String option, int min, int max) {
            this.word = word;
            this.option = option;
            this.min = min;
            this.max = max;
        }

        /** The name in a directive and in {@code -Dsdp4j.rsocket.NAME}. */
        public String word() { return word; }

        /** The name of the socket option it sets ({@code SocketOption.name()}). */
        public String option() { return option; }

        public int min() { return min; }

        public int max() { return max; }

        public static Key of(String word) {
            for (Key k : values()) {
                if (k.word.equals(word)) {
                    return k;
                }
            }
            return null;
        }

        static String names() {
            StringJoiner j = new StringJoiner(", ");
            for (Key k : values()) {
                j.add(k.word);
            }
            return j.toString();
        }
    }

    public static final Tunables NONE = new Tunables(new EnumMap<>(Key.class));

    private final Map<Key, Integer> values;

    private Tunables(EnumMap<Key, Integer> values) {
        this.values = Collections.unmodifiableMap(values);
    }

    public static Tunables of(Map<Key, Integer> values) {
        return values.isEmpty() ? NONE : new Tunables(new EnumMap<>(values));
    }

    /** Key to value, in {@link Key} order; only the keys set. */
    public Map<Key, Integer> values() {
        return values;
    }

    public boolean isEmpty() {
        return values.isEmpty();
    }

    /**
     * Parses one value; null when it is fine, else what is wrong (for a FILE:LINE or a -D error message).
     * Accepts decimal digits with an optional k/m suffix (KiB, MiB) for the byte sizes.
     */
    static Object parseValue(Key k, String v) {
        if (v == null || v.isEmpty()) {
            return "expected a number for " + k.word;
        }
        String s = v.toLowerCase(Locale.ROOT);
        long mult = 1;
        if ((k == Key.SNDBUF || k == Key.RCVBUF) && (s.endsWith("k") || s.endsWith("m"))) {
            mult = s.endsWith("k") ? 1024 : 1024 * 1024;
            s = s.substring(0, s.length() - 1);
        }
        if (s.isEmpty() || s.length() > 10 || !ConfigParser.allDigits(s)) {
            return k.word + "=" + v + ": expected a whole number" + (k == Key.SNDBUF || k == Key.RCVBUF
                    ? " of bytes (suffix k or m allowed)" : k == Key.BUSYPOLL ? " of microseconds" : "");
        }
        long n = Long.parseLong(s) * mult;
        if (n < k.min || n > k.max) {
            return k.word + "=" + v + ": out of range " + k.min + ".." + k.max;
        }
        return (int) n;
    }

    private static final class Global {
        static final Tunables VALUE = fromProperties(System.getProperties());
    }

    /** {@code -Dsdp4j.rsocket.NAME=VALUE} for every key; a bad value is logged and ignored. Read once. */
    public static Tunables global() {
        return Global.VALUE;
    }

    static Tunables fromProperties(java.util.Properties p) {
        EnumMap<Key, Integer> m = new EnumMap<>(Key.class);
        for (Key k : Key.values()) {
            String name = "sdp4j.rsocket." + k.word;
            String v = p.getProperty(name);
            if (v == null || v.isBlank()) {
                continue;
            }
            Object r = parseValue(k, v.trim());
            if (r instanceof Integer i) {
                m.put(k, i);
            } else {
                SdpLog.log(SdpLog.ERROR, "-D" + name + "=" + v + ": " + r + "; ignored");
            }
        }
        return of(m);
    }

    /** This set with {@code over}'s values replacing its own. */
    public Tunables with(Tunables over) {
        if (over.isEmpty()) {
            return this;
        }
        EnumMap<Key, Integer> m = new EnumMap<>(Key.class);
        m.putAll(values);
        m.putAll(over.values);
        return of(m);
    }

    @Override
    public String toString() {
        StringJoiner j = new StringJoiner(" ");
        values.forEach((k, v) -> j.add(k.word + "=" + v));
        return j.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Tunables t && t.values.equals(values);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }
}
