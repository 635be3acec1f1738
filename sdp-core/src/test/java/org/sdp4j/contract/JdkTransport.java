package org.sdp4j.contract;

import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.channels.spi.SelectorProvider;



/** The reference: the JDK's own TCP, in a JVM where sdp4j installed nothing (its own surefire execution). */
public class JdkTransport implements Transport {
    @Override
    public String name() {
        return "jdk";
    }

    @Override
    public void setUp() {
        // nothing: that is the point
    }

    @Override
    public SelectorProvider provider() {
        return SelectorProvider.provider();
    }

    @Override
    public void assertCarried(Object endpoint, boolean accepted) {
        String d = Transport.describe(endpoint);
        assertFalse(d.contains("sdp4j"), () -> "the reference run must not go through sdp4j (factories installed in "
                + "this JVM?): " + d);
    }
}
