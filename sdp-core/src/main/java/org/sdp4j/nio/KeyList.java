package org.sdp4j.nio;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@link SdpSelectionKey}s of one wrapping channel. A key the application cancelled stays registered until its
 * selector's next select; going back to blocking mode in between must not trip over the inner registration the
 * JDK channel still has, so those inner keys are cancelled right away.
 */
final class KeyList {
    private final List<SdpSelectionKey> keys = new ArrayList<>(2);

    synchronized void add(SdpSelectionKey k) {
        keys.add(k);
    }

    synchronized void remove(SdpSelectionKey k) {
        keys.remove(k);
    }

    synchronized List<SdpSelectionKey> snapshot() {
        return new ArrayList<>(keys);
    }

    /** Before {@code configureBlocking(true)}: no valid key of ours exists, so every inner key can go. */
    synchronized void cancelInnerKeys() {
        for (SdpSelectionKey k : keys) {
            k.cancelInner();
        }
    }
}
