package org.sdp4j.rsocket;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The two-host {@code host-crash} step (issue 20): the server's whole guest is killed (its qemu process, by the host)
 * under open connections, and what the client sees is measured per transport. java.net under the agent: the rules
 * pick the transport by port.
 * <ul>
 * <li>{@code server HOST PORT...}: on each port, accepts connections, writes each a 6-byte greeting and then holds
 * it: never reads, never writes again, never closes (a reader waits, a writer fills the buffers and blocks).</li>
 * <li>{@code client HOST CTL_DIR CAP_S NAME:PORT...}: per port three connections, each reading its greeting first:
 * <b>read</b> (a reader blocked, no {@code SO_TIMEOUT}), <b>write</b> (64 KiB writes until one blocks) and
 * <b>keepalive</b> ({@code SO_KEEPALIVE} on, a reader blocked). Once every writer is blocked it asks for the crash
 * ({@code CTL/crash-b}) and takes the host's {@code CTL/b-crashed} as the moment; then it waits up to CAP_S seconds
 * and prints one line per connection ({@code HOST-CRASH NAME MODE: ...}) with the time from the crash to the
 * exception, or "still blocked".</li>
 * </ul>
 * Exit 1 when a call ended in anything but an IOException (above all an end of stream, which would tell the program
 * its peer closed in order when its host died), or when a call with a bound ({@code -Dcrash.bounds="tcp keepalive
 * 15000;..."}, ms after the crash) gave no IOException within it; 0 otherwise. Calls without a bound are measured,
 * not failed: what each transport gives is docs/reliability.md's row.
 */
public final class TwoHostCrash {
    private static final byte[] HELLO = "hello\n".getBytes(StandardCharsets.US_ASCII);

    public static void main(String[] args) throws Exception {
        if (args.length >= 3 && args[0].equals("server")) {
            server(InetAddress.getByName(args[1]), args);
        } else if (args.length >= 5 && args[0].equals("client")) {
            System.exit(client(InetAddress.getByName(args[1]), Path.of(args[2]), Integer.parseInt(args[3]), args));
        } else {
            System.err.println("usage: TwoHostCrash server HOST PORT... | client HOST CTL_DIR CAP_S NAME:PORT...");
            System.exit(2);
        }
    }

    private static void server(InetAddress host, String[] args) throws Exception {
        List<Socket> held = new ArrayList<>();
        for (int i = 2; i < args.length; i++) {
            ServerSocket ss = new ServerSocket();
            ss.bind(new InetSocketAddress(host, Integer.parseInt(args[i])));
            Thread t = new Thread(() -> {
                while (true) {
                    try {
                        Socket s = ss.accept();
                        s.getOutputStream().write(HELLO);
                        synchronized (held) {
                            held.add(s); // held open until the guest dies
                        }
                    } catch (IOException e) {
                        System.out.println("TwoHostCrash server: " + e);
                    }
                }
            }, "accept-" + args[i]);
            t.start();
        }
        System.out.println("TwoHostCrash server: listening on " + (args.length - 2) + " ports");
        Thread.sleep(Long.MAX_VALUE);
    }

    /** One measured connection: its blocked call's outcome and when. */
    static final class Probe {
        final String name;
        final String mode;
        final Socket socket;
        final AtomicLong written = new AtomicLong();
        final CountDownLatch ended = new CountDownLatch(1);
        volatile long endedAt;
        volatile String outcome;
        volatile boolean silent; // ended without an IOException

        Probe(String name, String mode, Socket socket) {
            this.name = name;
            this.mode = mode;
            this.socket = socket;
        }

        void run() {
            try {
                if (mode.equals("write")) {
                    OutputStream out = socket.getOutputStream();
                    byte[] chunk = new byte[64 * 1024];
                    while (true) {
                        out.write(chunk);
                        written.addAndGet(chunk.length);
                    }
                }
                int r = socket.getInputStream().read();
                outcome = "the read returned " + r + (r < 0 ? " (end of stream: an orderly close, which it was not)"
                        : "");
                silent = true;
            } catch (IOException e) {
                outcome = e.toString();
            } catch (RuntimeException | Error e) {
                outcome = "not an IOException: " + e;
                silent = true;
            } finally {
                endedAt = System.nanoTime();
                ended.countDown();
            }
        }
    }

    private static int client(InetAddress host, Path ctl, int capS, String[] args) throws Exception {
        List<Probe> probes = new ArrayList<>();
        for (int i = 4; i < args.length; i++) {
            String[] np = args[i].split(":");
            for (String mode : new String[] {"read", "write", "keepalive"}) {
                Socket s = new Socket();
                s.connect(new InetSocketAddress(host, Integer.parseInt(np[1])), 60_000);
                if (mode.equals("keepalive")) {
                    s.setKeepAlive(true);
                }
                s.setSoTimeout(60_000);
                InputStream in = s.getInputStream();
                byte[] hello = in.readNBytes(HELLO.length);
                if (!java.util.Arrays.equals(hello, HELLO)) {
                    System.out.println("HOST-CRASH FAIL: " + np[0] + " " + mode + ": no greeting from the server");
                    return 1;
                }
                s.setSoTimeout(0);
                probes.add(new Probe(np[0], mode, s));
            }
        }
        for (Probe p : probes) {
            Thread t = new Thread(p::run, "probe-" + p.name + "-" + p.mode);
            t.setDaemon(true);
            t.start();
        }
        // every writer blocked: no progress for 2 s (the peer never reads)
        long[] last = new long[probes.size()];
        for (long stable = System.nanoTime(), end = stable + 120_000_000_000L; ; Thread.sleep(100)) {
            boolean moved = false;
            for (int i = 0; i < probes.size(); i++) {
                long w = probes.get(i).written.get();
                moved |= w != last[i];
                last[i] = w;
            }
            if (moved) {
                stable = System.nanoTime();
            } else if (System.nanoTime() - stable > 2_000_000_000L) {
                break;
            }
            if (System.nanoTime() > end) {
                System.out.println("HOST-CRASH FAIL: the writers never blocked");
                return 1;
            }
        }
        for (Probe p : probes) {
            if (p.ended.getCount() == 0) {
                System.out.println("HOST-CRASH FAIL: " + p.name + " " + p.mode + " ended before the crash: " + p.outcome);
                return 1;
            }
            if (p.mode.equals("write")) {
                System.out.println(p.name + " write: blocked after " + p.written.get() / 1024 + " KiB");
            }
        }
        Files.writeString(ctl.resolve("crash-b"), "");
        long asked = System.nanoTime();
        while (!Files.exists(ctl.resolve("b-crashed"))) {
            if (System.nanoTime() - asked > 60_000_000_000L) {
                System.out.println("HOST-CRASH FAIL: the host did not kill b within 60 s");
                return 1;
            }
            Thread.sleep(10);
        }
        long crashed = System.nanoTime();
        System.out.println("b's qemu killed " + (crashed - asked) / 1_000_000 + " ms after the ask");
        long deadline = crashed + TimeUnit.SECONDS.toNanos(capS);
        for (Probe p : probes) {
            p.ended.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        }
        // the bounds docs/reliability.md promises, e.g. "tcp keepalive 15000;ucx keepalive 15000" (ms after the crash)
        java.util.Map<String, Long> bounds = new java.util.HashMap<>();
        for (String b : System.getProperty("crash.bounds", "").split(";")) {
            String[] w = b.trim().split(" +");
            if (w.length == 3) {
                bounds.put(w[0] + " " + w[1], Long.parseLong(w[2]));
            }
        }
        List<String> failures = new ArrayList<>();
        for (Probe p : probes) {
            long ms = (p.endedAt - crashed) / 1_000_000;
            boolean ended = p.ended.getCount() == 0;
            String line = ended ? (p.silent ? "FAILED " : "IOException ") + "after " + ms + " ms: " + p.outcome
                    : "still blocked after " + capS + " s";
            System.out.println("HOST-CRASH " + p.name + " " + p.mode + ": " + line);
            if (p.silent) {
                failures.add(p.name + " " + p.mode + " ended without an IOException");
            }
            Long bound = bounds.get(p.name + " " + p.mode);
            if (bound != null && (!ended || p.silent || ms > bound)) {
                failures.add(p.name + " " + p.mode + " gave no IOException within its bound of " + bound + " ms");
            }
        }
        System.out.println(failures.isEmpty() ? "HOST-CRASH OK" : "HOST-CRASH FAIL: " + String.join("; ", failures));
        return failures.isEmpty() ? 0 : 1;
    }
}
