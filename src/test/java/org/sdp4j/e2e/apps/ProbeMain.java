package org.sdp4j.e2e.apps;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketOption;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

import jdk.net.ExtendedSocketOptions;

/**
 * Exercises java.net.Socket / ServerSocket the way applications and drivers do and prints deterministic
 * observations (no port numbers, no kernel-chosen sizes, no timings), so that a run with the agent and tcp rules can
 * be compared line for line with a run without it. Its own expectations are printed as {@code CHECK name PASS|FAIL};
 * the last line is {@code PROBE FAILURES n} (exit 0 when n is 0).
 *
 * <pre>ProbeMain KEYSTORE.p12 PASSWORD</pre>
 */
public final class ProbeMain {
    static final InetAddress LO = loopback();
    static int failures;

    private ProbeMain() {}

    static InetAddress loopback() {
        try {
            return InetAddress.getByName("127.0.0.1");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static void out(String name, Object value) {
        System.out.println(name + ": " + value);
    }

    static void check(String name, boolean ok) {
        System.out.println("CHECK " + name + " " + (ok ? "PASS" : "FAIL"));
        if (!ok) {
            failures++;
        }
    }

    static String ex(Throwable t) {
        return t.getClass().getName() + ": " + t.getMessage();
    }

    interface Action {
        Object run() throws Exception;
    }

    /** The outcome of an action: its value, or its exception's class and message. */
    static String attempt(Action a) {
        try {
            Object v = a.run();
            if (v instanceof Socket) {
                return "ok Socket(" + states((Socket) v) + ")";
            }
            if (v instanceof ServerSocket) {
                return "ok ServerSocket(" + states((ServerSocket) v) + ")";
            }
            return "ok " + v;
        } catch (Throwable t) {
            return "threw " + ex(t);
        }
    }

    static String states(Socket s) {
        return "connected=" + s.isConnected() + " bound=" + s.isBound() + " closed=" + s.isClosed()
                + " inputShutdown=" + s.isInputShutdown() + " outputShutdown=" + s.isOutputShutdown();
    }

    static String states(ServerSocket s) {
        return "bound=" + s.isBound() + " closed=" + s.isClosed();
    }

    static String names(Set<SocketOption<?>> options) {
        Set<String> n = new TreeSet<>();
        for (SocketOption<?> o : options) {
            n.add(o.name() + "(" + o.type().getSimpleName() + ")");
        }
        return n.toString();
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, LO)) {
            return s.getLocalPort();
        }
    }

    /** A connected pair: [0] the client, [1] the accepted socket. */
    static Socket[] pair(ServerSocket ss) throws IOException {
        Socket c = new Socket(LO, ss.getLocalPort());
        Socket a = ss.accept();
        return new Socket[] {c, a};
    }

    static byte[] readN(InputStream in, int n) throws IOException {
        byte[] b = in.readNBytes(n);
        if (b.length != n) {
            throw new IOException("short read " + b.length + " of " + n);
        }
        return b;
    }

    public static void main(String[] args) throws Exception {
        unconnectedSocket();
        optionsSetThenGet();
        connectedPair();
        readTimeoutAndAvailable();
        halfClose();
        connectFailures();
        bindBeforeConnect();
        noProxy();
        serverSockets();
        asyncClose();
        tlsOverConnectedSocket(args[0], args[1].toCharArray());
        channelAdaptors();
        nioChannels();
        ipv6Loopback();
        System.out.println("PROBE FAILURES " + failures);
        System.out.flush();
        System.exit(failures == 0 ? 0 : 1);
    }

    static void unconnectedSocket() throws IOException {
        System.out.println("== unconnected Socket");
        Socket s = new Socket();
        out("class", s.getClass().getName());
        out("states", states(s));
        out("tcpNoDelay", s.getTcpNoDelay());
        out("keepAlive", s.getKeepAlive());
        out("reuseAddress", s.getReuseAddress());
        out("soLinger", s.getSoLinger());
        out("soTimeout", s.getSoTimeout());
        out("oobInline", s.getOOBInline());
        out("trafficClass", s.getTrafficClass());
        out("localPort", s.getLocalPort());
        out("port", s.getPort());
        out("inetAddress", s.getInetAddress());
        out("localAddress", s.getLocalAddress());
        out("remoteSocketAddress", s.getRemoteSocketAddress());
        out("localSocketAddress", s.getLocalSocketAddress());
        out("channel", s.getChannel());
        out("supportedOptions", names(s.supportedOptions()));
        check("a new socket is neither bound, connected nor closed", !s.isBound() && !s.isConnected() && !s.isClosed());
        out("getInputStream unconnected", attempt(() -> s.getInputStream().available()));
        out("shutdownOutput unconnected", attempt(() -> {
            s.shutdownOutput();
            return "done";
        }));
        s.close();
        out("states after close", states(s));
        out("getTcpNoDelay after close", attempt(s::getTcpNoDelay));
        out("connect after close", attempt(() -> {
            s.connect(new InetSocketAddress(LO, 9));
            return "connected";
        }));
        check("closed socket says closed", s.isClosed());
    }

