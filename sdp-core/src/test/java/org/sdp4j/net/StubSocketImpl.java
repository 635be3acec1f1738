package org.sdp4j.net;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.SocketAddress;
import java.net.SocketImpl;

/** A SocketImpl that does nothing: stand-in listeners and connections of the accept-path tests override a part. */
abstract class StubSocketImpl extends SocketImpl {
    @Override protected void create(boolean stream) {}
    @Override protected void connect(String host, int port) {}
    @Override protected void connect(InetAddress address, int port) {}
    @Override protected void connect(SocketAddress address, int timeout) {}
    @Override protected void bind(InetAddress host, int port) {}
    @Override protected void listen(int backlog) {}
    @Override protected void accept(SocketImpl s) throws IOException {}
    @Override protected InputStream getInputStream() { return null; }
    @Override protected OutputStream getOutputStream() { return null; }
    @Override protected int available() { return 0; }
    @Override protected void close() {}
    @Override protected void sendUrgentData(int data) {}
    @Override public void setOption(int optID, Object value) {}
    @Override public Object getOption(int optID) { return null; }
}
