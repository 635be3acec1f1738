package org.sdp4j.rsocket;

import java.net.SocketException;
import java.util.ServiceLoader;

import org.sdp4j.transport.Transport;

/** Child-JVM main of {@link RsocketAvailabilityTest}: prints what this JVM's rsocket transport says about itself. */
public final class AvailabilityProbe {
    public static void main(String[] args) throws Exception {
        Transport t = null;
        for (Transport x : ServiceLoader.load(Transport.class)) {
            if (x.name().equals("rsocket")) {
                t = x;
            }
        }
        System.out.println("found=" + (t != null) + " class=" + (t == null ? "" : t.getClass().getName())
                + " family=" + (t == null ? "" : t.family()));
        System.out.println("available=" + t.isAvailable());
        Throwable c = t.unavailabilityCause();
        System.out.println("cause=" + (c == null ? "null" : c.getClass().getName() + ": " + c.getMessage()));
        try {
            t.newSocketImpl(false);
            System.out.println("newSocketImpl=ok");
        } catch (SocketException e) {
            System.out.println("newSocketImpl=" + e.getMessage() + " | causeKept=" + (e.getCause() == c));
        }
        System.out.println("loaded=" + Rsocket.isLoaded());
    }
}