    static void optionsSetThenGet() throws IOException {
        System.out.println("== options set then get, before connect");
        try (Socket s = new Socket()) {
            s.setTcpNoDelay(true);
            out("tcpNoDelay", s.getTcpNoDelay());
            s.setKeepAlive(true);
            out("keepAlive", s.getKeepAlive());
            s.setReuseAddress(true);
            out("reuseAddress", s.getReuseAddress());
            s.setSoLinger(true, 7);
            out("soLinger on 7", s.getSoLinger());
            s.setSoLinger(false, 0);
            out("soLinger off", s.getSoLinger());
            s.setSoTimeout(1234);
            out("soTimeout", s.getSoTimeout());
            s.setOOBInline(true);
            out("oobInline", s.getOOBInline());
            s.setSendBufferSize(65536);
            out("sendBuffer >= 65536", s.getSendBufferSize() >= 65536);
            s.setReceiveBufferSize(98304);
            out("receiveBuffer >= 98304", s.getReceiveBufferSize() >= 98304);
            s.setOption(StandardSocketOptions.TCP_NODELAY, false);
            out("option TCP_NODELAY", s.getOption(StandardSocketOptions.TCP_NODELAY));
            s.setOption(StandardSocketOptions.SO_KEEPALIVE, false);
            out("option SO_KEEPALIVE", s.getOption(StandardSocketOptions.SO_KEEPALIVE));
            s.setOption(StandardSocketOptions.SO_LINGER, 3);
            out("option SO_LINGER", s.getOption(StandardSocketOptions.SO_LINGER));
            out("option SO_SNDBUF >= 65536", s.getOption(StandardSocketOptions.SO_SNDBUF) >= 65536);
            if (s.supportedOptions().contains(ExtendedSocketOptions.TCP_KEEPIDLE)) {
                s.setOption(ExtendedSocketOptions.TCP_KEEPIDLE, 77);
                out("option TCP_KEEPIDLE", s.getOption(ExtendedSocketOptions.TCP_KEEPIDLE));
                s.setOption(ExtendedSocketOptions.TCP_KEEPINTERVAL, 11);
                out("option TCP_KEEPINTERVAL", s.getOption(ExtendedSocketOptions.TCP_KEEPINTERVAL));
                s.setOption(ExtendedSocketOptions.TCP_KEEPCOUNT, 5);
                out("option TCP_KEEPCOUNT", s.getOption(ExtendedSocketOptions.TCP_KEEPCOUNT));
            }
            out("setSoTimeout(-1)", attempt(() -> {
                s.setSoTimeout(-1);
                return "accepted";
            }));
            out("setOption(IP_MULTICAST_LOOP)", attempt(() -> s.setOption(StandardSocketOptions.IP_MULTICAST_LOOP, true)));
            out("setOption(null)", attempt(() -> s.setOption(null, 1)));
            out("setOption(SO_RCVBUF, -5)", attempt(() -> {
                @SuppressWarnings({"unchecked", "rawtypes"})
                SocketOption<Object> raw = (SocketOption) StandardSocketOptions.SO_RCVBUF;
                return s.setOption(raw, -5);
            }));
            check("options read back what was set", s.getOption(StandardSocketOptions.SO_LINGER) == 3
                    && !s.getTcpNoDelay() && s.getSoTimeout() == 1234 && s.getOOBInline());
        }
    }

