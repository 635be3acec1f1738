package org.sdp4j.transport;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.net.InetAddress;

import org.junit.jupiter.api.Test;

/** The in-JVM guard that keeps rsocket connects off this JVM's ucx rendezvous ports (UCX 1.13 aborts on them). */
class UcxRdmaCmPortsTest {
    @Test
    void aLocalConnectToAHeldPortIsRefusedUntilReleased() throws Exception {
        InetAddress lo = InetAddress.getLoopbackAddress();
        assertNull(UcxRdmaCmPorts.refusal(lo, 47111));
        UcxRdmaCmPorts.held(47111);
        try {
            assertNotNull(UcxRdmaCmPorts.refusal(lo, 47111), "this host, that port");
            assertNotNull(UcxRdmaCmPorts.refusal(InetAddress.getByName("0.0.0.0"), 47111), "the wildcard is here");
            assertNull(UcxRdmaCmPorts.refusal(lo, 47112), "another port");
            assertNull(UcxRdmaCmPorts.refusal(InetAddress.getByName("192.0.2.1"), 47111), "another host (TEST-NET-1)");
        } finally {
            UcxRdmaCmPorts.released(47111);
        }
        assertNull(UcxRdmaCmPorts.refusal(lo, 47111));
    }

    @Test
    void aNewRendezvousWaitsForThisJvmsRsocketConnectsToItsPort() throws Exception {
        UcxRdmaCmPorts.connecting(47113);
        java.util.concurrent.CompletableFuture<Void> held = java.util.concurrent.CompletableFuture.runAsync(
                () -> UcxRdmaCmPorts.held(47113));
        try {
            Thread.sleep(200);
            org.junit.jupiter.api.Assertions.assertFalse(held.isDone(), "held() returned with a connect in flight");
            UcxRdmaCmPorts.connected(47113);
            held.get(10, java.util.concurrent.TimeUnit.SECONDS); // returns once the connect ended
        } finally {
            UcxRdmaCmPorts.released(47113);
        }
    }
}
