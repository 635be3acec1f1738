package org.sdp4j.rsocket;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import org.sdp4j.transport.Deadline;
import org.sdp4j.transport.Poller;

/**
 * One rsocket and its wakeup eventfd, shared by the java.net {@link RsocketSocketImpl} and the NIO channels:
 * operations count themselves in ({@link #enter}) and out ({@link #exit}); {@link #close} marks the handle closing
 * and wakes every waiter (the eventfd, and the selectors polling the rsocket); whoever leaves last rcloses, so
 * librdmacm never sees a descriptor freed under a running call (rpoll included).
 *
 * <p>The data path of both ({@link #read}, {@link #write}, {@link #shutdownInput}, {@link #shutdownOutput}) lives
 * here once: the SocketImpl and the channel check their own state, then call in and turn the outcome codes
 * ({@link #TIMED_OUT}, {@link #CLOSED_WAITING}, {@link #INTERRUPTED_WAITING}) into their own exceptions.
 *
 * <p>Waiting ({@link #await}): busy-poll first when asked (on a virtual thread for at most
 * {@link RsocketParker#VIRTUAL_SPIN_MAX_MICROS}), then rpoll on the rsocket and the eventfd on a platform thread
 * (parked as a virtual thread is when others are parked or many platform threads rpoll already), or park on a
 * virtual thread ({@link RsocketParker}). A local shutdownInput gives no rsocket event, so a reader that waits
 * says so ({@link #readerWaiting}) and {@link #wakeReader} signals the eventfd, which the reader drains.
 */
final class RsocketHandle {
    /** {@link #accept} and {@link #awaitConnect} results: woken by a close; a virtual thread was interrupted. */
    static final int CLOSED = -1, INTERRUPTED = -2;
    /**
     * In a result of {@link #await}: the peer's disconnect lay unread by librdmacm ({@link CmStallWatch}); the
     * connection is over: a reader returns -1, a writer fails.
     */
    static final int PEER_GONE = 0x40000;
    static final String PEER_GONE_MESSAGE = "Connection reset: the peer disconnected (librdmacm left its disconnect unread)";
    /**
     * In a result of {@link #await}: the RDMA device under the connection left the kernel's device list
     * ({@link RdmaDeviceWatch}); reads and writes throw {@link RdmaDeviceWatch#goneMessage}.
     */
    static final int DEVICE_GONE = 0x80000;
    /** How long one wait of accept watches the listener before re-checking (ms). */
    private static final int ACCEPT_SLICE_MS = 100;
    /** After a connection request: retries of raccept at 1, 2, 4 .. 32 ms, then 32 ms, up to this many. */
    private static final int ACCEPT_BACKOFF_STEPS = 14;
    private static final int ACCEPT_BACKOFF_MAX_MS = 32;

    private final Object lock = new Object();
    // guarded by lock
    private int rfd, efd, useCount;
    private boolean readerWaiting;
    private final List<Poller> pollers = new ArrayList<>(1);
    private volatile boolean closing; // volatile: read without the lock by the busy-poll loop
    private final CmStallWatch cmWatch = new CmStallWatch();
    /** The RDMA device carrying the connection (null: not known, not watched); set once it is established. */
    private volatile RdmaDeviceWatch.Device device;
    private volatile boolean deviceGone;
    /** Bytes received and sent, for stat and JMX ({@link #track}); one atomic add per call, no allocation. */
    final java.util.concurrent.atomic.AtomicLong bytesIn = new java.util.concurrent.atomic.AtomicLong(),
            bytesOut = new java.util.concurrent.atomic.AtomicLong();
    private volatile org.sdp4j.ops.OpenConnections.Entry tracked;
    /** Local shutdowns: a read after SHUT_RD is end of stream; writes after SHUT_WR are refused by the callers. */
    private volatile boolean inputShutdown, outputShutdown;

    /** {@link #read}/{@link #write} outcomes besides bytes and end of stream, for the caller to throw its own way. */
    static final long TIMED_OUT = -1001, CLOSED_WAITING = -1002, INTERRUPTED_WAITING = -1003;
    /** {@link #afterNothingRead}/{@link #afterNothingWritten}: try the call again. */
    private static final long AGAIN = -1000;

