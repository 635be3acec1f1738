package org.sdp4j.ucp;

/**
 * libsdp4j.so's calls into libucp for the ucx transport's data path (native/src/sdp4j_ucp.c), on the native handles
 * jucx made ({@code UcpWorker.getNativeId()}, {@code UcpEndpoint.getNativeId()}). Nothing is allocated per call, in
 * Java or in UCX's upcalls (there are none: no completion callback is given). Use through {@link Ucp}, which loads
 * the library first; every handle must be one jucx made and has not yet destroyed.
 *
 * <p>{@link #send} and {@link #recv} return one of: a request's handle (positive, below {@link #DONE}) to test with
 * {@link #status} and give back with {@link #free}; {@link #DONE} plus the bytes moved when the operation completed
 * at once (no request); a UCX status (negative) when it failed at once.
 */
public final class UcpNative {
    private UcpNative() {}

    /** Set in a result that completed at once; the low bits are the bytes moved. Above any user-space address. */
    public static final long DONE = 1L << 62;
    /** {@link #status} of a request still running (UCS_INPROGRESS). */
    public static final int IN_PROGRESS = 1;

    /** dlopen's libucp ({@code name}) and resolves what is used here: null, or why it could not. */
    static native String init(String name);

    /** {@code ucp_stream_send_nbx} of [addr, addr+len) on endpoint {@code ep}. */
    public static native long send(long ep, long addr, long len);

    /** {@code ucp_stream_recv_nbx}: up to {@code len} bytes into [addr, addr+len) from endpoint {@code ep}. */
    public static native long recv(long ep, long addr, long len);

    /** {@link #IN_PROGRESS}, 0 once completed, or the UCX status it failed with (negative). */
    public static native int status(long request);

    /** A completed receive's length (or its failure, negative). */
    public static native long received(long request);

    /** Gives {@code request} back to UCX (one still running is released when it completes). */
    public static native void free(long request);

    /** {@code ucp_request_cancel}: the request completes with UCS_ERR_CANCELED (it still must be freed). */
    public static native void cancel(long worker, long request);

    /** {@code ucp_worker_progress}: how many events it processed. */
    public static native int progress(long worker);

    /** {@code ucp_worker_signal}: wakes a thread in {@link #await}. */
    public static native int signal(long worker);

    /**
     * Sleeps (platform threads only) until the worker has events or is signalled, at most {@code timeoutMicros}:
     * 1 woken, 0 timed out, 2 not asleep because the worker could not be armed (events due, or a send pending:
     * {@code ucp_worker_arm}'s busy), or a UCX status (negative).
     */
    public static native int await(long worker, int timeoutMicros);

    /**
     * For a waiter that parks instead ({@link #await} would pin a virtual thread's carrier): arms the worker and
     * returns its event descriptor for a poller to watch, -1 when events are due already (progress instead), or a
     * UCX status (below -1).
     */
    public static native int arm(long worker);

    /** A poller's set (an epoll instance) that waiting threads add their armed workers' descriptors to. */
    public static native int epollCreate() throws java.io.IOException;

    /**
     * Watches descriptor {@code fd} (from {@link #arm}) in set {@code epfd} for one readiness, reported by
     * {@link #epollWait}; called by the waiting thread itself, so the poller need not be woken to add it.
     */
    public static native void epollArm(int epfd, int fd) throws java.io.IOException;

    /**
     * Waits (a poller thread) at most {@code timeoutMillis} for armed descriptors of {@code epfd}; the ready ones
     * are written to {@code fds} from index 0 (at most 64). Returns how many.
     */
    public static native int epollWait(int epfd, int[] fds, int timeoutMillis) throws java.io.IOException;

    /**
     * The uid of the process at the other end of the connected Unix socket {@code fd} ({@code SO_PEERCRED}), without
     * the account-database lookups of the JDK's option of that name. Needs no libucp.
     */
    public static native int peerUid(int fd) throws java.io.IOException;

    /**
     * The TCP listeners on local port {@code port}, asked of the kernel's socket diagnostics (netlink), which walk
     * only the listening sockets: records of 29 bytes (family 4 or 6; the bound address, 16 bytes, an IPv4 one in
     * the first 4; the owner's uid, 4 bytes; the inode, 8 bytes; big-endian), IPv4 first. {@code null} when the
     * kernel cannot be asked (read /proc/net/tcp instead). Needs no libucp.
     */
    public static native byte[] tcpListeners(int port);
}
