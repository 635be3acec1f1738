package org.sdp4j.contract;

import org.junit.jupiter.api.Nested;

/** The contract on sdp4j with {@code use tcp} rules (factories and provider installed in this JVM). */
class TcpContractTest {
    static final Transport T = new SdpTcpTransport();

    @Nested class Stream extends StreamContract { protected Transport transport() { return T; } }
    @Nested class Close extends CloseContract { protected Transport transport() { return T; } }
    @Nested class Timeout extends TimeoutContract { protected Transport transport() { return T; } }
    @Nested class PeerFailure extends PeerFailureContract { protected Transport transport() { return T; } }
    @Nested class Options extends OptionsContract { protected Transport transport() { return T; } }
    @Nested class Selectors extends SelectorContract { protected Transport transport() { return T; } }
    @Nested class Interrupts extends InterruptContract { protected Transport transport() { return T; } }
}
