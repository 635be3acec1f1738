package org.sdp4j.e2e.apps;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.Pipe;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * One Selector, every kind of selectable channel: a ServerSocketChannel, client SocketChannels with non-blocking
 * connect (OP_CONNECT), the server side's accepted channels echoing, a Pipe and a DatagramChannel. Then wakeup()
 * from another thread, a cancelled key (and re-registering), a channel closed while registered, and closing the
 * Selector. Prints deterministic observations, {@code CHECK name PASS|FAIL}, and {@code SELECTORMIX OK} (exit 0).
 */
public final class SelectorMixMain {
    public static final int CLIENTS = 8;
    static final int MESSAGE = 200_000;
    static final int PIPE_BYTES = 100_000;
    static final int DATAGRAMS = 50;

    static int failures;

    private SelectorMixMain() {}

    static void check(String name, boolean ok) {
        System.out.println("CHECK " + name + " " + (ok ? "PASS" : "FAIL"));
        if (!ok) {
            failures++;
        }
    }

    /** The client end of one echo conversation. */
    static final class Client {
        final int id;
        final SocketChannel ch;
        final ByteBuffer out;
        final ByteBuffer in = ByteBuffer.allocate(MESSAGE);
        boolean connected;
        boolean done;

        Client(int id, SocketChannel ch) {
            this.id = id;
            this.ch = ch;
            byte[] b = new byte[MESSAGE];
            new Random(id).nextBytes(b);
            this.out = ByteBuffer.wrap(b);
        }
    }

    /** The server end: whatever arrives goes back. */
    static final class Echo {
        final SocketChannel ch;
        final ByteBuffer pending = ByteBuffer.allocate(64 * 1024);
        boolean eof;

        Echo(SocketChannel ch) {
            this.ch = ch;
        }
    }

