package org.sdp4j.log;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.channels.Channels;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeoutException;

import org.sdp4j.conf.SafePaths;

/**
 * Appends to a file, created 0600 if missing, never through a symbolic link (see {@link #open}). Unbuffered on purpose: one line is one {@code write(2)} on an
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

    static final long OPEN_BOUND_MILLIS = 2_000;
    private static final int GROUP_W = 020, OTHER_W = 02, STICKY = 01000;

    /**
     * Opens {@code path} for appending the way a file someone else may have planted must be opened (a root JVM
     * appends to it): never through a symbolic link (the last component is opened with {@code O_NOFOLLOW}, a new
     * file is created with {@code O_EXCL}, which does not follow one either), an existing file only if it is a
     * regular file owned by the effective uid, a new file created 0600, and only in a directory where nobody else
     * can swap the name (owned by the effective uid or root, not writable by others, nor by a non-root group when
     * the JVM is root, unless sticky). A refusal is an IOException saying why; the caller logs to stderr instead.
     */
    static FileSink open(Path path) throws IOException {
        Path file = path.toAbsolutePath();
        int euid = SafePaths.effectiveUid();
        checkDirectory(file.getParent(), euid);
        for (int attempt = 0; ; attempt++) {
            Map<String, Object> st;
            try {
                st = SafePaths.lstat(file);
            } catch (NoSuchFileException e) {
                try {
                    // O_CREAT|O_EXCL: fails on anything already there, a dangling symbolic link included
                    return new FileSink(path, Channels.newOutputStream(Files.newByteChannel(file, Set.of(
                            StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, StandardOpenOption.APPEND,
                            LinkOption.NOFOLLOW_LINKS), PosixFilePermissions.asFileAttribute(
                            PosixFilePermissions.fromString("rw-------")))));
                } catch (FileAlreadyExistsException raced) {
                    if (attempt > 0) {
                        throw new IOException(file + " keeps appearing while it is created; not used");
                    }
                    continue; // someone created it meanwhile: check what it is
                }
            }
            int mode = SafePaths.mode(st);
            if ((mode & 0170000) != 0100000) {
                throw new IOException(file + " is " + SafePaths.typeName(mode) + ", not a regular file; not"
                        + " followed or opened");
            }
            if (euid >= 0 && SafePaths.uid(st) != euid) {
                throw new IOException(file + " belongs to uid " + SafePaths.uid(st) + ", not to this process (uid "
                        + euid + "); not appended to");
            }
            OutputStream out;
            try {
                out = SafePaths.bounded(() -> Channels.newOutputStream(Files.newByteChannel(file, Set.of(
                        StandardOpenOption.WRITE, StandardOpenOption.APPEND, LinkOption.NOFOLLOW_LINKS))),
                        OPEN_BOUND_MILLIS, "sdp4j-log-open");
            } catch (TimeoutException e) {
                throw new IOException(file + " was replaced by something that blocks (a FIFO?) after it was"
                        + " checked; not used");
            }
            if (!SafePaths.sameFile(st, SafePaths.lstat(file))) {
                out.close();
                throw new IOException(file + " was replaced while it was opened; not used");
            }
            return new FileSink(path, out);
        }
    }

    private static void checkDirectory(Path dir, int euid) throws IOException {
        Map<String, Object> st = SafePaths.stat(dir);
        int mode = SafePaths.mode(st);
        int uid = SafePaths.uid(st);
        int gid = (Integer) st.get("gid");
        boolean sticky = (mode & STICKY) != 0;
        String why = null;
        if ((mode & 0170000) != 0040000) {
            why = "is not a directory";
        } else if (euid >= 0 && uid != euid && uid != 0) {
            why = "belongs to uid " + uid + ", who could replace the log file in it";
        } else if ((mode & OTHER_W) != 0 && !sticky) {
            why = "is writable by every user and not sticky (mode " + Integer.toOctalString(mode & 07777) + ")";
        } else if (euid == 0 && gid != 0 && (mode & GROUP_W) != 0 && !sticky) {
            why = "is writable by group " + gid + " and not sticky (mode " + Integer.toOctalString(mode & 07777)
                    + "), whose members could replace the log file of a root process";
        }
        if (why != null) {
            throw new IOException("the directory " + dir + " " + why);
        }
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
