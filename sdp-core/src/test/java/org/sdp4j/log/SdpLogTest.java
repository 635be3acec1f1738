package org.sdp4j.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sdp4j.conf.AddressPattern;
import org.sdp4j.conf.Family;
import org.sdp4j.conf.LogSettings;
import org.sdp4j.conf.Match;
import org.sdp4j.conf.ProgramIdentity;
import org.sdp4j.conf.Role;
import org.sdp4j.conf.Rule;

/** Levels, destinations and the decision line. */
class SdpLogTest {
    @TempDir
    Path dir;

    private PrintStream realErr;
    private ByteArrayOutputStream err;

    @BeforeEach
    void captureStderr() {
        realErr = System.err;
        err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restore() {
        SdpLog.configure(null, null);
        SdpLog.uid = LogFiles::currentUid;
        SdpLog.syslogCommand = null;
        System.setErr(realErr);
    }

    private String stderr() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void defaultsAreLibsdpsErrorsOnlyOnStderr() {
        SdpLog.configure(null, null);
        assertEquals(9, SdpLog.minLevel());
        assertEquals("stderr", SdpLog.destination());
        assertTrue(SdpLog.enabled(SdpLog.ERROR));
        assertFalse(SdpLog.enabled(SdpLog.WARN));
        SdpLog.log(SdpLog.DECISION, "hidden");
        SdpLog.log(SdpLog.ERROR, "shown");
        assertEquals("sdp4j: shown" + System.lineSeparator(), stderr());
    }

    @Test
    void minLevelFromFileThenOverride() {
        SdpLog.configure(new LogSettings(7, null, null), null);
        assertTrue(SdpLog.enabled(7));
        assertFalse(SdpLog.enabled(6));
        SdpLog.configure(new LogSettings(7, null, null), new LogSettings(1, null, null));
        assertTrue(SdpLog.enabled(SdpLog.DEBUG));
        SdpLog.configure(new LogSettings(3, LogSettings.Destination.STDERR, null), new LogSettings(0, null, null));
        assertEquals(3, SdpLog.minLevel());
    }

    @Test
    void decisionLineFormat() {
        SdpLog.configure(new LogSettings(7, null, null), null);
        Rule rule = new Rule(12, "use sdp client * *:*", Family.SDP, Role.CLIENT, "*", AddressPattern.ANY, 0, 65535);
        InetSocketAddress to = new InetSocketAddress(InetAddress.getLoopbackAddress(), 50000);
        SdpLog.decision(Role.CLIENT, to, ProgramIdentity.of("app"), new Match(Family.BOTH, rule), "tcp",
                "rsocket connect refused");
        SdpLog.decision(Role.SERVER, to, ProgramIdentity.of("app"), new Match(Family.SDP, null), "sdp", null);
        String[] lines = stderr().split(System.lineSeparator());
        assertEquals("sdp4j: client 127.0.0.1:50000 program=app rule=line 12 family=both transport=tcp"
                + " fallback=\"rsocket connect refused\"", lines[0]);
        assertEquals("sdp4j: server 127.0.0.1:50000 program=app rule=default family=sdp transport=sdp", lines[1]);
    }

    @Test
    void decisionsAreNotFormattedWhenDisabled() {
        SdpLog.configure(null, null);
        SdpLog.decision(Role.CLIENT, InetSocketAddress.createUnresolved("db", 1), ProgramIdentity.of("x"),
                new Match(Family.TCP, null), "tcp", null);
        assertEquals("", stderr());
    }

    @Test
    void agentOptionFileIsAPlainPathAppendedAndCreated() throws Exception {
        Path log = dir.resolve("sdp4j.log");
        Files.writeString(log, "earlier line\n");
        SdpLog.configure(new LogSettings(9, LogSettings.Destination.STDERR, null),
                new LogSettings(7, LogSettings.Destination.FILE, log.toString()));
        assertEquals("file " + log, SdpLog.destination());
        SdpLog.log(SdpLog.DECISION, "first");
        SdpLog.log(SdpLog.INFO, "filtered");
        SdpLog.log(SdpLog.ERROR, "second");
        List<String> lines = Files.readAllLines(log);
        assertEquals(3, lines.size(), lines.toString());
        assertEquals("earlier line", lines.get(0));
        // libsdp's file format: ctime, program[pid], then the message
        String prefix = "^\\w{3} \\w{3} [ \\d]\\d \\d\\d:\\d\\d:\\d\\d \\d{4} \\S+\\[" + ProcessHandle.current().pid()
                + "\\] sdp4j ";
        assertTrue(lines.get(1).matches(prefix + "first$"), lines.get(1));
        assertTrue(lines.get(2).matches(prefix + "second$"), lines.get(2));
        assertEquals("", stderr());
        Path fresh = dir.resolve("new.log");
        SdpLog.configure(null, new LogSettings(9, LogSettings.Destination.FILE, fresh.toString()));
        SdpLog.log(SdpLog.ERROR, "x");
        assertEquals(1, Files.readAllLines(fresh).size());
    }

    @Test
    void configFileNamesArePlacedTheLibsdpWay() throws Exception {
        assertEquals(Path.of("/var/log/libsdp.log"), LogFiles.placeConfigName("libsdp.log", 0));
        assertEquals(Path.of("/var/log/x.log"), LogFiles.placeConfigName("/some/dir/x.log", 0));
        assertEquals(Path.of("rel.log"), LogFiles.placeConfigName("rel.log", -1));
        Path named = dir.resolve("app.log");
        Path placed = LogFiles.placeConfigName(named.toString(), 4242);
        assertEquals(dir.resolve("app.log.4242").resolve("log"), placed);
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(placed.getParent())));
    }

    @Test
    void logFileFromAConfigGoesToNameDotUidSlashLog() throws Exception {
        int uid = LogFiles.currentUid();
        SdpLog.uid = () -> uid == 0 ? 4242 : uid; // as root the file would go to /var/log
        Path named = dir.resolve("libsdp.log");
        SdpLog.configure(new LogSettings(9, LogSettings.Destination.FILE, named.toString()), null);
        SdpLog.log(SdpLog.ERROR, "into the libsdp place");
        Path expected = dir.resolve("libsdp.log." + (uid == 0 ? 4242 : uid)).resolve("log");
        assertEquals("file " + expected, SdpLog.destination());
        assertTrue(Files.readString(expected).endsWith(" sdp4j into the libsdp place\n"));
    }

    @Test
    void unsafeLogDirectoryIsRefusedAndStderrUsed() throws Exception {
        int uid = LogFiles.currentUid();
        Path named = dir.resolve("shared.log");
        Path d = Files.createDirectory(dir.resolve("shared.log." + uid));
        Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwxrwxrwx"));
        SdpLog.uid = () -> uid == 0 ? 4242 : uid;
        if (uid == 0) {
            Files.createDirectory(dir.resolve("shared.log.4242")); // owned by root, not 4242
        }
        SdpLog.configure(new LogSettings(9, LogSettings.Destination.FILE, named.toString()), null);
        assertEquals("stderr", SdpLog.destination());
        assertTrue(stderr().contains("sdp4j: WARNING cannot log to file " + named + " (refusing to log into"),
                stderr());
        SdpLog.log(SdpLog.ERROR, "still logged");
        assertTrue(stderr().contains("sdp4j: still logged"));
    }

    @Test
    void symlinkedLogFileIsRefusedEvenWhenTheUserNamedIt() throws Exception {
        Path target = dir.resolve("elsewhere");
        Files.writeString(target, "victim\n");
        Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rw-------"));
        Path link = Files.createSymbolicLink(dir.resolve("log"), target);
        java.io.IOException e = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class,
                () -> FileSink.open(link));
        assertTrue(e.getMessage().contains("is a symbolic link, not a regular file"), e.getMessage());
        Path dangling = Files.createSymbolicLink(dir.resolve("dangling"), dir.resolve("created-through-link"));
        assertThrows(java.io.IOException.class, () -> FileSink.open(dangling));
        assertFalse(Files.exists(dir.resolve("created-through-link")));
        SdpLog.configure(null, new LogSettings(9, LogSettings.Destination.FILE, link.toString()));
        assertEquals("stderr", SdpLog.destination());
        SdpLog.log(SdpLog.ERROR, "not into the target");
        assertEquals("victim\n", Files.readString(target));
        assertTrue(stderr().contains("cannot log to file " + link + " (" + link + " is a symbolic link"), stderr());
    }

    @Test
    void newLogFileIsCreatedOwnerOnlyAndFifoIsRefusedWithoutBlocking() throws Exception {
        Path f = dir.resolve("new.log");
        FileSink.open(f).close();
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
        Path fifo = dir.resolve("fifo.log");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        java.io.IOException e = assertThrows(java.io.IOException.class, () -> FileSink.open(fifo));
        assertTrue(e.getMessage().contains("is a FIFO"), e.getMessage());
        Path open = Files.createDirectory(dir.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        e = assertThrows(java.io.IOException.class, () -> FileSink.open(open.resolve("x.log")));
        assertTrue(e.getMessage().contains("is writable by every user and not sticky"), e.getMessage());
    }

    @Test
    void unwritableLogFileFallsBackToStderrWithAWarning() {
        SdpLog.configure(null, new LogSettings(9, LogSettings.Destination.FILE, dir.resolve("no/such/dir/x.log")
                .toString()));
        assertEquals("stderr", SdpLog.destination());
        assertTrue(stderr().startsWith("sdp4j: WARNING cannot log to file "), stderr());
    }

    @Test
    void syslogGoesThroughALoggerProcess() throws Exception {
        Path out = dir.resolve("syslog.txt");
        SdpLog.syslogCommand = List.of("sh", "-c", "cat >> '" + out + "'");
        SdpLog.configure(new LogSettings(8, LogSettings.Destination.SYSLOG, null), null);
        assertEquals("syslog (through logger)", SdpLog.destination());
        SdpLog.log(SdpLog.WARN, "to syslog\nwith a line break");
        SdpLog.configure(null, null); // closes logger's input: it exits after writing
        long deadline = System.nanoTime() + 10_000_000_000L;
        String got = "";
        while (System.nanoTime() < deadline) {
            got = Files.exists(out) ? Files.readString(out) : "";
            if (got.endsWith("\n")) {
                break;
            }
            Thread.sleep(20);
        }
        assertTrue(got.matches("\\S+\\[" + ProcessHandle.current().pid() + "\\] sdp4j to syslog with a line break\n"),
                got);
        assertEquals("", stderr());
    }

    @Test
    void syslogWithoutALoggerFallsBackToStderrOnce() {
        SdpLog.syslogCommand = List.of(dir.resolve("no-logger-here").toString());
        SdpLog.configure(new LogSettings(9, LogSettings.Destination.SYSLOG, null), null);
        SdpLog.log(SdpLog.ERROR, "one");
        SdpLog.log(SdpLog.ERROR, "two");
        String s = stderr();
        assertTrue(s.startsWith("sdp4j: WARNING destination syslog: "), s);
        assertEquals(s.indexOf("WARNING"), s.lastIndexOf("WARNING"), s);
        assertTrue(s.contains("sdp4j: one") && s.contains("sdp4j: two"), s);
        assertEquals("stderr (syslog unavailable)", SdpLog.destination());
    }

    @Test
    void concurrentWritersDoNotInterleaveLines() throws Exception {
        Path log = dir.resolve("threads.log");
        SdpLog.configure(null, new LogSettings(1, LogSettings.Destination.FILE, log.toString()));
        int threads = 8, each = 500;
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> ts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            Thread th = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < each; i++) {
                    SdpLog.log(SdpLog.DEBUG, "thread " + id + " message " + i + " " + "x".repeat(200));
                }
            });
            th.start();
            ts.add(th);
        }
        go.countDown();
        for (Thread th : ts) {
            th.join();
        }
        List<String> lines = Files.readAllLines(log);
        assertEquals(threads * each, lines.size());
        for (String l : lines) {
            assertTrue(l.matches(".* sdp4j thread \\d message \\d+ x{200}"), l);
        }
    }
}
