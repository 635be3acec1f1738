package org.sdp4j.transport;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * {@code Thread.isVirtual()} (JDK 21) for code compiled for JDK 17: a transport's wait asks it to choose between
 * waiting in native code (a platform thread) and parking (a virtual thread must free its carrier).
 */
public final class Threads {
    private static final MethodHandle IS_VIRTUAL = isVirtualHandle();

    private Threads() {
    }

    /** True on a virtual thread (JDK 21+); false on JDK 17 and on platform threads. */
    public static boolean onVirtualThread() {
        if (IS_VIRTUAL == null) {
            return false;
        }
        try {
            return (boolean) IS_VIRTUAL.invokeExact(Thread.currentThread());
        } catch (Throwable e) {
            return false;
        }
    }

    private static MethodHandle isVirtualHandle() {
        try {
            return MethodHandles.publicLookup().findVirtual(Thread.class, "isVirtual",
                    MethodType.methodType(boolean.class));
        } catch (ReflectiveOperationException e) {
            return null; // JDK 17: no virtual threads
        }
    }
}
