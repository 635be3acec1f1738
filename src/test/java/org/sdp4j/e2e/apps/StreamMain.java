package org.sdp4j.e2e.apps;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * One side of an endless stream, for killing the other side mid-transfer:
 * {@code StreamMain serve} listens on 127.0.0.1 (prints {@code LISTENING PORT}) and writes to the first client until
 * the write fails; {@code StreamMain read PORT} connects and reads until the read fails. Both print {@code STREAMING}
 * once a MiB went through, then {@code IOEXCEPTION EPOCH_MILLIS CLASS: MESSAGE} (or {@code EOF EPOCH_MILLIS}) when
 * the stream ends, and exit 0.
 */
public final class StreamMain {
    private StreamMain() {}

    public static void main(String[] args) throws Exception {
        if (args[0].equals("serve")) {
            try (ServerSocket ss = new ServerSocket(0, 5, InetAddress.getByName("127.0.0.1"))) {
                System.out.println("LISTENING " + ss.getLocalPort());
                try (Socket s = ss.accept()) {
                    write(s.getOutputStream());
                }
            }
        } else {
            try (Socket s = new Socket(InetAddress.getByName("127.0.0.1"), Integer.parseInt(args[1]))) {
                if (args.length > 2 && args[2].equals("write")) {
                    write(s.getOutputStream());
                } else {
                    read(s.getInputStream());
                }
            }
        }
        System.out.flush();
        System.exit(0);
    }

    static void write(OutputStream out) {
        byte[] b = new byte[8192];
        long total = 0;
        boolean said = false;
        try {
            while (true) {
                out.write(b);
                total += b.length;
                if (!said && total >= 1 << 20) {
                    System.out.println("STREAMING");
                    said = true;
                }
            }
        } catch (IOException e) {
            System.out.println("IOEXCEPTION " + System.currentTimeMillis() + " " + e);
        }
    }

    static void read(InputStream in) {
        byte[] b = new byte[8192];
        long total = 0;
        boolean said = false;
        try {
            while (true) {
                int n = in.read(b);
                if (n < 0) {
                    System.out.println("EOF " + System.currentTimeMillis());
                    return;
                }
                total += n;
                if (!said && total >= 1 << 20) {
                    System.out.println("STREAMING");
                    said = true;
                }
            }
        } catch (IOException e) {
            System.out.println("IOEXCEPTION " + System.currentTimeMillis() + " " + e);
        }
    }
}
