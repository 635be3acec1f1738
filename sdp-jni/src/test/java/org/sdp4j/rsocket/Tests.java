package org.sdp4j.rsocket;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** Test helpers. */
final class Tests {
    private Tests() {}

    /**
     * A thread per task: peers in one JVM block on each other (a reader waits for a writer), which a bounded pool
     * (the common pool has one worker on two cores, and JDK 25's CompletableFuture uses it) would deadlock.
     */
    static final ExecutorService EXEC = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "sdp4j-test");
        t.setDaemon(true);
        return t;
    });
}
