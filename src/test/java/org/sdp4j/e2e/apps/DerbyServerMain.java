package org.sdp4j.e2e.apps;

import java.io.PrintWriter;
import java.net.InetAddress;

import org.apache.derby.drda.NetworkServerControl;

/**
 * Derby 10.8.3.0's Network Server (DRDA) as its own JVM: {@code DerbyServerMain HOST PORT DERBY_HOME}.
 * Prints {@code DERBY READY PORT} once it answers a ping; shuts down when stdin reaches EOF.
 */
public final class DerbyServerMain {
    private DerbyServerMain() {}

    public static void main(String[] args) throws Exception {
        String host = args[0];
        int port = Integer.parseInt(args[1]);
        System.setProperty("derby.system.home", args[2]);
        System.setProperty("derby.stream.error.file", args[2] + "/derby.log");
        // a throw-away test database: no fsync per commit (4000 autocommitted INSERTs on a shared disk)
        System.setProperty("derby.system.durability", "test");
        NetworkServerControl server = new NetworkServerControl(InetAddress.getByName(host), port);
        server.start(new PrintWriter(System.out, true));
        long end = System.currentTimeMillis() + 60_000;
        Exception last = null;
        while (System.currentTimeMillis() < end) {
            try {
                server.ping();
                last = null;
                break;
            } catch (Exception e) {
                last = e;
                Thread.sleep(100);
            }
        }
        if (last != null) {
            System.out.println("DERBY FAILED " + last);
            System.exit(1);
        }
        System.out.println("DERBY READY " + port);
        System.out.flush();
        // until the parent closes our stdin
        while (System.in.read() >= 0) {
            // ignore input
        }
        server.shutdown();
        System.out.println("DERBY STOPPED");
        System.exit(0);
    }
}
