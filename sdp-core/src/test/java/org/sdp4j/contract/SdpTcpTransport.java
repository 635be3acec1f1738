package org.sdp4j.contract;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.channels.spi.SelectorProvider;

import org.sdp4j.Sdp4j;
import org.sdp4j.conf.Family;
import org.sdp4j.conf.ProgramIdentity;
import org.sdp4j.nio.SdpSelectorProvider;
import org.sdp4j.testing.Rules;

/** sdp4j on {@code use tcp} rules: its factories and selector provider in this JVM, every connection on TCP. */
public class SdpTcpTransport implements Transport {
    private static final SdpSelectorProvider PROVIDER = new SdpSelectorProvider();

    @Override
    public String name() {
        return "tcp";
    }

    @Override
    public void setUp() throws Exception {
        Sdp4j.installSocketFactories();
        Sdp4j.configure(Rules.all(Family.TCP), ProgramIdentity.of("contract-tcp"));
    }

    @Override
    public SelectorProvider provider() {
        return PROVIDER;
    }

    @Override
    public void assertCarried(Object endpoint, boolean accepted) {
        assertSdp4jTcp(endpoint);
    }

    /** Through sdp4j (its SocketImpl or provider) and on TCP (neither UCX nor rsockets). */
    public static void assertSdp4jTcp(Object endpoint) {
        String d = Transport.describe(endpoint);
        boolean viaSdp4j = endpoint instanceof java.nio.channels.spi.AbstractSelectableChannel
                ? ((java.nio.channels.spi.AbstractSelectableChannel) endpoint).provider() instanceof SdpSelectorProvider
                : d.contains("sdp4j");
        assertTrue(viaSdp4j && !d.contains("Ucx") && !d.contains("Rsocket"), () -> "not sdp4j on TCP: " + d);
    }
}
