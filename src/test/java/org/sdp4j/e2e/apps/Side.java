package org.sdp4j.e2e.apps;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** The "LDAP" side connection of the child programs: java.net.Socket, banner, one line, its echo. */
final class Side {
    private Side() {}

    /** Prints {@code SIDE OK <banner>} or {@code SIDE FAILED <exception>}; returns whether it worked. */
    static boolean talk(String hostPort, String who) {
        int colon = hostPort.lastIndexOf(':');
        String host = hostPort.substring(0, colon);
        int port = Integer.parseInt(hostPort.substring(colon + 1));
        try (Socket s = new Socket(host, port)) {
            s.setSoTimeout(10_000);
            BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
            String banner = in.readLine();
            OutputStream out = s.getOutputStream();
            out.write(("hello from " + who + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            String echo = in.readLine();
            if (!("echo: hello from " + who).equals(echo)) {
                System.out.println("SIDE FAILED unexpected answer " + echo);
                return false;
            }
            System.out.println("SIDE OK " + banner);
            return true;
        } catch (Exception e) {
            System.out.println("SIDE FAILED " + e);
            printChain("SIDE CAUSE ", e);
            return false;
        }
    }

    /** Every exception of a chain (getCause, and SQLException.getNextException), one line each. */
    static void printChain(String prefix, Throwable t) {
        java.util.Set<Throwable> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        java.util.ArrayDeque<Throwable> todo = new java.util.ArrayDeque<>();
        todo.add(t);
        while (!todo.isEmpty()) {
            Throwable x = todo.poll();
            if (x == null || !seen.add(x)) {
                continue;
            }
            System.out.println(prefix + x.getClass().getName() + ": " + String.valueOf(x.getMessage()).replace('\n', ' '));
            if (x.getCause() != null) {
                todo.add(x.getCause());
            }
            if (x instanceof java.sql.SQLException && ((java.sql.SQLException) x).getNextException() != null) {
                todo.add(((java.sql.SQLException) x).getNextException());
            }
        }
    }
}