    private RsocketHandle(int rfd, int efd) {
        this.rfd = rfd;
        this.efd = efd;
    }

    /** A new rsocket (non-blocking) with its eventfd. */
    static RsocketHandle open() throws IOException {
        Rsocket.ensureAvailability();
        int ev = Native.eventfd();
        try {
            return new RsocketHandle(Native.socket(false), ev);
        } catch (IOException | RuntimeException e) {
            Native.closeEvent(ev);
            throw e;
        }
    }

    /**
     * A new rsocket for a listener: SO_REUSEADDR on, as the JDK sets it on every server socket and server channel
     * (a restarted server rebinds its port at once; the contract suite's reference reads it back as true). Best
     * effort: librdmacm accepts it before the bind on every transport it serves.
     */
    static RsocketHandle openListener() throws IOException {
        RsocketHandle h = open();
        try {
            Native.setOption(h.rfd, Native.OPT_SO_REUSEADDR, 1);
        } catch (IOException ignore) {
            // the listener works without it; getReuseAddress() then reports false
        }
        return h;
    }

    /** An accepted rsocket; if this throws, nfd is still the caller's to close. */
    static RsocketHandle accepted(int nfd) throws IOException {
        return new RsocketHandle(nfd, Native.eventfd());
    }

    /** An accepted rsocket nobody will own (taking it over failed with e, which the caller throws): closed. */
    static void discard(int nfd, Exception e) {
        try {
            Native.close(nfd);
        } catch (IOException suppressed) {
            e.addSuppressed(suppressed);
        }
    }

    /** Counts an operation in: the rsocket, or -1 when closing (the caller throws its kind of "closed"). */
    int enter() {
        synchronized (lock) {
            if (closing) {
                return -1;
            }
            useCount++;
            return rfd;
        }
    }

    /** Counts an operation out; the last one out after a close releases the rsocket and the eventfd. */
    void exit() {
        int fd = -1, ev = -1;
        synchronized (lock) {
            if (--useCount == 0 && closing) {
                fd = rfd;
                ev = efd;
                rfd = efd = -1;
            }
        }
        RsocketCloser.closeQuietly(fd, ev, closeMayFinish());
    }

    boolean isClosing() {
        return closing;
    }

    /** The rsocket (for a selector's set: only between pollBegin and pollEnd is it guaranteed open). */
    int fd() {
        synchronized (lock) {
            return rfd;
        }
    }

    int wakeFd() {
        synchronized (lock) {
            return efd;
        }
    }

    /** A selector starts polling the rsocket: counted in as an operation; -1 when closing. */
    int pollBegin(Poller poller) {
        synchronized (lock) {
            if (closing) {
                return -1;
            }
            useCount++;
            pollers.add(poller);
            return rfd;
        }
    }

    void pollEnd(Poller poller) {
        synchronized (lock) {
            pollers.remove(poller);
        }
        exit();
    }

    /**
     * Whether a close should wait (bounded) for rclose: not once the peer is known gone or the device removed, when
     * librdmacm's disconnect can never be acknowledged and the wait would only add the close bound.
     */
    private boolean closeMayFinish() {
        return !cmWatch.gone() && !deviceGone;
    }

    /** Lists this connection among the open ones (stat, JMX) until it closes; {@code role} client or accepted. */
    void track(String role, java.net.InetSocketAddress local, java.net.InetSocketAddress remote) {
        tracked = org.sdp4j.ops.OpenConnections.opened("rsocket", role, local, remote, bytesIn::get, bytesOut::get,
                "rsockets");
        device = RdmaDeviceWatch.deviceOf(local.getAddress()); // once per local address; then cached
    }

