package org.sdp4j.conf;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.TimeoutException;

/**
 * Reads a libsdp.conf the way a file another user may have planted must be read: it must be a regular file
 * (a FIFO would block {@code open(2)} and then {@code read(2)} forever, before the application's {@code main}; a
 * device or directory is not a config), at most {@link #MAX_BYTES}, and a JVM whose effective uid is root reads it
 * only if root alone could have written it and every directory and link leading to it ({@link SafePaths}).
 *
 * <p>Java cannot open with {@code O_NONBLOCK} or {@code fstat} an open channel, so the type is checked with
 * {@code stat} before the open, the last component is opened with {@code O_NOFOLLOW}, and the file is checked
 * again after the read to be the one that was checked. Someone able to swap in a FIFO between the check and the
 * open (only a writer of the directory: never another user for a root JVM, which refuses such directories) gets a
 * {@link ConfigException} after {@link #OPEN_BOUND_MILLIS}, not a hung JVM; the reader thread is a daemon.
 */
final class ConfigFile {
    /** A libsdp.conf is a few kilobytes; anything this large is the wrong file, and reading it all would hurt. */
    static final int MAX_BYTES = 1 << 20;
    static final long OPEN_BOUND_MILLIS = 5_000;

    private ConfigFile() {}

    static byte[] read(Path file) throws ConfigException {
        return read(file, SafePaths.effectiveUid());
    }

    /** @param euid the effective uid (0: root's rules apply), -1 when unknown */
    static byte[] read(Path file, int euid) throws ConfigException {
        Path real;
        Map<String, Object> before;
        try {
            int type = SafePaths.mode(SafePaths.stat(file)); // stat, not open: a FIFO must never be opened
            if ((type & SafePaths.S_IFMT) != SafePaths.S_IFREG) {
                throw new ConfigException(file, 0, "is " + SafePaths.typeName(type) + (Files.isSymbolicLink(file)
                        ? " (" + file.toRealPath() + ")" : "") + ", not a regular file; a libsdp.conf must be a"
                        + " regular file");
            }
            real = euid == 0 ? SafePaths.requireRootOnly(file) : file.toRealPath();
            before = SafePaths.lstat(real);
        } catch (NoSuchFileException e) {
            throw new ConfigException(file, 0, "cannot read: no such file"
                    + (file.toString().equals(e.getFile()) ? "" : " (" + e.getFile() + ")"));
        } catch (AccessDeniedException e) {
            throw new ConfigException(file, 0, "cannot read: permission denied"
                    + (file.toString().equals(e.getFile()) ? "" : " (" + e.getFile() + ")"));
        } catch (IOException | RuntimeException e) {
            throw new ConfigException(file, 0, "refused: " + e.getMessage());
        }
        int mode = SafePaths.mode(before);
        if ((mode & SafePaths.S_IFMT) != SafePaths.S_IFREG) {
            throw new ConfigException(file, 0, "is " + SafePaths.typeName(mode) + (real.equals(file) ? "" : " (" + real
                    + ")") + ", not a regular file; a libsdp.conf must be a regular file");
        }
        byte[] bytes = readBounded(file, real);
        try {
            if (!SafePaths.sameFile(before, SafePaths.lstat(real))) {
                throw new ConfigException(file, 0, "was replaced while it was read (" + real + "); not used");
            }
        } catch (IOException e) {
            throw new ConfigException(file, 0, "was removed while it was read (" + real + "): " + e.getMessage());
        }
        if (bytes.length > MAX_BYTES) {
            throw new ConfigException(file, 0, "larger than " + (MAX_BYTES >> 20) + " MiB (the limit, "
                    + MAX_BYTES + " bytes); not a libsdp.conf");
        }
        return bytes;
    }

    private static byte[] readBounded(Path file, Path real) throws ConfigException {
        try {
            return SafePaths.bounded(() -> {
                try (FileChannel ch = FileChannel.open(real, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
                     InputStream in = Channels.newInputStream(ch)) {
                    return in.readNBytes(MAX_BYTES + 1);
                }
            }, OPEN_BOUND_MILLIS, "sdp4j-config-reader");
        } catch (TimeoutException e) {
            throw new ConfigException(file, 0, "could not be read within " + OPEN_BOUND_MILLIS + " ms (" + real
                    + " was replaced by something that blocks, such as a FIFO, after it was checked); not used");
        } catch (AccessDeniedException e) {
            throw new ConfigException(file, 0, "cannot read: permission denied");
        } catch (NoSuchFileException e) {
            throw new ConfigException(file, 0, "cannot read: no such file");
        } catch (IOException | RuntimeException e) {
            throw new ConfigException(file, 0, "cannot read: " + e);
        }
    }
}
