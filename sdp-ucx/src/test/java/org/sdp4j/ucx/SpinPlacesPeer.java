package org.sdp4j.ucx;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A JVM for {@link UcxSpinPlacesTest}, started with a spin long enough that every way a wait ends happens while it
 * spins, and without the load bound (so it spins however busy the machine is): waits on local UCX connections that
 * end with data, a read timeout, the peer's close and a close by another thread. Prints {@code SEEN n} (the most
 * spin places seen taken at once by a watcher, so the waits did spin) and {@code LEFT n} (places still taken once
 * every wait is over).
 */
final class SpinPlacesPeer {
    private SpinPlacesPeer() {}

    public static void main(String[] args) throws Exception {
        UcxSocketTest.rules();
        org.sdp4j.Sdp4j.configure(org.sdp4j.conf.ConfigParser.parse("spin.conf",
                "use ucx server * *:*\nuse ucx client * *:*\n"), org.sdp4j.conf.ProgramIdentity.of("spin"));
        AtomicInteger seen = new AtomicInteger();
        AtomicBoolean done = new AtomicBoolean();
        Thread watcher = new Thread(() -> {
            while (!done.get()) {
                seen.accumulateAndGet(UcxWait.spinning(), Math::max);
                Thread.onSpinWait();
            }
        }, "spin-watcher");
        watcher.setDaemon(true);
        watcher.start();
        List<Thread> clients = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Thread t = new Thread(() -> {
                InetAddress lo = InetAddress.getLoopbackAddress();
                try (ServerSocket ss = new ServerSocket(0, 50, lo)) {
                    endings(ss, lo);
                } catch (Exception e) {
                    System.out.println("FAILED " + e);
                    e.printStackTrace(System.out);
                }
            }, "spin-client-" + i);
            t.start();
            clients.add(t);
        }
        for (Thread t : clients) {
            t.join();
        }
        done.set(true);
        watcher.join();
        System.out.println("SEEN " + seen.get());
        System.out.println("LEFT " + UcxWait.spinning());
    }

    /** One connection for each way a wait ends, on a listener of this thread's own. */
    private static void endings(ServerSocket ss, InetAddress lo) throws Exception {
        // data: a ping-pong, every read a wait the echo ends
        try (Socket c = new Socket(lo, ss.getLocalPort()); Socket s = accept(ss)) {
            Thread echo = new Thread(() -> {
                try {
                    InputStream in = s.getInputStream();
                    OutputStream out = s.getOutputStream();
                    for (int i = 0; i < 200; i++) {
                        out.write(in.read());
                    }
                } catch (IOException e) {
                    System.out.println("FAILED echo " + e);
                }
            });
            echo.start();
            for (int i = 0; i < 200; i++) {
                c.getOutputStream().write(i);
                if (c.getInputStream().read() != (i & 0xff)) {
                    System.out.println("FAILED echo mismatch");
                }
            }
            echo.join();
        }
        // a read timeout: the wait ends by an exception in its spin
        try (Socket c = new Socket(lo, ss.getLocalPort()); Socket s = accept(ss)) {
            c.setSoTimeout(20);
            for (int i = 0; i < 5; i++) {
                try {
                    c.getInputStream().read();
                    System.out.println("FAILED a read with nothing sent returned");
                } catch (SocketTimeoutException expected) {
                    // the wait's end under test
                }
            }
        }
        // the peer's close: the read returns end-of-stream from its spin
        try (Socket c = new Socket(lo, ss.getLocalPort())) {
            Socket s = accept(ss);
            CountDownLatch reading = new CountDownLatch(1);
            Thread closer = new Thread(() -> {
                try {
                    reading.await();
                    Thread.sleep(5);
                    s.close();
                } catch (Exception e) {
                    System.out.println("FAILED closer " + e);
                }
            });
            closer.start();
            reading.countDown();
            if (c.getInputStream().read() != -1) {
                System.out.println("FAILED no end-of-stream after the peer's close");
            }
            closer.join();
        }
        // a close by another thread of this end: the read fails from its spin
        Socket c = new Socket(lo, ss.getLocalPort());
        try (Socket s = accept(ss)) {
            Thread closer = new Thread(() -> {
                try {
                    Thread.sleep(5);
                    c.close();
                } catch (Exception e) {
                    System.out.println("FAILED closer " + e);
                }
            });
            closer.start();
            try {
                c.getInputStream().read();
                System.out.println("FAILED a read on a closed socket returned");
            } catch (IOException expected) {
                // "Socket closed"
            }
            closer.join();
        }
    }

    private static Socket accept(ServerSocket ss) throws IOException {
        return ss.accept();
    }
}
