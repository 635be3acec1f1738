package org.sdp4j.conf;

import java.nio.file.Path;

/**
 * A libsdp.conf that cannot be used: names the file, the 1-based line and what was expected there.
 * The only exception the parser throws, whatever its input.
 */
public final class ConfigException extends Exception {
    private static final long serialVersionUID = 1L;
    private final String source;
    private final int line;

    public ConfigException(String source, int line, String message) {
        super(source + (line > 0 ? ":" + line : "") + ": " + message);
        this.source = source;
        this.line = line;
    }

    public ConfigException(Path source, int line, String message) {
        this(String.valueOf(source), line, message);
    }

    /** The file (or other source name) the error is in. */
    public String source() { return source; }

    /** 1-based line, or 0 when the error is not about one line (unreadable file). */
    public int line() { return line; }
}
