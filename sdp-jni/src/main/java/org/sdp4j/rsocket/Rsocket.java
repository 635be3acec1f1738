package org.sdp4j.rsocket;

import java.net.SocketException;

/**
 * Whether rsockets can be used in this JVM, and why not, in the manner of Netty's {@code Epoll}: the library is
 * loaded and probed once, on first use; {@link #isAvailable()} never throws.
 *
 * <p>Unavailable when: the native library is disabled ({@code -Dsdp4j.native.disable=true}); libsdp4j.so cannot
 * be loaded (wrong {@code -Dsdp4j.native.path}, not Linux x86_64, noexec temp dir); librdmacm.so.1 cannot be
 * dlopen'ed (rdma-core not installed); or rdma-core sees no RDMA device / rdma_cm is unusable.
 */
public final class Rsocket {
    private Rsocket() {}

    private static final class Holder {
        static final Throwable CAUSE = probe();
    }

    private static Throwable probe() {
        try {
            Throwable t = NativeLibrary.rdmacmFailure();
            if (t != null) {
                return t;
            }
            String why = Native.probe();
            return why == null ? null : new UnsupportedOperationException(why);
        } catch (Throwable t) {
            return t;
        }
    }

    /** True when rsocket connections can be made here. */
    public static boolean isAvailable() {
        return unavailabilityCause() == null;
    }

    /** Why {@link #isAvailable()} is false; {@code null} when available. */
    public static Throwable unavailabilityCause() {
        try {
            return Holder.CAUSE;
        } catch (Throwable t) { // ExceptionInInitializerError etc.: report, never throw
            return t;
        }
    }

    /** Throws a SocketException carrying {@link #unavailabilityCause()} unless available. */
    public static void ensureAvailability() throws SocketException {
        Throwable cause = unavailabilityCause();
        if (cause != null) {
            SocketException e = new SocketException("rsockets unavailable: " + cause.getMessage());
            e.initCause(cause);
            throw e;
        }
    }

    /**
     * Why libsdp4j.so could not be loaded, or null when it is (librdmacm may still be missing): for the library's
     * other users (the smc transport), which need no librdmacm.
     */
    public static Throwable libraryFailure() {
        try {
            return NativeLibrary.loadFailure();
        } catch (Throwable t) {
            return t;
        }
    }

    /** True when libsdp4j.so and librdmacm are loaded (a device may still be missing): argument checks can run. */
    static boolean isLoaded() {
        try {
            return NativeLibrary.rdmacmFailure() == null;
        } catch (Throwable t) {
            return false;
        }
    }
}
