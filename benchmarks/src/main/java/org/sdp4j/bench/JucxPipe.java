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
import org.openucx.jucx.ucp.UcpParams;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;
import org.openucx.jucx.ucp.UcpWorkerParams;

/**
 * The middle rung between {@code ucx_perftest -t stream_lat} (C, two processes) and sdp4j's {@code Socket} over UCX:
 * the same 64 B stream ping-pong written directly against jucx 1.12.1, as sdp4j's data path calls it (one
 * {@code sendStreamNonBlocking}, one {@code recvStreamNonBlocking} with WAITALL, each a jucx request object, a busy
 * {@code progress()} loop), two workers in one JVM, the peer echoing on its own thread. What this costs over
 * ucx_perftest is jucx's (JNI crossings, a Java object per request, UCX's request callbacks into Java); what sdp4j's
 * Socket costs over this is sdp4j's (locks, staging copies, the rendezvous watchdog, the stream wrappers).
 * UCX's transports as sdp4j's: {@code UCX_TLS} is the caller's (the report sets none: UCX picks shared memory).
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 500, timeUnit = TimeUnit.MILLISECONDS)
@Measurement(iterations = 5, time = 500, timeUnit = TimeUnit.MILLISECONDS)
@Fork(1)
@Threads(1)
public class JucxPipe {

    @State(Scope.Benchmark)
    public static class Pair {
        @Param({"64"})
        public int size;

        UcpContext context;
        UcpWorker mine, theirs;
        UcpEndpoint toThem, toMe;
        ByteBuffer out, in, echo; // fields: UCX writes into them until teardown, the GC must not free them before
        long outAddr, inAddr;
        Thread peer;
        volatile boolean stop;
        volatile Throwable peerFailure;

        @Setup(Level.Trial)
        public void setup() throws Exception {
            context = new UcpContext(new UcpParams().requestStreamFeature().requestWakeupFeature());
            mine = context.newWorker(new UcpWorkerParams());
            theirs = context.newWorker(new UcpWorkerParams());
            toThem = mine.newEndpoint(new UcpEndpointParams().setUcpAddress(theirs.getAddress()));
            toMe = theirs.newEndpoint(new UcpEndpointParams().setUcpAddress(mine.getAddress()));
            out = ByteBuffer.allocateDirect(size);
            in = ByteBuffer.allocateDirect(size);
            outAddr = UcxUtils.getAddress(out);
            inAddr = UcxUtils.getAddress(in);
            for (int i = 0; i < size; i++) {
                out.put(i, (byte) i);
            }
            echo = ByteBuffer.allocateDirect(size);
            long bufAddr = UcxUtils.getAddress(echo);
            peer = new Thread(() -> {
                try {
                    while (!stop) {
                        UcpRequest r = toMe.recvStreamNonBlocking(bufAddr, size, UcpConstants.UCP_STREAM_RECV_FLAG_WAITALL,
                                null);
                        while (!r.isCompleted()) {
                            theirs.progress();
                        }
                        if (stop) {
                            return; // the last message only completed the posted receive
                        }
                        UcpRequest s = toMe.sendStreamNonBlocking(bufAddr, size, null);
                        while (!s.isCompleted()) {
                            theirs.progress();
                        }
                    }
                } catch (Throwable t) {
                    peerFailure = t;
                }
            }, "jucx-peer");
            peer.setDaemon(true);
            peer.start();
        }

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            // one more message completes the peer's posted receive, so nothing of UCX refers to a buffer any more
            // (a second trial in the same JVM crashed in libc when the GC had freed a buffer a receive was posted to)
            stop = true;
            UcpRequest last = toThem.sendStreamNonBlocking(outAddr, size, null);
            while (!last.isCompleted() || peer.isAlive()) {
                mine.progress();
                peer.join(0, 1000);
            }
            if (peerFailure != null) {
                throw new IllegalStateException("jucx peer failed", peerFailure);
            }
            UcpRequest a = toThem.closeNonBlockingFlush(), b = toMe.closeNonBlockingFlush();
            while (!a.isCompleted() || !b.isCompleted()) {
                mine.progress();
                theirs.progress();
            }
            mine.close();
            theirs.close();
            context.close();
        }
    }

    /** One round trip: send {@code size} bytes, receive the echo of all of them. */
    @Benchmark
    public int latency(Pair p) throws Exception {
        UcpRequest s = p.toThem.sendStreamNonBlocking(p.outAddr, p.size, null);
        UcpRequest r = p.toThem.recvStreamNonBlocking(p.inAddr, p.size, UcpConstants.UCP_STREAM_RECV_FLAG_WAITALL, null);
        while (!s.isCompleted() || !r.isCompleted()) {
            p.mine.progress();
        }
        if (p.in.get(p.size - 1) != (byte) (p.size - 1)) {
            throw new IllegalStateException("echo mismatch");
        }
        return p.in.get(0);
    }
}
