package org.sdp4j.bench;

import java.io.IOException;
import java.net.InetAddress;

/**
 * The server end of a two-JVM benchmark ({@link Peer} starts it with the measuring JVM's own arguments):
 * <pre>
 *   PeerMain echo platform|virtual   an {@link EchoServer}
 *   PeerMain h2                      H2's TCP server (in-memory databases may be created by clients)
 *   PeerMain derby                   Derby 10.8's Network Server (DRDA, for the IBM Db2 driver)
 * </pre>
 * Prints {@code @@listening PORT} on standard output once it accepts connections, then serves until its standard
 * input closes (the measuring JVM exited or stopped it).
 */
public final class PeerMain {
    private PeerMain() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: PeerMain echo platform|virtual | h2 | derby");
            System.exit(2);
        }
        AutoCloseable server;
        int port;
        switch (args[0]) {
            case "echo": {
                EchoServer e = new EchoServer(ThreadKind.of(args.length > 1 ? args[1] : "platform"));
                server = e;
                port = e.port();
                break;
            }
            case "h2": {
                InetAddress host = DerbyDrdaServer.benchHost();
                port = DerbyDrdaServer.freePort(host);
                java.util.List<String> a = new java.util.ArrayList<>(java.util.List.of("-tcpPort", Integer.toString(port), "-ifNotExists"));
                if (!host.isLoopbackAddress()) a.add("-tcpAllowOthers");
                org.h2.tools.Server h2 = org.h2.tools.Server.createTcpServer(a.toArray(new String[0])).start();
                server = h2::stop;
                break;
            }
            case "derby": {
                if (!Boolean.getBoolean("sdp4j.bench.durable")) System.setProperty("derby.system.durability", "test");
                DerbyDrdaServer d = DerbyDrdaServer.start();
                server = d;
                port = d.port();
                break;
            }
            default:
                System.err.println("PeerMain: unknown server '" + args[0] + "'");
                System.exit(2);
                return;
        }
        System.out.println("@@listening " + port);
        System.out.flush();
        try {
            while (System.in.read() >= 0) {
                // nothing to read: wait for end of input
            }
        } catch (IOException gone) {
            // the measuring JVM is gone
        }
        server.close();
        System.exit(0);
    }
}
