package org.sdp4j.ucx;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.openucx.jucx.UcxUtils;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpEndpointParams;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;
import org.openucx.jucx.ucp.UcpWorkerParams;

/**
 * A diagnostic, not a test (issue 18, docs/ucx-links.md, item 5): what a UCX worker shared by many connections does
 * to sdp4j's own waiting code. N connections, each with a client and an echo thread doing 64 B ping-pongs through
 * {@link UcxConnection} (its {@link UcxWait}), every connection on a worker pair of its own ("own") or all N on one
 * shared worker pair ("shared", endpoints made in one order), the two interleaved; prints round trips per second
 * and the process's CPU per round trip. Connections are made by hand (no rendezvous, no watchdog); the process
 * exits without closing them.
 *
 * <pre>
 * mvn -q -o -pl sdp-ucx test-compile dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt
 * java -Dns=1,2,4,8 -cp sdp-ucx/target/test-classes:sdp-ucx/target/classes:$(cat /tmp/cp.txt) \
 *     org.sdp4j.ucx.SharedWorkerProbe platform|virtual ROUNDS [shared|own N]
 * </pre>
 */
public final class SharedWorkerProbe {
    private static final long WAITALL = org.openucx.jucx.ucp.UcpConstants.UCP_STREAM_RECV_FLAG_WAITALL;

    static UcpWorker worker() throws Exception {
        return Ucx.context().newWorker(new UcpWorkerParams().requestThreadSafety().requestWakeupRX().requestWakeupTX());
    }

    static SocketChannel[] socketPair() throws Exception {
        java.nio.file.Path p = java.nio.file.Files.createTempDirectory("srtt").resolve("s");
        try (ServerSocketChannel ss = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            ss.bind(UnixDomainSocketAddress.of(p));
            SocketChannel c = SocketChannel.open(UnixDomainSocketAddress.of(p));
            return new SocketChannel[] {c, ss.accept()};
        }
    }

    static void wire(UcpWorker a, UcpEndpoint ea, UcpWorker b, UcpEndpoint eb) throws Exception {
        ByteBuffer buf = ByteBuffer.allocateDirect(32);
        long addr = UcxUtils.getAddress(buf);
        UcpRequest[] rs = {ea.sendStreamNonBlocking(addr, 8, null), eb.sendStreamNonBlocking(addr + 8, 8, null),
                ea.recvStreamNonBlocking(addr + 16, 8, WAITALL, null),
                eb.recvStreamNonBlocking(addr + 24, 8, WAITALL, null)};
        for (UcpRequest r : rs) {
            while (!r.isCompleted()) {
                a.progress();
                b.progress();
            }
        }
    }

    static ByteBuffer[] staging() {
        return new ByteBuffer[] {Staging.staging(), Staging.staging()};
    }

    /** N connection pairs {client, server}: shared worker pair or one each. */
    static UcxConnection[][] connections(int n, boolean shared) throws Exception {
        UcxConnection[][] cs = new UcxConnection[n][2];
        UcpWorker wc = shared ? worker() : null, wl = shared ? worker() : null;
        for (int i = 0; i < n; i++) {
            UcpWorker c = shared ? wc : worker(), l = shared ? wl : worker();
            UcpEndpoint ec = c.newEndpoint(new UcpEndpointParams().setUcpAddress(l.getAddress()));
            UcpEndpoint el = l.newEndpoint(new UcpEndpointParams().setUcpAddress(c.getAddress()));
            wire(c, ec, l, el);
            SocketChannel[] sp = socketPair();
            cs[i][0] = new UcxConnection(new Link(c, ec, sp[0]), 2 * i, 2 * i + 1, staging());
            cs[i][1] = new UcxConnection(new Link(l, el, sp[1]), 2 * i + 1, 2 * i, staging());
        }
        return cs;
    }

    static double[] run(UcxConnection[][] cs, boolean virtual, long millis) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong trips = new AtomicLong();
        List<Thread> ts = new ArrayList<>();
        for (UcxConnection[] pair : cs) {
            Runnable echo = () -> {
                byte[] b = new byte[64];
                try {
                    while (true) {
                        int got = 0;
                        while (got < 64) {
                            int r = pair[1].in.read(b, got, 64 - got, 0);
                            if (r < 0) return;
                            got += r;
                        }
                        if (b[0] == 1) return;
                        pair[1].out.write(b, 0, 64);
                    }
                } catch (Exception e) {
                    e.printStackTrace();
                }
            };
            Runnable client = () -> {
                byte[] b = new byte[64];
                try {
                    while (!stop.get()) {
                        pair[0].out.write(b, 0, 64);
                        int got = 0;
                        while (got < 64) got += pair[0].in.read(b, got, 64 - got, 0);
                        trips.incrementAndGet();
                    }
                    b[0] = 1;
                    pair[0].out.write(b, 0, 64);
                } catch (Exception e) {
                    e.printStackTrace();
                }
            };
            ts.add(start(echo, virtual));
            ts.add(start(client, virtual));
        }
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean)
                        java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        Thread.sleep(200); // warm
        long t0 = System.nanoTime(), c0 = os.getProcessCpuTime(), n0 = trips.get();
        Thread.sleep(millis);
        long t1 = System.nanoTime(), c1 = os.getProcessCpuTime(), n1 = trips.get();
        stop.set(true);
        for (Thread t : ts) t.join(10_000);
        double n = n1 - n0;
        return new double[] {n / ((t1 - t0) / 1e9), (c1 - c0) / 1e3 / n};
    }

    /** A started thread, virtual (JDK 21+; by reflection: sdp4j builds for release 17) or platform. */
    static Thread start(Runnable r, boolean virtual) throws Exception {
        Thread t;
        if (virtual) {
            Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
            t = (Thread) Class.forName("java.lang.Thread$Builder").getMethod("unstarted", Runnable.class)
                    .invoke(builder, r);
        } else {
            t = new Thread(r);
        }
        t.start();
        return t;
    }

    public static void main(String[] a) throws Exception {
        boolean virtual = a[0].equals("virtual");
        int rounds = Integer.parseInt(a[1]);
        if (a.length > 3) { // one configuration for a profiler: threads rounds shared|own N
            UcxConnection[][] cs = connections(Integer.parseInt(a[3]), a[2].equals("shared"));
            double[] res = run(cs, virtual, 5000);
            System.out.printf("%s N=%s: %.0f rt/s %.1f us CPU/rt%n", a[2], a[3], res[0], res[1]);
            System.exit(0);
        }
        for (int r = 0; r < rounds; r++) {
            for (String ns : System.getProperty("ns", "1,2,4,8").split(",")) {
                int n = Integer.parseInt(ns);
                StringBuilder line = new StringBuilder("round " + r + " N=" + n + ":");
                for (boolean shared : new boolean[] {false, true}) {
                    UcxConnection[][] cs = connections(n, shared);
                    double[] res = run(cs, virtual, 1000);
                    line.append(String.format(" %s %.0f rt/s %.1f us CPU/rt;", shared ? "shared" : "own", res[0],
                            res[1]));
                }
                System.out.println(line);
            }
        }
        System.exit(0);
    }
}
