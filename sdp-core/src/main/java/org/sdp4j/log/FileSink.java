package org.sdp4j.log;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Appends to a file, created if missing. Unbuffered on purpose: one line is one {@code write(2)} on an
 * {@code O_APPEND} file, so lines of several JVMs sharing a log do not interleave and nothing is lost at exit.
 */
final class FileSink implements LogSink {
    private final Path path;
    private OutputStream out; // null once it failed
    private boolean warned;

    private FileSink(Path path, OutputStream out) {
        this.path = path;
        this.out = out;
    }

    /** @param refuseLinks libsdp's "Cowardly refusing to log into ... It is a link" check, for config-file names */
    static FileSink open(Path path, boolean refuseLinks) throws IOException {
        if (refuseLinks && Files.isSymbolicLink(path)) {
            throw new IOException(path + " is a symbolic link (libsdp refuses these too)");
        }
        OutputStream out = refuseLinks
                ? Files.newOutputStream(path, StandardOpenOption.CREATE, StandardOpenOption.APPEND,
                        StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)
                : Files.newOutputStream(path, StandardOpenOption.CREATE, StandardOpenOption.APPEND,
                        StandardOpenOption.WRITE);
        return new FileSink(path, out);
    }

    @Override
    public synchronized void write(String message) {
        if (out != null) {
            try {
                out.write(LogPrefix.fileLine(message).getBytes(StandardCharsets.UTF_8));
                return;
            } catch (IOException | RuntimeException e) {
                closeQuietly();
                if (!warned) {
                    warned = true;
                    StderrSink.warn("cannot write the log file " + path + " (" + e.getMessage()
                            + "); logging to stderr from now on");
                }
            }
        }
        StderrSink.INSTANCE.write(message);
    }

    @Override
    public String describe() {
        return "file " + path;
    }

    @Override
    public synchronized void close() {
        closeQuietly();
    }

    private void closeQuietly() {
        try {
            if (out != null) {
                out.close();
            }
        } catch (IOException ignored) {
            // closing a log file that failed already: nothing left to tell
        }
        out = null;
    }
}
