package org.sdp4j.jdk;

import java.io.FileDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.net.InetAddress;
import java.net.SocketAddress;
import java.net.SocketImpl;
import java.net.SocketOption;
import java.util.Set;

/**
 * Calls into another {@link SocketImpl}'s protected methods. sdp4j's own SocketImpl wraps the JDK's platform
 * implementation (or a transport's) and forwards to it; Java's protected access does not reach a delegate in
 * another package, so this goes through method handles from a private lookup in {@code java.net}. That needs
 * {@code java.base/java.net} opened to sdp4j: the agent does it itself, to sdp4j's own module ({@code org.sdp4j}, in
 * the agent's module layer, exporting nothing: these public methods are public inside sdp4j only); other users add
 * {@code --add-opens java.base/java.net=ALL-UNNAMED}, which gives the same to all their class path code anyway.
 *
 * <p>The handles are static finals so the JIT inlines them: forwarding costs a call, not a reflective lookup.
 * Streams are the delegate's own objects, so the data path has no sdp4j frame at all.
 */
public final class JdkNet {
    private JdkNet() {}

    private static final Throwable UNAVAILABLE;
    private static final MethodHandle CREATE_PLATFORM, NEW_SOCKS, CREATE, CONNECT_SA, BIND, LISTEN, ACCEPT,
            GET_IN, GET_OUT, AVAILABLE, CLOSE, SHUT_IN, SHUT_OUT, URGENT, SUPPORTS_URGENT, SET_OPT_INT, GET_OPT_INT,
            SET_OPT, GET_OPT, SUPPORTED, GET_FD, GET_ADDR, GET_PORT, GET_LPORT, PERF;

    static {
        MethodHandle[] h = new MethodHandle[25];
        Throwable failure = null;
        try {
            MethodHandles.Lookup l = MethodHandles.privateLookupIn(SocketImpl.class, MethodHandles.lookup());
            Class<SocketImpl> c = SocketImpl.class;
            h[0] = l.findStatic(c, "createPlatformSocketImpl", MethodType.methodType(SocketImpl.class, boolean.class));
            h[1] = l.findConstructor(Class.forName("java.net.SocksSocketImpl"),
                    MethodType.methodType(void.class, SocketImpl.class)).asType(
                    MethodType.methodType(SocketImpl.class, SocketImpl.class));
            h[2] = l.findVirtual(c, "create", MethodType.methodType(void.class, boolean.class));
            h[3] = l.findVirtual(c, "connect", MethodType.methodType(void.class, SocketAddress.class, int.class));
            h[4] = l.findVirtual(c, "bind", MethodType.methodType(void.class, InetAddress.class, int.class));
            h[5] = l.findVirtual(c, "listen", MethodType.methodType(void.class, int.class));
            h[6] = l.findVirtual(c, "accept", MethodType.methodType(void.class, SocketImpl.class));
            h[7] = l.findVirtual(c, "getInputStream", MethodType.methodType(InputStream.class));
            h[8] = l.findVirtual(c, "getOutputStream", MethodType.methodType(OutputStream.class));
            h[9] = l.findVirtual(c, "available", MethodType.methodType(int.class));
            h[10] = l.findVirtual(c, "close", MethodType.methodType(void.class));
            h[11] = l.findVirtual(c, "shutdownInput", MethodType.methodType(void.class));
            h[12] = l.findVirtual(c, "shutdownOutput", MethodType.methodType(void.class));
            h[13] = l.findVirtual(c, "sendUrgentData", MethodType.methodType(void.class, int.class));
            h[14] = l.findVirtual(c, "supportsUrgentData", MethodType.methodType(boolean.class));
            h[15] = l.findVirtual(c, "setOption", MethodType.methodType(void.class, int.class, Object.class));
            h[16] = l.findVirtual(c, "getOption", MethodType.methodType(Object.class, int.class));
            h[17] = l.findVirtual(c, "setOption", MethodType.methodType(void.class, SocketOption.class, Object.class));
            h[18] = l.findVirtual(c, "getOption", MethodType.methodType(Object.class, SocketOption.class));
            h[19] = l.findVirtual(c, "supportedOptions", MethodType.methodType(Set.class));
            h[20] = l.findVirtual(c, "getFileDescriptor", MethodType.methodType(FileDescriptor.class));
            h[21] = l.findVirtual(c, "getInetAddress", MethodType.methodType(InetAddress.class));
            h[22] = l.findVirtual(c, "getPort", MethodType.methodType(int.class));
            h[23] = l.findVirtual(c, "getLocalPort", MethodType.methodType(int.class));
            h[24] = l.findVirtual(c, "setPerformancePreferences",
                    MethodType.methodType(void.class, int.class, int.class, int.class));
        } catch (ReflectiveOperationException | RuntimeException e) {
            failure = e;
        }
        UNAVAILABLE = failure;
        CREATE_PLATFORM = h[0]; NEW_SOCKS = h[1]; CREATE = h[2]; CONNECT_SA = h[3]; BIND = h[4]; LISTEN = h[5];
        ACCEPT = h[6]; GET_IN = h[7]; GET_OUT = h[8]; AVAILABLE = h[9]; CLOSE = h[10]; SHUT_IN = h[11];
        SHUT_OUT = h[12]; URGENT = h[13]; SUPPORTS_URGENT = h[14]; SET_OPT_INT = h[15]; GET_OPT_INT = h[16];
        SET_OPT = h[17]; GET_OPT = h[18]; SUPPORTED = h[19]; GET_FD = h[20]; GET_ADDR = h[21]; GET_PORT = h[22];
        GET_LPORT = h[23]; PERF = h[24];
    }

