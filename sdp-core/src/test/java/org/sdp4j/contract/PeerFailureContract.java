package org.sdp4j.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * The peer goes away: killed with SIGKILL in another JVM, or resetting the connection (SO_LINGER 0), or closing
 * while this side keeps writing. A program must see end of stream or an IOException, never a hang.
 */
public abstract class PeerFailureContract extends ContractBase {
    /** Reading from a dead peer ends: -1 or an IOException. */
    static void readEnds(InputStream in) throws Exception {
        Future<Integer> r = async(() -> {
            try {
                int n;
                while ((n = in.read()) >= 0) {
                    // drain whatever is still buffered
                }
                return n;
            } catch (IOException e) {
                return -2;
            }
        });
        int n = awaitOr(r, "a read from the killed peer neither ended nor failed");
        assertTrue(n == -1 || n == -2);
    }

    /** Writing to a dead peer fails with an IOException once buffers fill; bounded, never a hang. */
    static IOException writesFail(OutputStream out) throws Exception {
        Future<IOException> w = async(() -> {
            byte[] chunk = new byte[64 * 1024];
            for (long i = 0; ; i++) {
                try {
                    out.write(chunk);
                } catch (IOException e) {
                    return e;
                }
            }
        });
        try {
            return w.get(BOUND_S, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            w.cancel(true);
            throw new AssertionError("writes to a gone peer still block after " + BOUND_S + " s (no IOException)");
        }
    }

    @Test
    void peerKilledWhileConnected() throws Exception {
        try (Peer.Process peer = new Peer.Process(transport(), "server")) {
            int port = Integer.parseInt(peer.expect("PORT"));
            Socket c = closeLater(transport().socket());
            c.connect(new InetSocketAddress(transport().address(), port), (int) TimeUnit.SECONDS.toMillis(BOUND_S));
            transport().assertCarried(c, false);
            assertEquals("ping", new String(awaitOr(async(() -> c.getInputStream().readNBytes(4)),
                    "the peer's 4 bytes did not arrive")));
            peer.kill();
            readEnds(c.getInputStream());
            writesFail(c.getOutputStream());
        }
    }

    @Test
    void clientPeerKilledWhileTheServerReads() throws Exception {
        ServerSocket ss = listen();
        try (Peer.Process peer = new Peer.Process(transport(), "client", Integer.toString(ss.getLocalPort()))) {
            Future<Socket> accepted = async(ss::accept);
            // the peer is a JVM of its own: its start alone took more than BOUND_S once (Temurin 25 in the 6.12
            // guest under TCG, fresh-clone run r36), so it has expect's allowance to connect; then the accept is due
            peer.expect("SENT");
            Socket s = closeLater(await(accepted));
            transport().assertCarried(s, true);
            assertEquals("ping", new String(await(async(() -> s.getInputStream().readNBytes(4)))));
            Blocked.Call<Integer> blocked = Blocked.call(() -> {
                try {
                    return s.getInputStream().read();
                } catch (IOException e) {
                    return -2;
                }
            });
            // the peer dies under a blocked reader, not before the read
            Blocked.awaitBlocked(blocked, "a reader of a peer that sends nothing more");
            peer.kill();
            int n = awaitOr(blocked, "a reader blocked when the peer was killed neither ended nor failed");
            assertTrue(n == -1 || n == -2, "a reader blocked when the peer died: " + n);
        }
    }

    @Test
    void peerResetIsAnErrorNotEndOfStream() throws Exception {
        limitation(Limitation.NO_RESET);
        Pair p = pair();
        p.server.setSoLinger(true, 0);
        p.server.close();
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> await(async(() -> p.client.getInputStream().read())));
        assertInstanceOf(SocketException.class, e.getCause(), "a reset is reported as such");
        writesFail(p.client.getOutputStream());
    }

    @Test
    void channelPeerReset() throws Exception {
        limitation(Limitation.NO_RESET);
        SocketChannel[] ch = channels();
        ch[1].setOption(java.net.StandardSocketOptions.SO_LINGER, 0);
        ch[1].close();
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> await(async(() -> ch[0].read(ByteBuffer.allocate(4)))));
        assertInstanceOf(IOException.class, e.getCause());
    }

    @Test
    void writesToAClosedPeerFailOnceBuffersFill() throws Exception {
        Pair p = pair();
        p.server.close();
        writesFail(p.client.getOutputStream());
    }

    @Test
    void channelWritesToAClosedPeerFail() throws Exception {
        SocketChannel[] ch = channels();
        ch[1].close();
        Future<IOException> w = async(() -> {
            ByteBuffer chunk = ByteBuffer.allocateDirect(64 * 1024);
            while (true) {
                chunk.clear();
                try {
                    ch[0].write(chunk);
                } catch (IOException e) {
                    return e;
                }
            }
        });
        try {
            w.get(BOUND_S, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("channel writes to a closed peer still block after " + BOUND_S + " s");
        }
    }
}
