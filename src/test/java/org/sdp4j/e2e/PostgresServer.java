package org.sdp4j.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.UserPrincipal;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real PostgreSQL server from Debian's packages, private to the test: initdb in a fresh directory, {@code postgres}
 * on 127.0.0.1 and a free port, trust authentication, unix socket in the same directory. initdb and postgres refuse
 * to run as root, so as root they run as the {@code postgres} user ({@code runuser}).
 */
public final class PostgresServer implements AutoCloseable {
    private final Path bin;
    private final Path dir;
    private final Path data;
    private final int port;
    private final Process process;
    /** Stops the server if the test JVM ends without close() (a timeout kill, say). */
    private final Thread reaper;
    private boolean closed;

    private PostgresServer(Path bin, Path dir, int port, Process process) {
        this.bin = bin;
        this.dir = dir;
        this.data = dir.resolve("data");
        this.port = port;
        this.process = process;
        this.reaper = new Thread(this::close, "postgres-reaper");
        Runtime.getRuntime().addShutdownHook(reaper);
    }

    /** The newest /usr/lib/postgresql/N/bin with initdb and postgres; fails (never skips) when there is none. */
    static Path findBin() {
        Path root = Path.of("/usr/lib/postgresql");
        List<Path> found = new ArrayList<>();
        if (Files.isDirectory(root)) {
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(root)) {
                for (Path v : ds) {
                    Path b = v.resolve("bin");
                    if (Files.isExecutable(b.resolve("initdb")) && Files.isExecutable(b.resolve("postgres"))
                            && Files.isExecutable(b.resolve("pg_ctl"))) {
                        found.add(b);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        if (found.isEmpty()) {
            throw new AssertionError("PostgreSQL server binaries not found (/usr/lib/postgresql/*/bin/initdb,"
                    + " postgres, pg_ctl): run native/install-deps.sh (it installs Debian's postgresql package)");
        }
        found.sort(Comparator.comparing((Path p) -> versionOf(p)));
        return found.get(found.size() - 1);
    }

    private static int versionOf(Path bin) {
        try {
            return Integer.parseInt(bin.getParent().getFileName().toString().replaceAll("\\..*", ""));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static boolean root() {
        return "root".equals(System.getProperty("user.name"));
    }

    private static List<String> asPostgres(Path bin, String tool, String... args) {
        List<String> cmd = new ArrayList<>();
        if (root()) {
            cmd.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        cmd.add(bin.resolve(tool).toString());
        cmd.addAll(List.of(args));
        return cmd;
    }

    public static PostgresServer start() throws IOException, InterruptedException {
        Path bin = findBin();
        Path dir = Files.createTempDirectory(Path.of("/tmp"), "sdp4j-pg-");
        if (root()) {
            UserPrincipalLookupService users = FileSystems.getDefault().getUserPrincipalLookupService();
            UserPrincipal pg = users.lookupPrincipalByName("postgres");
            GroupPrincipal pgGroup = users.lookupPrincipalByGroupName("postgres");
            PosixFileAttributeView v = Files.getFileAttributeView(dir, PosixFileAttributeView.class);
            v.setOwner(pg);
            v.setGroup(pgGroup);
        }
        Path log = dir.resolve("server.log");
        run(dir.resolve("initdb.log"), asPostgres(bin, "initdb", "-D", dir.resolve("data").toString(), "-A", "trust",
                "-U", "postgres", "-E", "UTF8", "--no-sync", "--no-instructions"), 120);
        int port = E2e.freePort();
        Process p = new ProcessBuilder(asPostgres(bin, "postgres", "-D", dir.resolve("data").toString(),
                "-p", Integer.toString(port), "-k", dir.toString(), "-c", "listen_addresses=127.0.0.1",
                "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
                "-c", "max_connections=20", "-c", "shared_buffers=16MB"))
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        PostgresServer s = new PostgresServer(bin, dir, port, p);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            Process ready = new ProcessBuilder(bin.resolve("pg_isready").toString(), "-q", "-h", "127.0.0.1",
                    "-p", Integer.toString(port), "-U", "postgres").start();
            if (ready.waitFor(10, TimeUnit.SECONDS) && ready.exitValue() == 0) {
                return s;
            }
            ready.destroyForcibly();
            if (!p.isAlive() || System.nanoTime() > end) {
                String why = p.isAlive() ? "not ready within 60 s" : "exited with status " + p.exitValue();
                s.close();
                throw new AssertionError("PostgreSQL server " + why + "; its log:\n" + Files.readString(log));
            }
            Thread.sleep(100);
        }
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

    public String url(String db) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + db;
    }

    public String log() throws IOException {
        return Files.readString(dir.resolve("server.log"));
    }

    /** createdb through psql's sibling tool, over the unix socket (no agent involved). */
    public void createDatabase(String name) throws IOException, InterruptedException {
        run(dir.resolve("createdb-" + name + ".log"), asPostgres(bin, "createdb", "-h", dir.toString(),
                "-p", Integer.toString(port), "-U", "postgres", name), 60);
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
            Process stop = new ProcessBuilder(asPostgres(bin, "pg_ctl", "stop", "-D", data.toString(), "-m", "fast",
                    "-w", "-t", "20")).redirectErrorStream(true).redirectOutput(dir.resolve("stop.log").toFile()).start();
            stop.waitFor(30, TimeUnit.SECONDS);
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (IOException e) {
            process.destroyForcibly();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        } finally {
            deleteTree(dir);
        }
    }

    /** Deletes a server's private directory, unless -Dsdp4j.e2e.keep (best effort). */
    static void deleteTree(Path dir) {
        if (Boolean.getBoolean("sdp4j.e2e.keep")) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // best effort
        }
    }
}
