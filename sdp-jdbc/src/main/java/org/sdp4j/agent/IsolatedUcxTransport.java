package org.sdp4j.agent;

import java.io.IOException;
import java.net.SocketImpl;
import java.net.SocketOption;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.util.Set;

import org.sdp4j.conf.Family;
import org.sdp4j.transport.Poller;
import org.sdp4j.transport.Transport;

/**
 * The UCX transport as the agent jar carries it: sdp-ucx and jucx live under {@code sdp4j-ucx/} inside the jar and
 * are loaded by a class loader of their own, child-first for {@code org.openucx} and {@code org.sdp4j.ucx}. jucx's
 * classes cannot be relocated (its JNI symbols name them), and an application with its own jucx (Spark's UCX
 * shuffle, for one) must keep seeing its own version: this way neither sees the other's.
 *
 * <p>This is the class path's way, used by {@code java -jar sdp4j-agent.jar check|selftest} and the agent-less
 * mode. With the agent, sdp-ucx and jucx are part of sdp4j's module in its own layer ({@code
 * org.sdp4j.boot.AgentJarModule}), which isolates them the same way and lets them have native access, and this
 * wrapper is replaced by {@code org.sdp4j.ucx.UcxTransport} itself.
 */
public final class IsolatedUcxTransport implements Transport {
    static final String PREFIX = "sdp4j-ucx/";

    private final Transport real;
    private final Throwable cause;

    public IsolatedUcxTransport() {
        Transport t = null;
        Throwable c = null;
        try {
            URL base = IsolatedUcxTransport.class.getClassLoader().getResource(PREFIX + "org/sdp4j/ucx/UcxTransport.class");
            if (base == null) {
                throw new ClassNotFoundException(PREFIX + " is not in this jar (built without sdp-ucx)");
            }
            String s = base.toString();
            URL root = new URL(s.substring(0, s.length() - "org/sdp4j/ucx/UcxTransport.class".length()));
            ClassLoader loader = new ChildFirst(root, IsolatedUcxTransport.class.getClassLoader());
            t = (Transport) Class.forName("org.sdp4j.ucx.UcxTransport", true, loader).getDeclaredConstructor()
                    .newInstance();
        } catch (ReflectiveOperationException | IOException | LinkageError | RuntimeException e) {
            c = new UnsupportedOperationException("the agent's UCX transport did not load: " + e, e);
        }
        real = t;
        cause = c;
    }

    /** Child-first for the isolated packages, parent-first (sdp4j's SPI, the JDK) for everything else. */
    private static final class ChildFirst extends URLClassLoader {
        static {
            registerAsParallelCapable();
        }

        ChildFirst(URL root, ClassLoader parent) {
            super("sdp4j-ucx", new URL[] {root}, parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.startsWith("org.openucx.") && !name.startsWith("org.sdp4j.ucx.")) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    c = findClass(name);
                }
                if (resolve) {
                    resolveClass(c);
                }
                return c;
            }
        }

        @Override
        public URL getResource(String name) {
            URL u = findResource(name); // jucx finds libjucx.so next to its classes, not the application's
            return u != null ? u : super.getResource(name);
        }
    }

    @Override
    public String name() {
        return "ucx";
    }

    @Override
    public Family family() {
        return Family.UCX;
    }

    @Override
    public boolean isAvailable() {
        return real != null && real.isAvailable();
    }

    @Override
    public Throwable unavailabilityCause() {
        return real != null ? real.unavailabilityCause() : cause;
    }

    private Transport real() throws IOException {
        if (real == null) {
            throw new IOException(cause.getMessage(), cause);
        }
        return real;
    }

    @Override
    public SocketImpl newSocketImpl(boolean server) throws IOException {
        return real().newSocketImpl(server);
    }

    @Override
    public SocketChannel openSocketChannel(SelectorProvider provider) throws IOException {
        return real().openSocketChannel(provider);
    }

    @Override
    public ServerSocketChannel openServerSocketChannel(SelectorProvider provider) throws IOException {
        return real().openServerSocketChannel(provider);
    }

    @Override
    public Poller newPoller() throws IOException {
        return real().newPoller();
    }

    /** The isolated transport's own line for {@code selftest} (its descriptor budget works in its layer or not). */
    @Override
    public String describe() {
        return real != null ? real.describe() : null;
    }

    @Override
    public Set<SocketOption<?>> transportOptions() {
        return real != null ? real.transportOptions() : Set.of();
    }

    @Override
    public String toString() {
        return real != null ? real.toString() : "ucx transport (unavailable: " + cause.getMessage() + ")";
    }
}
