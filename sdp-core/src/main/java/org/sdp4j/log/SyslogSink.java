package org.sdp4j.log;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code destination syslog}. libsdp calls {@code vsyslog(LOG_USER | LOG_NOTICE, ...)}, which sends a datagram to
 * the {@code /dev/log} UNIX socket; the JDK has UNIX <em>stream</em> channels only (JDK 16+), and on current Linux
 * {@code /dev/log} is a datagram socket (systemd-journald, rsyslog), so Java cannot write to it. Instead sdp4j starts
 * util-linux {@code logger -t PROGRAM -p user.notice} once, on the first message, and writes one message per line to
 * its stdin; logger sends the datagrams. No socket is opened in this JVM (the agent routes sockets), no native code
 * is needed. Without a logger program, or when it dies, messages go to stderr after a one-time warning.
 */
final class SyslogSink implements LogSink {
    private static final List<String> LOGGER_PATHS = List.of("/usr/bin/logger", "/bin/logger", "/usr/sbin/logger");

    /** null: find logger and build its command line. Tests pass a stand-in. */
    private final List<String> command;
    private Process process;
    private OutputStream stdin;
    private boolean failed;

    SyslogSink(List<String> command) {
        this.command = command;
    }

    @Override
    public synchronized void write(String message) {
        if (!failed) {
            try {
                if (stdin == null) {
                    start();
                }
                // logger sends one message per line: a message must not contain line breaks
                String line = LogPrefix.syslogMessage(message).replace('\n', ' ').replace('\r', ' ') + "\n";
                stdin.write(line.getBytes(StandardCharsets.UTF_8));
                stdin.flush();
                return;
            } catch (IOException | RuntimeException e) {
                fail(e.getMessage() == null ? e.toString() : e.getMessage());
            }
        }
        StderrSink.INSTANCE.write(message);
    }

    private void start() throws IOException {
        List<String> cmd = command;
        if (cmd == null) {
            if (!Files.exists(Path.of("/dev/log"))) {
                throw new IOException("there is no /dev/log (no syslog daemon listens)");
            }
            String logger = null;
            for (String p : LOGGER_PATHS) {
                if (Files.isExecutable(Path.of(p))) {
                    logger = p;
                    break;
                }
            }
            if (logger == null) {
                throw new IOException("no logger program in " + LOGGER_PATHS + ", and Java cannot write to the"
                        + " /dev/log datagram socket itself");
            }
            cmd = List.of(logger, "-t", LogPrefix.program(), "-p", "user.notice");
        }
        process = new ProcessBuilder(cmd)
                .redirectInput(ProcessBuilder.Redirect.PIPE)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        stdin = process.getOutputStream();
    }

    private void fail(String why) {
        failed = true;
        StderrSink.warn("destination syslog: " + why + "; logging to stderr instead");
        close();
    }

    @Override
    public String describe() {
        return failed ? "stderr (syslog unavailable)" : "syslog (through logger)";
    }

    @Override
    public synchronized void close() {
        try {
            if (stdin != null) {
                stdin.close(); // logger exits at end of input, after sending what it read
            }
        } catch (IOException ignored) {
            // the process is gone already
        }
        stdin = null;
        process = null;
    }
}
