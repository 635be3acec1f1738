package org.sdp4j.nio;

import java.nio.channels.CancelledKeyException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.spi.AbstractSelectionKey;

/**
 * A registration with an {@link SdpSelector}: the application's channel (an sdp4j wrapper or a JDK channel such as
 * a Pipe end) and the key of its kernel channel in the JDK selector underneath, whose attachment is this key.
 */
final class SdpSelectionKey extends AbstractSelectionKey {
    private final SdpSelector selector;
    private final SelectableChannel channel;
    volatile SelectionKey inner;
    /** What {@link #inner} (if any) was set up for: the registered channel's target at the last select. */
    volatile Object target;
    private volatile int interestOps;
    volatile int readyOps;

    SdpSelectionKey(SdpSelector selector, SelectableChannel channel) {
        this.selector = selector;
        this.channel = channel;
    }

    @Override
    public SelectableChannel channel() {
        return channel;
    }

    @Override
    public Selector selector() {
        return selector;
    }

    @Override
    public int interestOps() {
        ensureValid();
        return interestOps;
    }

    @Override
    public SelectionKey interestOps(int ops) {
        ensureValid();
        if ((ops & ~channel.validOps()) != 0) {
            throw new IllegalArgumentException("Invalid interest ops: " + ops);
        }
        SelectionKey i = inner;
        if (i != null) {
            try {
                i.interestOps(ops);
            } catch (CancelledKeyException e) {
                // the kernel channel was closed under us; the application sees its own key's state
                ensureValid();
            }
        }
        interestOps = ops;
        return this;
    }

    @Override
    public int readyOps() {
        ensureValid();
        return readyOps;
    }

    int interestOpsUnchecked() {
        return interestOps;
    }

    void setInterestOpsUnchecked(int ops) {
        interestOps = ops;
    }

    void cancelInner() {
        SelectionKey i = inner;
        if (i != null) {
            i.cancel();
        }
    }

    private void ensureValid() {
        if (!isValid()) {
            throw new CancelledKeyException();
        }
    }
}
