package org.sdp4j.nio;

import java.io.IOException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.spi.AbstractSelectableChannel;
import java.nio.channels.spi.AbstractSelector;
import java.nio.channels.spi.SelectorProvider;
import java.nio.channels.SocketChannel;
import java.util.AbstractSet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

import org.sdp4j.jdk.JdkNio;
import org.sdp4j.transport.Poller;
import org.sdp4j.transport.Transport;
import org.sdp4j.transport.TransportChannel;

/**
 * The Selector of sdp4j's provider. It must take anything a program registers — sdp4j's socket channels and the
 * JDK's own pipes, datagram channels and channels opened elsewhere — so it runs on a JDK selector underneath: each
 * registration puts the kernel channel (the wrapper's inner channel, or the JDK channel itself) into the JDK
 * selector with this selector's key as attachment, and a select translates the JDK's selected keys back.
 *
 * <p><b>Transport channels.</b> A channel whose readiness the kernel cannot see (an rsocket: {@link TransportChannel})
 * cannot go into the JDK selector. While at least one valid key has such a target, a select runs through that
 * transport's {@link Poller} instead (rsockets' rpoll takes rsockets and kernel descriptors in one call): every key's
 * descriptor — the transport's, or the JDK channel's kernel fd — goes into one poll set, rebuilt per select. The JDK
 * channels stay registered with the JDK selector meanwhile (a selectNow per select releases what was cancelled, so
 * their deferred closes complete), and the select goes back to the JDK selector when the last transport key is gone.
 * Each poll brackets the transport channels with {@link TransportChannel#pollBegin}/{@code pollEnd}, so a channel
 * closed during the poll is released only after the poll returned (closing an rsocket under rpoll is unsafe).
 *
 * <p>A wrapper's target can change (an sdp4j channel that connects over rsockets, or falls back to TCP): each select
 * compares every key's current target with the one it was set up for and moves the key.
 *
 * <p>Locking follows the JDK's selectors: a selection operation holds this selector, then its selected-key set.
 */
final class SdpSelector extends AbstractSelector {
    private final Selector inner;
    private final Set<SelectionKey> keys = new HashSet<>();
    private final Set<SelectionKey> selected = new HashSet<>();
    private final Set<SelectionKey> publicKeys = Collections.unmodifiableSet(keys);
    private final Set<SelectionKey> publicSelected = new RemoveOnlySet(selected);

