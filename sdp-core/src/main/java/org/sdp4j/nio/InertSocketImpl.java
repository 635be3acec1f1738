package org.sdp4j.nio;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketImpl;

/**
 * The SocketImpl behind sdp4j's socket adaptors. The adaptors override every public method of Socket and
 * ServerSocket, so this is never used; it exists because their constructors want one, and it must not be one
 * of sdp4j's factory impls (that would create a real socket per adaptor).
 */
final class InertSocketImpl extends SocketImpl {
    private static SocketException unused() {
        return new SocketException("not used by a channel's socket adaptor");
    }

    @Override protected void create(boolean stream) throws IOException { throw unused(); }
    @Override protected void connect(String host, int port) throws IOException { throw unused(); }
    @Override protected void connect(InetAddress address, int port) throws IOException { throw unused(); }
    @Override protected void connect(SocketAddress address, int timeout) throws IOException { throw unused(); }
    @Override protected void bind(InetAddress host, int port) throws IOException { throw unused(); }
    @Override protected void listen(int backlog) throws IOException { throw unused(); }
    @Override protected void accept(SocketImpl s) throws IOException { throw unused(); }
    @Override protected InputStream getInputStream() throws IOException { throw unused(); }
    @Override protected OutputStream getOutputStream() throws IOException { throw unused(); }
    @Override protected int available() throws IOException { throw unused(); }
    @Override protected void close() { }
    @Override protected void sendUrgentData(int data) throws IOException { throw unused(); }
    @Override public void setOption(int optID, Object value) throws SocketException { throw unused(); }
    @Override public Object getOption(int optID) throws SocketException { throw unused(); }
}
