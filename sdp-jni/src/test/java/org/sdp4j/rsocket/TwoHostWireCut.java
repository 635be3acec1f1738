package org.sdp4j.rsocket;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

/**
 * The client of the two-host {@code wire-cut-*} steps (issue 20), plain java.net under the agent: the rules pick the
 * transport. Against {@code TwoHostEcho server net ADDR PORT 1} on the other guest:
 * <ol>
 * <li>echoes 64 KiB (the path works), asks the step script to cut the wire ({@code CTL/cut} created; the script
 * drops every frame this host's NIC sends and answers {@code CTL/cut-on}), then writes 1 KiB;</li>
 * <li>reads with {@code SO_TIMEOUT} 2 s during the cut: a {@link SocketTimeoutException} on time is the JDK's
 * behaviour; an IOException means the transport gave up, which is allowed only if it says why and every later call
 * fails too (no hang either way);</li>
 * <li>asks for the wire back ({@code CTL/restore}, answered by {@code CTL/restored}) and, if the socket survived,
 * reads the 1 KiB echo and then echoes 1 MiB byte for byte: the socket stayed usable.</li>
 * </ol>
 * With {@code gone}, the "cut" is the removal of this host's RDMA device (the script deletes rxe0, and adds it back
 * at the end): the reads must end in an IOException within 30 s, and every later call must fail.
 * With {@code long}, the script ends the cut by itself after its own time (long enough for RDMA's retries to give
 * up) and the reads go on timing out meanwhile, as a pool's idle check would. Prints one verdict line
 * ({@code WIRE-CUT ...}) with the times it measured; exit 0 when the transport behaved as
 * one of the two allowed ways, 1 otherwise.
 */
public final class TwoHostWireCut {
    private static final int TIMEOUT_MS = 2000;
    /** With {@code gone} (the RDMA device removed under the connection): the transport must fail within this. */
    private static final long GONE_BOUND_MS = 30_000;

    public static void main(String[] args) throws Exception {
        if (args.length != 3 && args.length != 4) {
            System.err.println("usage: TwoHostWireCut HOST PORT CTL_DIR [long]");
            System.exit(2);
        }
        boolean gone = args.length == 4 && args[3].equals("gone");
        boolean longCut = gone || args.length == 4 && args[3].equals("long");
        InetSocketAddress to = new InetSocketAddress(InetAddress.getByName(args[0]), Integer.parseInt(args[1]));
        Path ctl = Path.of(args[2]);
        Random rnd = new Random(42);
        try (Socket s = new Socket()) {
            s.connect(to, 60_000);
            s.setSoTimeout(120_000);
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            echo(in, out, rnd, 64 * 1024);
            byte[] pending = new byte[1024];
            rnd.nextBytes(pending);
            signal(ctl, "cut", "cut-on");
            long cutAt = System.nanoTime();
            try {
                out.write(pending); // into the transport's buffers: it cannot leave this host until the wire is back
            } catch (IOException e) {
                if (!gone) {
                    throw e;
                }
                // the transport knew the device was gone: the write says so; every later call must fail too
                System.out.println("WIRE-CUT OK: the transport gave up: a write " + ms(cutAt) + " ms after the device "
                        + "was gone failed: " + e + "; " + laterFails(s, in, out));
                return;
            }
            long wrote = ms(cutAt);
            if (wrote > TIMEOUT_MS) { // a 1 KiB write must not wait for the wire (TCP's does not)
                System.out.println("WIRE-CUT FAIL: writing 1 KiB during the cut took " + wrote + " ms");
                System.exit(1);
            }
            s.setSoTimeout(TIMEOUT_MS);
            byte[] got = new byte[pending.length];
            String during;
            boolean survived;
            int pendingRead = 0;
            int timeouts = 0;
            while (true) {
                long t0 = System.nanoTime();
                try {
                    int n = in.read(got);
                    if (n > 0 && timeouts > 0 && Files.exists(ctl.resolve("restoring"))) { // a long cut ended
                        during = "reads timed out " + timeouts + " times on time (SO_TIMEOUT " + TIMEOUT_MS
                                + ") during the " + ms(cutAt) + " ms cut";
                        survived = true;
                        pendingRead = n; // the first n bytes of the echo: checked below with the rest
                        break;
                    }
                    System.out.println("WIRE-CUT FAIL: a read during the cut returned " + n + " bytes after "
                            + ms(t0) + " ms (SO_TIMEOUT " + TIMEOUT_MS + ", " + timeouts + " timeouts before; the wire "
                            + (Files.exists(ctl.resolve("restoring")) ? "was back by then" : "still cut") + ")");
                    System.exit(1);
                    return;
                } catch (SocketTimeoutException e) {
                    long ms = ms(t0);
                    timeouts++;
                    if (ms < TIMEOUT_MS - 50 || ms > TIMEOUT_MS + 3000) {
                        System.out.println("WIRE-CUT FAIL: read timed out after " + ms + " ms (SO_TIMEOUT "
                                + TIMEOUT_MS + "): not on time");
                        System.exit(1);
                    }
                    if (gone && ms(cutAt) > GONE_BOUND_MS) {
                        System.out.println("WIRE-CUT FAIL: no IOException within " + GONE_BOUND_MS + " ms after the "
                                + "RDMA device was removed (" + timeouts + " read timeouts)");
                        System.exit(1);
                    }
                    if (longCut && !Files.exists(ctl.resolve("restoring"))) {
                        continue; // the script ends the cut by itself: read on, as a pool's idle check would
                    }
                    during = (longCut ? "reads timed out " + timeouts + " times" : "read timed out after " + ms
                            + " ms") + " (SO_TIMEOUT " + TIMEOUT_MS + "): " + e;
                    survived = true;
                } catch (IOException e) {
                    during = "the transport gave up " + ms(cutAt) + " ms after the cut (" + timeouts
                            + " read timeouts before): " + e;
                    survived = false;
                }
                break;
            }
            System.out.println(during);
            if (!longCut) {
                signal(ctl, "restore", "restored");
            } else if (!gone) {
                await(ctl, "restored", 600);
            }
            if (gone && survived) {
                System.out.println("WIRE-CUT FAIL: the connection outlived its RDMA device: " + during);
                System.exit(1);
            }
            long restoredAt = System.nanoTime();
            System.out.println("wire cut for " + ms(cutAt) + " ms");
            if (survived) {
                s.setSoTimeout(120_000);
                new DataInputStream(in).readFully(got, pendingRead, got.length - pendingRead);
                if (!Arrays.equals(pending, got)) {
                    System.out.println("WIRE-CUT FAIL: the 1 KiB sent before the cut came back different");
                    System.exit(1);
                }
                long back = ms(restoredAt);
                echo(in, out, rnd, 1 << 20);
                s.shutdownOutput();
                if (in.read() != -1) {
                    System.out.println("WIRE-CUT FAIL: more bytes than were sent");
                    System.exit(1);
                }
                System.out.println("WIRE-CUT OK: " + during + "; the socket stayed usable: the 1 KiB sent before the "
                        + "cut was echoed " + back + " ms after the wire came back, then 1 MiB byte for byte");
            } else {
                System.out.println("WIRE-CUT OK: " + during + "; " + laterFails(s, in, out));
            }
        }
    }

