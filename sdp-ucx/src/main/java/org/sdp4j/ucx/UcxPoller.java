package org.sdp4j.ucx;

import java.io.IOException;
import java.nio.channels.ClosedSelectorException;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.sdp4j.jdk.KernelPoll;
import org.sdp4j.transport.Poller;

/**
 * The {@link Poller} of the UCX transport: what an sdp4j Selector (and a {@code ucx} server channel's blocking
 * accept) waits in when it holds UCX channels, together with the kernel descriptors of the JDK's channels (TCP
 * sockets, pipes ...) registered with the same selector.
 *
 * <p><b>Why it spins and naps.</b> jucx 1.12.1 exposes no descriptor for a UCX worker's events (no
 * {@code ucp_worker_get_efd}/{@code ucp_worker_arm}), and every UCX connection has a worker of its own, so no
 * kernel call can wait for "data on any of these UCX connections". The readiness of a UCX socket channel is
 * therefore computed, not waited for: each round progresses every polled channel's worker once and checks its
 * staged data, completed receive, end-of-stream, peer death and in-flight send ({@link UcxConnection#readyOps});
 * the kernel descriptors (and UCX listeners, whose readiness <em>is</em> a kernel descriptor: their rendezvous
 * socket) are polled with poll(2) in the same round ({@link KernelPoll}). A poll that finds nothing ready spins
 * for {@code sdp4j.ucx.poll} microseconds (default 100, the read path's budget: data that arrives within it is seen
 * within a microsecond or so), then naps in poll(2) over the kernel descriptors plus a wakeup pipe in slices of
 * {@link #SLICE_MILLIS} ms until the timeout. So:
 * <ul>
 * <li>latency: UCX data arriving while the selector naps is seen within one slice (≤ 1 ms); kernel descriptors and
 * {@link #wakeup()} end a nap at once;</li>
 * <li>CPU: an idle selector that holds UCX channels wakes up about 1000 times a second and progresses each UCX
 * worker each time (a few microseconds per channel), plus the spin after every select that found nothing; a
 * selector with only kernel descriptors and UCX listeners left sleeps in poll(2) like the JDK's.</li>
 * </ul>
 * Set {@code -Dsdp4j.ucx.poll=0} to drop the spin (less CPU, up to a slice of latency), or raise it for latency.
 *
 * <p><b>Descriptors.</b> A UCX channel's {@link org.sdp4j.transport.TransportChannel#pollFd()} is a pseudo
 * descriptor ({@code 0x4000_0000} and up, above any kernel descriptor a process can hold); {@code pollBegin}
 * attaches the channel to this poller under that number and counts a user in on its connection, so the channel's
 * worker is never released while a poll progresses it ({@code pollEnd} counts it out; a close meanwhile leaves the
 * release to it). Not thread-safe except {@link #wakeup()} and {@link #close()}, as the Poller contract says.
 */
final class UcxPoller implements Poller {
    static final int SLICE_MILLIS = 1;
    private static final int PSEUDO_BASE = 0x4000_0000;
    private static final AtomicInteger SEQ = new AtomicInteger();

    /** What a UCX channel shows a poller. */
    interface Pollable {
        /** A kernel descriptor whose readiness is this channel's (a listener's rendezvous socket), else -1. */
        int kernelFd();

        /** poll(2)-style readiness for {@code events} now, without blocking (progresses UCX once). */
        short readyOps(short events);
    }

    static int newPseudoFd() {
        return PSEUDO_BASE | (SEQ.incrementAndGet() & 0x3FFF_FFFF);
    }

    private final KernelPoll kernel = new KernelPoll();
    private final Map<Integer, Pollable> attached = new ConcurrentHashMap<>();
    private final Object lock = new Object();
    private boolean polling, closed; // guarded by lock

    private int[] kfds = new int[16];
    private int[] kidx = new int[16];
    private int[] sidx = new int[16];
    private Pollable[] soft = new Pollable[16];

    UcxPoller() throws IOException {
    }

    void attach(int fd, Pollable p) {
        attached.put(fd, p);
    }

    void detach(int fd) {
        attached.remove(fd);
    }

    @Override
    public int poll(int[] fds, short[] events, short[] revents, int n, long timeoutMillis) throws IOException {
        Objects.requireNonNull(fds, "fds");
        synchronized (lock) {
            if (closed) {
                throw new ClosedSelectorException();
            }
            if (polling) {
                throw new IllegalStateException("Poller.poll is not reentrant");
            }
            polling = true;
        }
        try {
            return doPoll(fds, events, revents, n, timeoutMillis);
        } finally {
            synchronized (lock) {
                polling = false;
            }
        }
    }

    private int doPoll(int[] fds, short[] events, short[] revents, int n, long timeoutMillis) throws IOException {
        if (kfds.length < fds.length) {
            int c = Math.max(fds.length, n);
            kfds = new int[c];
            kidx = new int[c];
            sidx = new int[c];
            soft = new Pollable[c];
        }
        int kn = 0, sn = 0;
        for (int i = 0; i < n; i++) {
            int fd = fds[i];
            Pollable p = fd >= PSEUDO_BASE ? attached.get(fd) : null;
            if (p == null) {
                kfds[i] = fd; // a kernel descriptor (negative ones are ignored by poll(2))
                kidx[kn++] = i;
                continue;
            }
            int k = p.kernelFd();
            if (k >= 0) {
                kfds[i] = k;
                kidx[kn++] = i;
            } else {
                soft[sn] = p;
                sidx[sn++] = i;
            }
        }
        long start = System.nanoTime();
        long deadline = timeoutMillis > 0 ? start + timeoutMillis * 1_000_000L : 0;
        long spinEnd = start + UcxWait.SPIN_NANOS;
        try {
            while (true) {
                int ready = 0;
                for (int j = 0; j < sn; j++) {
                    int i = sidx[j];
                    short r = soft[j].readyOps(events[i]);
                    revents[i] = r;
                    if (r != 0) {
                        ready++;
                    }
                }
                long now = System.nanoTime();
                long wait;
                if (ready > 0 || timeoutMillis == 0) {
                    wait = 0;
                } else if (sn == 0) {
                    wait = deadline == 0 ? -1 : Math.max(0, (deadline - now + 999_999) / 1_000_000L);
                } else if (now - spinEnd < 0) {
                    wait = 0;
                } else {
                    wait = deadline == 0 ? SLICE_MILLIS
                            : Math.min(SLICE_MILLIS, Math.max(0, (deadline - now + 999_999) / 1_000_000L));
                }
                if (kn > 0 || wait != 0) {
                    ready += kernel.poll(kfds, events, revents, kidx, kn, wait, true);
                }
                if (ready > 0) {
                    return ready;
                }
                if (timeoutMillis == 0 || kernel.takeWakeup() || isClosed()) {
                    return 0;
                }
                if (deadline != 0 && System.nanoTime() - deadline >= 0) {
                    return 0;
                }
                if (wait == 0) {
                    Thread.onSpinWait();
                }
            }
        } finally {
            for (int j = 0; j < sn; j++) {
                soft[j] = null;
            }
        }
    }

    private boolean isClosed() {
        synchronized (lock) {
            return closed;
        }
    }

    @Override
    public void wakeup() throws IOException {
        kernel.wakeup();
    }

    @Override
    public void close() throws IOException {
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
        }
        kernel.close(); // a poll in progress is woken; the pipe closes after it
        attached.clear();
    }
}
