package org.sdp4j.ucx;

import java.net.SocketException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;

/**
 * The check a peer's UCX worker address passes before it reaches UCX. {@code ucp_ep_create} unpacks an address with
 * no length at all (UCX 1.13 {@code src/ucp/wireup/address.c}: it walks until a LAST flag), asserts on a version
 * it does not know (SIGABRT), and each transport then reads its own fixed-size interface address. So a well-formed
 * address is defined here against this process's own worker address: the same UCX build and configuration on the
 * same host pack the same layout. Accepted: the same header byte (version 1, the same header flags), the same
 * devices with the same memory-domain index and device address (the host's id for shared memory), the same
 * transports (name checksums) each with the same interface address length, finite attributes, no endpoint
 * addresses (a worker address carries none), and nothing after the last device. Only the worker's id and the
 * per-process parts of the interface addresses (segment ids, pids) differ from ours.
 *
 * <p>Layout (version 1, not unified mode): {@code header(1) [uuid(8)] [client id(8)]}, then per device
 * {@code md(1: EMPTY|ALLOC|REG|index:5) len(1: LAST|NUM_PATHS|SYS_DEVICE|len:5) [paths(1)] [sysdev(1)] addr(len)},
 * then per transport {@code csum(2) attrs(16: overhead f32, bandwidth f32, lat_ovh f32, prio_flags u32)
 * len(1: LAST|HAS_EP|len:6) addr(len)}.
 */
final class WorkerAddress {
    static final int MAX = 4096;
    private static final int V1 = 0, FLAG_UUID = 2, FLAG_CLIENT_ID = 4, FLAG_DEBUG = 1;
    private static final int LAST = 0x80, HAS_EP = 0x40, NUM_PATHS = 0x40, SYS_DEVICE = 0x20, EMPTY_DEV = 0x80;
    private static final int MAX_DEVICES = 128;

    /** What one transport looks like in this process's own address. */
    private record Tl(int md, byte[] devAddr, int ifaceLen) {}

    private final int header;
    private final Map<Integer, Tl> tls = new HashMap<>();
    private final int length;

    private WorkerAddress(int header, int length) {
        this.header = header;
        this.length = length;
    }

    /** The template: this process's own worker address, parsed with the same walk (it must pass its own check). */
    static WorkerAddress template(ByteBuffer own) throws SocketException {
        ByteBuffer b = own.duplicate();
        if (b.remaining() < 1 || b.remaining() > MAX) {
            throw new SocketException("own UCX worker address of " + b.remaining() + " bytes");
        }
        WorkerAddress t = new WorkerAddress(b.get(b.position()) & 0xff, b.remaining());
        t.walk(b, true);
        return t;
    }

    /** Throws naming the first byte that is not what a well-formed peer address of this layout holds. */
    void check(ByteBuffer peer) throws SocketException {
        walk(peer.duplicate(), false);
    }

