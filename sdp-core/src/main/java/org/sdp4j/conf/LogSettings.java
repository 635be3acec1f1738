package org.sdp4j.conf;

/**
 * {@code log min-level N destination stderr|syslog|file NAME}. Levels as libsdp: 9 errors only ... 1 debug.
 * Either part may be absent in a file ({@code minLevel == 0} / {@code destination == null}).
 */
public record LogSettings(int minLevel, Destination destination, String fileName) {
    public enum Destination { STDERR, SYSLOG, FILE }

    /**
     * The agent's {@code log=} option: {@code LEVEL}, {@code LEVEL:DEST} ... TODO(conf): the syntax.
     * @throws IllegalArgumentException naming what was wrong
     */
    public static LogSettings parseOption(String spec) {
        throw new IllegalArgumentException("log= option not implemented yet: " + spec);
    }
}
