package org.sdp4j.log;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.function.IntSupplier;

import org.sdp4j.conf.LogSettings;
import org.sdp4j.conf.Match;
import org.sdp4j.conf.ProgramIdentity;
import org.sdp4j.conf.Role;

/**
 * libsdp-style logging (OFED libsdp log.c): a message is written when its level is at least the configured
 * min-level, 9 errors only ... 1 debug. libsdp's defaults are min-level 9 and stderr ({@code __sdp_min_level = 9},
 * {@code __sdp_log_file == NULL} means stderr). Destinations: stderr, syslog, file — see the sinks for how each
 * follows libsdp.
 * <p>
 * It runs inside the application's JVM before {@code main}: no java.util.logging, no library, no socket. A disabled
 * level costs one volatile read; writing is thread-safe (each sink serializes its own lines).
 */
public final class SdpLog {
    /** libsdp's levels (libsdp.conf): 9 errors, 8 warnings, 7 connect/listen summary, 4 positive match,
     *  3 negative match, 2 function calls, 1 debug. 5 is sdp4j's "agent started" summary. */
    public static final int ERROR = 9, WARN = 8, DECISION = 7, INFO = 5, MATCH = 4, NO_MATCH = 3, CALL = 2, DEBUG = 1;

    /** log.c: {@code int __sdp_min_level = 9;} */
    public static final int DEFAULT_MIN_LEVEL = 9;

    private static volatile int minLevel = DEFAULT_MIN_LEVEL;
    private static volatile LogSink sink = StderrSink.INSTANCE;

    /** Seams for tests: the uid libsdp's file placement depends on, and the syslog helper's command line. */
    static volatile IntSupplier uid = LogFiles::currentUid;
    static volatile List<String> syslogCommand;

    private SdpLog() {}

    /**
     * Applies settings from the file, then overrides (agent option {@code log=}); either may be null, and each
     * replaces only what it sets. Starts from libsdp's defaults every time, so calling it again reconfigures. A
     * destination that cannot be opened falls back to stderr with a warning, as libsdp keeps logging where it was.
     */
    public static synchronized void configure(LogSettings fromFile, LogSettings override) {
        int level = DEFAULT_MIN_LEVEL;
        LogSettings.Destination dest = LogSettings.Destination.STDERR;
        String file = null;
        boolean literalPath = false;
        for (LogSettings s : new LogSettings[] {fromFile, override}) {
            if (s == null) {
                continue;
            }
            if (s.minLevel() > 0) {
                level = s.minLevel();
            }
            if (s.destination() != null) {
                dest = s.destination();
                file = s.fileName();
                literalPath = s == override;
            }
        }
        LogSink next = open(dest, file, literalPath);
        LogSink old = sink;
        sink = next;
        minLevel = level;
        if (old != next) {
            old.close();
        }
    }

    private static LogSink open(LogSettings.Destination dest, String file, boolean literalPath) {
        switch (dest) {
            case SYSLOG:
                return new SyslogSink(syslogCommand);
            case FILE:
                if (file == null || file.isEmpty()) {
                    StderrSink.warn("log destination file without a file name; logging to stderr");
                    return StderrSink.INSTANCE;
                }
                try {
                    Path p = literalPath ? Path.of(file) : LogFiles.placeConfigName(file, uid.getAsInt());
                    return FileSink.open(p);
                } catch (IOException | RuntimeException e) {
                    StderrSink.warn("cannot log to file " + file + " (" + e.getMessage() + "); logging to stderr");
                    return StderrSink.INSTANCE;
                }
            default:
                return StderrSink.INSTANCE;
        }
    }

    public static boolean enabled(int level) {
        return level >= minLevel;
    }

    public static void log(int level, String message) {
        if (level >= minLevel) {
            sink.write(message);
        }
    }

    /** The configured min-level (9 unless configured). */
    public static int minLevel() {
        return minLevel;
    }

    /** Where lines go now: "stderr", "file /tmp/libsdp.log.1000/log", "syslog (through logger)". */
    public static String destination() {
        return sink.describe();
    }

    /**
     * One line per connect/listen decision (level {@link #DECISION}): role, address:port, program, rule line or
     * {@code default}, the transport finally used, and why it differs from the rule when it does.
     */
    public static void decision(Role role, InetSocketAddress address, ProgramIdentity program, Match match,
                                String transportUsed, String fallbackReason) {
        decision(role, address, program, match, transportUsed, fallbackReason, null);
    }

    /**
     * A decision whose connect or listen then failed: {@code transportTried} is the transport the error came from
     * ({@code none} when none could be tried), {@code error} the application's exception, appended as
     * {@code error="..."}.
     */
    public static void decision(Role role, InetSocketAddress address, ProgramIdentity program, Match match,
                                String transportTried, String fallbackReason, String error) {
        if (!enabled(DECISION)) {
            return;
        }
        StringBuilder b = new StringBuilder(128);
        b.append(role.keyword()).append(' ').append(address.getAddress() == null ? address.getHostString()
                : address.getAddress().getHostAddress()).append(':').append(address.getPort())
                .append(" program=").append(program)
                .append(" rule=").append(match.origin())
                .append(" family=").append(match.family().keyword())
                .append(" transport=").append(transportTried);
        if (fallbackReason != null) {
            b.append(" fallback=\"").append(fallbackReason).append('"');
        }
        if (error != null) {
            b.append(" error=\"").append(error).append('"');
        }
        log(DECISION, b.toString());
    }
}
