package org.sdp4j.ucx.attack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The shared-host findings of issue 12 (H1-H3, M1, M2, L1) repeated for real: sdp4j UCX servers and clients in JVMs
 * of their own ({@code org.sdp4j.ucx.Peer}), the attacker a second account ({@code setpriv --reuid=65534}, JDK
 * only: {@link Attacker}), and a same-account fuzz of thousands of hellos. Needs root (for setpriv), as CI runs.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class AttackTest {
    static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    static final String CP = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    static final List<String> OPENS = List.of("--add-opens", "java.base/java.net=ALL-UNNAMED", "--add-exports",
            "java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
            "-XX:-UsePerfData", "-Xshare:off");
    static final InetAddress LO = InetAddress.getLoopbackAddress();

    Path base;
    final List<Process> started = new ArrayList<>();
    /** JVM options for the sdp4j processes of one test. */
    final List<String> peerOptions = new ArrayList<>();
    /** Environment changes for the sdp4j processes of one test. */
    final java.util.Map<String, String> peerEnv = new java.util.HashMap<>();

    @BeforeEach
    void setUp() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "the attacks run a second account via setpriv");
        // like /dev/shm: root's, world-writable, sticky; this test's alone
        base = Files.createTempDirectory(Path.of("/dev/shm"), "sdp4j-attack");
        Files.setPosixFilePermissions(base, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertEquals(0, new ProcessBuilder("chmod", "1777", base.toString()).start().waitFor());
    }

    @AfterEach
    void tearDown() throws Exception {
        for (Process p : started) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        if (base != null) {
            new ProcessBuilder("rm", "-rf", base.toString()).start().waitFor();
        }
    }

    // ---- H1: a malformed hello aborted the server (SIGABRT in UCX's address unpacking) ----

    @Test
    void h1AnotherAccountsMalformedHelloNeitherReachesNorKillsTheServer() throws Exception {
        int port = freePort();
        Process server = server(port);
        for (int version : new int[] {1, 2}) { // the protocol version of the finding, and this one's
            String attack = attacker("hello", rendezvousSocket(port).toString(), h1Hello(version)).get(0);
            System.out.println("H1 attacker, hello version " + version + ": " + attack);
        }
        Thread.sleep(1000);
        assertTrue(server.isAlive(), "the server survived (exit " + (server.isAlive() ? "-" : server.exitValue()) + ")");
        assertEquals("UCX ok=3 failed=0", clients(port, 3, 1).replaceAll(" ms=.*", ""));
    }

    @Test
    void fuzzOfThousandsOfRandomAndMutatedHellosLeavesTheServerServingUcx() throws Exception {
        int port = freePort();
        Process server = server(port);
        String fuzz = peer("fuzz", rendezvousSocket(port).toString(), "3000", "12345").get(0);
        System.out.println(fuzz);
        assertTrue(fuzz.startsWith("FUZZ sent=3000"), fuzz);
        assertTrue(server.isAlive(), "the server survived the fuzz");
        Thread.sleep(6000); // handshakes of hellos that passed the checks and then hung up end within 5 s
        assertEquals("UCX ok=4 failed=0", clients(port, 4, 2).replaceAll(" ms=.*", ""));
    }

    // ---- H2: another account's socket in front of the wildcard listener received the victim's bytes ----

    @Test
    void h2ASquatterOfAnotherAccountNeverReceivesAByteAndTheClientReachesTheRealServer() throws Exception {
        int port = freePort();
        Process server = server("0.0.0.0", port);
        String exact = "127.0.0.1-" + port;
        // every name a client of this or of the old design could look at first
        String names = String.join(",", rendezvousSocket(port).resolveSibling(exact).toString(),
                base.resolve("sdp4j-ucx-65534").resolve(exact).toString(), base.resolve(exact).toString(),
                base.resolve("sdp4j-ucx").resolve(exact).toString());
        Process squat = attackerProcess("squat", names, "15000");
        BufferedReader out = reader(squat);
        for (String l; (l = out.readLine()) != null && !l.equals("READY"); ) {
            System.out.println("H2 squatter: " + l);
        }
        String r = clients(port, 5, 1);
        assertTrue(server.isAlive());
        String got = null;
        for (String l; (l = out.readLine()) != null; ) {
            got = l;
        }
        System.out.println("H2 squatter: " + got + "; clients: " + r);
        assertEquals("RECEIVED 0", got, "the squatter received bytes of the victim");
        assertEquals("UCX ok=5 failed=0", r.replaceAll(" ms=.*", ""));
    }

    // ---- H3: a directory created first by another account, sockets swapped for symlinks ----

    @Test
    void h3ADirectorySquattedByAnotherAccountIsRefusedAndNothingOutsideIsChanged() throws Exception {
        Path target = Files.createTempFile(Path.of("/dev/shm"), "sdp4j-root-secret", "");
        Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rw-------"));
        try {
            int port = freePort();
            Path dir = rendezvousSocket(port).getParent();
            Process race = attackerProcess("squat-dir", dir.toString(), target.toString(), "20000");
            BufferedReader out = reader(race);
            for (String l; (l = out.readLine()) != null && !l.equals("READY"); ) {
                System.out.println("H3 attacker: " + l);
            }
            for (int i = 0; i < 10; i++) {
                String bind = peer("bind", Integer.toString(freePort())).get(0);
                if (i == 0) {
                    System.out.println("H3 listener: " + bind);
                }
            }
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(target,
                    LinkOption.NOFOLLOW_LINKS)), "a root-owned 0600 file was made writable through the attacker's "
                    + "directory");
        } finally {
            Files.deleteIfExists(target);
        }
    }

    // ---- M1: a rendezvous socket that never accepts stalled clients and a server's bind forever ----

    @Test
    void m1AStuckRendezvousSocketStallsNeitherAClientPastItsTimeoutNorABind() throws Exception {
        int port = freePort();
        try (ServerSocket tcp = new ServerSocket(port, 50, LO)) { // the listener the client's kernel lookup finds
            Path p = rendezvousSocket(port);
            Files.createDirectories(p.getParent());
            Files.setPosixFilePermissions(p.getParent(), PosixFilePermissions.fromString("rwx------"));
            try (ServerSocketChannel stuck = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
                stuck.bind(UnixDomainSocketAddress.of(p), 1);
                List<SocketChannel> fill = new ArrayList<>();
                try {
                    for (int i = 0; i < 64; i++) { // fill its backlog: a connect now blocks (or gets EAGAIN)
                        SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX);
                        c.configureBlocking(false);
                        try {
                            c.connect(UnixDomainSocketAddress.of(p));
                            fill.add(c);
                        } catch (IOException full) {
                            c.close();
                            break;
                        }
                    }
                    long t0 = System.nanoTime();
                    String r = clients(port, 1, 1, 1000);
                    long ms = (System.nanoTime() - t0) / 1_000_000L;
                    System.out.println("M1 client: " + r + " (whole JVM " + ms + " ms)");
                    assertTrue(r.startsWith("UCX ok=0 failed=1"), r);
                    Matcher m = Pattern.compile("ms=(\\d+)").matcher(r);
                    assertTrue(m.find() && Long.parseLong(m.group(1)) < 4000, "the 1 s connect took " + r);
                    String bind = peer("bind", Integer.toString(port)).get(0);
                    System.out.println("M1 bind: " + bind);
                    assertTrue(bind.startsWith("REFUSED"), bind);
                } finally {
                    for (SocketChannel c : fill) {
                        c.close();
                    }
                }
            }
        }
    }

    // ---- M2: UCX's sysv segments are 0660: any member of the group could read the stream ----

    @Test
    void m2NoSharedMemorySegmentOfAConnectionIsOpenToTheGroupOrOthers() throws Exception {
        int port = freePort();
        Process server = server(port);
        String r = clients(port, 2, 1);
        assertEquals("UCX ok=2 failed=0", r.replaceAll(" ms=.*", ""));
        // the server keeps its workers (pool): every sysv segment it created is still listed
        List<String> open = new ArrayList<>();
        for (String l : Files.readAllLines(Path.of("/proc/sysvipc/shm"))) {
            String[] f = l.trim().split("\\s+");
            if (f.length > 7 && f[4].equals(Long.toString(server.pid()))
                    && (Integer.parseInt(f[2], 8) & 077) != 0) {
                open.add(l.trim());
            }
        }
        assertTrue(open.isEmpty(), "sysv segments of the server open to group or others: " + open);
    }

    // ---- L1: handshakes one at a time: idle connections pushed every client to TCP ----

    @Test
    void l1IdleRendezvousConnectionsAndABurstDoNotPushClientsToTcp() throws Exception {
        // what is under test is that idle connections and a burst do not queue handshakes behind each other; a
        // 5 s bound on a CI machine whose load average is 30 (other builds) fails a few connects either way
        peerOptions.add("-Dsdp4j.ucx.handshake=20000");
        int port = freePort();
        Process server = server(port);
        // another account's idle connections are refused at connect; the same account's are served in parallel
        String other = attacker("stall", rendezvousSocket(port).toString(), "6", "1000").get(0);
        System.out.println("L1 other account: " + other);
        Process idle = peerProcess("stall", rendezvousSocket(port).toString(), "6", "60000");
        String held = reader(idle).readLine();
        System.out.println("L1 same account: " + held);
        String r = clients(port, 64, 4, 20000);
        System.out.println("L1 burst: " + r);
        assertEquals("UCX ok=64 failed=0", r.replaceAll(" ms=.*", ""));
        assertTrue(server.isAlive());
    }

    // ---- M3: the sticky bit came from running chmod, its exit status ignored: without chmod the directory was 0777 ----

    @Test
    void m3WithoutChmodOnThePathTheRendezvousDirectoryIsTheOwnersAloneAndOthersCannotRenameItsSockets()
            throws Exception {
        int port = freePort();
        peerEnv.put("PATH", "/nonexistent"); // a distroless image: no chmod, no shell tools at all
        Process server = server(port);
        Path sock = rendezvousSocket(port), dir = sock.getParent();
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir,
                LinkOption.NOFOLLOW_LINKS)), "the rendezvous directory " + dir);
        assertEquals(0, Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS));
        Process mv = new ProcessBuilder("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/bin/mv",
                sock.toString(), base.resolve("stolen").toString()).redirectErrorStream(true).start();
        assertTrue(mv.waitFor(20, TimeUnit.SECONDS));
        System.out.println("M3 attacker's mv: exit " + mv.exitValue() + " " + new String(mv.getInputStream()
                .readAllBytes(), StandardCharsets.UTF_8).trim());
        assertTrue(mv.exitValue() != 0, "another account renamed the listener's rendezvous socket");
        assertTrue(Files.exists(sock, LinkOption.NOFOLLOW_LINKS));
        assertTrue(server.isAlive());
        assertEquals("UCX ok=2 failed=0", clients(port, 2, 1).replaceAll(" ms=.*", ""));
    }

    // ---- helpers ----

    Path rendezvousSocket(int port) {
        return base.resolve("sdp4j-ucx-0").resolve("127.0.0.1-" + port);
    }

    static String h1Hello(int version) {
        ByteBuffer b = ByteBuffer.allocate(36);
        b.putLong(0x5344503455435831L).putInt(version).putInt(1).putInt(16).put((byte) 0x0f);
        return HexFormat.of().formatHex(b.array());
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, LO)) {
            return s.getLocalPort();
        }
    }

    Process server(int port) throws Exception {
        return server("127.0.0.1", port);
    }

    Process server(String addr, int port) throws Exception {
        Process p = peerProcess("server", addr, Integer.toString(port));
        String l = reader(p).readLine();
        assertTrue(l != null && l.startsWith("READY"), "server: " + l);
        return p;
    }

    String clients(int port, int n, int threads) throws Exception {
        return clients(port, n, threads, 5000);
    }

    String clients(int port, int n, int threads, int timeout) throws Exception {
        List<String> out = peer("client", Integer.toString(port), Integer.toString(n), Integer.toString(threads),
                Integer.toString(timeout));
        return out.stream().filter(s -> s.startsWith("UCX ")).findFirst().orElse(String.join("\n", out));
    }

    Process peerProcess(String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(JAVA));
        cmd.addAll(OPENS);
        cmd.addAll(peerOptions);
        cmd.addAll(List.of("-Dsdp4j.ucx.dir=" + base, "-cp", CP, "org.sdp4j.ucx.Peer"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT);
        pb.environment().putAll(peerEnv);
        Process p = pb.start();
        started.add(p);
        return p;
    }

    List<String> peer(String... args) throws Exception {
        Process p = peerProcess(args);
        List<String> lines = new ArrayList<>();
        BufferedReader r = reader(p);
        for (String l; (l = r.readLine()) != null; ) {
            lines.add(l);
        }
        assertTrue(p.waitFor(240, TimeUnit.SECONDS));
        return lines.isEmpty() ? List.of("(no output, exit " + p.exitValue() + ")") : lines;
    }

    /**
     * The attacker runs as another account (uid/gid 65534, no groups) with only its own class, copied where that
     * account can read it: a checkout under root's 0700 home (as CI clones it) is not readable by others.
     */
    Process attackerProcess(String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                attackerJava(), "-XX:-UsePerfData", "-Xshare:off", "-cp", attackerClasses().toString(),
                Attacker.class.getName()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        started.add(p);
        return p;
    }

    private static Path attackerClasses;

    /** Attacker's class files in a world-readable temporary directory (made once per run). */
    static synchronized Path attackerClasses() throws IOException {
        if (attackerClasses == null) {
            Path from = new File(Attacker.class.getProtectionDomain().getCodeSource().getLocation().getPath())
                    .toPath();
            Path root = Files.createTempDirectory("sdp4j-attacker");
            Path pkg = root.resolve(Attacker.class.getPackageName().replace('.', '/'));
            Files.createDirectories(pkg);
            try (var files = Files.list(from.resolve(Attacker.class.getPackageName().replace('.', '/')))) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    String n = f.getFileName().toString();
                    if (n.equals("Attacker.class") || n.startsWith("Attacker$")) {
                        Files.copy(f, pkg.resolve(n));
                        Files.setPosixFilePermissions(pkg.resolve(n), PosixFilePermissions.fromString("rw-r--r--"));
                    }
                }
            }
            for (Path d = pkg; d.startsWith(root); d = d.getParent()) {
                Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwxr-xr-x"));
            }
            attackerClasses = root;
        }
        return attackerClasses;
    }

    /** This JVM's java if the other account can run it (not under root's home), else the system's JDK 17. */
    static String attackerJava() {
        for (Path p = Path.of(JAVA); p != null; p = p.getParent()) {
            try {
                if (!Files.getPosixFilePermissions(p).contains(PosixFilePermission.OTHERS_EXECUTE)) {
                    return "/usr/lib/jvm/java-17-openjdk-amd64/bin/java";
                }
            } catch (IOException e) {
                return "/usr/lib/jvm/java-17-openjdk-amd64/bin/java";
            }
        }
        return JAVA;
    }

    List<String> attacker(String... args) throws Exception {
        Process p = attackerProcess(args);
        List<String> lines = new ArrayList<>();
        BufferedReader r = reader(p);
        for (String l; (l = r.readLine()) != null; ) {
            lines.add(l);
        }
        p.waitFor(60, TimeUnit.SECONDS);
        return lines.isEmpty() ? List.of("(no output)") : lines;
    }

    static BufferedReader reader(Process p) {
        return new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    }
}
