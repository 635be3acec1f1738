package org.sdp4j.ucx;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;

import org.openucx.jucx.UcxUtils;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpEndpointParams;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;

/**
 * The connect/accept half of a UCX connection: find the peer through the rendezvous, exchange UCX worker addresses,
 * create and wire up the endpoint. It produces a {@link UcxConnection} (worker, endpoint, control socket, ids).
 */
final class Handshake {
    private Handshake() {}

    /** Client side: find the listener for {@code addr:port} on this host and connect within the timeout. */
    static UcxConnection connect(InetAddress addr, int port, int timeoutMillis) throws IOException {
        String where = Rendezvous.hostPort(addr, port);
        if (!Rendezvous.isLocal(addr)) {
            throw new ConnectException("UCX to " + where + ": not an address of this host, and sdp4j's UCX "
                    + "rendezvous reaches only this host");
        }
        SocketChannel ch = null;
        IOException last = null;
        for (Path p : Rendezvous.candidates(addr, port)) {
            if (!Files.exists(p)) {
                continue;
            }
            try {
                ch = Rendezvous.connect(p);
                break;
            } catch (IOException e) {
                last = e; // a listener that died without removing its socket
            }
        }
        if (ch == null) {
            throw (ConnectException) new ConnectException("UCX to " + where + ": no sdp4j UCX listener ("
                    + (last == null ? "no rendezvous socket " : "stale rendezvous socket ")
                    + Rendezvous.candidates(addr, port) + ")").initCause(last);
        }
        long deadline = System.nanoTime() + Math.min(timeoutMillis > 0 ? timeoutMillis : Integer.MAX_VALUE,
                Rendezvous.HANDSHAKE_MILLIS) * 1_000_000L;
        return handshake(ch, deadline, where, true);
    }

    /** Server side: a connection accepted on the rendezvous listener. */
    static UcxConnection accept(ServerSocketChannel listener, String where) throws IOException {
        SocketChannel ch = listener.accept();
        if (ch == null) {
            return null;
        }
        return handshake(ch, System.nanoTime() + Rendezvous.HANDSHAKE_MILLIS * 1_000_000L, where, false);
    }

    static UcxConnection handshake(SocketChannel ch, long deadline, String where, boolean client)
            throws IOException {
        UcpWorker w = null;
        UcpEndpoint ep = null;
        try {
            w = WorkerPool.take();
            int id = UcxConnection.IDS.incrementAndGet() & 0xFFFF;
            Rendezvous.Peer peer;
            if (client) {
                Rendezvous.writeFully(ch, Rendezvous.hello(w.getAddress(), id));
                peer = Rendezvous.readHello(ch, deadline, where);
                ep = w.newEndpoint(new UcpEndpointParams().setUcpAddress(peer.workerAddress()));
            } else {
                peer = Rendezvous.readHello(ch, deadline, where);
                ep = w.newEndpoint(new UcpEndpointParams().setUcpAddress(peer.workerAddress()));
                Rendezvous.writeFully(ch, Rendezvous.hello(w.getAddress(), id));
            }
            wireUp(w, ep, deadline, where);
            UcxConnection c = new UcxConnection(w, ep, ch, id, peer.id());
            Watchdog.watch(c);
            return c;
        } catch (IOException | RuntimeException e) {
            closeQuietly(ch);
            if (ep != null) {
                ep.closeNonBlockingForce();
            }
            if (w != null) {
                w.close();
            }
            if (e instanceof IOException io) {
                throw io;
            }
            throw new IOException("UCX " + where + ": " + e, e);
        }
    }

    /**
     * One 8-byte exchange over the new endpoints while both processes are in their handshake and so progressing
     * their workers: UCX connects lazily, and a first send after the handshake would otherwise wait for wire-up
     * replies from a peer whose worker nobody progresses (an idle reader) — a TCP connection never needs the
     * peer's cooperation to accept a small write.
     */
    private static void wireUp(UcpWorker w, UcpEndpoint ep, long deadline, String where) throws IOException {
        ByteBuffer b = ByteBuffer.allocateDirect(16);
        b.putLong(0, Rendezvous.MAGIC);
        UcpRequest sent = ep.sendStreamNonBlocking(UcxUtils.getAddress(b), 8, null);
        UcpRequest got = ep.recvStreamNonBlocking(UcxUtils.getAddress(b) + 8, 8,
                org.openucx.jucx.ucp.UcpConstants.UCP_STREAM_RECV_FLAG_WAITALL, null);
        while (!sent.isCompleted() || !got.isCompleted()) {
            try {
                if (w.progress() == 0) {
                    Thread.yield(); // the peer's thread doing the same may need this CPU
                }
            } catch (Exception e) {
                throw new IOException("UCX " + where + ": wire-up failed: " + e.getMessage(), e);
            }
            if (System.nanoTime() - deadline > 0) {
                if (!got.isCompleted()) {
                    w.cancelRequest(got);
                }
                throw new SocketTimeoutException("UCX " + where + ": no wire-up within the handshake time");
            }
        }
        if (sent.getStatus() != 0 || got.getStatus() != 0 || b.getLong(8) != Rendezvous.MAGIC) {
            throw new SocketException("UCX " + where + ": wire-up exchange failed (status " + sent.getStatus()
                    + "/" + got.getStatus() + ")");
        }
    }

    private static void closeQuietly(java.io.Closeable c) {
        try {
            if (c != null) {
                c.close();
            }
        } catch (IOException ignore) {
            // nothing to do
        }
    }
}