    static void connectedPair() throws IOException {
        System.out.println("== connected pair");
        try (ServerSocket ss = new ServerSocket(0, 50, LO)) {
            Socket[] p = pair(ss);
            Socket c = p[0];
            Socket a = p[1];
            out("client states", states(c));
            out("accepted states", states(a));
            out("client inetAddress", c.getInetAddress());
            check("client port is the server's", c.getPort() == ss.getLocalPort());
            check("client local port is what the server sees", c.getLocalPort() == a.getPort());
            out("client localAddress", c.getLocalAddress());
            check("client remoteSocketAddress", new InetSocketAddress(LO, ss.getLocalPort()).equals(c.getRemoteSocketAddress()));
            check("accepted remoteSocketAddress is the client's local one",
                    a.getRemoteSocketAddress().equals(c.getLocalSocketAddress()));
            check("accepted localSocketAddress is the server's", a.getLocalSocketAddress().equals(ss.getLocalSocketAddress()));
            out("accepted inetAddress", a.getInetAddress());
            out("accepted localAddress", a.getLocalAddress());
            out("accepted tcpNoDelay", a.getTcpNoDelay());
            out("accepted keepAlive", a.getKeepAlive());
            out("accepted soLinger", a.getSoLinger());
            out("accepted soTimeout", a.getSoTimeout());
            out("accepted channel", a.getChannel());
            out("accepted supportedOptions", names(a.supportedOptions()));
            c.setTcpNoDelay(true);
            c.setKeepAlive(true);
            c.setSoLinger(true, 2);
            out("client after connect tcpNoDelay/keepAlive/soLinger",
                    c.getTcpNoDelay() + "/" + c.getKeepAlive() + "/" + c.getSoLinger());
            c.setSendBufferSize(262144);
            out("client sendBuffer >= 262144 after connect", c.getSendBufferSize() >= 262144);
            a.setReceiveBufferSize(262144);
            out("accepted receiveBuffer >= 262144 after connect", a.getReceiveBufferSize() >= 262144);

            byte[] data = new byte[300_000];
            new Random(3).nextBytes(data);
            Thread w = new Thread(() -> {
                try {
                    c.getOutputStream().write(data);
                    c.getOutputStream().flush();
                } catch (IOException e) {
                    System.out.println("WRITER " + ex(e));
                }
            });
            w.start();
            byte[] got = readN(a.getInputStream(), data.length);
            joinQuietly(w);
            check("300000 bytes arrive intact", Arrays.equals(data, got));
            a.getOutputStream().write("pong".getBytes(StandardCharsets.US_ASCII));
            check("reply arrives", new String(readN(c.getInputStream(), 4), StandardCharsets.US_ASCII).equals("pong"));
            check("getInputStream returns the same stream", c.getInputStream() == c.getInputStream());
            out("connect again", attempt(() -> {
                c.connect(new InetSocketAddress(LO, ss.getLocalPort()));
                return "connected";
            }));
            out("bind after connect", attempt(() -> {
                c.bind(new InetSocketAddress(LO, 0));
                return "bound";
            }));
            a.close();
            out("read after peer closed", c.getInputStream().read());
            c.close();
            out("client states after close", states(c));
            out("accepted states after close", states(a));
            out("getOutputStream after close", attempt(() -> c.getOutputStream()));
            out("read from a stream of a closed socket", attempt(() -> a.getInputStream().read()));
            out("setTcpNoDelay after close", attempt(() -> {
                c.setTcpNoDelay(false);
                return "set";
            }));
            out("getOption after close", attempt(() -> c.getOption(StandardSocketOptions.SO_KEEPALIVE)));
            out("close twice", attempt(() -> {
                c.close();
                return "closed";
            }));
        }
    }

    static void readTimeoutAndAvailable() throws IOException {
        System.out.println("== SO_TIMEOUT and available()");
        try (ServerSocket ss = new ServerSocket(0, 50, LO)) {
            Socket[] p = pair(ss);
            try (Socket c = p[0]; Socket a = p[1]) {
                out("available with nothing sent", a.getInputStream().available());
                byte[] hundred = new byte[100];
                Arrays.fill(hundred, (byte) 'x');
                c.getOutputStream().write(hundred);
                int avail = 0;
                for (int i = 0; i < 500 && avail < 100; i++) {
                    avail = a.getInputStream().available();
                    if (avail < 100) {
                        sleep(10);
                    }
                }
                out("available after the peer wrote 100 bytes", avail);
                readN(a.getInputStream(), 60);
                out("available after reading 60", a.getInputStream().available());
                readN(a.getInputStream(), 40);
                out("available after reading all", a.getInputStream().available());

                a.setSoTimeout(250);
                String timedOut = attempt(() -> a.getInputStream().read());
                out("read with SO_TIMEOUT 250 and nothing sent", timedOut);
                check("read timeout is a SocketTimeoutException", timedOut.startsWith("threw "
                        + SocketTimeoutException.class.getName()));
                out("states after the timeout", states(a));
                a.setSoTimeout(10_000);
                c.getOutputStream().write(42);
                out("read after the timeout", a.getInputStream().read());
                a.getOutputStream().write(43);
                out("peer read after the timeout", c.getInputStream().read());
                a.setSoTimeout(250);
                byte[] buf = new byte[10];
                out("read(byte[]) with SO_TIMEOUT", attempt(() -> a.getInputStream().read(buf)));
                a.setSoTimeout(0);
            }
        }
    }

