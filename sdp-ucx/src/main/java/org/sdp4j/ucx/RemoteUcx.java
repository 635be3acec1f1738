package org.sdp4j.ucx;

import java.io.IOException;
import java.net.SocketException;

import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpParams;
import org.openucx.jucx.ucp.UcpWorker;
import org.openucx.jucx.ucp.UcpWorkerParams;

/**
 * UCX across hosts: a second UCX context restricted to RDMA, for connections whose peer is on another host.
 *
 * <p>Its transport ({@code -Dsdp4j.ucx.remote.tls}, default {@code rc_verbs}) is verbs only: UCX's {@code tcp}
 * transport is left out on purpose, so a stream that crosses a wire over "UCX" is RDMA (on soft-RoCE: RoCEv2 frames,
 * UDP 4791) or is not UCX at all (TCP through the ordinary fallback). {@code ud_verbs} is left out too: the
 * endpoints are made through RDMA-CM, which wires RC up without UD, and UCX's UD endpoints over rxe between two
 * guests died with "UD endpoint ...: unhandled timeout error" (ucx_perftest, docs/feasibility.md), which is fatal
 * (abort) in UCX. Its connection manager is
 * {@code rdmacm} only ({@code SOCKADDR_TLS_PRIORITY=rdmacm}): UCX's {@code tcp} CM would bind a kernel TCP port,
 * the application's; RDMA-CM's port space ({@code RDMA_PS_TCP}) is separate, so the rendezvous listener takes the
 * application's port number without colliding with it. A host without an RDMA device has no such context (the
 * reason is kept and logged) and {@code use ucx} to another host uses TCP.
 */
final class RemoteUcx {
    static final String DEFAULT_TLS = "rc_verbs";

    private RemoteUcx() {}

    private static final class Probe {
        static final UcpContext CONTEXT;
        static final Throwable CAUSE;
        static final String TLS = tls();

        static {
            UcpContext ctx = null;
            Throwable cause = null;
            try {
                Ucx.context(); // jucx loaded, UCX not disabled
                // a context without a device for these transports would still open
                String[] devices = new java.io.File("/sys/class/infiniband").list();
                if (devices == null || devices.length == 0) {
                    throw new IOException("UCX over RDMA: no RDMA device (/sys/class/infiniband is empty)");
                }
                UcpParams params = new UcpParams().requestStreamFeature().requestWakeupFeature()
                        .setConfig("TLS", TLS).setConfig("SOCKADDR_TLS_PRIORITY", "rdmacm");
                ctx = new UcpContext(params);
                ctx.newWorker(new UcpWorkerParams()).close();
            } catch (Throwable e) {
                cause = e instanceof IOException ? e : new IOException("UCX over RDMA (tls=" + TLS + ") is not "
                        + "available: " + e.getMessage(), e);
                if (ctx != null) {
                    try {
                        ctx.close();
                    } catch (RuntimeException ignore) {
                        // nothing more to release
                    }
                    ctx = null;
                }
            }
            CONTEXT = ctx;
            CAUSE = cause;
        }
    }

    static String tls() {
        String t = System.getProperty("sdp4j.ucx.remote.tls");
        return t == null || t.isBlank() ? DEFAULT_TLS : t.trim();
    }

    static String transports() {
        return Probe.TLS;
    }

    /** Why UCX cannot reach another host from here, or null when it can. */
    static Throwable unavailabilityCause() {
        return Probe.CAUSE;
    }

    /** A new worker of the RDMA context (MULTI thread mode, as {@link WorkerPool}'s), never pooled. */
    static UcpWorker newWorker() throws IOException {
        if (Probe.CAUSE != null) {
            throw new SocketException(Probe.CAUSE.getMessage());
        }
        return Probe.CONTEXT.newWorker(new UcpWorkerParams().requestThreadSafety().requestWakeupRX()
                .requestWakeupTX());
    }
}