    /** Closes now, or marks closing and wakes every user (the last one out closes). False when already closing. */
    boolean close() throws IOException {
        int fd, ev;
        synchronized (lock) {
            if (closing) {
                return false;
            }
            closing = true;
            org.sdp4j.ops.OpenConnections.closed(tracked);
            if (useCount > 0) {
                Native.signal(efd); // blocked operations wake and leave
                for (Poller p : pollers) {
                    p.wakeup(); // a selector polling this rsocket returns, then pollEnd counts it out
                }
                return true;
            }
            fd = rfd;
            ev = efd;
            rfd = efd = -1;
        }
        // a close known to hang (the peer is gone and librdmacm left its disconnect unread) is not waited for
        RsocketCloser.close(fd, ev, closeMayFinish());
        return true;
    }

    /**
     * After a channel's wait saw its virtual thread interrupted: Thread.interrupt sets the flag first, then closes
     * the channel (AbstractInterruptibleChannel's interruptor); let that finish (briefly) so end() reports
     * ClosedByInterruptException.
     */
    void awaitCloseByInterrupt() {
        for (int i = 0; i < 100_000 && !closing; i++) {
            Thread.yield();
        }
    }

    void readerWaiting(boolean waiting) {
        synchronized (lock) {
            readerWaiting = waiting;
        }
    }

    /** After a local SHUT_RD (no rsocket event for it): wakes a reader waiting on this handle. */
    void wakeReader() throws IOException {
        synchronized (lock) {
            if (readerWaiting && !closing) {
                Native.signal(efd);
            }
        }
    }

    /**
     * Empties the eventfd after wakeReader's signal (never after a close: closing stays signalled). A close landing
     * between the check and the read has its signal consumed with the other: it is given back, or a writer that
     * passed its own closing check would go back to rpoll with nothing left to wake it (issue 23).
     */
    void drainWakeup() throws IOException {
        int ev = wakeFd();
        if (ev >= 0 && !closing) {
            Native.pollMany(new int[0], new short[0], new short[0], 0, ev, 0, true);
            if (closing) {
                synchronized (lock) {
                    if (efd >= 0) { // the caller is counted in: the eventfd is still this handle's
                        Native.signal(efd);
                    }
                }
            }
        }
    }

    /**
     * Waits for events on fd (this handle's rsocket, counted in) or the eventfd: revents | {@link Native#WOKEN},
     * 0 on timeout (ms, -1 none), | {@link RsocketParker#INTERRUPTED} when a virtual thread was interrupted.
     * busyPollMicros: spin on the rsocket alone first (rpoll(0) without the eventfd: no system call; a close is
     * seen through the flag).
     */
    int await(int fd, int events, int timeoutMillis, int busyPollMicros) throws IOException {
        return await(fd, events, timeoutMillis, busyPollMicros, true);
    }

    /**
     * {@link #await}; {@code watchStall} false for a connect: its connection-manager events (the reply, the
     * established event) are librdmacm's own to read, in rpoll, and may wait longer than the stall time when many
     * connects are queued on a loaded host (a run had the 219th of 256 simultaneous connects taken for a lost peer).
     */
    private int await(int fd, int events, int timeoutMillis, int busyPollMicros, boolean watchStall)
            throws IOException {
        if (watchStall && deviceGone) {
            return DEVICE_GONE;
        }
        if (watchStall && cmWatch.gone()) {
            return PEER_GONE;
        }
        if (timeoutMillis == 0) {
            return awaitOnce(fd, events, 0, busyPollMicros);
        }
        // in slices: between them, CmStallWatch looks for a disconnect librdmacm left unread
        Deadline deadline = Deadline.afterMillis(timeoutMillis);
        for (int spin = busyPollMicros;; spin = 0) {
            int left = deadline.pollMillis();
            int slice = left < 0 ? CmStallWatch.CHECK_MS : Math.min(left, CmStallWatch.CHECK_MS);
            int r = awaitOnce(fd, events, slice, spin);
            if (r != 0 || deadline.expired()) {
                return r;
            }
            if (watchStall && cmWatch.stalled(fd)) {
                return PEER_GONE;
            }
            RdmaDeviceWatch.Device dev = device;
            if (watchStall && dev != null && RdmaDeviceWatch.isGone(dev)) {
                deviceGone = true;
                org.sdp4j.log.SdpLog.log(org.sdp4j.log.SdpLog.WARN, "sdp4j: rsocket " + fd + ": "
                        + RdmaDeviceWatch.goneMessage(dev));
                return DEVICE_GONE;
            }
        }
    }

