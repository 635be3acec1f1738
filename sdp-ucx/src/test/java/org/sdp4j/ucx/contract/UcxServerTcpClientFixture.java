package org.sdp4j.ucx.contract;

import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.Set;

import org.sdp4j.contract.Limitation;
import org.sdp4j.contract.SdpTcpTransport;
import org.sdp4j.contract.Transport;

/**
 * Where UCX meets TCP: a {@code use ucx} server (a UCX rendezvous and a TCP listener on one port) and a
 * {@code use tcp} client. The connection is TCP; the listener is sdp4j's UCX one.
 */
public class UcxServerTcpClientFixture extends UcxTransportFixture {
    @Override
    public String name() {
        return "ucx-tcp";
    }

    @Override
    protected String rules() {
        return "use ucx server * *:*\nuse tcp client * *:*\n";
    }

    /** The connection is TCP end to end; only the listener is UCX's (its accept threads drain the backlog). */
    @Override
    public Set<Limitation> limitations() {
        return Set.of(Limitation.BACKLOG_UNBOUNDED);
    }

    @Override
    public void assertCarried(Object endpoint, boolean accepted) {
        String d = Transport.describe(endpoint);
        if (accepted) {
            assertFalse(d.contains("UcxSocket"), () -> "a TCP client's connection accepted as UCX: " + d);
        } else {
            SdpTcpTransport.assertSdp4jTcp(endpoint);
        }
    }
}
