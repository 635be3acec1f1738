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

    private static final class Adopt {
        static final java.lang.invoke.MethodHandle NEW;
        static final java.lang.invoke.MethodHandle NEW_FD, SET_FD_VAL;
        static final Class<?> NIO_SOCKET_IMPL;
        static final Throwable FAILURE;

        static {
            java.lang.invoke.MethodHandle h = null;
            java.lang.invoke.MethodHandle nf = null, sv = null;
            Class<?> impl = null;
            Throwable f = null;
            try {
                Class<?> c = Class.forName("sun.nio.ch.SocketChannelImpl");
                h = java.lang.invoke.MethodHandles.privateLookupIn(c, java.lang.invoke.MethodHandles.lookup())
                        .findConstructor(c, java.lang.invoke.MethodType.methodType(void.class, SelectorProvider.class,
                                java.net.ProtocolFamily.class, java.io.FileDescriptor.class,
                                java.net.SocketAddress.class));
                impl = Class.forName("sun.nio.ch.NioSocketImpl");
                Class<?> io = Class.forName("sun.nio.ch.IOUtil");
                java.lang.invoke.MethodHandles.Lookup l = java.lang.invoke.MethodHandles.privateLookupIn(io,
                        java.lang.invoke.MethodHandles.lookup());
                nf = l.findStatic(io, "newFD", java.lang.invoke.MethodType.methodType(java.io.FileDescriptor.class,
                        int.class));
                sv = l.findStatic(io, "setfdVal", java.lang.invoke.MethodType.methodType(void.class,
                        java.io.FileDescriptor.class, int.class));
            } catch (ReflectiveOperationException | RuntimeException e) {
                f = e;
            }
            NEW = h;
            NEW_FD = nf;
            SET_FD_VAL = sv;
            NIO_SOCKET_IMPL = impl;
            FAILURE = f;
        }
    }

    /**
     * A JDK {@link java.nio.channels.SocketChannel} on the descriptor of a connection the JDK's platform
     * {@link java.net.SocketImpl} ({@code NioSocketImpl}) accepted; the JDK's own accept path builds its channels the
     * same way. The channel owns the descriptor from then on, through a FileDescriptor of its own: the socket's is set
     * to -1, because its cleaner would close the number once the socket is unreachable, under whatever reuses the
     * number by then (a test saw a pipe's write fail with EBADF). {@code accepted} must not be used any more. Needs
     * {@code sun.nio.ch} opened to sdp4j.
     */
    public static java.nio.channels.SocketChannel adoptAccepted(java.net.SocketImpl accepted)
            throws java.io.IOException {
        if (Adopt.NEW == null) {
            throw new java.io.IOException("cannot make a channel of an accepted socket (sun.nio.ch not opened to "
                    + "sdp4j?): " + Adopt.FAILURE);
        }
        if (!Adopt.NIO_SOCKET_IMPL.isInstance(accepted)) {
            throw new java.io.IOException("cannot make a channel of a " + accepted.getClass().getName()
                    + " (only of the JDK's NioSocketImpl)");
        }
        java.net.InetAddress peer = JdkNet.inetAddress(accepted);
        java.net.ProtocolFamily family = peer instanceof java.net.Inet6Address
                || !Boolean.getBoolean("java.net.preferIPv4Stack") && isIPv6Socket(accepted)
                ? java.net.StandardProtocolFamily.INET6 : java.net.StandardProtocolFamily.INET;
        try {
            // a FileDescriptor of the channel's own with the same number; the socket's is set to -1, so that its
            // cleaner (which closes it once the socket is unreachable) never closes the number again
            java.io.FileDescriptor old = JdkNet.fileDescriptor(accepted);
            int n = fdVal(old);
            if (n < 0) {
                throw new java.io.IOException("the accepted socket is closed");
            }
            java.io.FileDescriptor own = (java.io.FileDescriptor) Adopt.NEW_FD.invoke(n);
            java.nio.channels.SocketChannel ch = (java.nio.channels.SocketChannel) Adopt.NEW.invoke(defaultProvider(),
                    family, own, new java.net.InetSocketAddress(peer, JdkNet.port(accepted)));
            Adopt.SET_FD_VAL.invoke(old, -1);
            return ch;
        } catch (java.io.IOException e) {
            throw e;
        } catch (Throwable t) {
            throw new java.io.IOException("cannot make a channel of an accepted socket: " + t, t);
        }
    }

    /** Whether the JDK made its sockets IPv6 (dual-stack) ones: what {@code sun.nio.ch.Net.isIPv6Available} says. */
    private static boolean isIPv6Socket(java.net.SocketImpl accepted) {
        try {
            java.lang.reflect.Method m = Class.forName("sun.nio.ch.Net").getDeclaredMethod("isIPv6Available");
            m.setAccessible(true);
            return (Boolean) m.invoke(null);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return true;
        }
    }

    /**
     * The JDK's default provider; throws with the reason and the fix when it cannot be reached. Without access to
     * {@code sun.nio.ch} (the JDBC socket factory: no flags), and when no provider was named in the system property,
     * {@link SelectorProvider#provider()} is the JDK's own, unless it is sdp4j's (a provider found as a service).
     */
    public static SelectorProvider defaultProvider() {
        if (Holder.DEFAULT == null && System.getProperty("java.nio.channels.spi.SelectorProvider") == null) {
            SelectorProvider p = SelectorProvider.provider();
            if (!p.getClass().getName().startsWith("org.sdp4j.")) {
                return p;
            }
        }
        if (Holder.DEFAULT == null) {
            throw new IllegalStateException("sdp4j cannot reach the JDK's default SelectorProvider ("
                    + Holder.FAILURE + "); use -javaagent:sdp4j-agent.jar, or add"
                    + " --add-exports java.base/sun.nio.ch=ALL-UNNAMED", Holder.FAILURE);
        }
        return Holder.DEFAULT;
    }
}