    private int awaitOnce(int fd, int events, int timeoutMillis, int busyPollMicros) throws IOException {
        boolean virtual = RsocketParker.onVirtualThread();
        int spin = virtual ? Math.min(busyPollMicros, RsocketParker.VIRTUAL_SPIN_MAX_MICROS) : busyPollMicros;
        if (spin > 0 && timeoutMillis != 0) {
            long end = System.nanoTime() + spin * 1000L;
            do {
                int r = Native.poll(fd, events, -1, 0);
                if (r != 0) {
                    return r;
                }
                if (closing) {
                    return Native.WOKEN; // what the eventfd would say
                }
                // never yields: an rsocket's peer is on another host (rsockets has no loopback), our CPU is not its
                org.sdp4j.transport.SpinPolicy.pause(false, false);
            } while (System.nanoTime() - end < 0);
        }
        return virtual ? RsocketParker.await(fd, events, wakeFd(), timeoutMillis)
                : RsocketParker.awaitPlatform(fd, events, wakeFd(), timeoutMillis);
    }

    /**
     * {@link #await} for POLLIN as a reader that {@link #wakeReader} can wake: that wake-up is drained and reported
     * as 0 (the caller re-checks its input-shutdown flag); {@link Native#WOKEN} then means closing (or interrupted).
     */
    int awaitReadable(int fd, int timeoutMillis, int busyPollMicros) throws IOException {
        readerWaiting(true);
        int r;
        try {
            r = await(fd, Native.POLLIN, timeoutMillis, busyPollMicros);
        } finally {
            readerWaiting(false);
        }
        if ((r & Native.WOKEN) != 0 && (r & RsocketParker.INTERRUPTED) == 0 && !closing) {
            drainWakeup(); // shutdownInput's signal
            r &= ~Native.WOKEN;
        }
        return r;
    }

    /**
     * rconnect of fd (counted in) to d: true when it completed at once, false while it is pending (then
     * {@link #awaitConnect} waits for it, or a selector for POLLOUT).
     */
    boolean connect(int fd, RsocketAddresses.Destination d) throws IOException {
        return Native.connect(fd, d.bytes(), d.scope(), d.port());
    }

    /**
     * Waits for the pending rconnect of fd (counted in) and finishes it (Native.finishConnect throws how it failed):
     * 0 when connected, {@link #CLOSED} or {@link #INTERRUPTED}; SocketTimeoutException naming the destination once
     * the deadline passed.
     */
    int awaitConnect(int fd, RsocketAddresses.Destination d, int timeoutMillis, int busyPollMicros)
            throws IOException {
        Deadline deadline = Deadline.afterMillis(timeoutMillis);
        for (;;) {
            int wait = deadline.pollMillis();
            if (wait == 0) {
                throw new SocketTimeoutException("rconnect " + d + ": connect timed out after " + timeoutMillis
                        + " ms");
            }
            int r = await(fd, Native.POLLOUT, wait, busyPollMicros, false);
            if ((r & RsocketParker.INTERRUPTED) != 0) {
                return INTERRUPTED;
            }
            if ((r & Native.WOKEN) != 0 && closing) {
                return CLOSED;
            }
            r &= ~Native.WOKEN; // a shutdownInput's signal meant for a reader
            if (r != 0) {
                finishConnect(fd, r, d);
                return 0;
            }
        }
    }

    /** Completes a pending rconnect that polled ready with revents r; throws how it failed. */
    void finishConnect(int fd, int r, RsocketAddresses.Destination d) throws IOException {
        Native.finishConnect(fd, r, d.bytes(), d.scope(), d.port());
    }

    /** After the connect completed: the local address, and the connection listed for stat as a client's. */
    InetSocketAddress connected(int fd, RsocketAddresses.Destination d) throws IOException {
        InetSocketAddress me = RsocketAddresses.local(fd);
        track("client", me, d.socketAddress());
        return me;
    }

