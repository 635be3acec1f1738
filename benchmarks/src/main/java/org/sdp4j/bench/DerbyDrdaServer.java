package org.sdp4j.bench;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

import org.apache.derby.drda.NetworkServerControl;

/**
 * Apache Derby 10.8.3.0's Network Server (a DRDA server the IBM Db2 JDBC driver accepts) started inside this JVM
 * on 127.0.0.1 (or {@code -Dsdp4j.bench.host}, see {@link #benchHost}) and a free port, with {@code derby.system.home}
 * in a fresh temporary directory.
 * Only one per JVM: Derby's engine is a JVM-wide singleton.
 */
public final class DerbyDrdaServer implements AutoCloseable {

    private final NetworkServerControl control;
    private final InetAddress address;
    private final int port;
    private final Path home;
    private final boolean deleteHome;

    private DerbyDrdaServer(NetworkServerControl control, InetAddress address, int port, Path home, boolean deleteHome) {
        this.control = control;
        this.address = address;
        this.port = port;
        this.home = home;
        this.deleteHome = deleteHome;
    }

    /** Starts a server on 127.0.0.1 and a free port, home in a new temporary directory removed on {@link #close}. */
    public static DerbyDrdaServer start() throws Exception {
        return start(0, null, null);
    }

    /**
     * @param port 0 for a free port
     * @param home derby.system.home, or null for a new temporary directory (removed on close)
     * @param console where Derby's console messages go, or null for derby.log in the home directory
     */
    public static DerbyDrdaServer start(int port, Path home, PrintWriter console) throws Exception {
        InetAddress lo = benchHost();
        boolean tmp = home == null;
        if (tmp) home = Files.createTempDirectory("sdp4j-derby-");
        System.setProperty("derby.system.home", home.toAbsolutePath().toString());
        // Derby writes derby.log into its home; keep the engine quiet about locks and row counts.
        System.setProperty("derby.stream.error.file", home.resolve("derby.log").toAbsolutePath().toString());
        if (port == 0) port = freePort(lo);
        NetworkServerControl control = new NetworkServerControl(lo, port);
        // Readiness from the server's console messages, not from ping(): a ping is a client connection of its own
        // (and would be routed by the same rules as the workload's), and it cannot tell "not yet" from "never".
        ConsoleWatch watch = new ConsoleWatch(console);
        control.start(new PrintWriter(watch, true));
        long deadline = System.nanoTime() + 60_000_000_000L;
        synchronized (watch) {
            while (!watch.ready() && watch.failure() == null && System.nanoTime() < deadline) {
                watch.wait(100);
            }
        }
        if (watch.ready()) return new DerbyDrdaServer(control, lo, port, home, tmp);
        try { control.shutdown(); } catch (Exception ignored) { /* it never came up */ }
        if (watch.failure() != null) {
            throw new IOException("Derby Network Server failed to start on " + lo.getHostAddress() + ":" + port + ": " + watch.failure());
        }
        throw new IOException("Derby Network Server did not report ready on " + lo.getHostAddress() + ":" + port + " within 60 s; console: " + watch.text());
    }

    /** Collects the Network Server's console output (and forwards it) to see "ready" or a failure. */
    static final class ConsoleWatch extends java.io.Writer {
        private final PrintWriter forward;
        private final StringBuilder text = new StringBuilder();

        ConsoleWatch(PrintWriter forward) { this.forward = forward; }

        @Override public synchronized void write(char[] cbuf, int off, int len) {
            text.append(cbuf, off, len);
            if (forward != null) forward.write(cbuf, off, len);
            notifyAll();
        }
        @Override public synchronized void flush() { if (forward != null) forward.flush(); notifyAll(); }
        @Override public void close() { flush(); }

        synchronized String text() { return text.toString().trim(); }

        synchronized boolean ready() { return text.indexOf("ready to accept connections") >= 0; }

        /** The first console line that reports an exception or a failure to listen, or null. */
        synchronized String failure() {
            String[] lines = text.toString().split("\\R");
            for (int i = 0; i < lines.length; i++) {
                String line = lines[i];
                // warnings do not stop the server (e.g. "Warning: UnknownHostException" where the host has no name)
                if (line.contains("Warning:")) continue;
                if (line.contains("Exception") || line.contains("Could not") || line.contains("rror")) {
                    // the cause is often on the next line ("Could not listen on port N on host H:" / " java.net...")
                    String more = i + 1 < lines.length ? " " + lines[i + 1].trim() : "";
                    return (line.trim() + more).trim();
                }
            }
            return null;
        }
    }

    /**
     * The address the benchmarks' servers listen on and their clients connect to: {@code -Dsdp4j.bench.host}, default
     * 127.0.0.1. rsockets cannot use loopback (rdma_cm to 127.0.0.1 fails with ENODEV), so on an RDMA host (or the
     * soft-RoCE VM) this is the RDMA interface's own address, e.g. 10.9.9.1.
     */
    public static InetAddress benchHost() throws java.net.UnknownHostException {
        return InetAddress.getByName(System.getProperty("sdp4j.bench.host", "127.0.0.1"));
    }

    /** A port that was free a moment ago (bound to port 0 and closed again). */
    public static int freePort(InetAddress address) throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, address)) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        }
    }

    public InetAddress address() { return address; }

    public int port() { return port; }

    public Path home() { return home; }

    /** JCC URL of database {@code db} on this server, creating it on first connect. */
    public String jccUrl(String db) {
        return "jdbc:db2://" + address.getHostAddress() + ":" + port + "/\"" + db + ";create=true\"";
    }

    @Override
    public void close() throws Exception {
        try {
            control.shutdown();
        } finally {
            try {
                // stop the embedded engine too, so the home directory can be removed
                java.sql.DriverManager.getConnection("jdbc:derby:;shutdown=true");
            } catch (java.sql.SQLException expected) {
                // XJ015: Derby system shutdown -- the normal outcome
            }
            if (deleteHome) deleteRecursively(home);
        }
    }

    static void deleteRecursively(Path dir) {
        if (dir == null || !Files.exists(dir)) return;
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override public FileVisitResult visitFile(Path f, BasicFileAttributes a) throws IOException {
                    Files.deleteIfExists(f);
                    return FileVisitResult.CONTINUE;
                }
                @Override public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                    Files.deleteIfExists(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
