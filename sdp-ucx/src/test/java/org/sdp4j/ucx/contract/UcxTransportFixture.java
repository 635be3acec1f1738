package org.sdp4j.ucx.contract;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.channels.spi.SelectorProvider;
import java.nio.file.Files;
import java.util.Set;

import org.sdp4j.Sdp4j;
import org.sdp4j.conf.ConfigParser;
import org.sdp4j.conf.ProgramIdentity;
import org.sdp4j.contract.Limitation;
import org.sdp4j.contract.Transport;
import org.sdp4j.nio.SdpSelectorProvider;
import org.sdp4j.ucx.Ucx;

/** Both ends on {@code use ucx}: sdp4j's factories and provider, UCX shared memory on this host. */
public class UcxTransportFixture implements Transport {
    private static final SdpSelectorProvider PROVIDER = new SdpSelectorProvider();

    @Override
    public String name() {
        return "ucx";
    }

    /** The rules of this fixture (libsdp.conf text). */
    protected String rules() {
        return "use ucx server * *:*\nuse ucx client * *:*\n";
    }

    @Override
    public void setUp() throws Exception {
        assertTrue(Ucx.isAvailable(), () -> "UCX must be installed for these tests: " + Ucx.unavailabilityCause());
        synchronized (UcxTransportFixture.class) {
            if (System.getProperty("sdp4j.ucx.dir") == null) {
                // the rendezvous directory; a peer JVM inherits it (Peer passes sdp4j.* properties)
                System.setProperty("sdp4j.ucx.dir", Files.createTempDirectory("ucx-contract").toString());
            }
        }
        Sdp4j.installSocketFactories();
        Sdp4j.configure(ConfigParser.parse("contract.conf", rules()), ProgramIdentity.of("contract-" + name()));
    }

    @Override
    public SelectorProvider provider() {
        return PROVIDER;
    }

    @Override
    public Set<Limitation> limitations() {
        return Set.of(Limitation.BACKLOG_UNBOUNDED, Limitation.NO_RESET, Limitation.TCP_NODELAY_DEFAULT_ON);
    }

    @Override
    public void assertCarried(Object endpoint, boolean accepted) {
        String d = Transport.describe(endpoint);
        assertTrue(d.contains("Ucx"), () -> "not on UCX: " + d);
    }
}
