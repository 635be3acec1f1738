package org.sdp4j.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The server end of a benchmark in its own JVM ({@link PeerMain}), started the way this JVM was: the same java, the
 * same JVM arguments (so the same {@code -javaagent} and libsdp.conf: both ends on the agent, as a client and a
 * database server on two hosts would be) and the same class path. The agent's decision log of the peer goes to its own
 * file ({@code decisions-X.log} becomes {@code decisions-X-peer-NAME.log}, which the report counts with the client's).
 * It prints {@code @@listening PORT} when ready and exits when its standard input closes, i.e. with this JVM.
 */
final class Peer implements AutoCloseable {
    final Process process;
    final int port;
    final Path log;

    private Peer(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /** Starts {@code PeerMain args...} (its logs named for {@code name}); waits up to {@code timeoutS} for its port. */
    static Peer start(String name, int timeoutS, String... args) throws IOException, InterruptedException {
        String javaBin = ProcessHandle.current().info().command().orElse(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        List<String> cmd = new ArrayList<>();
        cmd.add(javaBin);
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (a.startsWith("-Xms")) continue;   // a server JVM needs no pre-committed heap of the measuring JVM's size
            if (a.startsWith("-javaagent:")) a = a.replaceAll("(decisions-[^,/]*?)\\.log", "$1-peer-" + name + ".log");
            cmd.add(a);
        }
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(PeerMain.class.getName());
        for (String a : args) cmd.add(a);
        Path dir = Paths.get(System.getProperty("sdp4j.bench.peer.logs", System.getProperty("java.io.tmpdir")));
        Files.createDirectories(dir);
        Path log = dir.resolve("peer-" + name + "-" + ProcessHandle.current().pid() + ".log");
        Files.writeString(log, String.join(" ", cmd) + "\n\n");
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        BlockingQueue<String> lines = new ArrayBlockingQueue<>(1);
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    if (line.startsWith("@@listening ")) lines.offer(line);
                    else Files.writeString(log, line + "\n", StandardOpenOption.APPEND);
                }
            } catch (IOException ignored) {
                // the peer went away
            }
            lines.offer("@@eof");
        }, "peer-reader-" + name);
        reader.setDaemon(true);
        reader.start();
        String line = lines.poll(timeoutS, TimeUnit.SECONDS);
        if (line == null || !line.startsWith("@@listening ")) {
            p.destroyForcibly();
            throw new IOException("peer JVM '" + name + "' " + (line == null ? "did not listen within " + timeoutS + " s" : "exited")
                    + " (see " + log + ")");
        }
        Peer peer = new Peer(p, Integer.parseInt(line.substring("@@listening ".length()).trim()), log);
        Runtime.getRuntime().addShutdownHook(new Thread(peer::close, "peer-stop-" + name));
        return peer;
    }

    @Override
    public void close() {
        try {
            process.getOutputStream().close();   // the peer exits when its standard input closes
            if (!process.waitFor(20, TimeUnit.SECONDS)) process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        } catch (IOException | InterruptedException e) {
            process.destroyForcibly();
        }
    }
}
