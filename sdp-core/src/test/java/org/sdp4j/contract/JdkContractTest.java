package org.sdp4j.contract;

import org.junit.jupiter.api.Nested;

/** The contract on the JDK's own TCP: the reference every transport is compared with. Runs in its own JVM. */
class JdkContractTest {
    static final Transport T = new JdkTransport();

    @Nested class Stream extends StreamContract { protected Transport transport() { return T; } }
    @Nested class Close extends CloseContract { protected Transport transport() { return T; } }
    @Nested class Timeout extends TimeoutContract { protected Transport transport() { return T; } }
    @Nested class PeerFailure extends PeerFailureContract { protected Transport transport() { return T; } }
    @Nested class Options extends OptionsContract { protected Transport transport() { return T; } }
    @Nested class Selectors extends SelectorContract { protected Transport transport() { return T; } }
    @Nested class Interrupts extends InterruptContract { protected Transport transport() { return T; } }
}
