package org.sdp4j.contract;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The far end in another JVM, so it can be killed with SIGKILL: {@code Peer FIXTURE_CLASS server} listens, prints
 * {@code PORT n}, accepts one connection and writes "ping"; {@code Peer FIXTURE_CLASS client PORT} connects and
 * writes "ping". Then it waits (at most two minutes) to be killed.
 */
public final class Peer {
    private Peer() {}

    public static void main(String[] args) throws Exception {
        Transport t = (Transport) Class.forName(args[0]).getConstructor().newInstance();
        t.setUp();
        Socket s;
        if (args[1].equals("server")) {
            ServerSocket ss = t.serverSocket();
            ss.bind(new InetSocketAddress(t.address(), 0));
            System.out.println("PORT " + ss.getLocalPort());
            System.out.flush();
            s = ss.accept();
        } else {
            s = t.socket();
            s.connect(new InetSocketAddress(t.address(), Integer.parseInt(args[2])), 20_000);
        }
        s.getOutputStream().write("ping".getBytes(StandardCharsets.US_ASCII));
        System.out.println("SENT");
        System.out.flush();
        new java.util.concurrent.CountDownLatch(1).await(2, TimeUnit.MINUTES); // idles until the test kills it
        System.exit(3);
    }

    /**
     * A running peer JVM with the fixture's transport, started the way this JVM was (same java, class path, -X
     * options). Its standard error still reaches this JVM's; the last lines of both outputs are kept and, with the
     * JVM's own crash report (-XX:ErrorFile), go into the failure when the peer dies before its line: CI shows a
     * failure's message, not a guest's whole console (a peer that aborted with status 134 in the SMC-R guest, stop
     * 36, said nothing more).
     */
    public static final class Process implements AutoCloseable {
        private static final int KEPT_LINES = 30;
        final java.lang.Process p;
        final BufferedReader out;
        private final Path errorFile;
        private final java.util.ArrayDeque<String> errTail = new java.util.ArrayDeque<>();
        private final Thread errReader;

        Process(Transport t, String... args) throws IOException {
            List<String> cmd = new ArrayList<>();
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            // the GC, compiler and CDS options of this JVM (the guests' busy-JVM list under TCG): not the agent's
            for (String a : java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()) {
                if (a.startsWith("-X") && !a.startsWith("-XX:ErrorFile") && !a.startsWith("-XX:OnError")) {
                    cmd.add(a);
                }
            }
            errorFile = reportDir().resolve("hs_err-" + System.nanoTime() + ".log");
            cmd.add("-XX:ErrorFile=" + errorFile);
            cmd.add("--add-opens=java.base/java.net=ALL-UNNAMED");
            cmd.add("--add-exports=java.base/sun.nio.ch=ALL-UNNAMED");
            cmd.add("--add-opens=java.base/sun.nio.ch=ALL-UNNAMED");
            for (String k : System.getProperties().stringPropertyNames()) {
                if (k.startsWith("sdp4j.") || k.equals("java.net.preferIPv4Stack")) {
                    cmd.add("-D" + k + "=" + System.getProperty(k));
                }
            }
            cmd.addAll(t.peerJvmOptions());
            cmd.add("-cp");
            // under the JUnit console launcher java.class.path is the launcher alone: run-all.sh passes the real one
            cmd.add(System.getProperty("sdp4j.contract.classpath", System.getProperty("java.class.path")));
            cmd.add(Peer.class.getName());
            cmd.add(t.getClass().getName());
            cmd.addAll(List.of(args));
            p = new ProcessBuilder(cmd).start();
            out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            BufferedReader err = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8));
            errReader = new Thread(() -> {
                try {
                    for (String l; (l = err.readLine()) != null; ) {
                        System.err.println("[peer] " + l);
                        keep(l);
                    }
                } catch (IOException e) {
                    // the peer is gone (killed): nothing more to keep
                }
            }, "peer-stderr");
            errReader.setDaemon(true);
            errReader.start();
        }

        /**
         * The next line the peer prints that starts with {@code prefix}: its rest. Allowed 60 s, not BOUND_S: the
         * peer JVM starts first (under TCG emulation that alone can take 20 s).
         */
        String expect(String prefix) throws Exception {
            java.util.concurrent.Future<String> f = ContractBase.EXEC.submit(() -> {
                String l;
                while ((l = out.readLine()) != null) {
                    if (l.startsWith(prefix)) {
                        return l.substring(prefix.length()).trim();
                    }
                    keep(l); // a JVM prints its fatal error's header on standard output
                }
                throw new IOException("the peer exited (status " + p.waitFor() + ") before printing " + prefix
                        + diagnosis());
            });
            return f.get(60, TimeUnit.SECONDS);
        }

        private void keep(String line) {
            synchronized (errTail) {
                if (errTail.size() == KEPT_LINES) {
                    errTail.removeFirst();
                }
                errTail.addLast(line);
            }
        }

        private static Path reportDir;

        /** A directory of this JVM's own (0700, made fresh): no other local user names the peers' crash reports. */
        private static synchronized Path reportDir() throws IOException {
            if (reportDir == null) {
                reportDir = java.nio.file.Files.createTempDirectory("sdp4j-peers-");
            }
            return reportDir;
        }

        /** What the dead peer left: its last lines of output and the head of its crash report, if any. */
        private String diagnosis() throws InterruptedException {
            errReader.join(5_000);
            StringBuilder b = new StringBuilder();
            synchronized (errTail) {
                if (!errTail.isEmpty()) {
                    b.append("\n  its output ended:\n    ").append(String.join("\n    ", errTail));
                }
            }
            try {
                if (java.nio.file.Files.isRegularFile(errorFile, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    List<String> report = java.nio.file.Files.readAllLines(errorFile, StandardCharsets.ISO_8859_1);
                    b.append("\n  its crash report ").append(errorFile).append(" begins:\n    ")
                            .append(String.join("\n    ", report.subList(0, Math.min(25, report.size()))));
                }
            } catch (IOException e) {
                b.append("\n  its crash report ").append(errorFile).append(" is unreadable: ").append(e);
            }
            return b.toString();
        }

        /** SIGKILL, and waits until the process is gone. */
        void kill() throws InterruptedException {
            p.destroyForcibly();
            if (!p.waitFor(ContractBase.BOUND_S, TimeUnit.SECONDS)) {
                throw new AssertionError("the peer survived SIGKILL");
            }
        }

        @Override
        public void close() {
            p.destroyForcibly();
        }
    }
}
