package org.sdp4j.rsocket;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * The streams of an {@link RsocketSocketImpl}: the caller's array goes straight to the impl's read and write (no
 * buffer of their own); closing either closes the socket, as the JDK's socket streams do.
 */
final class RsocketStreams {
    private RsocketStreams() {}

    static final class In extends InputStream {
        private final RsocketSocketImpl impl;

        In(RsocketSocketImpl impl) {
            this.impl = impl;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = impl.read(one, 0, 1);
            return n <= 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            return impl.read(b, off, len);
        }

        @Override
        public int available() throws IOException {
            return impl.available();
        }

        @Override
        public void close() throws IOException {
            impl.close();
        }
    }

    static final class Out extends OutputStream {
        private final RsocketSocketImpl impl;

        Out(RsocketSocketImpl impl) {
            this.impl = impl;
        }

        @Override
        public void write(int b) throws IOException {
            impl.write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            impl.write(b, off, len);
        }

        @Override
        public void close() throws IOException {
            impl.close();
        }
    }
}
