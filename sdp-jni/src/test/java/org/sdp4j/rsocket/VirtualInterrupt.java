package org.sdp4j.rsocket;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicReference;

import org.sdp4j.nio.SdpSelectorProvider;
import org.sdp4j.rsocket.RsocketSocketImplTest.RsServerSocket;
import org.sdp4j.rsocket.RsocketSocketImplTest.RsSocket;

/**
 * A virtual thread interrupted while it waits on an rsocket behaves as with the JDK's sockets (JDK 21+, run in a
 * child JVM by {@link RsocketVirtualThreadTest} and in the VM): a blocked {@code Socket} read or
 * {@code ServerSocket} accept closes the socket and throws {@code SocketException("Closed by interrupt")}, a blocked
 * {@code SocketChannel} read throws {@link ClosedByInterruptException}; the interrupt status stays set. Prints "ok"
 * and exits 0, or names what differed and exits 1.
 *   VirtualInterrupt ADDR
 */
public final class VirtualInterrupt {
    public static void main(String[] args) throws Exception {
        InetAddress addr = InetAddress.getByName(args[0]);
        ThreadFactory vt = (ThreadFactory) Class.forName("java.lang.Thread$Builder").getMethod("factory")
                .invoke(Thread.class.getMethod("ofVirtual").invoke(null));
        try (RsServerSocket ss = new RsServerSocket()) {
            ss.bind(new InetSocketAddress(addr, 0));
            // accept
            check("accept", vt, () -> ss.accept(), ss::isClosed);
        }
        try (RsServerSocket ss = new RsServerSocket()) {
            ss.bind(new InetSocketAddress(addr, 0));
            RsSocket c = new RsSocket();
            c.connect(ss.getLocalSocketAddress(), 10_000);
            try (Socket peer = ss.accept()) {
                check("Socket read", vt, () -> c.getInputStream().read(), c::isClosed);
            }
        }
        RsocketTransport rs = new RsocketTransport();
        SdpSelectorProvider sdp = new SdpSelectorProvider();
        try (ServerSocketChannel server = rs.openServerSocketChannel(sdp)) {
            server.bind(new InetSocketAddress(addr, 0));
            SocketChannel c = rs.openSocketChannel(sdp);
            c.connect(server.getLocalAddress());
            try (SocketChannel peer = server.accept()) {
                check("SocketChannel read", vt, () -> c.read(ByteBuffer.allocate(16)), () -> !c.isOpen());
            }
        }
        System.out.println("ok: interrupted virtual threads closed the socket as the JDK does");
    }

    interface Op {
        Object run() throws IOException;
    }

    interface Probe {
        boolean test();
    }

    private static void check(String what, ThreadFactory vt, Op op, Probe closed) throws Exception {
        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread t = vt.newThread(() -> {
            try {
                outcome.set("returned " + op.run());
            } catch (Throwable e) {
                outcome.set(e);
            }
            if (!Thread.currentThread().isInterrupted()) {
                outcome.set("interrupt status cleared after " + outcome.get());
            }
        });
        t.start();
        Thread.sleep(500); // blocked (parked) by now
        t.interrupt();
        t.join(10_000);
        Object o = outcome.get();
        boolean ok = !t.isAlive() && closed.test() && (what.startsWith("SocketChannel")
                ? o instanceof ClosedByInterruptException
                : o instanceof SocketException && "Closed by interrupt".equals(((SocketException) o).getMessage()));
        if (!ok) {
            System.out.println("FAIL " + what + ": alive=" + t.isAlive() + " closed=" + closed.test() + " outcome=" + o);
            if (o instanceof Throwable) {
                ((Throwable) o).printStackTrace(System.out);
            }
            System.exit(1);
        }
        System.out.println(what + ": " + o);
    }

    private VirtualInterrupt() {
    }
}
