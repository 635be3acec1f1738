package org.sdp4j.log;

import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

import org.sdp4j.conf.ProgramIdentity;

/**
 * libsdp's line prefix (log.c {@code __sdp_log}): file lines are {@code "<ctime> <program>[<pid>] libsdp <message>"},
 * syslog messages {@code "<program>[<pid>] libsdp <message>"}; sdp4j writes {@code sdp4j} for {@code libsdp}, and the
 * JVM's first program name for {@code java}, the name every JVM has.
 */
final class LogPrefix {
    /** ctime(3) without the newline: "Thu Jan  1 00:00:00 2024". */
    private static final DateTimeFormatter CTIME = DateTimeFormatter.ofPattern("EEE MMM ppd HH:mm:ss yyyy",
            Locale.ROOT);
    private static final long PID = ProcessHandle.current().pid();

    private LogPrefix() {}

    static String fileLine(String message) {
        return CTIME.format(ZonedDateTime.now()) + " " + program() + "[" + PID + "] sdp4j " + message + "\n";
    }

    static String syslogMessage(String message) {
        return program() + "[" + PID + "] sdp4j " + message;
    }

    static String program() {
        try {
            return ProgramIdentity.current().toString();
        } catch (RuntimeException e) {
            return "java";
        }
    }
}
