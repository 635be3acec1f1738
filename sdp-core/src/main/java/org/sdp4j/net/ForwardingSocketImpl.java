package org.sdp4j.net;

import java.io.FileDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.SocketException;
import java.net.SocketImpl;
import java.net.SocketOption;
import java.net.SocketOptions;
import java.util.Set;

import org.sdp4j.jdk.JdkNet;

/**
 * A SocketImpl that forwards to the implementation the rules chose (the JDK's own for TCP, a transport's for RDMA).
 * Everything after the decision is the delegate's: its streams are returned as they are, so reads and writes
 * never pass through sdp4j. Until the decision, options are recorded so a switch of transport can apply them again.
 */
abstract class ForwardingSocketImpl extends SocketImpl {
    /** The implementation that currently owns the connection; null before {@code create}. */
    protected volatile SocketImpl delegate;
    /** True once the transport is final; options set later need no recording. */
    protected volatile boolean decided;
    protected volatile boolean closed;
    protected final OptionLog options = new OptionLog();

    protected final SocketImpl delegate() throws SocketException {
        SocketImpl d = delegate;
        if (d == null) {
            throw new SocketException(closed ? "Socket closed" : "Socket not created");
        }
        return d;
    }

    @Override
    protected InputStream getInputStream() throws IOException {
        return JdkNet.inputStream(delegate());
    }

    @Override
    protected OutputStream getOutputStream() throws IOException {
        return JdkNet.outputStream(delegate());
    }

    @Override
    protected int available() throws IOException {
        return JdkNet.available(delegate());
    }

    @Override
    protected void shutdownInput() throws IOException {
        JdkNet.shutdownInput(delegate());
    }

    @Override
    protected void shutdownOutput() throws IOException {
        JdkNet.shutdownOutput(delegate());
    }

    @Override
    protected void sendUrgentData(int data) throws IOException {
        JdkNet.sendUrgentData(delegate(), data);
    }

    @Override
    protected boolean supportsUrgentData() {
        SocketImpl d = delegate;
        return d != null && JdkNet.supportsUrgentData(d);
    }

    @Override
    public void setOption(int optID, Object value) throws SocketException {
        SocketImpl d = delegate();
        JdkNet.setOption(d, optID, value);
        if (!decided) {
            options.recordInt(optID, value);
        }
    }

    @Override
    public Object getOption(int optID) throws SocketException {
        return JdkNet.getOption(delegate(), optID);
    }

    @Override
    protected <T> void setOption(SocketOption<T> name, T value) throws IOException {
        SocketImpl d = delegate();
        if (!decided && pendingTransportOption(d, name)) {
            // an RDMA transport's own option (RsocketOptions): kept for that transport, if the rules choose it
            if (!name.type().isInstance(value)) {
                throw new IllegalArgumentException("Invalid value '" + value + "' for " + name);
            }
            options.record(name, value);
            return;
        }
        JdkNet.setOption(d, name, value);
        if (!decided) {
            options.record(name, value);
        }
    }

    private boolean pendingTransportOption(SocketImpl d, SocketOption<?> name) {
        return name != null && org.sdp4j.transport.TransportOptions.of(org.sdp4j.Sdp4j.router().rules()).contains(name)
                && !JdkNet.supportedOptions(d).contains(name);
    }

    @Override
    @SuppressWarnings("unchecked")
    protected <T> T getOption(SocketOption<T> name) throws IOException {
        SocketImpl d = delegate();
        if (!decided && pendingTransportOption(d, name)) {
            return (T) options.recorded(name); // null: not set, the transport's default applies
        }
        return JdkNet.getOption(d, name);
    }

    @Override
    protected Set<SocketOption<?>> supportedOptions() {
        SocketImpl d = delegate;
        if (d == null) {
            // Socket asks before create only when the application does; answer as the JDK's own impl would.
            try {
                d = newDefaultDelegate();
            } catch (IOException e) {
                return Set.of();
            }
            Set<SocketOption<?>> s = JdkNet.supportedOptions(d);
            JdkNet.closeQuietly(d);
            return withTransportOptions(s);
        }
        return decided ? JdkNet.supportedOptions(d) : withTransportOptions(JdkNet.supportedOptions(d));
    }

    private static Set<SocketOption<?>> withTransportOptions(Set<SocketOption<?>> s) {
        Set<SocketOption<?>> t = org.sdp4j.transport.TransportOptions.of(org.sdp4j.Sdp4j.router().rules());
        if (t.isEmpty()) {
            return s;
        }
        Set<SocketOption<?>> all = new java.util.HashSet<>(s);
        all.addAll(t);
        return Set.copyOf(all);
    }

    /** A fresh, not created TCP implementation of the right kind (client or server). */
    protected abstract SocketImpl newDefaultDelegate() throws IOException;

    @Override
    protected FileDescriptor getFileDescriptor() {
        SocketImpl d = delegate;
        return d == null ? null : JdkNet.fileDescriptor(d);
    }

    @Override
    protected InetAddress getInetAddress() {
        SocketImpl d = delegate;
        return d == null ? null : JdkNet.inetAddress(d);
    }

    @Override
    protected int getPort() {
        SocketImpl d = delegate;
        return d == null ? 0 : JdkNet.port(d);
    }

    @Override
    protected int getLocalPort() {
        SocketImpl d = delegate;
        return d == null ? 0 : JdkNet.localPort(d);
    }

    @Override
    protected void setPerformancePreferences(int connectionTime, int latency, int bandwidth) {
        SocketImpl d = delegate;
        if (d != null) {
            JdkNet.setPerformancePreferences(d, connectionTime, latency, bandwidth);
        }
    }

    /** SO_BINDADDR of the delegate: the bound local address, as Socket and ServerSocket report it. */
    protected InetAddress boundAddress() throws SocketException {
        Object a = JdkNet.getOption(delegate(), SocketOptions.SO_BINDADDR);
        return a instanceof InetAddress ia ? ia : null;
    }

    @Override
    public String toString() {
        SocketImpl d = delegate;
        return "sdp4j[" + (d == null ? "uncreated" : d.toString()) + "]";
    }
}
