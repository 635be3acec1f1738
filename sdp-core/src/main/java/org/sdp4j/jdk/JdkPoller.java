package org.sdp4j.jdk;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.function.BooleanSupplier;

/**
 * Parks a virtual thread until a kernel descriptor is readable through the JDK's own poller ({@code
 * sun.nio.ch.Poller.poll}), as the JDK's sockets do: on Linux since JDK 22 its pollers are virtual threads that poll
 * between other virtual threads' turns (a platform poller thread costs a context switch per wake-up: the JDK's
 * sockets with {@code -Djdk.pollerMode=1} made 31-37 % fewer round trips with 16-256 connections here,
 * benchmarks/README.md, issue 18). Needs {@code sun.nio.ch} opened to sdp4j (the agent does it; without the agent
 * {@code --add-opens java.base/sun.nio.ch=ALL-UNNAMED}); where the JDK has no such method (before 21) it is not
 * available and callers keep their own poller.
 *
 * <p>The JDK's poller keeps one parked thread per descriptor and direction: a caller must not let two threads
 * wait on one descriptor through it at once.
 */
public final class JdkPoller {
    private JdkPoller() {}

    private static final MethodHandle POLL;
    private static final int POLLIN;
    private static final Throwable FAILURE;
    private static final BooleanSupplier OPEN = () -> true; // the caller's own close wakes it (its descriptor)

    static {
        MethodHandle h = null;
        int in = 0;
        Throwable f = null;
        try {
            Class<?> poller = Class.forName("sun.nio.ch.Poller");
            MethodHandles.Lookup l = MethodHandles.privateLookupIn(poller, MethodHandles.lookup());
            h = l.findStatic(poller, "poll", MethodType.methodType(void.class, int.class, int.class, long.class,
                    BooleanSupplier.class));
            Class<?> net = Class.forName("sun.nio.ch.Net");
            in = (short) MethodHandles.privateLookupIn(net, MethodHandles.lookup())
                    .findStaticGetter(net, "POLLIN", short.class).invoke();
            l.ensureInitialized(poller); // here, not in a virtual thread's first park (class init would pin it)
        } catch (Throwable e) {
            h = null;
            f = e;
        }
        POLL = h;
        POLLIN = in;
        FAILURE = f;
    }

    /** Whether the JDK's poller is reachable; {@link #unavailabilityCause()} says why not. */
    public static boolean isAvailable() {
        return POLL != null;
    }

    public static Throwable unavailabilityCause() {
        return FAILURE;
    }

    /**
     * Parks the calling thread until {@code fd} is readable, {@code nanos} passed (0: no bound) or it is unparked
     * (an interrupt included: the caller checks what it waits for).
     */
    public static void awaitReadable(int fd, long nanos) throws IOException {
        if (fd < 0 || nanos < 0) {
            throw new IllegalArgumentException("descriptor " + fd + ", nanos " + nanos);
        }
        try {
            POLL.invokeExact(fd, POLLIN, nanos, OPEN);
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("the JDK's poller failed: " + t, t);
        }
    }
}