    public static void main(String[] args) throws Exception {
        InetAddress lo = InetAddress.getByName("127.0.0.1");
        Selector sel = Selector.open();

        ServerSocketChannel ssc = ServerSocketChannel.open(StandardProtocolFamily.INET);
        ssc.bind(new InetSocketAddress(lo, 0), 50);
        ssc.configureBlocking(false);
        ssc.register(sel, SelectionKey.OP_ACCEPT, "server");
        InetSocketAddress serverAddr = (InetSocketAddress) ssc.getLocalAddress();
        System.out.println("PORT " + serverAddr.getPort());

        adaptorBindAndConnect(lo);

        List<Client> clients = new ArrayList<>();
        for (int i = 0; i < CLIENTS; i++) {
            SocketChannel ch = SocketChannel.open();
            ch.configureBlocking(false);
            Client c = new Client(i, ch);
            clients.add(c);
            boolean now = ch.connect(serverAddr);
            if (now) {
                c.connected = true;
                ch.register(sel, SelectionKey.OP_WRITE | SelectionKey.OP_READ, c);
            } else {
                ch.register(sel, SelectionKey.OP_CONNECT, c);
            }
        }
        check("connect pending or done for every client", clients.stream()
                .allMatch(c -> c.ch.isConnectionPending() || c.ch.isConnected()));

        Pipe pipe = Pipe.open();
        pipe.source().configureBlocking(false);
        pipe.source().register(sel, SelectionKey.OP_READ, "pipe");
        Thread pipeWriter = new Thread(() -> {
            try {
                ByteBuffer b = ByteBuffer.allocate(1000);
                for (int i = 0; i < PIPE_BYTES / 1000; i++) {
                    b.clear();
                    while (b.hasRemaining()) {
                        b.put((byte) (i & 0x7f));
                    }
                    b.flip();
                    while (b.hasRemaining()) {
                        pipe.sink().write(b);
                    }
                }
            } catch (IOException e) {
                System.out.println("PIPE WRITER " + e);
            }
        }, "pipe-writer");

        DatagramChannel udp = DatagramChannel.open(StandardProtocolFamily.INET).bind(new InetSocketAddress(lo, 0));
        udp.configureBlocking(false);
        udp.register(sel, SelectionKey.OP_READ, "udp");
        DatagramChannel udpSender = DatagramChannel.open(StandardProtocolFamily.INET);
        Thread udpWriter = new Thread(() -> {
            try {
                for (int i = 0; i < DATAGRAMS; i++) {
                    udpSender.send(ByteBuffer.wrap(("datagram " + i).getBytes()), udp.getLocalAddress());
                    Thread.sleep(2);
                }
            } catch (Exception e) {
                System.out.println("UDP WRITER " + e);
            }
        }, "udp-writer");
        pipeWriter.start();
        udpWriter.start();

        Map<Integer, Echo> echoByPeerPort = new HashMap<>();
        long pipeRead = 0;
        boolean pipeInOrder = true;
        int datagrams = 0;
        boolean datagramsIntact = true;
        int clientsDone = 0;
        int accepted = 0;
        long deadline = System.currentTimeMillis() + 30_000;
        ByteBuffer scratch = ByteBuffer.allocate(64 * 1024);
        while ((clientsDone < CLIENTS || pipeRead < PIPE_BYTES || datagrams < DATAGRAMS)
                && System.currentTimeMillis() < deadline) {
            sel.select(1000);
            Iterator<SelectionKey> it = sel.selectedKeys().iterator();
            while (it.hasNext()) {
                SelectionKey k = it.next();
                it.remove();
                if (!k.isValid()) {
                    continue;
                }
                Object a = k.attachment();
                if ("server".equals(a) && k.isAcceptable()) {
                    SocketChannel ch;
                    while ((ch = ssc.accept()) != null) {
                        ch.configureBlocking(false);
                        Echo e = new Echo(ch);
                        ch.register(sel, SelectionKey.OP_READ, e);
                        echoByPeerPort.put(((InetSocketAddress) ch.getRemoteAddress()).getPort(), e);
                        accepted++;
                    }
                } else if ("pipe".equals(a) && k.isReadable()) {
                    scratch.clear();
                    int n = pipe.source().read(scratch);
                    scratch.flip();
                    for (int i = 0; i < n; i++) {
                        long pos = pipeRead + i;
                        if (scratch.get(i) != (byte) ((pos / 1000) & 0x7f)) {
                            pipeInOrder = false;
                        }
                    }
                    pipeRead += Math.max(n, 0);
                } else if ("udp".equals(a) && k.isReadable()) {
                    scratch.clear();
                    while (udp.receive(scratch) != null) {
                        scratch.flip();
                        String s = new String(scratch.array(), 0, scratch.limit());
                        if (!s.equals("datagram " + datagrams)) {
                            datagramsIntact = false;
                        }
                        datagrams++;
                        scratch.clear();
                    }
                } else if (a instanceof Client) {
                    Client c = (Client) a;
                    if (k.isConnectable()) {
                        if (c.ch.finishConnect()) {
                            c.connected = true;
                            k.interestOps(SelectionKey.OP_WRITE | SelectionKey.OP_READ);
                        }
                    } else {
                        if (k.isWritable()) {
                            c.ch.write(c.out);
                            if (!c.out.hasRemaining()) {
                                k.interestOps(SelectionKey.OP_READ);
                            }
                        }
                        if (k.isReadable()) {
                            int n = c.ch.read(c.in);
                            if (n < 0 || !c.in.hasRemaining()) {
                                c.done = true;
                                clientsDone++;
                                k.interestOps(0);
                            }
                        }
                    }
                } else if (a instanceof Echo) {
                    Echo e = (Echo) a;
                    if (k.isReadable() && !e.eof) {
                        int n = e.ch.read(e.pending);
                        if (n < 0) {
                            e.eof = true;
                        }
                    }
                    e.pending.flip();
                    e.ch.write(e.pending);
                    e.pending.compact();
                    // stop reading while the buffer is full, write while anything is pending
                    int ops = (e.pending.hasRemaining() && !e.eof ? SelectionKey.OP_READ : 0)
                            | (e.pending.position() > 0 ? SelectionKey.OP_WRITE : 0);
                    k.interestOps(ops);
                }
            }
        }
        check("all clients connected", clients.stream().allMatch(c -> c.connected && c.ch.isConnected()));
        check("server accepted every client", accepted == CLIENTS);
        boolean echoed = true;
        for (Client c : clients) {
            byte[] expect = new byte[MESSAGE];
            new Random(c.id).nextBytes(expect);
            echoed &= c.done && c.in.position() == MESSAGE && java.util.Arrays.equals(expect, c.in.array());
        }
        check("every client got its " + MESSAGE + " bytes back intact", echoed);
        check("pipe delivered " + PIPE_BYTES + " bytes in order", pipeRead == PIPE_BYTES && pipeInOrder);
        check("udp delivered " + DATAGRAMS + " datagrams in order", datagrams == DATAGRAMS && datagramsIntact);
        pipeWriter.join();
        udpWriter.join();

        // wakeup() from another thread while select() blocks with nothing ready
        drain(sel);
        Thread waker = new Thread(() -> {
            try {
                Thread.sleep(300);
            } catch (InterruptedException ignored) {
                // not interrupted
            }
            sel.wakeup();
        }, "waker");
        waker.start();
        int n = sel.select();
        waker.join();
        check("select() woken up by another thread returns 0 keys", n == 0);
        sel.wakeup();
        check("wakeup() before select() makes it return at once", sel.select() == 0);

        // a cancelled key stays in keys() until the next selection operation, then the channel can register again
        Client c0 = clients.get(0);
        SelectionKey k0 = c0.ch.keyFor(sel);
        k0.cancel();
        check("cancelled key is invalid", !k0.isValid());
        check("cancelled key still in keys() before the next select", sel.keys().contains(k0));
        check("channel still registered before the next select", c0.ch.isRegistered());
        sel.selectNow();
        check("cancelled key gone after selectNow", !sel.keys().contains(k0));
        check("channel deregistered after selectNow", !c0.ch.isRegistered() && c0.ch.keyFor(sel) == null);
        SelectionKey again = c0.ch.register(sel, SelectionKey.OP_READ, c0);
        check("re-registered key is a new valid key", again != k0 && again.isValid());
        // the channel still works: one more echo round through the selector
        echoByPeerPort.get(((InetSocketAddress) c0.ch.getLocalAddress()).getPort()).ch.keyFor(sel)
                .interestOps(SelectionKey.OP_READ);
        c0.ch.write(ByteBuffer.wrap("ping".getBytes()));
        ByteBuffer pong = ByteBuffer.allocate(4);
        long end = System.currentTimeMillis() + 10_000;
        while (pong.hasRemaining() && System.currentTimeMillis() < end) {
            sel.select(500);
            for (Iterator<SelectionKey> it = sel.selectedKeys().iterator(); it.hasNext(); ) {
                SelectionKey k = it.next();
                it.remove();
                if (k.attachment() instanceof Echo) {
                    Echo e = (Echo) k.attachment();
                    e.pending.clear();
                    int r = e.ch.read(e.pending);
                    e.pending.flip();
                    if (r > 0) {
                        e.ch.write(e.pending);
                    }
                    e.pending.clear();
                } else if (k == again && k.isReadable()) {
                    c0.ch.read(pong);
                }
            }
        }
        check("re-registered channel echoes", new String(pong.array()).equals("ping"));

        // close a channel while it is registered: its key is invalid, the peer sees EOF through the selector
        Client c1 = clients.get(1);
        int c1Port = ((InetSocketAddress) c1.ch.getLocalAddress()).getPort();
        SelectionKey k1 = c1.ch.keyFor(sel);
        Echo peer = echoByPeerPort.get(c1Port);
        peer.ch.keyFor(sel).interestOps(SelectionKey.OP_READ);
        c1.ch.close();
        check("key of a closed channel is invalid", !k1.isValid());
        boolean peerEof = false;
        end = System.currentTimeMillis() + 10_000;
        while (!peerEof && System.currentTimeMillis() < end) {
            sel.select(500);
            for (Iterator<SelectionKey> it = sel.selectedKeys().iterator(); it.hasNext(); ) {
                SelectionKey k = it.next();
                it.remove();
                if (k.isValid() && k.attachment() == peer && k.isReadable()) {
                    ByteBuffer b = ByteBuffer.allocate(16);
                    peerEof = peer.ch.read(b) < 0;
                }
            }
        }
        check("peer of the closed channel reads EOF via the selector", peerEof);
        check("closed channel's key gone from keys()", !sel.keys().contains(k1));
        peer.ch.close();
        sel.selectNow();

        // closing the selector invalidates every key, the channels stay open
        List<SelectionKey> keys = new ArrayList<>(sel.keys());
        List<SelectableChannel> chans = new ArrayList<>();
        for (SelectionKey k : keys) {
            chans.add(k.channel());
        }
        sel.close();
        check("closed selector: every key invalid", keys.stream().noneMatch(SelectionKey::isValid));
        check("closed selector: channels still open", chans.stream().allMatch(SelectableChannel::isOpen));
        try {
            udp.register(sel, SelectionKey.OP_READ);
            check("register with a closed selector throws", false);
        } catch (java.nio.channels.ClosedSelectorException e) {
            check("register with a closed selector throws ClosedSelectorException", true);
        }
        for (SelectableChannel ch : chans) {
            ch.close();
        }
        try {
            clients.get(2).ch.write(ByteBuffer.wrap(new byte[1]));
            check("write after close throws", false);
        } catch (ClosedChannelException e) {
            check("write after close throws ClosedChannelException", true);
        }
        for (Client c : clients) {
            c.ch.close();
        }
        udpSender.close();
        pipe.sink().close();
        ssc.close();

        System.out.println(failures == 0 ? "SELECTORMIX OK" : "SELECTORMIX FAILURES " + failures);
        System.out.flush();
        System.exit(failures == 0 ? 0 : 1);
    }

