package org.sdp4j.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Small helpers the tests share. */
public final class E2e {
    private E2e() {}

    /**
     * A loopback port that refuses connections for as long as this stays open: a socket bound to it that does not
     * listen. A port from {@link #freePort()} is free only until the next bind of port 0 anywhere on the machine:
     * once (CI, stop 30) the agent JVM's own listener was given the "refused" port and the connect meant to fail
     * succeeded. A bound socket keeps the kernel from handing the port out again.
     */
    public static final class RefusedPort implements AutoCloseable {
        private final SocketChannel holder;

        public RefusedPort() {
            try {
                holder = SocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        public int port() {
            return holder.socket().getLocalPort();
        }

        @Override
        public void close() throws IOException {
            holder.close();
        }
    }

    /** A port nothing listens on right now (bind 0 on loopback, close). */
    public static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes a libsdp.conf: each argument is one line, so line numbers in the agent's log are 1-based indexes. */
    public static Path conf(Path dir, String name, String... lines) {
        try {
            Path f = dir.resolve(name);
            Files.writeString(f, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
            return f;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The stdout lines that start with a prefix (the child programs tag what they report). */
    public static List<String> linesStartingWith(JvmResult r, String prefix) {
        return r.stdoutLines().stream().filter(l -> l.startsWith(prefix)).collect(Collectors.toList());
    }

    /** The one stdout line starting with prefix, without the prefix; fails if there is none. */
    public static String value(JvmResult r, String prefix) {
        List<String> l = linesStartingWith(r, prefix);
        assertFalse(l.isEmpty(), "no line starting with '" + prefix + "'" + r.describe());
        return l.get(l.size() - 1).substring(prefix.length()).trim();
    }

    /**
     * Every decision for connections to {@code port} (client side) came from rule line {@code line} and used TCP;
     * at least one such decision was logged.
     */
    public static List<DecisionLog.Decision> assertClientDecisions(JvmResult r, int port, int line, String family) {
        DecisionLog log = r.decisions();
        List<DecisionLog.Decision> ds = log.clientsTo(port);
        assertFalse(ds.isEmpty(), "no decision logged for client connections to port " + port + "\n" + log.dump()
                + r.describe());
        for (DecisionLog.Decision d : ds) {
            assertEquals("line " + line, d.rule(), "rule for " + d.raw());
            assertEquals(family, d.family(), "family in " + d.raw());
            assertEquals("127.0.0.1", d.host(), "address in " + d.raw());
            assertNotNull(d.program(), "program= missing in " + d.raw());
        }
        return ds;
    }

    /** What a failed RDMA connect must say, loosely: it names RDMA, rsockets, librdmacm or InfiniBand. */
    public static boolean explainsRdma(String message) {
        String m = message.toLowerCase(java.util.Locale.ROOT);
        return m.contains("rdma") || m.contains("rsocket") || m.contains("infiniband");
    }

    /** Asserts each decision went over TCP; for family both, that it says why it fell back. */
    public static void assertTcpTransport(List<DecisionLog.Decision> ds) {
        for (DecisionLog.Decision d : ds) {
            assertEquals("tcp", d.transport(), "transport in " + d.raw());
            if (d.family().equals("tcp")) {
                assertEquals(null, d.fallback(), "a tcp rule is no fallback: " + d.raw());
            } else {
                assertNotNull(d.fallback(), "family " + d.family() + " on TCP needs fallback=\"reason\": " + d.raw());
                assertTrue(!d.fallback().isBlank(), "empty fallback reason: " + d.raw());
            }
        }
    }
}
