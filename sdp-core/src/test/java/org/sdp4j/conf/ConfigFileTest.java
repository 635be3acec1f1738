package org.sdp4j.conf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a config file may be: a regular file of bounded size; for a root JVM one only root could have written. The
 * attacks by a second real user are in src/test (and test.sh); these pin the checks themselves, with the effective
 * uid passed in so they hold whoever runs them.
 */
class ConfigFileTest {
    @TempDir
    Path dir;

    @Test
    void fifoIsRefusedWithoutOpeningIt() throws Exception {
        Path fifo = dir.resolve("fifo.conf");
        assertTrue(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor() == 0);
        ConfigException e = assertTimeoutPreemptively(Duration.ofSeconds(10),
                () -> assertThrows(ConfigException.class, () -> ConfigParser.parse(fifo)));
        assertTrue(e.getMessage().contains(fifo + ": is a FIFO (named pipe)"), e.getMessage());
        Path link = Files.createSymbolicLink(dir.resolve("link.conf"), fifo);
        e = assertTimeoutPreemptively(Duration.ofSeconds(10),
                () -> assertThrows(ConfigException.class, () -> ConfigParser.parse(link)));
        assertTrue(e.getMessage().contains("is a FIFO (named pipe) (" + fifo.toRealPath() + ")"), e.getMessage());
    }

    @Test
    void anOpenThatBlocksEndsAtTheBound() throws Exception {
        // what a FIFO swapped in between the stat and the open does: open(2) waits for a writer for ever
        Path fifo = dir.resolve("swapped");
        assertTrue(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor() == 0);
        long t0 = System.nanoTime();
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertThrows(java.util.concurrent.TimeoutException.class,
                () -> SafePaths.bounded(() -> java.nio.channels.FileChannel.open(fifo), 300, "test-open")));
        assertTrue(System.nanoTime() - t0 >= 300_000_000L);
        // the daemon thread left behind is released once someone opens the other end
        try (var w = java.nio.channels.FileChannel.open(fifo, java.nio.file.StandardOpenOption.WRITE)) {
            assertTrue(w.isOpen());
        }
    }

    @Test
    void devicesAreRefused() {
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigParser.parse(Path.of("/dev/zero")));
        assertTrue(e.getMessage().contains("/dev/zero: is a character device"), e.getMessage());
    }

    @Test
    void sizeIsBoundedAndNamed() throws Exception {
        Path big = dir.resolve("big.conf");
        Files.write(big, new byte[ConfigFile.MAX_BYTES + 1]);
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigParser.parse(big));
        assertTrue(e.getMessage().contains(big + ": larger than 1 MiB (the limit, 1048576 bytes)"), e.getMessage());
    }

    @Test
    void rootRefusesWhatOthersCouldWrite() throws Exception {
        Path d = Files.createDirectory(dir.resolve("d"));
        Path f = Files.writeString(d.resolve("libsdp.conf"), "use tcp client * *:*\n");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-rw-rw-"));
        if (SafePaths.effectiveUid() == 0) {
            ConfigException e = assertThrows(ConfigException.class, () -> ConfigFile.read(f, 0));
            assertTrue(e.getMessage().contains(f + " is writable by every user"), e.getMessage());
            Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r--r--"));
            assertArrayEquals(Files.readAllBytes(f), ConfigFile.read(f, 0));
            Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwxrwxrwx"));
            e = assertThrows(ConfigException.class, () -> ConfigFile.read(f, 0));
            assertTrue(e.getMessage().contains("the directory " + d + " is writable by every user"), e.getMessage());
            Files.setAttribute(d, "unix:mode", 01777); // sticky, like /tmp
            assertArrayEquals(Files.readAllBytes(f), ConfigFile.read(f, 0));
            Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwxr-xr-x"));
            Path other = Files.createDirectory(dir.resolve("other"));
            Files.setPosixFilePermissions(other, PosixFilePermissions.fromString("rwxrwxrwx"));
            Path link = Files.createSymbolicLink(other.resolve("link"), f); // the link is in a directory others write
            e = assertThrows(ConfigException.class, () -> ConfigFile.read(link, 0));
            assertTrue(e.getMessage().contains("the directory " + other + " is writable by every user"),
                    e.getMessage());
            Path cwd = Path.of("").toAbsolutePath();
            assertArrayEquals(Files.readAllBytes(f), ConfigFile.read(cwd.relativize(f), 0)); // relative: from the cwd
            Files.setAttribute(f, "unix:uid", 65534);
            e = assertThrows(ConfigException.class, () -> ConfigFile.read(f, 0));
            assertTrue(e.getMessage().contains(f + " belongs to uid 65534"), e.getMessage());
        } else {
            // not root: a user may read what they like, as libsdp does
            assertArrayEquals(Files.readAllBytes(f), ConfigFile.read(f, SafePaths.effectiveUid()));
        }
    }
}
