package org.sdp4j.rsocket;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The JNI entry points of {@code libsdp4j.so} (native/src). Every rsocket is non-blocking: data calls return
 * {@link #UNAVAILABLE} instead of waiting, and callers wait in {@link #poll} together with a wakeup eventfd.
 * Every entry validates its arguments (null, bounds, descriptors it did not create or already closed) and throws.
 *
 * <p>This file must compile on its own: native/Makefile runs {@code javac -h} on it so the C definitions are
 * checked against these signatures. Loading is {@link NativeLibrary}'s job.
 */
final class Native {
    private Native() {}

    /** Returned by read/write/accept: nothing can be done without waiting. */
    static final int UNAVAILABLE = -2;
    /** Returned by read: end of stream. */
    static final int EOF = -1;
    /** Set in {@link #poll}'s result when the wakeup descriptor fired. */
    static final int WOKEN = 0x10000;

    static final int POLLIN = 0x001, POLLPRI = 0x002, POLLOUT = 0x004, POLLERR = 0x008, POLLHUP = 0x010,
            POLLNVAL = 0x020;
    static final int SHUT_RD = 0, SHUT_WR = 1, SHUT_RDWR = 2;

    /** Option ids understood by {@link #setOption}/{@link #getOption} (native/src/sdp4j_rsocket.c, OPT_*). */
    static final int OPT_TCP_NODELAY = 1, OPT_SO_SNDBUF = 2, OPT_SO_RCVBUF = 3, OPT_SO_KEEPALIVE = 4,
            OPT_SO_REUSEADDR = 5, OPT_SO_LINGER = 6, OPT_SO_OOBINLINE = 7, OPT_TCP_KEEPIDLE = 8,
            OPT_RDMA_SQSIZE = 9, OPT_RDMA_RQSIZE = 10, OPT_RDMA_INLINE = 11, OPT_RDMA_IOMAPSIZE = 12,
            OPT_IPV6_V6ONLY = 13;

    /** dlopen + dlsym of librdmacm ({@code name}, normally {@code librdmacm.so.1}); null on success, else why not. */
    static native String init(String rdmacmName);

    /** Null when rsockets are usable here (a device exists and rsocket() works), else the reason. */
    static native String probe();

    /**
     * How many connections (connecting, connected or accepted rsockets) and listeners librdmacm's service threads
     * get room for before the first one (librdmacm before rdma-core 53 corrupts memory when that room grows later:
     * native/src/sdp4j_svc.c); beyond it, connect/accept/listen throw a SocketException naming the limit.
     */
    static native void serviceSlots(int connections, int listeners);

    /**
     * [affected by that bug (1/0, -1 not known yet), connection slots used, their limit, listener slots used, limit,
     * connect cycles that joined against sdp4j's silent listener (the sink)].
     */
    static native int[] serviceState();

    /** A new non-blocking stream rsocket. */
    static native int socket(boolean ipv6) throws IOException;

    static native void bind(int fd, byte[] addr, int scopeId, int port) throws IOException;

    static native void listen(int fd, int backlog) throws IOException;

    /** True when connected at once; false when in progress: {@link #poll} for POLLOUT, then {@link #finishConnect}. */
    static native boolean connect(int fd, byte[] addr, int scopeId, int port) throws IOException;

    /** Completes (or fails, with the reason) a connect after {@link #poll} returned {@code revents} for it. */
    static native void finishConnect(int fd, int revents, byte[] addr, int scopeId, int port) throws IOException;

    /** A new connected rsocket, or {@link #UNAVAILABLE}. */
    static native int accept(int fd) throws IOException;

    /** 4 address bytes + 2 port bytes, or 16 + 2 + 4 scope-id bytes, big endian. */
    static native byte[] sockname(int fd, boolean peer) throws IOException;

    /** Bytes read (> 0), {@link #EOF} or {@link #UNAVAILABLE}; 0 only when len is 0. */
    static native int read(int fd, byte[] b, int off, int len) throws IOException;

    static native int readDirect(int fd, ByteBuffer directBuffer, int pos, int len) throws IOException;

    /** Bytes written (a prefix, >= 0) or {@link #UNAVAILABLE}. */
    static native int write(int fd, byte[] b, int off, int len) throws IOException;

    static native int writeDirect(int fd, ByteBuffer directBuffer, int pos, int len) throws IOException;

    /** Bytes readable without waiting (exact up to 16 KiB, a lower bound beyond). */
    static native int available(int fd) throws IOException;

    static native void shutdown(int fd, int how) throws IOException;

    static native void close(int fd) throws IOException;

    /** SO_LINGER: value < 0 is off. */
    static native void setOption(int fd, int opt, int value) throws IOException;

    /** SO_LINGER: -1 when off. */
    static native int getOption(int fd, int opt) throws IOException;

    /** A non-blocking eventfd used to wake a thread waiting in {@link #poll}/{@link #pollMany}. */
    static native int eventfd() throws IOException;

    static native void signal(int eventFd) throws IOException;

    static native void closeEvent(int eventFd) throws IOException;

    /**
     * rpoll on one rsocket and (unless -1) a wakeup eventfd. Returns the rsocket's revents, {@code | WOKEN} when
     * the eventfd fired, 0 on timeout or signal. timeout in ms, -1 forever.
     */
    static native int poll(int fd, int events, int wakeFd, int timeoutMillis) throws IOException;

    /**
     * The RDMA devices the kernel has registered, over RDMA netlink as {@code rdma link show} reads them: one line
     * per device, "INDEX NAME NETDEV..." (the kernel's device index, kept across a rename; its ports' netdevs). A
     * device being removed leaves this list at once, while
     * sysfs keeps it until every user lets go (native/src/sdp4j_nldev.c). Throws naming NETLINK_RDMA when the list
     * cannot be read.
     */
    static native String rdmaLinks() throws IOException;

    /** Whether connected rsocket fd's rdma_cm channel holds an unread event (false over a stand-in library). */
    static native boolean cmEventPending(int fd) throws IOException;

    /**
     * Waits for a connection request on a listening rsocket (poll(2) on its rdma_cm channel, not rpoll: see
     * native/src/sdp4j_poll.c) and/or the wakeup eventfd. Returns the channel's revents {@code | WOKEN}, 0 on timeout.
     */
    static native int pollListener(int fd, int wakeFd, int timeoutMillis, boolean watchChannel) throws IOException;

    /**
     * rpoll over {@code fds[0..n)} (rsockets and kernel fds) and wakeFd (drained); the count of fds with events.
     * A listener reports POLLIN when its rdma_cm channel has a request; with settleListeners the call first waits
     * (up to 500 ms) until librdmacm has queued the connection, so that accept finds it.
     */
    static native int pollMany(int[] fds, short[] events, short[] revents, int n, int wakeFd, int timeoutMillis,
            boolean settleListeners) throws IOException;

    /** Releases an rsocket and its wake-up eventfd (either may be -1) when there is nobody left to report to. */
    static void closeQuietly(int fd, int ev) {
        try {
            if (fd >= 0) {
                close(fd);
            }
        } catch (IOException ignored) {
            // closing: nothing left to report to
        } finally {
            if (ev >= 0) {
                try {
                    closeEvent(ev);
                } catch (IOException ignored) {
                    // as above
                }
            }
        }
    }
}
