package org.sdp4j.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An echo server over {@code java.net} sockets, one thread per connection of the given kind (platform or virtual) and
 * an acceptor of the same kind: what a thread-per-connection server (a database's, a servlet container's) does. It
 * writes back whatever it reads, until the client closes. Used in the measuring JVM or in a {@link PeerMain} JVM.
 */
final class EchoServer implements AutoCloseable {
    final ServerSocket listener;
    final ThreadKind kind;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    EchoServer(ThreadKind kind) throws IOException {
        this.kind = kind;
        listener = new ServerSocket();
        listener.setReuseAddress(true);
        listener.bind(new InetSocketAddress(DerbyDrdaServer.benchHost(), 0), 4096);   // a burst of 1000 connects
        kind.start("echo-accept", this::acceptLoop);
    }

    int port() {
        return listener.getLocalPort();
    }

    private void acceptLoop() {
        while (!closed) {
            Socket s;
            try {
                s = listener.accept();
            } catch (IOException e) {
                if (closed) return;
                System.err.println("echo server: accept failed: " + e);
                continue;
            }
            open.add(s);
            kind.start("echo-" + s.getPort(), () -> serve(s));
        }
    }

    private void serve(Socket s) {
        byte[] b = new byte[64 * 1024];
        try (Socket c = s; InputStream in = c.getInputStream(); OutputStream out = c.getOutputStream()) {
            c.setTcpNoDelay(true);
            int n;
            while ((n = in.read(b)) > 0) out.write(b, 0, n);
        } catch (IOException e) {
            if (!closed) System.err.println("echo server: connection from port " + s.getPort() + ": " + e);
        } finally {
            open.remove(s);
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing
        }
        for (Socket s : open) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing
            }
        }
    }
}
