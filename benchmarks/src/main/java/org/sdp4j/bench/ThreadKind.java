package org.sdp4j.bench;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

/**
 * Platform or virtual threads, chosen by name. The module builds for release 17, so virtual threads (Java 21+) are
 * reached by reflection: on an older JVM {@code virtual} fails with a clear message instead of a link error.
 */
enum ThreadKind {
    PLATFORM, VIRTUAL;

    private static final Method START_VIRTUAL = lookup();

    private static Method lookup() {
        try {
            return Thread.class.getMethod("startVirtualThread", Runnable.class);
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    static ThreadKind of(String name) {
        switch (name) {
            case "platform": return PLATFORM;
            case "virtual": return VIRTUAL;
            default: throw new IllegalArgumentException("threads must be platform or virtual, not '" + name + "'");
        }
    }

    /** Starts {@code r} on a new thread of this kind (daemon for platform threads; virtual threads always are). */
    Thread start(String name, Runnable r) {
        if (this == PLATFORM) {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            t.start();
            return t;
        }
        if (START_VIRTUAL == null) {
            throw new UnsupportedOperationException("virtual threads need Java 21 or newer; this JVM is "
                    + System.getProperty("java.runtime.version") + " (run with --java /usr/lib/jvm/temurin-25-jdk-amd64/bin/java)");
        }
        try {
            Thread t = (Thread) START_VIRTUAL.invoke(null, r);
            t.setName(name);
            return t;
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        } catch (InvocationTargetException e) {
            Throwable c = e.getCause();
            if (c instanceof RuntimeException) throw (RuntimeException) c;
            if (c instanceof Error) throw (Error) c;
            throw new IllegalStateException(c);
        }
    }

    @Override
    public String toString() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
