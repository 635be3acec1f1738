package org.sdp4j.ucp;

import org.sdp4j.rsocket.Rsocket;

/**
 * Whether sdp4j's own libucp calls ({@link UcpNative}) can be used in this JVM, in the manner of Netty's
 * {@code Epoll}: libsdp4j.so is loaded and libucp resolved once, on first use; {@link #isAvailable()} never throws.
 * {@code -Dsdp4j.ucp.lib=NAME} names the libucp to dlopen (default {@code libucp.so.0}, the one jucx links).
 */
public final class Ucp {
    private Ucp() {}

    private static final class Holder {
        static final Throwable CAUSE = load();
    }

    private static Throwable load() {
        try {
            Throwable t = Rsocket.libraryFailure();
            if (t != null) {
                return t;
            }
            String why = UcpNative.init(System.getProperty("sdp4j.ucp.lib", "libucp.so.0"));
            return why == null ? null : new UnsatisfiedLinkError(why);
        } catch (Throwable t) {
            return t;
        }
    }

    public static boolean isAvailable() {
        return unavailabilityCause() == null;
    }

    /** Why {@link #isAvailable()} is false; null when available. */
    public static Throwable unavailabilityCause() {
        try {
            return Holder.CAUSE;
        } catch (Throwable t) {
            return t;
        }
    }
}
