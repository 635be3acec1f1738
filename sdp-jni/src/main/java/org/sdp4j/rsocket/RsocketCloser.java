package org.sdp4j.rsocket;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.sdp4j.log.SdpLog;
import org.sdp4j.transport.Props;

/**
 * Every rclose of sdp4j's, bounded. librdmacm's rclose of a connected rsocket shuts it down first, and rshutdown
 * waits without bound for its DISCONNECT message's send to complete: a dead peer never acknowledges it (rdma_rxe
 * retries for ever; the contract's peerKilledWhileConnected hung so in a VM run), and one CI run (VM step h)
 * waited out the test's 30 s in an accepted channel's close with the peer alive. A leaving listener or connection
 * also waits for librdmacm's service thread to answer. So the rclose runs on a closer thread and the caller waits
 * at most {@code sdp4j.rsocket.closeTimeout} ms (default 10000; 0: no wait at all) for it, parked, never blocking
 * a virtual thread's carrier in native code; past the bound the caller returns, the close goes on in the
 * background, and one line says so. A close that was known to hang ({@link CmStallWatch}: peer gone; {@link RdmaDeviceWatch}: device removed) does
 * not wait.
 */
final class RsocketCloser {
    private RsocketCloser() {}

    static final long BOUND_MS = Props.longProperty("sdp4j.rsocket.closeTimeout", 10_000, 0, 3_600_000);

    private static final ExecutorService CLOSERS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "sdp4j-rsocket-close");
        t.setDaemon(true);
        return t;
    });

    /**
     * rcloses {@code fd} (if >= 0) and closes eventfd {@code ev} (if >= 0), waiting at most the bound (not at all
     * when {@code wait} is false). Throws what rclose threw when it finished in time.
     */
    static void close(int fd, int ev, boolean wait) throws IOException {
        if (fd < 0) {
            if (ev >= 0) {
                Native.closeEvent(ev);
            }
            return;
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        long start = System.nanoTime();
        CLOSERS.execute(() -> {
            try {
                Native.close(fd);
                done.complete(null);
            } catch (Throwable t) {
                done.completeExceptionally(t);
            } finally {
                if (ev >= 0) {
                    try {
                        Native.closeEvent(ev);
                    } catch (IOException ignored) {
                        // the eventfd: nothing to report to
                    }
                }
                if (done.isDone() && System.nanoTime() - start > TimeUnit.MILLISECONDS.toNanos(BOUND_MS) && BOUND_MS > 0) {
                    SdpLog.log(SdpLog.INFO, "rsocket fd " + fd + ": rclose returned after "
                            + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms");
                }
            }
        });
        if (!wait || BOUND_MS == 0) {
            return;
        }
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    done.get(BOUND_MS - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), TimeUnit.MILLISECONDS);
                    return;
                } catch (InterruptedException e) {
                    interrupted = true; // a close is not interruptible: finish waiting, keep the flag
                } catch (ExecutionException e) {
                    Throwable c = e.getCause();
                    if (c instanceof IOException io) {
                        throw io;
                    }
                    if (c instanceof RuntimeException re) {
                        throw re;
                    }
                    throw (Error) c;
                } catch (TimeoutException e) {
                    SdpLog.log(SdpLog.WARN, "rsocket fd " + fd + ": rclose has not returned after " + BOUND_MS
                            + " ms (librdmacm waits for the peer to acknowledge the disconnect, or for its service"
                            + " thread); the close goes on in the background (-Dsdp4j.rsocket.closeTimeout)");
                    return;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** As {@link #close(int, int, boolean)}, reporting nothing. */
    static void closeQuietly(int fd, int ev, boolean wait) {
        try {
            close(fd, ev, wait);
        } catch (IOException | RuntimeException ignored) {
            // closing: nothing left to report to
        }
    }
}
