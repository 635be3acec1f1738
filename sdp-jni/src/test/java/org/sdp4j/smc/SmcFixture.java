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

import org.junit.jupiter.api.Assumptions;
import org.sdp4j.Sdp4j;
import org.sdp4j.conf.ConfigParser;
import org.sdp4j.conf.ProgramIdentity;
import org.sdp4j.contract.Transport;
import org.sdp4j.jdk.JdkNio;
import org.sdp4j.nio.SdpSelectorProvider;

/**
 * Both ends on {@code use smc}: the JDK's sockets made the kernel's SMC sockets by sdp4j's factories and provider.
 * Inside the VM on its own kernel (native/vm-tests/smc.sh, {@code -Dsdp4j.test.address=10.9.9.1}): one host has
 * no SMC-D loopback, so the protocol falls back to TCP under every connection, and what the contract checks is
 * that SMC sockets under sdp4j keep the JDK's socket semantics. Each endpoint must be an SMC socket.
 */
public class SmcFixture implements Transport {
    private static final SdpSelectorProvider PROVIDER = new SdpSelectorProvider();

    @Override
    public String name() {
        return "smc";
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
     * they come, for the CLC handshake: 16 connects to backlog 1 completed in the VM (6.1) without an accept.
     */
    @Override
    public java.util.Set<org.sdp4j.contract.Limitation> limitations() {
        return java.util.Set.of(org.sdp4j.contract.Limitation.BACKLOG_UNBOUNDED);
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
        SmcOutcome o;
        try {
            o = SmcNative.isSmc(fd) ? null : SmcOutcome.of(fd);
        } catch (java.io.IOException e) {
            throw new AssertionError("smc_diag for fd " + fd, e);
        }
        assertTrue(SmcNative.isSmc(fd) || o != null,
                () -> "fd " + fd + " is neither an SMC socket nor listed by smc_diag: " + Transport.describe(endpoint));
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
