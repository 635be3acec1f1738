package org.sdp4j.smc;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketImpl;
import java.nio.channels.SelectableChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;

import org.sdp4j.conf.Family;
import org.sdp4j.jdk.JdkNet;
import org.sdp4j.jdk.JdkNio;
import org.sdp4j.log.SdpLog;
import org.sdp4j.transport.Router;
import org.sdp4j.transport.Transport;

/**
 * The smc transport (rule family {@code smc}): the JDK's own sockets and channels whose descriptor became an SMC
 * socket before bind or connect ({@link Smc#convert}). Nothing of sdp4j's is on their data path: reads, writes,
 * timeouts, selectors and virtual-thread parking are the JDK's, and the kernel chooses SMC-R or TCP per connection.
 */
public final class SmcTransport implements Transport {

    public SmcTransport() {
        // cheap: ServiceLoader instantiates every transport, used or not
    }

    @Override
    public String name() {
        return "smc";
    }

    @Override
    public Family family() {
        return Family.SMC;
    }

    @Override
    public boolean isAvailable() {
        return Smc.isAvailable();
    }

    @Override
    public Throwable unavailabilityCause() {
        return Smc.unavailabilityCause();
    }

    /** The JDK's own implementation; {@link #create} makes its socket an SMC socket. */
    @Override
    public SocketImpl newSocketImpl(boolean server) throws IOException {
        return JdkNet.newPlatformImpl(server);
    }

    @Override
    public void create(SocketImpl impl) throws IOException {
        JdkNet.create(impl, true);
        Smc.convert(JdkNio.fdVal(JdkNet.fileDescriptor(impl)));
    }

    @Override
    public SocketChannel openSocketChannel(SelectorProvider provider) throws IOException {
        return converted(JdkNio.defaultProvider().openSocketChannel());
    }

    @Override
    public ServerSocketChannel openServerSocketChannel(SelectorProvider provider) throws IOException {
        return converted(JdkNio.defaultProvider().openServerSocketChannel());
    }

    private static <C extends SelectableChannel> C converted(C ch) throws IOException {
        try {
            Smc.convert(JdkNio.channelFd(ch));
            return ch;
        } catch (IOException | RuntimeException e) {
            try {
                ch.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /** One log line per connection: SMC-R, or TCP with the kernel's reason for falling back. */
    @Override
    public void established(Object socket, InetSocketAddress remote, boolean accepted) {
        String where = "";
        try {
            if (remote == null) {
                remote = socket instanceof SocketImpl impl
                        ? new InetSocketAddress(JdkNet.inetAddress(impl), JdkNet.port(impl))
                        : (InetSocketAddress) ((SocketChannel) socket).getRemoteAddress();
            }
            where = (accepted ? " from " : " to ") + Router.hostPort(remote);
            int fd = socket instanceof SocketImpl impl ? JdkNio.fdVal(JdkNet.fileDescriptor(impl))
                    : JdkNio.channelFd((SelectableChannel) socket);
            SmcOutcome o = SmcOutcome.of(fd);
            SdpLog.log(SdpLog.DECISION, "smc: connection" + where + " on "
                    + (o == null ? "an unknown path (smc_diag does not list it)" : o.toString())
                    + (o != null && o.reason() == NO_SMC_DEVICE && dualStackToIpv4(remote) ? IPV4_HINT : ""));
        } catch (IOException | RuntimeException e) {
            SdpLog.log(SdpLog.DECISION, "smc: connection" + where + ": path unknown (" + e.getMessage() + ")");
        }
    }

    /**
     * Seen between the guests on Linux 6.12: a JDK socket that is AF_INET6 (the JDK's dual-stack default, unless
     * {@code java.net.preferIPv4Stack} is set) connecting to an IPv4 peer fell back with 0x03030000 (no SMC device),
     * the same connection from an AF_INET socket rode SMC-R. So such a fallback says what to try.
     */
    static final String IPV4_HINT = " -- this JVM's sockets are IPv6 (dual-stack), with which SMC-R to an IPv4 peer"
            + " fell back on Linux 6.12: start it with -Djava.net.preferIPv4Stack=true";

    private static final int NO_SMC_DEVICE = 0x03030000;

    static boolean dualStackToIpv4(InetSocketAddress remote) {
        return remote != null && remote.getAddress() instanceof java.net.Inet4Address
                && !Boolean.getBoolean("java.net.preferIPv4Stack");
    }

    @Override
    public String describe() {
        return Smc.describe();
    }

    @Override
    public String toString() {
        return "smc transport (" + (isAvailable() ? "available, " + Smc.method()
                : "unavailable: " + unavailabilityCause().getMessage()) + ")";
    }
}