    /**
     * raccept on fd (this handle's listener, counted in) until a connection arrives or the deadline passes
     * (SocketTimeoutException "Accept timed out"): the new rsocket, {@link #CLOSED} or
     * {@link #INTERRUPTED}. The wait watches the listener's rdma_cm channel (a request is seen at once, see
     * Native.pollListener) in slices that bound the rare request taken by librdmacm's service thread before the
     * wait began, then retries raccept with a short backoff until librdmacm has queued the connection. A virtual
     * thread parks (RsocketParker; its rpoll of a listener watches the channel and settles the same way).
     */
    int accept(int fd, Deadline deadline) throws IOException {
        int nfd, pending = 0; // > 0: a connection request was seen; backing off until librdmacm has queued it
        boolean virtual = RsocketParker.onVirtualThread();
        while ((nfd = Native.accept(fd)) == Native.UNAVAILABLE) {
            int wait = deadline.pollMillis();
            if (wait == 0) {
                throw new SocketTimeoutException("Accept timed out");
            }
            int slice = pending > 0 ? Math.min(1 << (pending - 1), ACCEPT_BACKOFF_MAX_MS) : ACCEPT_SLICE_MS;
            if (wait > 0) {
                slice = Math.min(slice, wait);
            }
            // backing off, only a close may end the wait early (a parked waiter without the listener: fd -1)
            int r = virtual ? RsocketParker.await(pending == 0 ? fd : -1, Native.POLLIN, wakeFd(), slice)
                    : Native.pollListener(fd, wakeFd(), slice, pending == 0); // poll(2), not rpoll: no herd
            if ((r & RsocketParker.INTERRUPTED) != 0) {
                return INTERRUPTED;
            }
            if ((r & Native.WOKEN) != 0) {
                return CLOSED;
            }
            if ((r & Native.POLLIN) != 0) {
                pending = 1;
            } else if (pending > 0) {
                pending = pending < ACCEPT_BACKOFF_STEPS ? pending + 1 : 0;
            }
        }
        return nfd;
    }

    // ---- the data path, shared by RsocketSocketImpl and RsocketSocketChannel (the caller is counted in) ----

    boolean isInputShutdown() {
        return inputShutdown;
    }

    boolean isOutputShutdown() {
        return outputShutdown;
    }

    /** SHUT_RD once; a reader already waiting wakes and sees the end of the stream, as with TCP. */
    void shutdownInput(int fd) throws IOException {
        if (!inputShutdown) {
            Native.shutdown(fd, Native.SHUT_RD);
            inputShutdown = true;
            wakeReader(); // rsockets gives no event for a local SHUT_RD
        }
    }

    void shutdownOutput(int fd) throws IOException {
        if (!outputShutdown) {
            Native.shutdown(fd, Native.SHUT_WR);
            outputShutdown = true;
        }
    }

    /** What may be read without waiting, 0 after a local SHUT_RD. */
    int available(int fd) throws IOException {
        return inputShutdown ? 0 : Native.available(fd);
    }

    /**
     * Reads into the array: the bytes read (counted for stat), -1 at the end of the stream (the peer's, a local
     * shutdownInput's, or a disconnect librdmacm left unread), 0 when nothing was there and {@code wait} is false,
     * or {@link #TIMED_OUT}, {@link #CLOSED_WAITING}, {@link #INTERRUPTED_WAITING}. One copy: the array is handed to
     * rrecv in a JNI critical region.
     */
    long read(int fd, byte[] b, int off, int len, boolean wait, Deadline deadline, int busyPollMicros)
            throws IOException {
        for (;;) {
            if (inputShutdown) {
                return -1;
            }
            int n = Native.read(fd, b, off, len);
            if (n != Native.UNAVAILABLE) {
                return countIn(n);
            }
            long w = afterNothingRead(fd, wait, deadline, busyPollMicros);
            if (w != AGAIN) {
                return w;
            }
        }
    }

