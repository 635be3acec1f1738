package org.sdp4j.conf;

/** Which side of a connection a rule applies to: libsdp's {@code server|listen} and {@code client|connect}. */
public enum Role {
    SERVER, CLIENT;

    public String keyword() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
