package org.sdp4j.jdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link JdkPoller} on a real pipe: a virtual thread parked through the JDK's poller wakes when the descriptor
 * turns readable, and at its bound when it does not; a bad argument is an exception. On a JDK without the poller
 * (17) it says why. The {@code Future.get} bounds are hang guards.
 */
@Timeout(60)
class JdkPollerTest {
    private static ExecutorService virtualThreads() {
        try {
            return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        } catch (ReflectiveOperationException e) {
            return null;
        }
    }

    @Test
    void availableWhereTheJdkHasVirtualThreadsElseSaysWhy() {
        if (virtualThreads() == null) {
            assertFalse(JdkPoller.isAvailable());
            assertNotNull(JdkPoller.unavailabilityCause());
        } else {
            assertTrue(JdkPoller.isAvailable(), () -> "JDK poller: " + JdkPoller.unavailabilityCause());
        }
    }

    @Test
    void aParkedVirtualThreadWakesWhenTheDescriptorTurnsReadable() throws Exception {
        ExecutorService vts = virtualThreads();
        assumeTrue(vts != null && JdkPoller.isAvailable(), "no virtual threads on this JDK");
        Pipe p = Pipe.open();
        try (Pipe.SourceChannel in = p.source(); Pipe.SinkChannel out = p.sink()) {
            int fd = JdkNio.channelFd(in);
            Future<Integer> parked = vts.submit(() -> {
                for (int i = 0; i < 1000; i++) { // an unpark from elsewhere may end a park early: look again
                    JdkPoller.awaitReadable(fd, 0);
                    in.configureBlocking(false);
                    ByteBuffer b = ByteBuffer.allocate(1);
                    if (in.read(b) == 1) {
                        return (int) b.get(0);
                    }
                }
                return -1;
            });
            Thread.sleep(100);
            assertFalse(parked.isDone(), "woke with nothing to read");
            out.write(ByteBuffer.wrap(new byte[] {42}));
            assertEquals(42, parked.get(30, TimeUnit.SECONDS));
        } finally {
            vts.shutdownNow();
        }
    }

    @Test
    void aBoundedParkEndsWithNothingToRead() throws Exception {
        ExecutorService vts = virtualThreads();
        assumeTrue(vts != null && JdkPoller.isAvailable(), "no virtual threads on this JDK");
        Pipe p = Pipe.open();
        try (Pipe.SourceChannel in = p.source(); Pipe.SinkChannel out = p.sink()) {
            int fd = JdkNio.channelFd(in);
            vts.submit(() -> {
                JdkPoller.awaitReadable(fd, 20_000_000L);
                return null;
            }).get(30, TimeUnit.SECONDS);
        } finally {
            vts.shutdownNow();
        }
    }

    @Test
    void badArgumentsAreExceptions() {
        assumeTrue(JdkPoller.isAvailable(), "no JDK poller here");
        assertThrows(IllegalArgumentException.class, () -> JdkPoller.awaitReadable(-1, 0));
        assertThrows(IllegalArgumentException.class, () -> JdkPoller.awaitReadable(0, -5));
    }
}
