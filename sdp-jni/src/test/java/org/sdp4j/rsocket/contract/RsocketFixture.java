package org.sdp4j.rsocket.contract;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.channels.spi.SelectorProvider;
import java.util.Set;

import org.junit.jupiter.api.Assumptions;
import org.sdp4j.Sdp4j;
import org.sdp4j.conf.ConfigParser;
import org.sdp4j.conf.ProgramIdentity;
import org.sdp4j.contract.Limitation;
import org.sdp4j.contract.SdpTcpTransport;
import org.sdp4j.contract.Transport;
import org.sdp4j.nio.SdpSelectorProvider;
import org.sdp4j.rsocket.Rsocket;

/**
 * Both ends on {@code use sdp}: rsockets through sdp4j's factories and provider. Real rsockets on soft-RoCE inside
 * the VM ({@code -Dsdp4j.test.address=10.9.9.1}, native/vm-tests/run-all.sh step i).
 */
public class RsocketFixture implements Transport {
    private static final SdpSelectorProvider PROVIDER = new SdpSelectorProvider();

    @Override
    public String name() {
        return "sdp";
    }

    protected String rules() {
        return "use sdp server * *:*\nuse sdp client * *:*\n";
    }

    @Override
    public InetAddress address() {
        return Transport.testAddress();
    }

    @Override
    public void setUp() throws Exception {
        Assumptions.assumeTrue(Rsocket.isAvailable(), () -> "rsockets unavailable: " + Rsocket.unavailabilityCause());
        Sdp4j.installSocketFactories();
        Sdp4j.configure(ConfigParser.parse("contract.conf", rules()), ProgramIdentity.of("contract-" + name()));
    }

    @Override
    public SelectorProvider provider() {
        return PROVIDER;
    }

    @Override
    public Set<Limitation> limitations() {
        return Set.of(Limitation.NO_RESET, Limitation.BACKLOG_UNBOUNDED);
    }

    @Override
    public void assertCarried(Object endpoint, boolean accepted) {
        String d = Transport.describe(endpoint);
        assertTrue(d.contains("Rsocket"), () -> "not on rsockets: " + d);
    }

    /** A {@code use both} server (rsockets and TCP on one port) with an rsocket client. */
    public static class BothServerRsocketClient extends RsocketFixture {
        @Override
        public String name() {
            return "both-sdp";
        }

        @Override
        protected String rules() {
            return "use both server * *:*\nuse sdp client * *:*\n";
        }

        /** The dual listener takes rsocket connections on its accept threads (seen in the VM). */
        @Override
        public Set<Limitation> limitations() {
            return Set.of(Limitation.NO_RESET, Limitation.BACKLOG_UNBOUNDED);
        }
    }

    /** A {@code use both} server with a TCP client: the connection is TCP, accepted by the dual listener. */
    public static class BothServerTcpClient extends RsocketFixture {
        @Override
        public String name() {
            return "both-tcp";
        }

        @Override
        protected String rules() {
            return "use both server * *:*\nuse tcp client * *:*\n";
        }

        /** A TCP connection end to end: none of the rsocket limitations. */
        @Override
        public Set<Limitation> limitations() {
            return Set.of();
        }

        @Override
        public void assertCarried(Object endpoint, boolean accepted) {
            String d = Transport.describe(endpoint);
            if (accepted) {
                assertFalse(d.contains("Rsocket"), () -> "a TCP client's connection accepted as rsocket: " + d);
            } else {
                SdpTcpTransport.assertSdp4jTcp(endpoint);
            }
        }
    }
}
