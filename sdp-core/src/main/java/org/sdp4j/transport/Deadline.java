package org.sdp4j.transport;

import java.net.SocketTimeoutException;

/**
 * A point in {@link System#nanoTime()} time by which a wait must end, or none. Every bounded wait of every transport
 * (connect, accept, read with {@code SO_TIMEOUT}, a handshake) computes what is left through this one class, so the
 * overflow and "0 means forever" rules live in one place.
 */
public final class Deadline {
    public static final Deadline NONE = new Deadline(Long.MAX_VALUE, true);
    private final long at;
    private final boolean never;

    private Deadline(long at, boolean never) {
        this.at = at;
        this.never = never;
    }

    /** {@code millis} from now; 0 or less means no deadline (java.net's convention for timeouts). */
    public static Deadline afterMillis(long millis) {
        return millis <= 0 ? NONE : afterNanos(Math.multiplyExact(Math.min(millis, Long.MAX_VALUE / 2_000_000L),
                1_000_000L));
    }

    public static Deadline afterNanos(long nanos) {
        return nanos <= 0 ? new Deadline(System.nanoTime(), false) : new Deadline(System.nanoTime() + nanos, false);
    }

    /** The earlier of this and {@code other}. */
    public Deadline min(Deadline other) {
        if (never) {
            return other;
        }
        if (other.never) {
            return this;
        }
        return at - other.at <= 0 ? this : other;
    }

    public boolean isNone() {
        return never;
    }

    /** Nanoseconds left, at least 0; {@link Long#MAX_VALUE} when there is no deadline. */
    public long remainingNanos() {
        if (never) {
            return Long.MAX_VALUE;
        }
        return Math.max(0, at - System.nanoTime());
    }

    /** Milliseconds left for a poll-style call: -1 for none, else at least 1 while time remains, 0 once passed. */
    public int pollMillis() {
        if (never) {
            return -1;
        }
        long n = remainingNanos();
        return n == 0 ? 0 : (int) Math.min(Integer.MAX_VALUE, Math.max(1, (n + 999_999) / 1_000_000));
    }

    public boolean expired() {
        return !never && at - System.nanoTime() <= 0;
    }

    /** Throws {@code SocketTimeoutException(what)} once the deadline has passed. */
    public void check(String what) throws SocketTimeoutException {
        if (expired()) {
            throw new SocketTimeoutException(what);
        }
    }
}
