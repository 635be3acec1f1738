package org.sdp4j.e2e.apps;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * Reads that wait, for JFR's socket events: {@code SlowPeerMain} listens on 127.0.0.1 and answers each of two
 * connections with 64 bytes after 200 ms; it reads them once through a java.net Socket and once through a
 * SocketChannel, writes 64 bytes on each, and prints {@code DONE socketPort channelPort}.
 */
public final class SlowPeerMain {
    private SlowPeerMain() {}

    public static void main(String[] args) throws Exception {
        InetAddress lo = InetAddress.getByName("127.0.0.1");
        try (ServerSocket ss = new ServerSocket(0, 5, lo)) {
            Thread server = new Thread(() -> {
                try {
                    for (int i = 0; i < 2; i++) {
                        try (Socket s = ss.accept()) {
                            Thread.sleep(200);
                            OutputStream out = s.getOutputStream();
                            out.write(new byte[64]);
                            out.flush();
                            s.getInputStream().readNBytes(64);
                        }
                    }
                } catch (Exception e) {
                    e.printStackTrace();
                }
            }, "slow-peer");
            server.start();
            int socketPort, channelPort;
            try (Socket s = new Socket(lo, ss.getLocalPort())) {
                socketPort = s.getLocalPort();
                s.getInputStream().readNBytes(64);
                s.getOutputStream().write(new byte[64]);
            }
            try (SocketChannel c = SocketChannel.open(new InetSocketAddress(lo, ss.getLocalPort()))) {
                channelPort = ((InetSocketAddress) c.getLocalAddress()).getPort();
                ByteBuffer b = ByteBuffer.allocate(64);
                while (b.hasRemaining() && c.read(b) >= 0) {
                    // the peer answers after 200 ms
                }
                c.write(ByteBuffer.allocate(64));
            }
            server.join(30_000);
            System.out.println("DONE " + socketPort + " " + channelPort);
        }
    }
}
