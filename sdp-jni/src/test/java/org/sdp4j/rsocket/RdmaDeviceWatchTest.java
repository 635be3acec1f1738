package org.sdp4j.rsocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Reading Native.rdmaLinks' list. The removal itself is proven in the two-host step device-gone-sdp (a real
 * {@code rdma link delete} under an open connection), which this host's kernel (no RDMA) cannot run.
 */
class RdmaDeviceWatchTest {
    static final String LIST = "3 rxe0 eth0\n0 mlx5_0 ens1f0 ens1f1\n12 hfi1_0\n";

    @Test
    void aNetdevNamesTheDeviceWithAPortOnIt() {
        assertEquals(new RdmaDeviceWatch.Device("3", "rxe0"), RdmaDeviceWatch.deviceFor(LIST, "eth0"));
        assertEquals(new RdmaDeviceWatch.Device("0", "mlx5_0"), RdmaDeviceWatch.deviceFor(LIST, "ens1f1"));
        assertNull(RdmaDeviceWatch.deviceFor(LIST, "eth"), "whole names only");
        assertNull(RdmaDeviceWatch.deviceFor(LIST, "rxe0"), "a device name is not a netdev");
        assertNull(RdmaDeviceWatch.deviceFor(LIST, "3"), "nor an index");
        assertNull(RdmaDeviceWatch.deviceFor("", "eth0"));
    }

    @Test
    void aDeviceIsListedByItsIndexWhateverItsName() {
        assertTrue(RdmaDeviceWatch.listed(LIST, new RdmaDeviceWatch.Device("3", "rxe0")));
        assertTrue(RdmaDeviceWatch.listed(LIST, new RdmaDeviceWatch.Device("12", "hfi1_0")), "no netdev");
        assertTrue(RdmaDeviceWatch.listed("3 rdma_a eth0\n", new RdmaDeviceWatch.Device("3", "rxe0")), "renamed");
        assertFalse(RdmaDeviceWatch.listed(LIST, new RdmaDeviceWatch.Device("1", "rxe0")), "another device");
        assertFalse(RdmaDeviceWatch.listed("4 rxe0 eth0\n", new RdmaDeviceWatch.Device("3", "rxe0")),
                "deleted and added again: a new device, the connection's is gone");
        assertFalse(RdmaDeviceWatch.listed("", new RdmaDeviceWatch.Device("3", "rxe0")));
    }

    @Test
    void noDeviceIsFoundForAnAddressWithoutOne() throws Exception {
        // loopback has no RDMA device anywhere; on this host the list may not even be readable: null either way
        assertNull(RdmaDeviceWatch.deviceOf(java.net.InetAddress.getLoopbackAddress()));
        assertNull(RdmaDeviceWatch.deviceOf(null));
    }
}
