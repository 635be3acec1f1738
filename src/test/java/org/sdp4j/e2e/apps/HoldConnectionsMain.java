package org.sdp4j.e2e.apps;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * Holds connections open for an operator's tools to look at: {@code HoldConnectionsMain REFUSED_PORT [ADDRESS]}
 * (ADDRESS: 127.0.0.1 unless given; the VM's stat step uses its RDMA address). A listener
 * (decided by the rules: ucx in the test), two client connections to it, each writing 1000 bytes that the
 * accepted side reads, one connect to REFUSED_PORT that fails, then {@code READY pid port} and a wait until stdin
 * closes.
 */
public final class HoldConnectionsMain {
    private HoldConnectionsMain() {}

    public static void main(String[] args) throws Exception {
        InetAddress lo = InetAddress.getByName(args.length > 1 ? args[1] : "127.0.0.1");
        ServerSocket ss = new ServerSocket(0, 50, lo);
        List<Socket> held = new ArrayList<>();
        java.util.concurrent.CountDownLatch read = new java.util.concurrent.CountDownLatch(2);
        Thread acceptor = new Thread(() -> {
            try {
                while (true) {
                    Socket s = ss.accept();
                    s.getInputStream().readNBytes(1000);
                    synchronized (held) {
                        held.add(s);
                    }
                    read.countDown();
                }
            } catch (IOException closed) {
                // the listener closed at the end
            }
        }, "acceptor");
        acceptor.setDaemon(true);
        acceptor.start();
        for (int i = 0; i < 2; i++) {
            Socket c = new Socket(lo, ss.getLocalPort());
            c.getOutputStream().write(new byte[1000]);
            synchronized (held) {
                held.add(c);
            }
        }
        if (!read.await(60, java.util.concurrent.TimeUnit.SECONDS)) {
            System.out.println("ERROR the accepted side did not read");
        }
        try (Socket refused = new Socket()) {
            refused.connect(new InetSocketAddress(lo, Integer.parseInt(args[0])), 5_000);
            System.out.println("ERROR connected to the refused port");
        } catch (IOException expected) {
            // counted as an error by sdp4j
        }
        System.out.println("READY " + ProcessHandle.current().pid() + " " + ss.getLocalPort());
        System.out.flush();
        while (System.in.read() >= 0) {
            // until the test closes stdin
        }
        ss.close();
    }
}