    /**
     * What com.sun.net.httpserver and many libraries do: bind a ServerSocketChannel and connect a SocketChannel
     * through their socket adaptors ({@code channel.socket().bind/connect}) rather than the channel methods.
     */
    static void adaptorBindAndConnect(InetAddress lo) throws IOException {
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.socket().bind(new InetSocketAddress(lo, 0), 10);
            int port = server.socket().getLocalPort();
            System.out.println("ADAPTOR_PORT " + port);
            check("adaptor-bound server channel is bound", server.socket().isBound() && server.getLocalAddress() != null);
            try (SocketChannel client = SocketChannel.open()) {
                client.socket().connect(new InetSocketAddress(lo, port), 5000);
                check("adaptor-connected channel is connected", client.isConnected() && client.socket().isConnected());
                try (SocketChannel accepted = server.accept()) {
                    client.write(ByteBuffer.wrap(new byte[] {42}));
                    ByteBuffer b = ByteBuffer.allocate(1);
                    accepted.read(b);
                    check("adaptor pair exchanges a byte", b.get(0) == 42);
                }
            }
        }
    }

    /** Consumes whatever is ready (idle channels only) so the wakeup check starts from nothing ready. */
    private static void drain(Selector sel) throws IOException {
        for (SelectionKey k : sel.keys()) {
            if (k.isValid() && !(k.channel() instanceof ServerSocketChannel)) {
                k.interestOps(k.interestOps() & SelectionKey.OP_READ);
            }
        }
        for (int i = 0; i < 3; i++) {
            sel.selectNow();
            for (SelectionKey k : sel.selectedKeys()) {
                if (k.isValid() && k.isReadable()) {
                    // nothing should be readable now; mute it rather than spin
                    k.interestOps(0);
                }
            }
            sel.selectedKeys().clear();
        }
    }
}
