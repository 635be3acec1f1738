package org.sdp4j.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Pattern;

import org.sdp4j.e2e.apps.DerbyServerMain;

/** A Derby 10.8.3.0 Network Server in a JVM of its own, optionally with the agent. */
public final class DerbyServer implements AutoCloseable {
    private final JvmProcess process;
    private final int port;

    private DerbyServer(JvmProcess process, int port) {
        this.process = process;
        this.port = port;
    }

    /** {@code conf} null: no agent. */
    public static DerbyServer start(Path workDir, Path conf) {
        int port = E2e.freePort();
        Path home = workDir.resolve("derby-" + port);
        try {
            Files.createDirectories(home);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        JvmLauncher l = JvmLauncher.main("derby-server" + (conf == null ? "" : "-agent"), DerbyServerMain.class)
                .args("127.0.0.1", Integer.toString(port), home.toString());
        if (conf != null) {
            l.agentWithConf(conf);
        }
        JvmProcess p = l.start();
        p.awaitStdout(Pattern.compile("DERBY READY"), Duration.ofSeconds(60));
        return new DerbyServer(p, port);
    }

    public int port() {
        return port;
    }

    public String url() {
        return "jdbc:db2://127.0.0.1:" + port + "/\"testdb;create=true\"";
    }

    public String stderr() {
        return process.stderr();
    }

    public JvmProcess process() {
        return process;
    }

    @Override
    public void close() {
        process.close();
    }
}
