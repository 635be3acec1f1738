package org.sdp4j.jdk;

import java.lang.reflect.Method;
import java.nio.channels.spi.SelectorProvider;

/**
 * The JDK's own {@link SelectorProvider}. Once sdp4j's provider is installed, {@link SelectorProvider#provider()}
 * returns sdp4j's, so the JDK's default is fetched from {@code sun.nio.ch.DefaultSelectorProvider}, which needs
 * {@code sun.nio.ch} exported to sdp4j (the agent does it; other users add
 * {@code --add-exports java.base/sun.nio.ch=ALL-UNNAMED}).
 */
public final class JdkNio {
    private JdkNio() {}

    private static final class Holder {
        static final SelectorProvider DEFAULT;
        static final Throwable FAILURE;

        static {
            SelectorProvider p = null;
            Throwable f = null;
            try {
                Class<?> c = Class.forName("sun.nio.ch.DefaultSelectorProvider");
                Method get = c.getMethod("get");
                p = (SelectorProvider) get.invoke(null);
            } catch (ReflectiveOperationException | RuntimeException e) {
                f = e;
            }
            DEFAULT = p;
            FAILURE = f;
        }
    }

    private static final class Fds {
        static final java.lang.invoke.MethodHandle FD_VAL;

        static {
            java.lang.invoke.MethodHandle h = null;
            try {
                // our own lookup: sun.nio.ch is exported to sdp4j's module only (qualified), which publicLookup ignores
                h = java.lang.invoke.MethodHandles.lookup().findStatic(Class.forName("sun.nio.ch.IOUtil"),
                        "fdVal", java.lang.invoke.MethodType.methodType(int.class, java.io.FileDescriptor.class));
            } catch (ReflectiveOperationException | RuntimeException e) {
                // reported by fdVal
            }
            FD_VAL = h;
        }
    }

    /** The kernel descriptor number behind a FileDescriptor, for polling it together with a transport's. */
    public static int fdVal(java.io.FileDescriptor fd) throws java.io.IOException {
        if (Fds.FD_VAL == null || fd == null) {
            throw new java.io.IOException("cannot read the descriptor number (sun.nio.ch not exported to sdp4j?)");
        }
        try {
            return (int) Fds.FD_VAL.invokeExact(fd);
        } catch (Throwable t) {
            throw new java.io.IOException("cannot read the descriptor number: " + t, t);
        }
    }

    private static final class ChFds {
        static final java.lang.invoke.MethodHandle GET_FD_VAL;

        static {
            java.lang.invoke.MethodHandle h = null;
            try {
                h = java.lang.invoke.MethodHandles.lookup().findVirtual(Class.forName("sun.nio.ch.SelChImpl"),
                        "getFDVal", java.lang.invoke.MethodType.methodType(int.class));
            } catch (ReflectiveOperationException | RuntimeException e) {
                // reported by channelFd
            }
            GET_FD_VAL = h;
        }
    }

    /**
     * The kernel descriptor of one of the JDK's own selectable channels (socket channels, pipes, datagram channels),
     * for polling it together with a transport's descriptors in one call.
     */
    public static int channelFd(java.nio.channels.SelectableChannel ch) throws java.io.IOException {
        if (ChFds.GET_FD_VAL == null) {
            throw new java.io.IOException("cannot read a channel's descriptor number (sun.nio.ch not exported to sdp4j?)");
        }
        try {
            return (int) ChFds.GET_FD_VAL.invoke(ch);
        } catch (ClassCastException e) {
            throw new java.io.IOException(ch + " is not one of the JDK's selectable channels; an sdp4j Selector"
                    + " that polls an RDMA channel cannot poll it", e);
        } catch (Throwable t) {
            throw new java.io.IOException("cannot read the descriptor number of " + ch + ": " + t, t);
        }
    }

    /** The JDK's default provider; throws with the reason and the fix when it cannot be reached. */
    public static SelectorProvider defaultProvider() {
        if (Holder.DEFAULT == null) {
            throw new IllegalStateException("sdp4j cannot reach the JDK's default SelectorProvider ("
                    + Holder.FAILURE + "); use -javaagent:sdp4j-agent.jar, or add"
                    + " --add-exports java.base/sun.nio.ch=ALL-UNNAMED", Holder.FAILURE);
        }
        return Holder.DEFAULT;
    }
}