    /** After the transport gave up: a later write and read must fail at once, saying why, never wait. */
    private static String laterFails(Socket s, InputStream in, OutputStream out) throws IOException {
        long t1 = System.nanoTime();
        try {
            out.write(new byte[16]);
            s.setSoTimeout(10_000);
            int n = in.read(new byte[16]);
            System.out.println("WIRE-CUT FAIL: after the transport gave up, "
                    + (n < 0 ? "a later read saw end-of-stream" : "a later read returned " + n + " bytes"));
        } catch (SocketTimeoutException e) {
            System.out.println("WIRE-CUT FAIL: after the transport gave up, a later read waited out its timeout: " + e);
        } catch (IOException e) {
            return "a later write/read failed in " + ms(t1) + " ms: " + e;
        }
        System.exit(1);
        return null;
    }

    private static void echo(InputStream in, OutputStream out, Random rnd, int size) throws IOException {
        byte[] data = new byte[size];
        rnd.nextBytes(data);
        byte[] back = new byte[size];
        DataInputStream din = new DataInputStream(in);
        for (int off = 0; off < size; off += 16 * 1024) { // in steps the echo server's buffer never blocks on
            int n = Math.min(16 * 1024, size - off);
            out.write(data, off, n);
            din.readFully(back, off, n);
        }
        if (!Arrays.equals(data, back)) {
            throw new IOException("echo differs at byte " + Arrays.mismatch(data, back));
        }
    }

    /** Creates CTL/ask and waits (60 s at most) for the step script's CTL/answer. */
    private static void signal(Path ctl, String ask, String answer) throws Exception {
        Files.writeString(ctl.resolve(ask), "");
        await(ctl, answer, 60);
    }

    private static void await(Path ctl, String answer, int seconds) throws Exception {
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        while (!Files.exists(ctl.resolve(answer))) {
            if (System.nanoTime() - end > 0) {
                System.out.println("WIRE-CUT FAIL: no " + answer + " from the step script within " + seconds + " s");
                System.exit(1);
            }
            Thread.sleep(20);
        }
    }

    private static long ms(long since) {
        return (System.nanoTime() - since) / 1_000_000;
    }
}
