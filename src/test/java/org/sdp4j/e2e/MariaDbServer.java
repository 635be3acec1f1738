package org.sdp4j.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real MariaDB server from Debian's packages (10.11 on bookworm), private to the test: mariadb-install-db in a
 * fresh directory, {@code mariadbd} on 127.0.0.1 and a free port, no networking beyond it, grant tables skipped (the
 * tests are about the connection, not accounts: any user name is let in).
 */
public final class MariaDbServer implements AutoCloseable {
    private static final Path MARIADBD = Path.of("/usr/sbin/mariadbd");

    private final Path dir;
    private final int port;
    private final Process process;
    private final Thread reaper;
    private boolean closed;

    private MariaDbServer(Path dir, int port, Process process) {
        this.dir = dir;
        this.port = port;
        this.process = process;
        this.reaper = new Thread(this::close, "mariadb-reaper");
        Runtime.getRuntime().addShutdownHook(reaper);
    }

    private static boolean root() {
        return "root".equals(System.getProperty("user.name"));
    }

    /** Fails (never skips) when the server is not installed. */
    public static MariaDbServer start() throws IOException, InterruptedException {
        if (!Files.isExecutable(MARIADBD) || !Files.isExecutable(Path.of("/usr/bin/mariadb-install-db"))) {
            throw new AssertionError("MariaDB server not found (" + MARIADBD + ", mariadb-install-db): run"
                    + " native/install-deps.sh (it installs Debian's mariadb-server package)");
        }
        Path dir = Files.createTempDirectory(Path.of("/tmp"), "sdp4j-mariadb-");
        Path data = dir.resolve("data");
        List<String> install = new ArrayList<>(List.of("/usr/bin/mariadb-install-db", "--no-defaults",
                "--datadir=" + data, "--auth-root-authentication-method=normal", "--skip-test-db"));
        if (root()) {
            install.add("--user=root");
        }
        run(dir.resolve("install.log"), install, 180);
        int port = E2e.freePort();
        List<String> cmd = new ArrayList<>(List.of(MARIADBD.toString(), "--no-defaults", "--datadir=" + data,
                "--socket=" + dir.resolve("mysqld.sock"), "--pid-file=" + dir.resolve("mysqld.pid"),
                "--port=" + port, "--bind-address=127.0.0.1", "--skip-grant-tables", "--skip-name-resolve",
                "--innodb-buffer-pool-size=16M", "--innodb-flush-log-at-trx-commit=0", "--max-connections=20",
                "--log-error=" + dir.resolve("server.log")));
        if (root()) {
            cmd.add("--user=root");
        }
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("stdout.log").toFile())
                .start();
        MariaDbServer s = new MariaDbServer(dir, port, p);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        Path log = dir.resolve("server.log");
        while (!(Files.exists(log) && Files.readString(log).contains("ready for connections"))) {
            if (!p.isAlive() || System.nanoTime() > end) {
                String why = p.isAlive() ? "not ready within 90 s" : "exited with status " + p.exitValue();
                String text = Files.exists(log) ? Files.readString(log) : "(no log)";
                s.close();
                throw new AssertionError("MariaDB server " + why + "; its log:\n" + text);
            }
            Thread.sleep(100);
        }
        return s;
    }

    private static void run(Path log, List<String> cmd, int seconds) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(cmd + " did not finish in " + seconds + " s:\n" + Files.readString(log));
        }
        if (p.exitValue() != 0) {
            throw new AssertionError(cmd + " failed with status " + p.exitValue() + ":\n" + Files.readString(log));
        }
    }

    public int port() {
        return port;
    }

    /** The server's general log is off; its error log says who connected when a test needs it. */
    public String log() throws IOException {
        return Files.readString(dir.resolve("server.log"));
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (Thread.currentThread() != reaper) {
            try {
                Runtime.getRuntime().removeShutdownHook(reaper);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs anyway
            }
        }
        try {
            process.destroy(); // SIGTERM: mariadbd shuts down cleanly
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        } finally {
            PostgresServer.deleteTree(dir);
        }
    }
}
