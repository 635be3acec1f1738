package org.sdp4j.smc.contract;

import org.junit.jupiter.api.Nested;
import org.sdp4j.contract.CloseContract;
import org.sdp4j.contract.InterruptContract;
import org.sdp4j.contract.OptionsContract;
import org.sdp4j.contract.PeerFailureContract;
import org.sdp4j.contract.SelectorContract;
import org.sdp4j.contract.StreamContract;
import org.sdp4j.contract.TimeoutContract;
import org.sdp4j.contract.Transport;
import org.sdp4j.smc.SmcFixture;

/** The transport contract with both ends on {@code use smc}; run in the VM on a kernel with SMC (smc.sh). */
class SmcContractTest {
    static final Transport T = new SmcFixture();

    @Nested class Stream extends StreamContract { protected Transport transport() { return T; } }
    @Nested class Close extends CloseContract { protected Transport transport() { return T; } }
    @Nested class Timeout extends TimeoutContract { protected Transport transport() { return T; } }
    @Nested class PeerFailure extends PeerFailureContract { protected Transport transport() { return T; } }
    @Nested class Options extends OptionsContract { protected Transport transport() { return T; } }
    @Nested class Selectors extends SelectorContract { protected Transport transport() { return T; } }
    @Nested class Interrupts extends InterruptContract { protected Transport transport() { return T; } }
}