    private volatile Poller poller; // created by the selecting thread on first need
    private Transport pollerTransport;
    private volatile boolean pollerActive; // the current/next select polls through the poller
    private volatile boolean wakeupPending; // wakeup() since the last select ended
    private volatile boolean retargetPending; // a channel changed its target (internal wakeup, not the user's)
    private boolean flushInner; // inner keys were cancelled: let the JDK selector deregister them

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
        wakeupPending = true;
        wakeSelect();
        return this;
    }

    private void wakeSelect() {
        Poller p = poller;
        if (pollerActive && p != null) {
            try {
                p.wakeup();
            } catch (IOException | RuntimeException e) {
                inner.wakeup(); // closed meanwhile; nothing waits in it
            }
        } else {
            inner.wakeup();
        }
    }

    /** A registered channel now does its I/O on another channel (see {@link WrappingChannel}): re-plan the select. */
    void retargeted() {
        retargetPending = true;
        wakeSelect();
    }

    /** The channel a key's readiness comes from: a JDK SelectableChannel or a {@link TransportChannel}. */
    private static Object target(SdpSelectionKey k) {
        SelectableChannel ch = k.channel();
        return ch instanceof WrappingChannel w ? w.kernelChannel() : ch;
    }

    private static SelectableChannel secondTarget(SdpSelectionKey k) {
        return k.channel() instanceof WrappingChannel w ? w.secondChannel() : null;
    }

    @Override
    protected SelectionKey register(AbstractSelectableChannel ch, int ops, Object att) {
        SdpSelectionKey k = new SdpSelectionKey(this, ch);
        k.attach(att);
        k.setInterestOpsUnchecked(ops);
        synchronized (publicKeys) {
            ensureOpen();
            Object t = target(k);
            k.target = t;
            if (!(t instanceof TransportChannel)) {
                try {
                    k.inner = ((SelectableChannel) t).register(inner, ops, k);
                } catch (java.nio.channels.ClosedChannelException e) {
                    // the wrapper is open (AbstractSelectableChannel checked) but its kernel channel was closed by an
                    // interrupt or an asynchronous close racing with us: the registration is dead on arrival.
                    throw new java.nio.channels.CancelledKeyException();
                } catch (java.nio.channels.CancelledKeyException e) {
                    // its previous key with our JDK selector awaits deregistration: the next select registers it
                    k.inner = null;
                    flushInner = true;
                }
            }
            keys.add(k);
        }
        if (ch instanceof WrappingChannel w) {
            w.registered(k);
        }
        if (k.target instanceof TransportChannel) {
            retargeted(); // a select in progress on the JDK selector must switch to the poller
        }
        return k;
    }

    private int doSelect(long timeout) throws IOException {
        synchronized (this) {
            ensureOpen();
            synchronized (publicSelected) {
                long deadline = timeout > 0 ? System.nanoTime() + timeout * 1_000_000L : 0;
                try {
                    for (;;) {
                        retargetPending = false;
                        processCancelled();
                        boolean transport = plan();
                        long wait = timeout;
                        if (timeout > 0) {
                            wait = Math.max(1, (deadline - System.nanoTime() + 999_999) / 1_000_000L);
                        }
                        int n;
                        try {
                            begin();
                            n = transport ? pollerSelect(wait) : jdkSelect(wait);
                        } finally {
                            end();
                        }
                        processCancelled();
                        // A retarget woke us with nothing to report: that is no reason for select() to return.
                        if (n > 0 || !retargetPending || wakeupPending || timeout < 0
                                || Thread.currentThread().isInterrupted()
                                || (timeout > 0 && deadline - System.nanoTime() <= 0)) {
                            return n;
                        }
                    }
                } finally {
                    wakeupPending = false;
                }
            }
        }
    }

    /** Moves keys whose target changed; true when some valid key has a transport target. */
    private boolean plan() {
        boolean transport = false;
        SelectionKey[] all;
        synchronized (publicKeys) {
            all = keys.toArray(new SelectionKey[0]);
        }
        for (SelectionKey sk : all) {
            SdpSelectionKey k = (SdpSelectionKey) sk;
            if (!k.isValid()) {
                continue;
            }
            Object t = target(k);
            if (t != k.target) {
                if (k.inner != null) {
                    k.cancelInner();
                    k.inner = null;
                    flushInner = true;
                }
                k.target = t;
            }
            transport |= t instanceof TransportChannel;
        }
        return transport;
    }

    private int jdkSelect(long timeout) throws IOException {
        pollerActive = false;
        if (flushInner) {
            inner.selectNow(); // deregisters cancelled inner keys; what it finds ready stays in its selected set
            flushInner = false;
        }
        SelectionKey[] all;
        synchronized (publicKeys) {
            all = keys.toArray(new SelectionKey[0]);
        }
        for (SelectionKey sk : all) {
            SdpSelectionKey k = (SdpSelectionKey) sk;
            if (k.isValid() && k.inner == null && k.target instanceof SelectableChannel c
                    && !(c instanceof TransportChannel)) {
                try {
                    k.inner = c.register(inner, k.interestOpsUnchecked(), k);
                } catch (java.nio.channels.ClosedChannelException e) {
                    // closed under us: its wrapper closes too, and the key is cancelled with it
                }
            }
        }
        if (wakeupPending || timeout < 0) {
            inner.selectNow();
        } else if (timeout == 0) {
            inner.select();
        } else {
            inner.select(timeout);
        }
        return translate();
    }

    // ---- selecting through a transport's poller ----

    private int[] fds = new int[16];
    private short[] events = new short[16];
    private short[] revents = new short[16];
    private SdpSelectionKey[] owners = new SdpSelectionKey[16];
    private TransportChannel[] begun = new TransportChannel[16];

    private Poller poller(Transport t) throws IOException {
        Poller p = poller;
        if (p != null) {
            if (pollerTransport != t) {
                throw new IOException("one selector cannot poll channels of two transports (" + pollerTransport.name()
                        + " and " + t.name() + ")");
            }
            return p;
        }
        p = t.newPoller();
        if (p == null) {
            throw new IOException(t.name() + " has no poller");
        }
        pollerTransport = t;
        poller = p;
        return p;
    }

    private int pollerSelect(long timeout) throws IOException {
        pollerActive = true;
        // release cancelled inner keys (their channels' deferred closes) and drop the JDK selector's wakeup state
        inner.selectNow();
        inner.selectedKeys().clear();
        flushInner = false;
        SelectionKey[] all;
        synchronized (publicKeys) {
            all = keys.toArray(new SelectionKey[0]);
        }
        Poller p = null;
        int n = 0;
        int nb = 0;
        long now = System.nanoTime();
        long soonest = Long.MAX_VALUE; // ns until the first attempt deadline of a pending connect
        List<SdpSelectionKey> expired = null;
        Transport planned = null; // the transport of some valid key: the poller this select waits in
        try {
            for (SelectionKey sk : all) {
                SdpSelectionKey k = (SdpSelectionKey) sk;
                if (!k.isValid()) {
                    continue;
                }
                if (planned == null && k.target instanceof TransportChannel tc) {
                    planned = tc.transport();
                }
                int ops = k.interestOpsUnchecked();
                if (ops == 0) {
                    continue;
                }
                if ((ops & SelectionKey.OP_CONNECT) != 0 && k.channel() instanceof WrappingChannel w) {
                    long left = w.nanosUntilDeadline();
                    if (left <= 0) {
                        (expired == null ? expired = new ArrayList<>() : expired).add(k);
                    } else {
                        soonest = Math.min(soonest, left);
                    }
                }
                short ev = 0;
                if ((ops & (SelectionKey.OP_READ | SelectionKey.OP_ACCEPT)) != 0) {
                    ev |= Poller.POLLIN;
                }
                if ((ops & (SelectionKey.OP_WRITE | SelectionKey.OP_CONNECT)) != 0) {
                    ev |= Poller.POLLOUT;
                }
                for (int j = 0; j < 2; j++) {
                    Object t = j == 0 ? k.target : secondTarget(k);
                    if (t == null) {
                        continue;
                    }
                    int fd;
                    if (t instanceof TransportChannel tc) {
                        if (p == null) {
                            p = poller(tc.transport());
                        } else if (tc.transport() != pollerTransport) {
                            poller(tc.transport()); // throws: two transports
                        }
                        fd = tc.pollBegin(p);
                        if (fd < 0) {
                            continue;
                        }
                        if (nb == begun.length) {
                            begun = Arrays.copyOf(begun, nb * 2);
                        }
                        begun[nb++] = tc;
                    } else {
                        SelectableChannel c = (SelectableChannel) t;
                        if (!c.isOpen()) {
                            continue;
                        }
                        fd = JdkNio.channelFd(c);
                    }
                    if (n == fds.length) {
                        fds = Arrays.copyOf(fds, n * 2);
                        events = Arrays.copyOf(events, n * 2);
                        revents = Arrays.copyOf(revents, n * 2);
                        owners = Arrays.copyOf(owners, n * 2);
                    }
                    fds[n] = fd;
                    events[n] = ev;
                    owners[n++] = k;
                }
            }
            if (p == null) {
                // no transport channel in the poll set (interest 0, as Netty registers first; or closed meanwhile):
                // the poller still waits, on the kernel descriptors alone. Returning 0 here ignored every other
                // ready channel and made select() a busy loop (issue 23).
                p = planned != null ? poller(planned) : poller;
                if (p == null) {
                    return 0; // no transport key left: the next select goes back to the JDK selector
                }
            }
            long t;
            if (timeout < 0 || wakeupPending || expired != null) {
                t = 0;
            } else if (soonest != Long.MAX_VALUE) {
                long ms = (soonest + 999_999) / 1_000_000L;
                t = timeout == 0 ? ms : Math.min(ms, timeout);
            } else {
                t = timeout == 0 ? -1 : timeout;
            }
            Arrays.fill(revents, 0, n, (short) 0);
            p.poll(fds, events, revents, n, t);
        } finally {
            for (int i = 0; i < nb; i++) {
                begun[i].pollEnd(p);
                begun[i] = null;
            }
        }
        int updated = 0;
        for (int i = 0; i < n; i++) {
            SdpSelectionKey k = owners[i];
            owners[i] = null;
            if (revents[i] != 0 && k.isValid()) {
                updated += ready(k, readyOps(k, revents[i]));
            }
        }
        for (SdpSelectionKey k : expired == null ? List.<SdpSelectionKey>of() : expired) {
            if (k.isValid() && k.channel() instanceof WrappingChannel w && w.nanosUntilDeadline() <= 0) {
                updated += ready(k, SelectionKey.OP_CONNECT); // finishConnect gives up the attempt and falls back
            }
        }
        return updated;
    }

    private static int readyOps(SdpSelectionKey k, short rev) {
        int interest = k.interestOpsUnchecked();
        int r = 0;
        if ((rev & (Poller.POLLERR | Poller.POLLHUP)) != 0) {
            r = interest;
        }
        if ((rev & Poller.POLLIN) != 0) {
            r |= interest & (SelectionKey.OP_READ | SelectionKey.OP_ACCEPT);
        }
        if ((rev & Poller.POLLOUT) != 0) {
            r |= interest & (SelectionKey.OP_WRITE | SelectionKey.OP_CONNECT);
        }
        if (k.channel() instanceof SocketChannel sc) {
            if (!sc.isConnectionPending()) {
                r &= ~SelectionKey.OP_CONNECT;
            }
            if (!sc.isConnected()) {
                r &= ~(SelectionKey.OP_WRITE | SelectionKey.OP_READ);
            }
        }
        return r;
    }

    /** Adds ready operations to a key as the JDK does: 1 when the key was added or its ready set grew. */
    private int ready(SdpSelectionKey k, int r) {
        if (r == 0) {
            return 0;
        }
        if (selected.contains(k)) {
            if ((k.readyOps | r) != k.readyOps) {
                k.readyOps |= r;
                return 1;
            }
            return 0;
        }
        k.readyOps = r;
        selected.add(k);
        return 1;
    }

    /** Moves the JDK selector's selected keys into ours, with the JDK's semantics for keys already selected. */
    private int translate() {
        int updated = 0;
        Set<SelectionKey> ready = inner.selectedKeys();
        for (Iterator<SelectionKey> it = ready.iterator(); it.hasNext(); ) {
            SelectionKey ik = it.next();
            it.remove();
            if (!(ik.attachment() instanceof SdpSelectionKey k) || !k.isValid() || !ik.isValid() || k.inner != ik) {
                continue;
            }
            updated += ready(k, ik.readyOps() & k.interestOpsUnchecked());
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
                if (k.inner != null) {
                    flushInner = true;
                }
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
                // last: with this selector's keys gone from the channels, the JDK selector's close is what frees the
                // descriptor of a channel closed while registered (it defers that until no selector holds it)
                inner.close();
                Poller p = poller;
                if (p != null) {
                    p.close();
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