    /** Throws a clear error when java.net was not opened to sdp4j. */
    public static void ensureAccessible() throws IOException {
        if (UNAVAILABLE != null) {
            throw new IOException("sdp4j cannot reach the JDK's socket implementation (" + UNAVAILABLE
                    + "); use -javaagent:sdp4j-agent.jar, or add --add-opens java.base/java.net=ALL-UNNAMED",
                    UNAVAILABLE);
        }
    }

    public static boolean isAccessible() {
        return UNAVAILABLE == null;
    }

    /** The JDK's own implementation ({@code NioSocketImpl}), not yet created. */
    public static SocketImpl newPlatformImpl(boolean server) throws IOException {
        ensureAccessible();
        try {
            return (SocketImpl) CREATE_PLATFORM.invokeExact(server);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * What {@code new Socket()} gets without a factory: the platform implementation behind a SOCKS layer that
     * honours {@code socksProxyHost} and the ProxySelector, so the agent does not change proxy behaviour.
     */
    public static SocketImpl newClientImplAsJdkDoes() throws IOException {
        SocketImpl platform = newPlatformImpl(false);
        try {
            return (SocketImpl) NEW_SOCKS.invokeExact(platform);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static void create(SocketImpl i, boolean stream) throws IOException {
        try { CREATE.invokeExact(i, stream); } catch (Throwable t) { throw rethrow(t); }
    }

    public static void connect(SocketImpl i, SocketAddress a, int timeout) throws IOException {
        try { CONNECT_SA.invokeExact(i, a, timeout); } catch (Throwable t) { throw rethrow(t); }
    }

    public static void bind(SocketImpl i, InetAddress a, int port) throws IOException {
        try { BIND.invokeExact(i, a, port); } catch (Throwable t) { throw rethrow(t); }
    }

    public static void listen(SocketImpl i, int backlog) throws IOException {
        try { LISTEN.invokeExact(i, backlog); } catch (Throwable t) { throw rethrow(t); }
    }

    public static void accept(SocketImpl server, SocketImpl into) throws IOException {
        try { ACCEPT.invokeExact(server, into); } catch (Throwable t) { throw rethrow(t); }
    }

    public static InputStream inputStream(SocketImpl i) throws IOException {
        try { return (InputStream) GET_IN.invokeExact(i); } catch (Throwable t) { throw rethrow(t); }
    }

    public static OutputStream outputStream(SocketImpl i) throws IOException {
        try { return (OutputStream) GET_OUT.invokeExact(i); } catch (Throwable t) { throw rethrow(t); }
    }

    public static int available(SocketImpl i) throws IOException {
        try { return (int) AVAILABLE.invokeExact(i); } catch (Throwable t) { throw rethrow(t); }
    }

    public static void close(SocketImpl i) throws IOException {
        try { CLOSE.invokeExact(i); } catch (Throwable t) { throw rethrow(t); }
    }

    public static void closeQuietly(SocketImpl i) {
        if (i != null) {
            try { close(i); } catch (IOException | RuntimeException ignore) { /* closing a failed attempt */ }
        }
    }

    public static void shutdownInput(SocketImpl i) throws IOException {
        try { SHUT_IN.invokeExact(i); } catch (Throwable t) { throw rethrow(t); }
    }

    public static void shutdownOutput(SocketImpl i) throws IOException {
        try { SHUT_OUT.invokeExact(i); } catch (Throwable t) { throw rethrow(t); }
    }

    public static void sendUrgentData(SocketImpl i, int data) throws IOException {
        try { URGENT.invokeExact(i, data); } catch (Throwable t) { throw rethrow(t); }
    }

    public static boolean supportsUrgentData(SocketImpl i) {
        try { return (boolean) SUPPORTS_URGENT.invokeExact(i); } catch (Throwable t) { throw unchecked(t); }
    }

    public static void setOption(SocketImpl i, int id, Object value) throws java.net.SocketException {
        try { SET_OPT_INT.invokeExact(i, id, value); } catch (Throwable t) { throw rethrowSocket(t); }
    }

    public static Object getOption(SocketImpl i, int id) throws java.net.SocketException {
        try { return (Object) GET_OPT_INT.invokeExact(i, id); } catch (Throwable t) { throw rethrowSocket(t); }
    }

    public static <T> void setOption(SocketImpl i, SocketOption<T> name, T value) throws IOException {
        try { SET_OPT.invokeExact(i, (SocketOption<?>) name, (Object) value); } catch (Throwable t) { throw rethrow(t); }
    }

    @SuppressWarnings("unchecked")
    public static <T> T getOption(SocketImpl i, SocketOption<T> name) throws IOException {
        try { return (T) (Object) GET_OPT.invokeExact(i, (SocketOption<?>) name); } catch (Throwable t) { throw rethrow(t); }
    }

    @SuppressWarnings("unchecked")
    public static Set<SocketOption<?>> supportedOptions(SocketImpl i) {
        try { return (Set<SocketOption<?>>) (Set<?>) SUPPORTED.invokeExact(i); } catch (Throwable t) { throw unchecked(t); }
    }

    public static FileDescriptor fileDescriptor(SocketImpl i) {
        try { return (FileDescriptor) GET_FD.invokeExact(i); } catch (Throwable t) { throw unchecked(t); }
    }

    public static InetAddress inetAddress(SocketImpl i) {
        try { return (InetAddress) GET_ADDR.invokeExact(i); } catch (Throwable t) { throw unchecked(t); }
    }

    public static int port(SocketImpl i) {
        try { return (int) GET_PORT.invokeExact(i); } catch (Throwable t) { throw unchecked(t); }
    }

    public static int localPort(SocketImpl i) {
        try { return (int) GET_LPORT.invokeExact(i); } catch (Throwable t) { throw unchecked(t); }
    }

    public static void setPerformancePreferences(SocketImpl i, int c, int l, int b) {
        try { PERF.invokeExact(i, c, l, b); } catch (Throwable t) { throw unchecked(t); }
    }

    private static IOException rethrow(Throwable t) {
        if (t instanceof IOException e) {
            return e;
        }
        throw unchecked(t);
    }

    private static java.net.SocketException rethrowSocket(Throwable t) {
        if (t instanceof java.net.SocketException e) {
            return e;
        }
        if (t instanceof IOException e) {
            return (java.net.SocketException) new java.net.SocketException(e.getMessage()).initCause(e);
        }
        throw unchecked(t);
    }

    private static RuntimeException unchecked(Throwable t) {
        if (t instanceof RuntimeException e) {
            throw e;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new IllegalStateException(t);
    }
}
