package org.sdp4j.nio;

import java.io.IOException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.spi.AbstractSelectableChannel;
import java.nio.channels.spi.AbstractSelector;
import java.nio.channels.spi.SelectorProvider;
import java.util.AbstractSet;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Set;

/**
 * The Selector of sdp4j's provider. It must take anything a program registers — sdp4j's socket channels and the
 * JDK's own pipes, datagram channels and channels opened elsewhere — so it runs on a JDK selector underneath: each
 * registration puts the kernel channel (the wrapper's inner channel, or the JDK channel itself) into the JDK
 * selector with this selector's key as attachment, and a select translates the JDK's selected keys back.
 *
 * <p>Locking follows the JDK's selectors: a selection operation holds this selector, then its selected-key set.
 */
final class SdpSelector extends AbstractSelector {
    private final Selector inner;
    private final Set<SelectionKey> keys = new HashSet<>();
    private final Set<SelectionKey> selected = new HashSet<>();
    private final Set<SelectionKey> publicKeys = Collections.unmodifiableSet(keys);
    private final Set<SelectionKey> publicSelected = new RemoveOnlySet(selected);

    SdpSelector(SelectorProvider provider, Selector inner) {
        super(provider);
        this.inner = inner;
    }

    @Override
    public Set<SelectionKey> keys() {
        ensureOpen();
        return publicKeys;
    }

    @Override
    public Set<SelectionKey> selectedKeys() {
        ensureOpen();
        return publicSelected;
    }

    @Override
    public int selectNow() throws IOException {
        return doSelect(-1);
    }

    @Override
    public int select(long timeout) throws IOException {
        if (timeout < 0) {
            throw new IllegalArgumentException("Negative timeout");
        }
        return doSelect(timeout);
    }

    @Override
    public int select() throws IOException {
        return doSelect(0);
    }

    @Override
    public Selector wakeup() {
        inner.wakeup();
        return this;
    }

    @Override
    protected SelectionKey register(AbstractSelectableChannel ch, int ops, Object att) {
        SelectableChannel kernel = ch instanceof WrappingChannel w ? w.kernelChannel() : ch;
        SdpSelectionKey k = new SdpSelectionKey(this, ch);
        k.attach(att);
        k.setInterestOpsUnchecked(ops);
        synchronized (publicKeys) {
            ensureOpen();
            try {
                k.inner = kernel.register(inner, ops, k);
            } catch (java.nio.channels.ClosedChannelException e) {
                // the wrapper is open (AbstractSelectableChannel checked) but its kernel channel was closed by an
                // interrupt or an asynchronous close racing with us: the registration is dead on arrival.
                throw new java.nio.channels.CancelledKeyException();
            }
            keys.add(k);
        }
        if (ch instanceof WrappingChannel w) {
            w.registered(k);
        }
        return k;
    }

    private int doSelect(long timeout) throws IOException {
        synchronized (this) {
            ensureOpen();
            synchronized (publicSelected) {
                processCancelled();
                int n;
                try {
                    begin();
                    n = timeout < 0 ? inner.selectNow() : timeout == 0 ? inner.select() : inner.select(timeout);
                } finally {
                    end();
                }
                processCancelled();
                return n == 0 ? 0 : translate();
            }
        }
    }

    /** Moves the JDK selector's selected keys into ours, with the JDK's semantics for keys already selected. */
    private int translate() {
        int updated = 0;
        Set<SelectionKey> ready = inner.selectedKeys();
        for (Iterator<SelectionKey> it = ready.iterator(); it.hasNext(); ) {
            SelectionKey ik = it.next();
            it.remove();
            if (!(ik.attachment() instanceof SdpSelectionKey k) || !k.isValid() || !ik.isValid()) {
                continue;
            }
            int r = ik.readyOps() & k.interestOpsUnchecked();
            if (r == 0) {
                continue;
            }
            if (selected.contains(k)) {
                if ((k.readyOps | r) != k.readyOps) {
                    k.readyOps |= r;
                    updated++;
                }
            } else {
                k.readyOps = r;
                selected.add(k);
                updated++;
            }
        }
        return updated;
    }

    private void processCancelled() {
        Set<SelectionKey> cancelled = cancelledKeys();
        synchronized (cancelled) {
            if (cancelled.isEmpty()) {
                return;
            }
            for (SelectionKey sk : cancelled) {
                SdpSelectionKey k = (SdpSelectionKey) sk;
                k.cancelInner();
                synchronized (publicKeys) {
                    keys.remove(k);
                }
                selected.remove(k);
                deregister(k);
                if (k.channel() instanceof WrappingChannel w) {
                    w.deregistered(k);
                }
            }
            cancelled.clear();
        }
    }

    @Override
    protected void implCloseSelector() throws IOException {
        inner.wakeup();
        synchronized (this) {
            synchronized (publicSelected) {
                inner.close();
                Set<SelectionKey> all;
                synchronized (publicKeys) {
                    all = new HashSet<>(keys);
                    keys.clear();
                }
                for (SelectionKey sk : all) {
                    SdpSelectionKey k = (SdpSelectionKey) sk;
                    deregister(k);
                    if (k.channel() instanceof WrappingChannel w) {
                        w.deregistered(k);
                    }
                }
                selected.clear();
                synchronized (cancelledKeys()) {
                    cancelledKeys().clear();
                }
            }
        }
    }

    private void ensureOpen() {
        if (!isOpen()) {
            throw new ClosedSelectorException();
        }
    }

    /** The selected-key set as the spec wants it: elements can be removed, never added. */
    private static final class RemoveOnlySet extends AbstractSet<SelectionKey> {
        private final Set<SelectionKey> s;

        RemoveOnlySet(Set<SelectionKey> s) {
            this.s = s;
        }

        @Override public int size() { return s.size(); }
        @Override public boolean contains(Object o) { return s.contains(o); }
        @Override public boolean remove(Object o) { return s.remove(o); }
        @Override public void clear() { s.clear(); }
        @Override public Iterator<SelectionKey> iterator() { return s.iterator(); }
        @Override public boolean add(SelectionKey k) { throw new UnsupportedOperationException(); }
    }
}