    static void halfClose() throws IOException {
        System.out.println("== half close");
        try (ServerSocket ss = new ServerSocket(0, 50, LO)) {
            Socket[] p = pair(ss);
            try (Socket c = p[0]; Socket a = p[1]) {
                c.getOutputStream().write("request".getBytes(StandardCharsets.US_ASCII));
                c.shutdownOutput();
                out("client states after shutdownOutput", states(c));
                byte[] req = a.getInputStream().readAllBytes();
                out("server read until EOF", new String(req, StandardCharsets.US_ASCII));
                out("server read after EOF", a.getInputStream().read());
                a.getOutputStream().write("reply".getBytes(StandardCharsets.US_ASCII));
                a.shutdownOutput();
                out("client reads the reply", new String(c.getInputStream().readAllBytes(), StandardCharsets.US_ASCII));
                out("client write after shutdownOutput", attempt(() -> {
                    c.getOutputStream().write(1);
                    return "written";
                }));
                out("shutdownOutput twice", attempt(() -> {
                    c.shutdownOutput();
                    return "done";
                }));
                a.shutdownInput();
                out("accepted states after shutdownInput", states(a));
                out("getInputStream after shutdownInput", attempt(() -> a.getInputStream().read()));
            }
        }
    }

    static void connectFailures() throws IOException {
        System.out.println("== connect failures");
        int closed = freePort();
        Socket s1 = new Socket();
        out("connect to a closed port", attempt(() -> {
            s1.connect(new InetSocketAddress(LO, closed), 2000);
            return "connected";
        }));
        out("states after the failed connect", states(s1));
        s1.close();
        String ctor = attempt(() -> new Socket(LO, closed));
        out("new Socket(addr, closedPort)", ctor);
        check("refused connect is a ConnectException", ctor.startsWith("threw java.net.ConnectException"));

        // "non-routable": what happens depends on the network namespace (timeout, unreachable, or a proxy that
        // answers everything); the run with the agent must see the same
        Socket s2 = new Socket();
        String nr = attempt(() -> {
            s2.connect(new InetSocketAddress("10.255.255.1", 9), 300);
            return "connected";
        });
        out("connect 10.255.255.1:9 within 300 ms", nr.startsWith("threw ") ? nr.substring(0, nr.indexOf(':')) : nr);
        s2.close();

        // a real connect timeout on loopback: a listener whose accept queue is full drops further SYNs
        try (ServerSocket full = new ServerSocket(0, 1, LO)) {
            List<Socket> queued = new ArrayList<>();
            String timedOut = null;
            for (int i = 0; i < 10 && timedOut == null; i++) {
                Socket s = new Socket();
                try {
                    s.connect(full.getLocalSocketAddress(), 300);
                    queued.add(s);
                } catch (IOException e) {
                    timedOut = ex(e);
                    out("states after the timed-out connect", states(s));
                    s.close();
                }
            }
            out("connects queued before the accept queue was full", queued.size());
            out("connect to a full accept queue within 300 ms", timedOut);
            check("connect timeout is a SocketTimeoutException",
                    timedOut != null && timedOut.startsWith(SocketTimeoutException.class.getName()));
            for (Socket s : queued) {
                s.close();
            }
        }
        out("connect to an unresolved address", attempt(() -> {
            try (Socket s = new Socket()) {
                s.connect(InetSocketAddress.createUnresolved("no-such-host.invalid", 80), 1000);
            }
            return "connected";
        }));
        out("connect with a negative timeout", attempt(() -> {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(LO, closed), -1);
            }
            return "connected";
        }));
        out("connect to null", attempt(() -> {
            try (Socket s = new Socket()) {
                s.connect(null);
            }
            return "connected";
        }));
        out("connect to a foreign SocketAddress", attempt(() -> {
            try (Socket s = new Socket()) {
                s.connect(new SocketAddress() {
                    private static final long serialVersionUID = 1L;
                });
            }
            return "connected";
        }));
    }

    static void bindBeforeConnect() throws IOException {
        System.out.println("== bind before connect");
        try (ServerSocket ss = new ServerSocket(0, 50, LO)) {
            int port = freePort();
            Socket c = new Socket();
            c.bind(new InetSocketAddress(LO, port));
            out("states after bind", states(c));
            check("bound to the chosen local port", c.getLocalPort() == port);
            out("localAddress after bind", c.getLocalAddress());
            out("bind twice", attempt(() -> {
                c.bind(new InetSocketAddress(LO, 0));
                return "bound";
            }));
            c.connect(ss.getLocalSocketAddress(), 5000);
            Socket a = ss.accept();
            check("the server sees the chosen local port", a.getPort() == port && c.getLocalPort() == port);
            out("states after connect", states(c));
            c.close();
            a.close();
            out("bind to a port a listener holds", attempt(() -> {
                try (Socket s = new Socket()) {
                    s.bind(ss.getLocalSocketAddress());
                }
                return "bound";
            }));
            Socket any = new Socket();
            any.bind(null);
            out("bind(null) states", states(any));
            out("bind(null) localAddress is the wildcard", any.getLocalAddress().isAnyLocalAddress());
            check("bind(null) picks a port", any.getLocalPort() > 0);
            any.connect(ss.getLocalSocketAddress());
            Socket a2 = ss.accept();
            out("after bind(null)+connect localAddress", any.getLocalAddress());
            any.close();
            a2.close();
        }
    }

    static void noProxy() throws IOException {
        System.out.println("== Socket(Proxy.NO_PROXY)");
        try (ServerSocket ss = new ServerSocket(0, 50, LO); Socket c = new Socket(Proxy.NO_PROXY)) {
            out("states", states(c));
            c.connect(ss.getLocalSocketAddress(), 5000);
            try (Socket a = ss.accept()) {
                c.getOutputStream().write("no proxy".getBytes(StandardCharsets.US_ASCII));
                out("exchanged", new String(readN(a.getInputStream(), 8), StandardCharsets.US_ASCII));
            }
            out("states after connect", states(c));
        }
        out("Socket(HTTP proxy), unconnected", attempt(() -> new Socket(new Proxy(Proxy.Type.HTTP,
                new InetSocketAddress(LO, 3128)))));
    }

    static void serverSockets() throws IOException {
        System.out.println("== ServerSocket");
        ServerSocket ss = new ServerSocket();
        out("unbound states", states(ss));
        out("unbound localPort", ss.getLocalPort());
        out("unbound inetAddress", ss.getInetAddress());
        out("unbound localSocketAddress", ss.getLocalSocketAddress());
        out("default reuseAddress", ss.getReuseAddress());
        ss.setReuseAddress(true);
        out("reuseAddress after set", ss.getReuseAddress());
        ss.setReceiveBufferSize(131072);
        out("receiveBuffer >= 131072", ss.getReceiveBufferSize() >= 131072);
        out("soTimeout", ss.getSoTimeout());
        out("supportedOptions", names(ss.supportedOptions()));
        out("channel", ss.getChannel());
        out("accept unbound", attempt(() -> ss.accept()));
        ss.bind(new InetSocketAddress(LO, 0), 5);
        out("bound states", states(ss));
        out("inetAddress", ss.getInetAddress());
        check("localSocketAddress after bind", ss.getLocalSocketAddress().equals(new InetSocketAddress(LO, ss.getLocalPort())));
        out("bind twice", attempt(() -> {
            ss.bind(new InetSocketAddress(LO, 0));
            return "bound";
        }));
        ss.setSoTimeout(250);
        out("soTimeout after set", ss.getSoTimeout());
        String t = attempt(() -> ss.accept());
        out("accept with SO_TIMEOUT 250 and nobody connecting", t);
        check("accept timeout is a SocketTimeoutException", t.startsWith("threw " + SocketTimeoutException.class.getName()));
        out("states after the timeout", states(ss));
        ss.setSoTimeout(10_000);

        // backlog: three clients connect before anyone accepts, then all three are accepted in order
        List<Socket> clients = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Socket c = new Socket(LO, ss.getLocalPort());
            c.getOutputStream().write('A' + i);
            clients.add(c);
        }
        StringBuilder order = new StringBuilder();
        for (int i = 0; i < 3; i++) {
            try (Socket a = ss.accept()) {
                order.append((char) a.getInputStream().read());
            }
        }
        out("accepted in order", order);
        for (Socket c : clients) {
            c.close();
        }
        ss.close();
        out("closed states", states(ss));
        out("accept after close", attempt(() -> ss.accept()));
        out("getSoTimeout after close", attempt(ss::getSoTimeout));

        try (ServerSocket reuse = new ServerSocket()) {
            reuse.setReuseAddress(false);
            out("reuseAddress set false", reuse.getReuseAddress());
        }
        // a port given back by a closed listener can be bound again at once (SO_REUSEADDR is on by default)
        int port;
        try (ServerSocket first = new ServerSocket(0, 50, LO)) {
            port = first.getLocalPort();
            Socket c = new Socket(LO, port);
            Socket a = first.accept();
            a.getOutputStream().write(1);
            a.close(); // the server side closes first: TIME_WAIT on the listener's port
            out("client reads the byte, then EOF", c.getInputStream().read() + " " + c.getInputStream().read());
            c.close();
        }
        out("rebind a port in TIME_WAIT", attempt(() -> {
            try (ServerSocket again = new ServerSocket(port, 50, LO)) {
                return "bound " + (again.getLocalPort() == port);
            }
        }));
        out("ServerSocket on a port in use", attempt(() -> {
            try (ServerSocket a = new ServerSocket(0, 50, LO); ServerSocket b = new ServerSocket(a.getLocalPort(), 50, LO)) {
                return "bound twice: " + (a.getLocalPort() == b.getLocalPort());
            }
        }));
        out("ServerSocket(-1)", attempt(() -> new ServerSocket(-1)));
        out("ServerSocket(0, 0) backlog 0", attempt(() -> {
            try (ServerSocket z = new ServerSocket(0, 0, LO)) {
                return states(z);
            }
        }));
    }

    static void asyncClose() throws Exception {
        System.out.println("== async close");
        try (ServerSocket ss = new ServerSocket(0, 50, LO)) {
            Socket[] p = pair(ss);
            Socket c = p[0];
            Socket a = p[1];
            AtomicReference<String> readerSaw = new AtomicReference<>();
            Thread reader = new Thread(() -> readerSaw.set(attempt(() -> a.getInputStream().read())), "reader");
            reader.start();
            sleep(300);
            a.close();
            reader.join(10_000);
            out("reader alive after close", reader.isAlive());
            out("blocked read, socket closed by another thread", readerSaw.get());
            check("blocked read woken by close with a SocketException",
                    readerSaw.get() != null && readerSaw.get().startsWith("threw " + SocketException.class.getName()));
            out("peer reads EOF", c.getInputStream().read());
            c.close();

            Socket[] q = pair(ss);
            AtomicReference<String> shutSaw = new AtomicReference<>();
            Thread r2 = new Thread(() -> shutSaw.set(attempt(() -> q[1].getInputStream().read())), "reader2");
            r2.start();
            sleep(300);
            q[1].shutdownInput();
            r2.join(10_000);
            out("blocked read, shutdownInput by another thread", shutSaw.get());
            q[0].close();
            q[1].close();
        }
        ServerSocket ss = new ServerSocket(0, 50, LO);
        AtomicReference<String> acceptSaw = new AtomicReference<>();
        Thread acceptor = new Thread(() -> acceptSaw.set(attempt(() -> ss.accept())), "acceptor");
        acceptor.start();
        sleep(300);
        ss.close();
        acceptor.join(10_000);
        out("acceptor alive after close", acceptor.isAlive());
        out("blocked accept, server closed by another thread", acceptSaw.get());
        check("blocked accept woken by close with a SocketException",
                acceptSaw.get() != null && acceptSaw.get().startsWith("threw " + SocketException.class.getName()));
    }

    static void tlsOverConnectedSocket(String keystore, char[] password) throws Exception {
        System.out.println("== TLS layered over a connected socket");
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (FileInputStream in = new FileInputStream(keystore)) {
            ks.load(in, password);
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, password);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ks);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);

        try (SSLServerSocket sss = (SSLServerSocket) ctx.getServerSocketFactory().createServerSocket(0, 50, LO)) {
            out("SSLServerSocket states", states(sss));
            AtomicReference<String> serverSaw = new AtomicReference<>();
            Thread server = new Thread(() -> serverSaw.set(attempt(() -> {
                try (SSLSocket s = (SSLSocket) sss.accept()) {
                    byte[] req = readN(s.getInputStream(), 11);
                    byte[] big = readN(s.getInputStream(), 200_000);
                    OutputStream out = s.getOutputStream();
                    out.write(("tls echo: " + new String(req, StandardCharsets.US_ASCII)).getBytes(StandardCharsets.US_ASCII));
                    out.write(big);
                    out.flush();
                    return s.getSession().getProtocol();
                }
            })), "tls-server");
            server.start();

            Socket plain = new Socket();
            plain.connect(sss.getLocalSocketAddress(), 5000);
            SSLSocket tls = (SSLSocket) ctx.getSocketFactory().createSocket(plain, "localhost", sss.getLocalPort(), true);
            tls.startHandshake();
            out("protocol", tls.getSession().getProtocol());
            out("cipher suite", tls.getSession().getCipherSuite());
            out("peer", tls.getSession().getPeerPrincipal());
            tls.getOutputStream().write("hello, tls!".getBytes(StandardCharsets.US_ASCII));
            byte[] big = new byte[200_000];
            new Random(5).nextBytes(big);
            tls.getOutputStream().write(big);
            tls.getOutputStream().flush();
            out("reply", new String(readN(tls.getInputStream(), 21), StandardCharsets.US_ASCII));
            check("200000 bytes through TLS and back", Arrays.equals(big, readN(tls.getInputStream(), big.length)));
            out("layered socket states", states(tls));
            check("layered socket reports the underlying addresses",
                    tls.getLocalPort() == plain.getLocalPort() && tls.getPort() == plain.getPort());
            tls.close();
            server.join(10_000);
            out("server side", serverSaw.get());
            out("underlying socket closed with autoClose", plain.isClosed());
        }
    }

    static void channelAdaptors() throws IOException {
        System.out.println("== channel adaptors");
        try (ServerSocket ss = new ServerSocket(0, 50, LO);
             SocketChannel sc = SocketChannel.open(new InetSocketAddress(LO, ss.getLocalPort()));
             Socket a = ss.accept()) {
            Socket adaptor = sc.socket();
            out("adaptor states", states(adaptor));
            check("adaptor's channel is the channel", adaptor.getChannel() == sc);
            check("adaptor's remote address", adaptor.getRemoteSocketAddress().equals(ss.getLocalSocketAddress()));
            out("adaptor tcpNoDelay", adaptor.getTcpNoDelay());
            adaptor.setTcpNoDelay(true);
            out("channel TCP_NODELAY after adaptor set", sc.getOption(StandardSocketOptions.TCP_NODELAY));
            out("channel supportedOptions", names(new java.util.HashSet<>(sc.supportedOptions())));
            adaptor.getOutputStream().write(7);
            out("accepted reads", a.getInputStream().read());
            out("channel blocking", sc.isBlocking());
        }
    }

    static String states(SocketChannel c) {
        return "open=" + c.isOpen() + " connected=" + c.isConnected() + " pending=" + c.isConnectionPending()
                + " blocking=" + c.isBlocking() + " registered=" + c.isRegistered();
    }

    static void nioChannels() throws Exception {
        System.out.println("== NIO channels");
        int closed = freePort();
        SocketChannel fresh = SocketChannel.open();
        out("new SocketChannel", states(fresh));
        out("validOps", fresh.validOps());
        out("localAddress", fresh.getLocalAddress());
        out("remoteAddress", fresh.getRemoteAddress());
        out("blocking connect to a closed port", attempt(() -> fresh.connect(new InetSocketAddress(LO, closed))));
        out("after the failed connect", states(fresh));
        fresh.close();

        SocketChannel nb = SocketChannel.open();
        nb.configureBlocking(false);
        String started = attempt(() -> nb.connect(new InetSocketAddress(LO, closed)));
        out("non-blocking connect to a closed port", started.equals("ok true") ? "connected at once?" : started);
        String finished = "pending";
        for (int i = 0; i < 500 && finished.equals("pending"); i++) {
            String f = attempt(nb::finishConnect);
            if (!f.equals("ok false")) {
                finished = f;
            } else {
                sleep(10);
            }
        }
        out("finishConnect", finished);
        out("after finishConnect failed", "open=" + nb.isOpen());
        nb.close();

        out("open(unresolved)", attempt(() -> SocketChannel.open(InetSocketAddress.createUnresolved("no-such-host.invalid", 80))));
        out("connect(foreign address)", attempt(() -> {
            try (SocketChannel c = SocketChannel.open()) {
                return c.connect(new SocketAddress() {
                    private static final long serialVersionUID = 1L;
                });
            }
        }));

        try (java.nio.channels.ServerSocketChannel ssc = java.nio.channels.ServerSocketChannel.open()) {
            out("unbound server localAddress", ssc.getLocalAddress());
            out("accept unbound", attempt(ssc::accept));
            ssc.bind(new InetSocketAddress(LO, 0), 10);
            ssc.configureBlocking(false);
            out("non-blocking accept with nobody connecting", attempt(ssc::accept));
            ssc.configureBlocking(true);
            InetSocketAddress at = (InetSocketAddress) ssc.getLocalAddress();

            int port = freePort();
            SocketChannel c = SocketChannel.open();
            c.bind(new InetSocketAddress(LO, port));
            check("channel bound to the chosen port", ((InetSocketAddress) c.getLocalAddress()).getPort() == port);
            c.setOption(StandardSocketOptions.TCP_NODELAY, true);
            c.setOption(StandardSocketOptions.SO_LINGER, 4);
            c.setOption(StandardSocketOptions.SO_RCVBUF, 200_000);
            out("options before connect", c.getOption(StandardSocketOptions.TCP_NODELAY) + " "
                    + c.getOption(StandardSocketOptions.SO_LINGER) + " "
                    + (c.getOption(StandardSocketOptions.SO_RCVBUF) >= 200_000));
            out("connect", c.connect(at));
            out("connected channel", states(c));
            SocketChannel a = ssc.accept();
            out("accepted channel", states(a));
            check("accepted remote address is the client's local", a.getRemoteAddress().equals(c.getLocalAddress()));
            check("client remote address is the server's", c.getRemoteAddress().equals(at));
            out("accepted TCP_NODELAY", a.getOption(StandardSocketOptions.TCP_NODELAY));
            out("connect again", attempt(() -> c.connect(at)));

            c.write(java.nio.ByteBuffer.wrap("abc".getBytes(StandardCharsets.US_ASCII)));
            c.shutdownOutput();
            java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(10);
            int n;
            StringBuilder got = new StringBuilder();
            while ((n = a.read(b)) >= 0) {
                got.append(n).append(' ');
            }
            out("server reads until EOF after shutdownOutput", got + "EOF " + new String(b.array(), 0, b.position(), StandardCharsets.US_ASCII));
            out("write after shutdownOutput", attempt(() -> c.write(java.nio.ByteBuffer.wrap(new byte[1]))));
            a.write(java.nio.ByteBuffer.wrap("xyz".getBytes(StandardCharsets.US_ASCII)));
            java.nio.ByteBuffer r = java.nio.ByteBuffer.allocate(3);
            while (r.hasRemaining()) {
                c.read(r);
            }
            out("reply after half close", new String(r.array(), StandardCharsets.US_ASCII));
            c.shutdownInput();
            out("read after shutdownInput", c.read(java.nio.ByteBuffer.allocate(1)));

            a.close();
            c.close();
            out("closed channel", states(c));
            out("read on a closed channel", attempt(() -> c.read(java.nio.ByteBuffer.allocate(1))));

            // a reader blocked in read(): the channel closed by another thread, or the reader interrupted
            SocketChannel c1 = SocketChannel.open(at);
            SocketChannel a1 = ssc.accept();
            AtomicReference<String> saw = new AtomicReference<>();
            Thread reader = new Thread(() -> saw.set(attempt(() -> a1.read(java.nio.ByteBuffer.allocate(1)))));
            reader.start();
            sleep(300);
            a1.close();
            reader.join(10_000);
            out("blocked channel read, closed by another thread", saw.get());
            check("blocked channel read ends with AsynchronousCloseException", saw.get() != null
                    && saw.get().startsWith("threw " + java.nio.channels.AsynchronousCloseException.class.getName()));
            out("peer sees", c1.read(java.nio.ByteBuffer.allocate(1)));
            c1.close();

            SocketChannel c2 = SocketChannel.open(at);
            SocketChannel a2 = ssc.accept();
            AtomicReference<String> saw2 = new AtomicReference<>();
            Thread reader2 = new Thread(() -> saw2.set(attempt(() -> c2.read(java.nio.ByteBuffer.allocate(1)))));
            reader2.start();
            sleep(300);
            reader2.interrupt();
            reader2.join(10_000);
            out("blocked channel read, reader interrupted", saw2.get());
            out("channel after the interrupt", "open=" + c2.isOpen());
            out("peer sees", a2.read(java.nio.ByteBuffer.allocate(1)));
            a2.close();
            c2.close();
        }
    }

    static void ipv6Loopback() {
        System.out.println("== IPv6 loopback");
        out("::1 listen, connect, exchange", attempt(() -> {
            InetAddress v6 = InetAddress.getByName("::1");
            try (ServerSocket ss = new ServerSocket(0, 50, v6); Socket c = new Socket(v6, ss.getLocalPort());
                 Socket a = ss.accept()) {
                c.getOutputStream().write(9);
                return a.getInputStream().read() + " " + c.getInetAddress() + " " + a.getLocalAddress();
            }
        }));
    }

    static void joinQuietly(Thread t) {
        try {
            t.join(30_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
