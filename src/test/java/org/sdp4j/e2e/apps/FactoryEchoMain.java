package org.sdp4j.e2e.apps;

import java.io.DataInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Arrays;
import java.util.Random;

/**
 * The socket factory's own socket, without a driver around it:
 * {@code FactoryEchoMain serve} listens on 127.0.0.1 (prints {@code LISTENING PORT}) and echoes each connection;
 * {@code FactoryEchoMain client PORT RULES} takes a socket from {@code org.sdp4j.jdbc.SdpSocketFactory(RULES)}
 * (loaded by name: the class path has sdp4j-agent.jar, this module compiles without it), sets options before
 * {@code connect}, connects, prints them as the connected socket reports them ({@code OPTIONS ...}), sends 1 MiB
 * in random-size writes while a second thread reads the echo and compares every byte ({@code ECHOED n}), then
 * half-closes and expects end-of-stream ({@code EOF}).
 */
public final class FactoryEchoMain {
    private FactoryEchoMain() {}

    public static void main(String[] args) throws Exception {
        if (args[0].equals("serve")) {
            try (ServerSocket ss = new ServerSocket(0, 5, InetAddress.getByName("127.0.0.1"))) {
                System.out.println("LISTENING " + ss.getLocalPort());
                System.out.flush();
                while (true) {
                    Socket s = ss.accept();
                    Thread t = new Thread(() -> echo(s), "echo");
                    t.start();
                }
            }
        }
        int port = Integer.parseInt(args[1]);
        javax.net.SocketFactory f = (javax.net.SocketFactory) Class.forName("org.sdp4j.jdbc.SdpSocketFactory")
                .getConstructor(String.class).newInstance(args[2]);
        try (Socket s = f.createSocket()) {
            s.setTcpNoDelay(true);
            s.setSoTimeout(30_000);
            s.setKeepAlive(true);
            s.connect(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port), 20_000);
            System.out.println("OPTIONS connected=" + s.isConnected() + " tcpNoDelay=" + s.getTcpNoDelay()
                    + " soTimeout=" + s.getSoTimeout() + " remotePort=" + s.getPort());
            byte[] data = new byte[1 << 20];
            new Random(42).nextBytes(data);
            byte[] back = new byte[data.length];
            InputStream in = s.getInputStream();
            Thread reader = new Thread(() -> {
                try {
                    new DataInputStream(in).readFully(back);
                } catch (Exception e) {
                    System.out.println("READ FAILED " + e);
                }
            }, "reader");
            reader.start();
            OutputStream out = s.getOutputStream();
            Random r = new Random(7);
            for (int off = 0; off < data.length; ) {
                int n = Math.min(data.length - off, 1 + r.nextInt(65536));
                out.write(data, off, n);
                off += n;
            }
            reader.join(60_000);
            System.out.println("ECHOED " + (Arrays.equals(data, back) ? data.length : -1));
            s.shutdownOutput();
            System.out.println(in.read() < 0 ? "EOF" : "NO EOF");
        }
        System.out.flush();
        System.exit(0);
    }

    private static void echo(Socket s) {
        try (s) {
            s.getInputStream().transferTo(s.getOutputStream());
        } catch (Exception e) {
            System.out.println("ECHO FAILED " + e);
        }
    }
}
