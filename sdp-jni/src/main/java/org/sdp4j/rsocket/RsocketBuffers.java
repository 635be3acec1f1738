package org.sdp4j.rsocket;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Scatter and gather over an rsocket, one non-blocking call per buffer (rsockets' own readv/writev copy the same
 * way): a heap buffer's array is passed as is (a JNI critical region around one rrecv/rsend), a direct buffer by
 * address, so data moves with one copy, into or out of rsockets' registered buffers.
 */
final class RsocketBuffers {
    private RsocketBuffers() {}

    /** Bytes read into the buffers, EOF, or UNAVAILABLE when nothing was there. */
    static long read(int fd, ByteBuffer[] dsts, int offset, int length) throws IOException {
        long total = 0;
        for (int i = offset; i < offset + length; i++) {
            ByteBuffer b = dsts[i];
            int rem = b.remaining();
            if (rem == 0) {
                continue;
            }
            int pos = b.position();
            int n = b.isDirect() ? Native.readDirect(fd, b, pos, rem)
                    : Native.read(fd, b.array(), b.arrayOffset() + pos, rem);
            if (n > 0) {
                b.position(pos + n);
                total += n;
                if (n < rem) {
                    break;
                }
                continue;
            }
            if (total > 0) {
                break;
            }
            return n; // EOF or UNAVAILABLE
        }
        return total;
    }

    /** Bytes written from the buffers in one pass (0 when there was no room). */
    static long write(int fd, ByteBuffer[] srcs, int offset, int length) throws IOException {
        long total = 0;
        for (int i = offset; i < offset + length; i++) {
            ByteBuffer b = srcs[i];
            int rem = b.remaining();
            if (rem == 0) {
                continue;
            }
            int pos = b.position();
            int n;
            if (b.isDirect()) {
                n = Native.writeDirect(fd, b, pos, rem);
            } else if (b.hasArray()) {
                n = Native.write(fd, b.array(), b.arrayOffset() + pos, rem);
            } else { // read-only heap buffer: no array access, one extra copy
                byte[] tmp = new byte[rem];
                b.duplicate().get(tmp);
                n = Native.write(fd, tmp, 0, rem);
            }
            if (n > 0) {
                b.position(pos + n);
                total += n;
            }
            if (n < rem) {
                break;
            }
        }
        return total;
    }
}
