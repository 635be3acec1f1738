package org.sdp4j.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sdp4j.jdk.JdkNio;
import org.sdp4j.ucp.UcpNative;

/**
 * The rendezvous's account check ({@link Rendezvous#peerIs}, libsdp4j's {@code SO_PEERCRED}): the process at the
 * other end of an accepted rendezvous socket is told apart by its uid, for this account and for another one (a
 * real second account, {@code setpriv --reuid=65534}, as the attack tests run it).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RendezvousPeerTest {
    @BeforeAll
    static void ucx() {
        assertTrue(Ucx.isAvailable(), () -> "UCX must be installed for these tests: " + Ucx.unavailabilityCause());
    }

    @Test
    void aClientOfThisAccountIsThisAccountsAndNoOthers() throws Exception {
        Path dir = Files.createTempDirectory("sdp4j-peer");
        Path p = dir.resolve("s");
        int me = PeerCheck.euid();
        try (ServerSocketChannel l = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            l.bind(UnixDomainSocketAddress.of(p));
            try (SocketChannel c = SocketChannel.open(UnixDomainSocketAddress.of(p)); SocketChannel a = l.accept()) {
                assertEquals(me, UcpNative.peerUid(JdkNio.channelFd(a)), "the kernel's uid of the client");
                assertTrue(Rendezvous.peerIs(a, me, dir));
                assertFalse(Rendezvous.peerIs(a, me + 1, dir));
                assertTrue(Rendezvous.peerIs(c, me, dir), "and the server's, seen from the client");
            }
        } finally {
            Files.deleteIfExists(p);
            Files.delete(dir);
        }
    }

    @Test
    void aClientOfAnotherAccountIsNotThisAccounts() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "a second account runs via setpriv (as root)");
        Path dir = Files.createTempDirectory("sdp4j-peer");
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path p = dir.resolve("s");
        int me = PeerCheck.euid();
        try (ServerSocketChannel l = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            l.bind(UnixDomainSocketAddress.of(p));
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxrwxrwx"));
            // the client: a one-file Java program the other account can read, run by this JDK's launcher
            Path src = dir.resolve("Connect.java");
            Files.writeString(src, "public class Connect { public static void main(String[] a) throws Exception {"
                    + " try (var c = java.nio.channels.SocketChannel.open(java.net.UnixDomainSocketAddress.of(a[0])))"
                    + " { Thread.sleep(20000); } } }");
            Files.setPosixFilePermissions(src, PosixFilePermissions.fromString("rw-r--r--"));
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            Process other = new ProcessBuilder("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", java,
                    "-Xshare:off", src.toString(), p.toString()).inheritIO().start();
            try (SocketChannel a = l.accept()) {
                assertEquals(65534, UcpNative.peerUid(JdkNio.channelFd(a)), "the kernel's uid of the client");
                assertFalse(Rendezvous.peerIs(a, me, dir), "another account's client is not this account's");
                assertTrue(Rendezvous.peerIs(a, 65534, dir));
            } finally {
                other.destroy();
                other.waitFor(10, TimeUnit.SECONDS);
            }
        } finally {
            Files.deleteIfExists(p);
            Files.deleteIfExists(dir.resolve("Connect.java"));
            Files.delete(dir);
        }
    }
}
