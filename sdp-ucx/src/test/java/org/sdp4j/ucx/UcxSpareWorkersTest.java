package org.sdp4j.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sdp4j.Sdp4j;
import org.sdp4j.conf.ConfigParser;
import org.sdp4j.conf.ProgramIdentity;

/**
 * Workers made ahead ({@link WorkerPool#take}): once a connect found the pool empty, a thread of the pool's own keeps
 * {@link WorkerPool#SPARES} idle workers, so that the next new pair's connect takes one instead of making it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UcxSpareWorkersTest {
    @BeforeAll
    static void rules() throws Exception {
        assertTrue(Ucx.isAvailable(), () -> "UCX must be installed for these tests: " + Ucx.unavailabilityCause());
        System.setProperty("sdp4j.ucx.dir", Files.createTempDirectory("ucx-rv").toString());
        Sdp4j.installSocketFactories();
    }

    @BeforeEach
    void ucxRules() throws Exception {
        Sdp4j.configure(ConfigParser.parse("test.conf", "use ucx server * *:*\nuse ucx client * *:*\n"),
                ProgramIdentity.of("ucx-test"));
    }

    @Test
    void sparesAreMadeAheadOnceTheProcessMakesNewPairs() throws Exception {
        try (ServerSocket ss = UcxSocketTest.listen(); Socket c0 = new Socket(InetAddress.getLoopbackAddress(),
                ss.getLocalPort()); Socket s0 = ss.accept()) {
            // a process's first workers make no spares (one that makes a single connection needs none); these have
            // been made. With the pool emptied, the next connect finds none: the process makes new pairs
            WorkerPool.drain();
            Socket c = new Socket(InetAddress.getLoopbackAddress(), ss.getLocalPort());
            Socket s = ss.accept();
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (WorkerPool.idle() < WorkerPool.SPARES && System.nanoTime() - end < 0) {
                Thread.sleep(10);
            }
            assertTrue(WorkerPool.idle() >= WorkerPool.SPARES, () -> WorkerPool.idle() + " idle workers, "
                    + WorkerPool.SPARES + " spares expected");
            long created = WorkerPool.CREATED.get();
            // `c0` and `c` stay open: their pairs are in use, so this connect makes a new pair, on the spares
            try (Socket c2 = new Socket(InetAddress.getLoopbackAddress(), ss.getLocalPort()); Socket s2 = ss.accept()) {
                c2.getOutputStream().write(9);
                assertEquals(9, s2.getInputStream().read());
            }
            // workers made since are the next spares (at most SPARES): with none made ahead, this connect's two
            // ends would have made two and the maker two more
            assertTrue(WorkerPool.CREATED.get() - created <= WorkerPool.SPARES, () -> "workers made since: "
                    + (WorkerPool.CREATED.get() - created));
            c.close();
            s.close();
        }
    }
}
