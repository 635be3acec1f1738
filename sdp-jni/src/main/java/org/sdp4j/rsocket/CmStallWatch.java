package org.sdp4j.rsocket;

import java.io.IOException;

import org.sdp4j.log.SdpLog;
import org.sdp4j.transport.Props;

/**
 * Notices a disconnect that librdmacm left unread. An rsocket learns that its connection ended from its rdma_cm
 * channel: librdmacm's connection service thread reads the disconnect (the kernel's, when the peer closes or its
 * process dies) and marks the rsocket disconnected, which ends a blocked read with end of stream. In the soft-RoCE VM
 * that did not happen once in CI (2026-11-26, the transport contract's {@code peerKilledWhileConnected}): the kernel's
 * cm_id had gone to DISCONNECT, the rsocket stayed connected, and the reader of a killed peer waited for ever.
 * Stopping the service thread gives the same hang every time ({@code RsocketPeerGoneTest}), and on soft-RoCE nothing
 * else ends it: rsockets asks for retry_count 7, which rdma_rxe takes as "retry for ever", so not even a keep-alive
 * write to the dead peer fails.
 *
 * <p>So a wait of a read or a write that lasts looks at the channel every {@link #CHECK_MS}: an event still unread
 * after {@link #STALL_NANOS} (librdmacm's thread reads one within moments when it runs) means the connection is gone.
 * Reads then end with -1, as rsockets' own disconnect gives; writes fail. Only blocking waits look (java.net, blocking
 * channels); a selector does not.
 */
final class CmStallWatch {
    /** How often a lasting wait looks at the channel (ms). */
    static final int CHECK_MS = 250;
    /** How long an event may sit unread before the connection counts as gone ({@code -Dsdp4j.rsocket.cmStallMillis}). */
    static final long STALL_NANOS = Props.longProperty("sdp4j.rsocket.cmStallMillis", 1000, 100, 3_600_000)
            * 1_000_000L;

    private boolean pending; // guarded by this
    private long pendingSince;
    private volatile boolean gone;

    /** True once a disconnect was found left unread: the connection is over. */
    boolean gone() {
        return gone;
    }

    /** After a wait of {@link #CHECK_MS} found fd not ready: true once its channel has held an event for the stall time. */
    synchronized boolean stalled(int fd) throws IOException {
        if (gone) {
            return true;
        }
        if (!Native.cmEventPending(fd)) {
            pending = false;
            return false;
        }
        long now = System.nanoTime();
        if (!pending) {
            pending = true;
            pendingSince = now;
            return false;
        }
        if (now - pendingSince < STALL_NANOS) {
            return false;
        }
        gone = true;
        SdpLog.log(SdpLog.WARN, "sdp4j: rsocket " + fd + ": a connection-manager event (the peer's disconnect) lay "
                + "unread for " + (now - pendingSince) / 1_000_000 + " ms: librdmacm's service thread did not act on "
                + "it; the connection is treated as closed by the peer");
        return true;
    }
}
