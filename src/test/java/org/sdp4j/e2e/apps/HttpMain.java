package org.sdp4j.e2e.apps;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * NIO on both ends in one JVM: {@code com.sun.net.httpserver.HttpServer} (ServerSocketChannel + Selector) and
 * {@code java.net.http.HttpClient} over HTTP/1.1 (SocketChannel + Selector). Small GETs in sequence and in parallel,
 * a large download and a large upload echoed back, all compared byte for byte. Prints only deterministic lines and
 * {@code HTTP OK} (exit 0), or what differed (exit 1).
 */
public final class HttpMain {
    static final int BIG = 8 * 1024 * 1024 + 12345;
    static final int UPLOAD = 5 * 1024 * 1024 + 777;

    private HttpMain() {}

    static byte[] pattern(long seed, int n) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    public static void main(String[] args) throws Exception {
        int sequential = 300;
        int parallel = 100;
        // the server writes headers and body separately: without TCP_NODELAY every small response waits for the
        // client's delayed ACK (~40 ms). The option is set on the accepted SocketChannels, through the agent.
        System.setProperty("sun.net.httpserver.nodelay", "true");
        ExecutorService pool = Executors.newFixedThreadPool(4);
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 50);
        byte[] big = pattern(42, BIG);
        server.createContext("/small", ex -> {
            String q = ex.getRequestURI().getQuery();
            reply(ex, ("small " + q).getBytes(StandardCharsets.UTF_8));
        });
        server.createContext("/big", ex -> reply(ex, big));
        server.createContext("/echo", ex -> {
            byte[] body;
            try (InputStream in = ex.getRequestBody()) {
                body = in.readAllBytes();
            }
            reply(ex, body);
        });
        server.setExecutor(pool);
        server.start();
        String base = "http://127.0.0.1:" + server.getAddress().getPort();
        System.out.println("PORT " + server.getAddress().getPort());

        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(pool).build();
        int bad = 0;
        for (int i = 0; i < sequential; i++) {
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(base + "/small?i=" + i)).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200 || !r.body().equals("small i=" + i)) {
                bad++;
                System.out.println("BAD small " + i + ": " + r.statusCode() + " " + r.body());
            }
        }
        System.out.println("SEQUENTIAL " + sequential + " bad=" + bad);

        List<CompletableFuture<HttpResponse<String>>> futures = new ArrayList<>();
        for (int i = 0; i < parallel; i++) {
            futures.add(client.sendAsync(HttpRequest.newBuilder(URI.create(base + "/small?p=" + i)).build(),
                    HttpResponse.BodyHandlers.ofString()));
        }
        int pbad = 0;
        for (int i = 0; i < parallel; i++) {
            HttpResponse<String> r = futures.get(i).join();
            if (r.statusCode() != 200 || !r.body().equals("small p=" + i)) {
                pbad++;
                System.out.println("BAD parallel " + i + ": " + r.statusCode() + " " + r.body());
            }
        }
        System.out.println("PARALLEL " + parallel + " bad=" + pbad);

        HttpResponse<byte[]> down = client.send(HttpRequest.newBuilder(URI.create(base + "/big")).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        boolean downOk = down.statusCode() == 200 && Arrays.equals(big, down.body());
        System.out.println("DOWNLOAD " + down.body().length + " bytes sha256=" + sha(down.body()) + " equal=" + downOk);

        byte[] up = pattern(7, UPLOAD);
        HttpResponse<byte[]> echoed = client.send(HttpRequest.newBuilder(URI.create(base + "/echo"))
                .POST(HttpRequest.BodyPublishers.ofByteArray(up)).build(), HttpResponse.BodyHandlers.ofByteArray());
        boolean upOk = echoed.statusCode() == 200 && Arrays.equals(up, echoed.body());
        System.out.println("UPLOAD " + up.length + " bytes echoed " + echoed.body().length + " sha256="
                + sha(echoed.body()) + " equal=" + upOk);

        // a few large ones in parallel, each on its own connection
        List<CompletableFuture<HttpResponse<byte[]>>> bigs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            bigs.add(client.sendAsync(HttpRequest.newBuilder(URI.create(base + "/big")).build(),
                    HttpResponse.BodyHandlers.ofByteArray()));
        }
        int bigBad = 0;
        for (CompletableFuture<HttpResponse<byte[]>> f : bigs) {
            if (!Arrays.equals(big, f.join().body())) {
                bigBad++;
            }
        }
        System.out.println("PARALLEL DOWNLOADS 3 bad=" + bigBad);

        server.stop(0);
        boolean ok = bad == 0 && pbad == 0 && downOk && upOk && bigBad == 0;
        System.out.println(ok ? "HTTP OK" : "HTTP FAILED");
        System.out.flush();
        System.exit(ok ? 0 : 1);
    }

    private static void reply(HttpExchange ex, byte[] body) throws IOException {
        ex.sendResponseHeaders(200, body.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(body);
        }
    }

    private static String sha(byte[] b) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }
}
