package org.sdp4j.conf;

import java.net.InetAddress;
import java.util.Objects;

/**
 * One {@code use} statement of a libsdp.conf: {@code use FAMILY ROLE PROGRAM ADDRESS[/PREFIX]:PORTS}.
 * Immutable; {@link #matches} is the whole of libsdp's per-rule test.
 */
public final class Rule {
    private final int line;
    private final String text;
    private final Family family;
    private final Role role;
    private final String program;
    private final AddressPattern address;
    private final int portLow;
    private final int portHigh;
    private final Tunables tunables;

    /**
     * @param line     1-based line in the source file (0 for rules built in code)
     * @param text     the statement as written, for logs and {@code check}
     * @param program  fnmatch glob matched against the JVM's identity; {@code "*"} matches every program
     * @param address  address pattern; {@link AddressPattern#ANY} for {@code *}
     * @param portLow  first port, 0..65535 ({@code *} is 0..65535)
     * @param portHigh last port, inclusive
     */
    public Rule(int line, String text, Family family, Role role, String program, AddressPattern address,
                int portLow, int portHigh) {
        this(line, text, family, role, program, address, portLow, portHigh, Tunables.NONE);
    }

    /** @param tunables this rule's RDMA socket tunables (an {@code #sdp4j:} directive), {@link Tunables#NONE} if none */
    public Rule(int line, String text, Family family, Role role, String program, AddressPattern address,
                int portLow, int portHigh, Tunables tunables) {
        if (portLow < 0 || portHigh > 65535 || portLow > portHigh) {
            throw new IllegalArgumentException("bad port range " + portLow + "-" + portHigh);
        }
        this.line = line;
        this.text = Objects.requireNonNull(text, "text");
        this.family = Objects.requireNonNull(family, "family");
        this.role = Objects.requireNonNull(role, "role");
        this.program = Objects.requireNonNull(program, "program");
        this.address = Objects.requireNonNull(address, "address");
        this.portLow = portLow;
        this.portHigh = portHigh;
        this.tunables = Objects.requireNonNull(tunables, "tunables");
    }

    public int line() { return line; }
    public String text() { return text; }
    public Family family() { return family; }
    public Role role() { return role; }
    public String program() { return program; }
    public AddressPattern address() { return address; }
    public int portLow() { return portLow; }
    public int portHigh() { return portHigh; }
    public Tunables tunables() { return tunables; }

    /** The same rule with these tunables. */
    public Rule withTunables(Tunables t) {
        return new Rule(line, text, family, role, program, address, portLow, portHigh, t);
    }

    /** libsdp's test: same role, program glob matches, address within prefix, port within range. */
    public boolean matches(Role r, ProgramIdentity id, InetAddress addr, int port) {
        return role == r
                && port >= portLow && port <= portHigh
                && address.matches(addr)
                && id.matches(program);
    }

    @Override
    public String toString() {
        return line > 0 ? "line " + line + ": " + text : text;
    }
}
