package org.sdp4j.conf;

import java.util.Locale;

/**
 * {@code log min-level N destination stderr|syslog|file NAME}. Levels as libsdp: 9 errors only ... 1 debug.
 * Either part may be absent ({@code minLevel == 0} / {@code destination == null}); {@code fileName} is set only for
 * {@link Destination#FILE}. A NAME from a libsdp.conf is placed the way libsdp places it (see SdpLog); a path from
 * the agent's {@code log=} option is used as written.
 */
public record LogSettings(int minLevel, Destination destination, String fileName) {
    public enum Destination { STDERR, SYSLOG, FILE }

    private static final String SYNTAX = "LEVEL[:stderr|:syslog|:file:PATH], LEVEL 1 (debug) to 9 (errors only),"
            + " e.g. log=7:stderr";

    /**
     * The agent's {@code log=} option: {@code LEVEL}, {@code LEVEL:stderr}, {@code LEVEL:syslog} or
     * {@code LEVEL:file:PATH} (PATH is the rest, colons included).
     *
     * @throws IllegalArgumentException naming what was wrong
     */
    public static LogSettings parseOption(String spec) {
        if (spec == null || spec.isBlank()) {
            throw new IllegalArgumentException("log= option is empty; expected " + SYNTAX);
        }
        String s = spec.trim();
        int colon = s.indexOf(':');
        String levelText = colon < 0 ? s : s.substring(0, colon);
        if (levelText.length() != 1 || levelText.charAt(0) < '1' || levelText.charAt(0) > '9') {
            throw new IllegalArgumentException("log=" + spec + ": level '" + levelText + "' is not 1-9; expected "
                    + SYNTAX);
        }
        int level = levelText.charAt(0) - '0';
        if (colon < 0) {
            return new LogSettings(level, null, null);
        }
        String rest = s.substring(colon + 1);
        int colon2 = rest.indexOf(':');
        String dest = (colon2 < 0 ? rest : rest.substring(0, colon2)).toLowerCase(Locale.ROOT);
        switch (dest) {
            case "stderr", "syslog" -> {
                if (colon2 >= 0) {
                    throw new IllegalArgumentException("log=" + spec + ": nothing may follow '" + dest
                            + "'; expected " + SYNTAX);
                }
                return new LogSettings(level, dest.equals("stderr") ? Destination.STDERR : Destination.SYSLOG, null);
            }
            case "file" -> {
                String path = colon2 < 0 ? "" : rest.substring(colon2 + 1);
                if (path.isBlank()) {
                    throw new IllegalArgumentException("log=" + spec + ": 'file' needs a path, as in "
                            + level + ":file:/var/tmp/sdp4j.log");
                }
                return new LogSettings(level, Destination.FILE, path);
            }
            default -> throw new IllegalArgumentException("log=" + spec + ": destination '" + dest
                    + "' is not stderr, syslog or file; expected " + SYNTAX);
        }
    }
}