    /** The same into buffers (scattering): a heap buffer's array as is, a direct buffer by address. */
    long read(int fd, ByteBuffer[] dsts, int offset, int length, boolean wait, Deadline deadline, int busyPollMicros)
            throws IOException {
        for (;;) {
            if (inputShutdown) {
                return -1;
            }
            long n = RsocketBuffers.read(fd, dsts, offset, length);
            if (n != Native.UNAVAILABLE) {
                return countIn(n);
            }
            long w = afterNothingRead(fd, wait, deadline, busyPollMicros);
            if (w != AGAIN) {
                return w;
            }
        }
    }

    private long countIn(long n) {
        if (n > 0) {
            bytesIn.addAndGet(n);
        }
        return n; // > 0, or end of stream (-1)
    }

    /** Nothing was there: {@link #AGAIN} once data may be, else what the read returns. */
    private long afterNothingRead(int fd, boolean wait, Deadline deadline, int busyPollMicros) throws IOException {
        if (!wait) {
            return 0;
        }
        int ms = deadline.pollMillis();
        if (ms == 0) {
            return TIMED_OUT;
        }
        int r = awaitReadable(fd, ms, busyPollMicros);
        if ((r & RsocketParker.INTERRUPTED) != 0) {
            return INTERRUPTED_WAITING;
        }
        if ((r & Native.WOKEN) != 0) {
            return CLOSED_WAITING;
        }
        if ((r & DEVICE_GONE) != 0) {
            throw new java.net.SocketException(RdmaDeviceWatch.goneMessage(device));
        }
        if ((r & PEER_GONE) != 0) {
            return -1; // the peer's disconnect, which librdmacm left unread (CmStallWatch)
        }
        return AGAIN; // data, or a shutdownInput (seen at the top of the loop)
    }

    /**
     * Writes all of the array, waiting for room: the bytes written, {@link #CLOSED_WAITING} or
     * {@link #INTERRUPTED_WAITING}; a disconnect librdmacm left unread throws "Connection reset".
     */
    long write(int fd, byte[] b, int off, int len, int busyPollMicros) throws IOException {
        long total = 0;
        while (len > 0) {
            int n = Native.write(fd, b, off, len);
            if (n > 0) {
                bytesOut.addAndGet(n);
                total += n;
                off += n;
                len -= n;
                continue;
            }
            long w = afterNothingWritten(fd, busyPollMicros);
            if (w != AGAIN) {
                return w;
            }
        }
        return total;
    }

    /** The same from buffers (gathering); without {@code wait}, what one pass could write. */
    long write(int fd, ByteBuffer[] srcs, int offset, int length, boolean wait, int busyPollMicros)
            throws IOException {
        long total = 0;
        for (;;) {
            long n = RsocketBuffers.write(fd, srcs, offset, length);
            bytesOut.addAndGet(n);
            total += n;
            boolean left = false;
            for (int i = offset; i < offset + length; i++) {
                left |= srcs[i].hasRemaining();
            }
            if (!wait || !left) {
                return total;
            }
            if (n > 0) {
                continue; // progress: try again before waiting
            }
            long w = afterNothingWritten(fd, busyPollMicros);
            if (w != AGAIN) {
                return w;
            }
        }
    }

    /** No room: waits for some; {@link #AGAIN}, or what the write returns. */
    private long afterNothingWritten(int fd, int busyPollMicros) throws IOException {
        int r = await(fd, Native.POLLOUT, -1, busyPollMicros);
        if ((r & RsocketParker.INTERRUPTED) != 0) {
            return INTERRUPTED_WAITING;
        }
        if ((r & Native.WOKEN) != 0) {
            if (closing) {
                return CLOSED_WAITING;
            }
            drainWakeup(); // a shutdownInput's signal meant for a reader
        }
        if ((r & DEVICE_GONE) != 0) {
            throw new java.net.SocketException(RdmaDeviceWatch.goneMessage(device));
        }
        if ((r & PEER_GONE) != 0) {
            throw new java.net.SocketException(PEER_GONE_MESSAGE);
        }
        return AGAIN;
    }
}