    private void walk(ByteBuffer b, boolean learn) throws SocketException {
        int base = b.position();
        int end = b.limit();
        if (!learn && end - base != length) {
            throw bad(0, "length " + (end - base) + ", a worker address here is " + length + " bytes");
        }
        int p = base;
        int h = u8(b, p++, end, base);
        if ((h & 0x0f) != V1) {
            throw bad(0, "address version " + (h & 0x0f) + " (only version 1 is packed by this UCX)");
        }
        if (h != header) {
            throw bad(0, String.format("header 0x%02x, expected 0x%02x", h, header));
        }
        int flags = h >> 4;
        if ((flags & FLAG_DEBUG) != 0) {
            throw bad(0, "debug-info addresses are not accepted");
        }
        if ((flags & FLAG_UUID) != 0) {
            p = skip(p, 8, end, base);
        }
        if ((flags & FLAG_CLIENT_ID) != 0) {
            p = skip(p, 8, end, base);
        }
        if (u8(b, p, end, base) == 0xff) {
            throw bad(p - base, "an address without transports");
        }
        int tlCount = 0;
        for (int dev = 0; ; dev++) {
            if (dev >= MAX_DEVICES) {
                throw bad(p - base, "more than " + MAX_DEVICES + " devices");
            }
            int mdByte = u8(b, p++, end, base);
            boolean empty = (mdByte & EMPTY_DEV) != 0;
            int md = mdByte & 0x1f;
            int lenByte = u8(b, p++, end, base);
            boolean lastDev = (lenByte & LAST) != 0;
            int devLen = lenByte & 0x1f;
            if ((lenByte & NUM_PATHS) != 0) {
                int paths = u8(b, p++, end, base);
                if (paths < 1) {
                    throw bad(p - 1 - base, "device with 0 paths");
                }
            }
            if ((lenByte & SYS_DEVICE) != 0) {
                u8(b, p++, end, base);
            }
            int devAt = p;
            p = skip(p, devLen, end, base);
            byte[] devAddr = new byte[devLen];
            b.get(devAt, devAddr);
            if (empty) {
                throw bad(devAt - base, "a device without transports");
            }
            for (boolean lastTl = false; !lastTl; ) {
                if (++tlCount > MAX_DEVICES) {
                    throw bad(p - base, "more than " + MAX_DEVICES + " transports");
                }
                int csumAt = p;
                int csum = u8(b, p, end, base) | u8(b, p + 1, end, base) << 8;
                p += 2;
                int attrs = p;
                p = skip(p, 16, end, base);
                float overhead = b.order(java.nio.ByteOrder.LITTLE_ENDIAN).getFloat(attrs);
                float bandwidth = b.getFloat(attrs + 4);
                float latOvh = b.getFloat(attrs + 8);
                b.order(java.nio.ByteOrder.BIG_ENDIAN);
                if (!Float.isFinite(overhead) || overhead < 0 || !Float.isFinite(bandwidth) || bandwidth <= 0
                        || !Float.isFinite(latOvh)) {
                    throw bad(attrs - base, "transport attributes out of range (overhead " + overhead
                            + ", bandwidth " + bandwidth + ", latency " + latOvh + ")");
                }
                int ifByte = u8(b, p++, end, base);
                lastTl = (ifByte & LAST) != 0;
                if ((ifByte & HAS_EP) != 0) {
                    throw bad(p - 1 - base, "endpoint addresses in a worker address");
                }
                int ifLen = ifByte & 0x3f;
                p = skip(p, ifLen, end, base);
                if (learn) {
                    tls.put(csum, new Tl(md, devAddr, ifLen));
                    continue;
                }
                Tl t = tls.get(csum);
                if (t == null) {
                    throw bad(csumAt - base, String.format("transport 0x%04x is not one of this process's", csum));
                }
                if (t.md != md || !java.util.Arrays.equals(t.devAddr, devAddr)) {
                    throw bad(devAt - base, String.format("transport 0x%04x on another device or host", csum));
                }
                if (t.ifaceLen != ifLen) {
                    throw bad(p - ifLen - 1 - base, String.format("transport 0x%04x interface address of %d bytes,"
                            + " expected %d", csum, ifLen, t.ifaceLen));
                }
            }
            if (lastDev) {
                break;
            }
        }
        if (p != end) {
            throw bad(p - base, (end - p) + " bytes after the last device");
        }
        if (!learn && tlCount != tls.size()) {
            throw bad(0, tlCount + " transports, this process has " + tls.size());
        }
    }

    private static int u8(ByteBuffer b, int at, int end, int base) throws SocketException {
        if (at >= end) {
            throw bad(at - base, "truncated");
        }
        return b.get(at) & 0xff;
    }

    private static int skip(int p, int n, int end, int base) throws SocketException {
        if (n > end - p) {
            throw bad(p - base, "truncated (" + n + " bytes needed, " + (end - p) + " left)");
        }
        return p + n;
    }

    private static SocketException bad(int offset, String what) {
        return new SocketException("malformed UCX worker address at byte " + offset + ": " + what);
    }
}
