package org.sdp4j.jdk;

import java.io.Closeable;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.Pipe;

/**
 * poll(2) on raw kernel descriptors from Java, plus a wakeup pipe: what a transport {@link
 * org.sdp4j.transport.Poller} without a native library of its own (UCX) needs to wait on the JDK channels' kernel
 * descriptors that an sdp4j Selector hands it. It calls the JDK's own {@code sun.nio.ch.PollSelectorImpl.poll(long
 * address, int n, int timeout)} (a plain poll(2) over a {@code struct pollfd} array in native memory), which needs
 * {@code sun.nio.ch} <em>opened</em> to sdp4j: the agent does it; without the agent add
 * {@code --add-opens java.base/sun.nio.ch=ALL-UNNAMED}.
 *
 * <p>It lives in sdp-core, next to the other users of JDK internals: with the agent, sdp-core, sdp-jni, sdp-ucx and
 * jucx are one module ({@code org.sdp4j}) that exports nothing, so no caller outside sdp4j reaches this class;
 * without the agent (class path) the UCX transport still finds it here. Not thread-safe except {@link #wakeup()}
 * and {@link #close()}.
 */
public final class KernelPoll implements Closeable {
    public static final short POLLIN = 0x001, POLLOUT = 0x004, POLLERR = 0x008, POLLHUP = 0x010, POLLNVAL = 0x020;
    private static final int IOS_INTERRUPTED = -3;

    private static final class Native {
        static final MethodHandle POLL;
        static final Throwable FAILURE;

        static {
            MethodHandle h = null;
            Throwable f = null;
            try {
                Class<?> c = Class.forName("sun.nio.ch.PollSelectorImpl");
                MethodHandles.Lookup l = MethodHandles.privateLookupIn(c, MethodHandles.lookup());
                h = l.findStatic(c, "poll", MethodType.methodType(int.class, long.class, int.class, int.class));
                l.ensureInitialized(c); // its class initializer loads libnio
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                f = e;
            }
            POLL = h;
            FAILURE = f;
        }
    }

    private static final class Address {
        static final MethodHandle ADDRESS;

        static {
            MethodHandle h = null;
            try {
                h = MethodHandles.lookup().findVirtual(Class.forName("sun.nio.ch.DirectBuffer"), "address",
                        MethodType.methodType(long.class));
            } catch (ReflectiveOperationException | RuntimeException e) {
                // reported through Native.FAILURE's check in the constructor
            }
            ADDRESS = h;
        }
    }

    /** Whether poll(2) is reachable; {@link #unavailabilityCause()} says why not. */
    public static boolean isAvailable() {
        return Native.POLL != null && Address.ADDRESS != null;
    }

    public static Throwable unavailabilityCause() {
        return Native.FAILURE;
    }

    private final Object lock = new Object();
    private final Pipe wake;
    private final int wakeFd;
    private ByteBuffer fds; // struct pollfd { int fd; short events; short revents; }, native order
    private long addr;
    private boolean polling, closed; // guarded by lock
    private volatile boolean signalled;

    public KernelPoll() throws IOException {
        if (!isAvailable()) {
            throw new IOException("sdp4j cannot call poll(2) through the JDK (" + Native.FAILURE + "); use"
                    + " -javaagent:sdp4j-agent.jar, or add --add-opens java.base/sun.nio.ch=ALL-UNNAMED", Native.FAILURE);
        }
        wake = JdkNio.defaultProvider().openPipe();
        wake.source().configureBlocking(false);
        wake.sink().configureBlocking(false);
        wakeFd = JdkNio.channelFd(wake.source());
        ensure(16);
    }

    private void ensure(int n) throws IOException {
        if (fds == null || fds.capacity() < n * 8) {
            fds = ByteBuffer.allocateDirect(Math.max(16, Integer.highestOneBit(n) * 2) * 8).order(ByteOrder.nativeOrder());
            try {
                addr = (long) Address.ADDRESS.invoke(fds);
            } catch (Throwable t) {
                throw new IOException("no address for a direct buffer: " + t, t);
            }
        }
    }

    /**
     * poll(2) on {@code fds[idx[j]]} for {@code j < n} (with {@code events[idx[j]]}), writing {@code revents[idx[j]]};
     * with {@code wakeable} the wakeup pipe is polled too and {@link #wakeup()} ends the wait. {@code timeoutMillis}
     * -1 waits forever. Returns the number of descriptors (of {@code idx}) with events; 0 on timeout or wakeup.
     */
    public int poll(int[] fdArr, short[] events, short[] revents, int[] idx, int n, long timeoutMillis,
            boolean wakeable) throws IOException {
        synchronized (lock) {
            if (closed) {
                throw new ClosedSelectorException();
            }
            polling = true;
        }
        try {
            int total = n + (wakeable ? 1 : 0);
            ensure(total);
            for (int j = 0; j < n; j++) {
                int i = idx[j];
                fds.putInt(j * 8, fdArr[i]);
                fds.putShort(j * 8 + 4, events[i]);
                fds.putShort(j * 8 + 6, (short) 0);
            }
            if (wakeable) {
                fds.putInt(n * 8, wakeFd);
                fds.putShort(n * 8 + 4, POLLIN);
                fds.putShort(n * 8 + 6, (short) 0);
            }
            int t = timeoutMillis < 0 ? -1 : (int) Math.min(Integer.MAX_VALUE, timeoutMillis);
            if (wakeable && signalled) {
                t = 0;
            }
            int r;
            try {
                r = (int) Native.POLL.invokeExact(addr, total, t);
            } catch (IOException | RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) {
                throw new IOException("poll failed: " + e, e);
            }
            if (r == IOS_INTERRUPTED || r <= 0) {
                return 0;
            }
            int ready = 0;
            for (int j = 0; j < n; j++) {
                short rev = fds.getShort(j * 8 + 6);
                revents[idx[j]] = rev;
                if (rev != 0) {
                    ready++;
                }
            }
            return ready; // a wakeup stays signalled until takeWakeup()
        } finally {
            boolean closeNow;
            synchronized (lock) {
                polling = false;
                closeNow = closed;
            }
            if (closeNow) {
                closePipe();
            }
        }
    }

    /** True once after a {@link #wakeup()} (clears it): the caller's wait should end. */
    public boolean takeWakeup() throws IOException {
        if (!signalled) {
            return false;
        }
        drain();
        return true;
    }

    private void drain() throws IOException {
        signalled = false;
        ByteBuffer b = ByteBuffer.allocate(64);
        while (wake.source().isOpen() && wake.source().read(b) > 0) {
            b.clear();
        }
    }

    /** Makes the current or next wakeable {@link #poll} return at once. */
    public void wakeup() throws IOException {
        synchronized (lock) {
            if (closed || signalled) {
                return;
            }
            signalled = true;
            wake.sink().write(ByteBuffer.wrap(new byte[] {1}));
        }
    }

    /** Closes; a poll in progress is woken and the pipe closed when it returns. */
    @Override
    public void close() throws IOException {
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            if (polling) {
                wake.sink().write(ByteBuffer.wrap(new byte[] {1}));
                return;
            }
        }
        closePipe();
    }

    public boolean isClosed() {
        synchronized (lock) {
            return closed;
        }
    }

    private void closePipe() throws IOException {
        try {
            wake.sink().close();
        } finally {
            wake.source().close();
        }
    }
}
