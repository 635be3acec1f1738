package org.sdp4j.smc;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.FileDescriptor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketImpl;
import java.nio.channels.SelectableChannel;
import java.nio.channels.spi.SelectorProvider;
import java.util.Set;

import org.junit.jupiter.api.Assumptions;
import org.sdp4j.Sdp4j;
import org.sdp4j.conf.ConfigParser;
import org.sdp4j.conf.ProgramIdentity;
import org.sdp4j.contract.Limitation;
import org.sdp4j.contract.Transport;
import org.sdp4j.jdk.JdkNio;
import org.sdp4j.nio.SdpSelectorProvider;

/**
 * Both ends on {@code use smc}: the JDK's sockets made the kernel's SMC sockets by sdp4j's factories and provider.
 * Two ways to run it, both inside the VM:
 * <ul>
 * <li>native/vm-tests/smc.sh ({@code -Dsdp4j.test.address=10.9.9.1}, Debian's 6.1): a connection to one's own
 * address goes through {@code lo}, where SMC finds no RDMA device, so the protocol falls back to TCP under every
 * connection; what the contract checks is that SMC sockets under sdp4j keep the JDK's socket semantics. Each
 * endpoint must be an SMC socket.
 * <li>native/vm-tests/smc-wire.sh ({@code -Dsdp4j.test.address=10.7.7.2 -Dsdp4j.test.smc=smc-r}, Debian's 6.12):
 * a veth pair with an rxe device on each end and policy routing that sends the guest's traffic between the two
 * addresses over the pair; SMC-R carries the connections, and each connected endpoint must be on SMC-R (smc_diag
 * says so), so no test passes on a fallback.
 * </ul>
 */
public class SmcFixture implements Transport {
    private static final SdpSelectorProvider PROVIDER = new SdpSelectorProvider();
    /** {@code -Dsdp4j.test.smc=smc-r}: every connected endpoint must be on SMC-R, not on TCP by the protocol. */
    private static final boolean REQUIRE_SMC_R = "smc-r".equals(System.getProperty("sdp4j.test.smc"));

    @Override
    public String name() {
        return REQUIRE_SMC_R ? "smc-r" : "smc";
    }

    @Override
    public InetAddress address() {
        return Transport.testAddress();
    }

    @Override
    public void setUp() throws Exception {
        Assumptions.assumeTrue(Smc.isAvailable(), () -> "SMC unavailable: " + Smc.unavailabilityCause());
        Sdp4j.installSocketFactories();
        Sdp4j.configure(ConfigParser.parse("contract.conf", "use smc server * *:*\nuse smc client * *:*\n"),
                ProgramIdentity.of("contract-smc"));
    }

    @Override
    public SelectorProvider provider() {
        return PROVIDER;
    }

    /**
     * SMC's listener takes connections off its internal TCP listener on a kernel worker (smc_tcp_listen_work) as
     * they come, for the CLC handshake: 16 connects to backlog 1 completed in the VM (6.1) without an accept. On
     * SMC-R (6.12) two more, both the kernel's: a close with SO_LINGER 0 still ends the connection in order, and
     * shutdown(SHUT_RD) wakes no reader blocked in poll (docs/transport-contract.md says why).
     */
    @Override
    public Set<Limitation> limitations() {
        return REQUIRE_SMC_R ? Set.of(Limitation.BACKLOG_UNBOUNDED, Limitation.NO_RESET, Limitation.SHUTDOWN_INPUT_NO_WAKE)
                : Set.of(Limitation.BACKLOG_UNBOUNDED);
    }

    @Override
    public void assertCarried(Object endpoint, boolean accepted) {
        int fd;
        try {
            fd = fdOf(endpoint);
        } catch (Exception e) {
            throw new AssertionError("no descriptor for " + Transport.describe(endpoint), e);
        }
        // once SMC falls back, the kernel points the descriptor's file at its internal TCP socket (getsockopt then
        // says AF_INET): smc_diag, which lists SMC sockets by inode, still knows it
        boolean smc = SmcNative.isSmc(fd);
        SmcOutcome o;
        try {
            o = smc && !REQUIRE_SMC_R ? null : SmcOutcome.of(fd);
        } catch (java.io.IOException e) {
            throw new AssertionError("smc_diag for fd " + fd, e);
        }
        assertTrue(smc || o != null,
                () -> "fd " + fd + " is neither an SMC socket nor listed by smc_diag: " + Transport.describe(endpoint));
        if (REQUIRE_SMC_R) {
            assertTrue(o != null && o.onRdma(), () -> (accepted ? "accepted " : "client ") + Transport.describe(endpoint)
                    + " is not on SMC-R but on " + o);
        }
    }

    /** The kernel descriptor behind a java.net socket (its impl's) or a channel (sdp4j's wrapping the JDK's). */
    static int fdOf(Object endpoint) throws Exception {
        if (endpoint instanceof Socket || endpoint instanceof ServerSocket) {
            Field f = (endpoint instanceof Socket ? Socket.class : ServerSocket.class).getDeclaredField("impl");
            f.setAccessible(true);
            Method m = SocketImpl.class.getDeclaredMethod("getFileDescriptor");
            m.setAccessible(true);
            return JdkNio.fdVal((FileDescriptor) m.invoke(f.get(endpoint)));
        }
        Object ch = endpoint;
        for (int depth = 0; depth < 4 && ch.getClass().getName().startsWith("org.sdp4j."); depth++) {
            ch = field(ch, "delegate");
        }
        return JdkNio.channelFd((SelectableChannel) ch);
    }

    private static Object field(Object o, String name) throws ReflectiveOperationException {
        for (Class<?> c = o.getClass(); c != null; c = c.getSuperclass()) {
            try {
                Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                return f.get(o);
            } catch (NoSuchFieldException e) {
                // up the hierarchy
            }
        }
        throw new NoSuchFieldException(name + " in " + o.getClass());
    }
}
