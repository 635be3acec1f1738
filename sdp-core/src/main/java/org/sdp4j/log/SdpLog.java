package org.sdp4j.log;

import java.net.InetSocketAddress;

import org.sdp4j.conf.LogSettings;
import org.sdp4j.conf.Match;
import org.sdp4j.conf.ProgramIdentity;
import org.sdp4j.conf.Role;

/**
 * libsdp-style logging: a message is written when its level is at least the configured min-level
 * (9 errors only ... 1 debug; libsdp's default is 9). Destinations stderr, syslog, file.
 * TODO(conf): destinations other than stderr, syslog, prefix format.
 */
public final class SdpLog {
    public static final int ERROR = 9, WARN = 8, DECISION = 7, INFO = 5, DEBUG = 1;

    private static volatile int minLevel = 9;

    private SdpLog() {}

    /** Applies settings from the file, then overrides (agent option {@code log=}); either may be null. */
    public static synchronized void configure(LogSettings fromFile, LogSettings override) {
        if (fromFile != null && fromFile.minLevel() > 0) {
            minLevel = fromFile.minLevel();
        }
        if (override != null && override.minLevel() > 0) {
            minLevel = override.minLevel();
        }
    }

    public static boolean enabled(int level) {
        return level >= minLevel;
    }

    public static void log(int level, String message) {
        if (enabled(level)) {
            System.err.println("sdp4j: " + message);
        }
    }

    /**
     * One line per connect/listen decision (level {@link #DECISION}): role, address:port, program, rule line or
     * {@code default}, the transport finally used, and why it differs from the rule when it does.
     */
    public static void decision(Role role, InetSocketAddress address, ProgramIdentity program, Match match,
                                String transportUsed, String fallbackReason) {
        if (!enabled(DECISION)) {
            return;
        }
        StringBuilder b = new StringBuilder(128);
        b.append(role.keyword()).append(' ').append(address.getAddress() == null ? address.getHostString()
                : address.getAddress().getHostAddress()).append(':').append(address.getPort())
                .append(" program=").append(program)
                .append(" rule=").append(match.origin())
                .append(" family=").append(match.family().keyword())
                .append(" transport=").append(transportUsed);
        if (fallbackReason != null) {
            b.append(" fallback=\"").append(fallbackReason).append('"');
        }
        log(DECISION, b.toString());
    }
}
