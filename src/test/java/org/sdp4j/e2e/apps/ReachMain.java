package org.sdp4j.e2e.apps;

import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.AccessibleObject;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * Application code on the class path trying what an agent that opened the JDK's internals to the unnamed module
 * would let it do: deep reflection into {@code java.net} (the platform SocketImpl's descriptor) and
 * {@code sun.nio.ch}. Prints {@code JAVA_NET open|refused ...} and {@code SUN_NIO_CH open|refused ...}, then one
 * loopback round trip over java.net ({@code ECHO_NET ok}) and, with argument {@code nio}, over NIO
 * ({@code ECHO_NIO ok}), so the same run shows the interposition still works.
 */
public final class ReachMain {
    private ReachMain() {}

    public static void main(String[] args) throws Exception {
        System.out.println("JAVA_NET " + tryOpen(() -> Class.forName("java.net.SocketImpl").getDeclaredField("fd")));
        System.out.println("SUN_NIO_CH " + tryOpen(() -> Class.forName("sun.nio.ch.IOUtil")
                .getDeclaredMethod("fdVal", java.io.FileDescriptor.class)));
        InetAddress lo = InetAddress.getLoopbackAddress();
        try (ServerSocket ss = new ServerSocket(0, 5, lo); Socket c = new Socket(lo, ss.getLocalPort());
             Socket s = ss.accept()) {
            OutputStream out = c.getOutputStream();
            out.write(42);
            out.flush();
            InputStream in = s.getInputStream();
            System.out.println("ECHO_NET " + (in.read() == 42 ? "ok" : "wrong"));
        }
        if (args.length > 0 && args[0].equals("nio")) {
            try (ServerSocketChannel ss = ServerSocketChannel.open().bind(new InetSocketAddress(lo, 0));
                 SocketChannel c = SocketChannel.open(ss.getLocalAddress()); SocketChannel s = ss.accept()) {
                c.write(ByteBuffer.wrap(new byte[] {7}));
                ByteBuffer b = ByteBuffer.allocate(1);
                while (b.hasRemaining() && s.read(b) >= 0) {
                    // one byte
                }
                System.out.println("ECHO_NIO " + (b.get(0) == 7 ? "ok" : "wrong") + " " + c.getClass().getName());
            }
        }
        System.out.flush();
    }

    interface Member {
        AccessibleObject get() throws ReflectiveOperationException;
    }

    private static String tryOpen(Member m) {
        try {
            m.get().setAccessible(true);
            return "open";
        } catch (RuntimeException | ReflectiveOperationException e) {
            return "refused " + e.getClass().getSimpleName();
        }
    }
}
