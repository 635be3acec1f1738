package org.sdp4j.e2e.apps;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * {@code ManyConnectionsMain N}: a listener and N connections to it, all open at once, each echoing 64 KiB through
 * a thread per accepted end; every byte checked. Prints {@code ECHOED n} (connections whose echo came back whole)
 * and exits 1 on any failure, naming it: the application's own view of a JVM whose transport may run out of
 * something (file descriptors) before the application does.
 */
public final class ManyConnectionsMain {
    private static final int BYTES = 64 << 10;
    /** Set once the result is out: an echo thread that fails after it (the clients closed, the JVM exiting) says nothing. */
    private static volatile boolean done;

    private ManyConnectionsMain() {}

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        InetAddress lo = InetAddress.getLoopbackAddress();
        try (ServerSocket ss = new ServerSocket(0, n, lo)) {
            Thread acceptor = new Thread(() -> {
                try {
                    for (int i = 0; i < n; i++) {
                        Socket s = ss.accept();
                        Thread echo = new Thread(() -> echo(s), "echo-" + i);
                        echo.setDaemon(true);
                        echo.start();
                    }
                } catch (IOException e) {
                    System.out.println("ACCEPT FAILED " + e);
                }
            }, "acceptor");
            acceptor.setDaemon(true);
            acceptor.start();
            byte[] out = new byte[BYTES];
            for (int i = 0; i < out.length; i++) {
                out[i] = (byte) (i * 31 + 7);
            }
            int echoed = 0;
            List<Socket> clients = new ArrayList<>();
            for (int c = 0; c < n; c++) {
                Socket s = new Socket(lo, ss.getLocalPort()); // an exception here fails the program
                clients.add(s);
                s.getOutputStream().write(out);
                byte[] back = s.getInputStream().readNBytes(BYTES);
                if (Arrays.equals(out, back)) {
                    echoed++;
                } else {
                    System.out.println("ECHO FAILED on connection " + c + ": " + back.length + " bytes back");
                }
            }
            done = true;
            System.out.println("ECHOED " + echoed);
            for (Socket s : clients) {
                s.close();
            }
            System.exit(echoed == n ? 0 : 1);
        }
    }

    private static void echo(Socket s) {
        try (InputStream in = s.getInputStream(); OutputStream o = s.getOutputStream()) {
            byte[] b = new byte[8192];
            for (int r; (r = in.read(b)) > 0; ) {
                o.write(b, 0, r);
            }
        } catch (IOException e) {
            if (!done) {
                System.out.println("ECHO FAILED " + e);
            }
        }
    }
}
