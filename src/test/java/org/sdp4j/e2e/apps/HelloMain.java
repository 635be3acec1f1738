package org.sdp4j.e2e.apps;

/**
 * The smallest user program: prints {@code MAIN RAN}, then (with an argument) talks to the banner server at
 * HOST:PORT. Exit 0 when everything worked, 3 when the connection failed.
 */
public final class HelloMain {
    private HelloMain() {}

    public static void main(String[] args) {
        System.out.println("MAIN RAN");
        boolean ok = true;
        for (String hostPort : args) {
            ok &= Side.talk(hostPort, "hello");
        }
        System.out.flush();
        System.exit(ok ? 0 : 3);
    }
}
