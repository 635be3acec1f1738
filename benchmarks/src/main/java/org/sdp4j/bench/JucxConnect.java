package org.sdp4j.bench;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openucx.jucx.UcxUtils;
import org.openucx.jucx.ucp.UcpConstants;
import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpEndpointParams;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;

/**
 * What the UCX part of a new local connection costs, jucx alone, both ends in one thread (no sdp4j, no rendezvous,
 * no second process): the floor under sdp4j's connect over UCX, and the measured basis of issue 18's shared workers.
 * Each operation is one connection's life on UCX: its endpoints made, one 8-byte message each way (the wire-up
 * sdp4j's handshake does), both endpoints closed.
 * <ul>
 *   <li>{@link #workerPair}: what sdp4j pays for a new pair today: two workers made and destroyed as well;</li>
 *   <li>{@link #endpointPair}: an endpoint pair on a worker pair made earlier, the worker pair retired (destroyed and
 *       made again) after {@code retireAfter} endpoint pairs, its cost spread over them. Retiring is not optional:
 *       UCX 1.13 keeps a closed endpoint that had a remote connection, and the peer's shared-memory segments it
 *       mapped, until its worker is destroyed ({@code ucp_ep_disconnected}: "destroyed only when the worker is
 *       destroyed"; a force close needs peer error handling, which posix shared memory lacks). Measured here: about
 *       30 kB of resident memory and four mappings per endpoint pair (two an endpoint), so a worker pair that
 *       never retires runs the process out of mappings ({@code vm.max_map_count}) after some 15,000 connections.</li>
 * </ul>
 * UCX's transports and sizes as sdp4j's defaults ({@code posix,cma,self}, {@code MM_RX_BUFS_GROW=16},
 * {@code MM_FIFO_SIZE=32}: {@code org.sdp4j.ucx.Ucx}).
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 500, timeUnit = TimeUnit.MILLISECONDS)
@Measurement(iterations = 5, time = 500, timeUnit = TimeUnit.MILLISECONDS)
@Fork(1)
@Threads(1)
public class JucxConnect {

    /** The UCX context, as sdp4j's, and a buffer for the messages. */
    @State(Scope.Benchmark)
    public static class Ucx {
        UcpContext context;
        ByteBuffer buf; // a field: UCX writes into it until the operation completes
        long addr;

        @Setup(Level.Trial)
        public void setup() {
            context = JucxSettings.context();
            buf = ByteBuffer.allocateDirect(32);
            addr = UcxUtils.getAddress(buf);
        }

        UcpWorker worker() {
            return JucxSettings.worker(context);
        }

        /** Endpoints each way, an 8-byte message each way, both closed (flushed); throws if a message is wrong. */
        void connection(UcpWorker x, ByteBuffer xAddress, UcpWorker y, ByteBuffer yAddress, long id) throws Exception {
            UcpEndpoint toY = x.newEndpoint(new UcpEndpointParams().setUcpAddress(yAddress));
            UcpEndpoint toX = y.newEndpoint(new UcpEndpointParams().setUcpAddress(xAddress));
            buf.putLong(0, id);
            buf.putLong(8, ~id);
            UcpRequest s1 = toY.sendStreamNonBlocking(addr, 8, null);
            UcpRequest s2 = toX.sendStreamNonBlocking(addr + 8, 8, null);
            UcpRequest r1 = toX.recvStreamNonBlocking(addr + 16, 8, UcpConstants.UCP_STREAM_RECV_FLAG_WAITALL, null);
            UcpRequest r2 = toY.recvStreamNonBlocking(addr + 24, 8, UcpConstants.UCP_STREAM_RECV_FLAG_WAITALL, null);
            await(x, y, s1, s2, r1, r2);
            if (buf.getLong(16) != id || buf.getLong(24) != ~id) {
                // endpoints made in the same order on both workers pair up: this one did not
                throw new IllegalStateException("endpoint pair " + id + " crossed: got " + buf.getLong(16) + "/"
                        + buf.getLong(24));
            }
            await(x, y, toY.closeNonBlockingFlush(), toX.closeNonBlockingFlush());
        }

        static void await(UcpWorker x, UcpWorker y, UcpRequest... rs) throws Exception {
            long end = System.nanoTime() + 10_000_000_000L;
            for (UcpRequest r : rs) {
                while (!r.isCompleted()) {
                    x.progress();
                    y.progress();
                    if (System.nanoTime() - end > 0) {
                        throw new IllegalStateException("UCX did not complete a request in 10 s");
                    }
                }
            }
        }

        /** The shared worker pair, if any: closed here, before the context (JMH orders no two states' tear-downs). */
        Shared shared;

        @TearDown(Level.Trial)
        public void tearDown() {
            if (shared != null) {
                shared.close();
            }
            context.close();
        }
    }

    /** A worker pair shared by connections, retired after {@code retireAfter} of them. */
    @State(Scope.Benchmark)
    public static class Shared {
        @Param({"64", "512"})
        public int retireAfter;

        UcpWorker a, b;
        ByteBuffer aAddress, bAddress;
        int carried;

        @Setup(Level.Trial)
        public void setup(Ucx u) {
            make(u);
            u.shared = this;
        }

        void make(Ucx u) {
            a = u.worker();
            b = u.worker();
            aAddress = a.getAddress();
            bAddress = b.getAddress();
            carried = 0;
        }

        void close() {
            a.close();
            b.close();
        }
    }

    /** A connection on a worker pair of its own, made and destroyed with it (sdp4j's new pair today). */
    @Benchmark
    public void workerPair(Ucx u) throws Exception {
        UcpWorker x = u.worker(), y = u.worker();
        try {
            u.connection(x, x.getAddress(), y, y.getAddress(), 1);
        } finally {
            x.close();
            y.close();
        }
    }

    /** A connection on a shared worker pair, the pair retired after {@code retireAfter} connections. */
    @Benchmark
    public void endpointPair(Ucx u, Shared s) throws Exception {
        if (s.carried == s.retireAfter) {
            s.close();
            s.make(u);
        }
        u.connection(s.a, s.aAddress, s.b, s.bAddress, ++s.carried);
    }
}
