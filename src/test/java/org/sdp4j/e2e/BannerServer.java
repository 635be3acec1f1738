package org.sdp4j.e2e;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An LDAP-ish second destination, in the test JVM (no agent): greets with a banner line, answers one line with
 * {@code echo: LINE}, closes. Child programs connect to it besides their database.
 */
public final class BannerServer implements AutoCloseable {
    public static final String BANNER = "sdp4j-e2e directory service ready";

    private final ServerSocket server;
    private final Thread thread;
    private final AtomicInteger served = new AtomicInteger();

    public BannerServer() throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"));
        thread = new Thread(this::loop, "banner-server");
        thread.setDaemon(true);
        thread.start();
    }

    public int port() {
        return server.getLocalPort();
    }

    public int served() {
        return served.get();
    }

    private void loop() {
        while (!server.isClosed()) {
            try (Socket s = server.accept()) {
                s.setSoTimeout(10_000);
                OutputStream out = s.getOutputStream();
                out.write((BANNER + "\n").getBytes(StandardCharsets.UTF_8));
                out.flush();
                BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
                String line = in.readLine();
                if (line != null) {
                    out.write(("echo: " + line + "\n").getBytes(StandardCharsets.UTF_8));
                    out.flush();
                    served.incrementAndGet();
                }
            } catch (SocketException e) {
                if (server.isClosed()) {
                    return;
                }
            } catch (IOException e) {
                // one bad client does not stop the service
            }
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
