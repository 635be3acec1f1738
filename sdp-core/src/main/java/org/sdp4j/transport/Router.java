package org.sdp4j.transport;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.util.Objects;
import java.util.function.Function;

import org.sdp4j.conf.Family;
import org.sdp4j.conf.Match;
import org.sdp4j.conf.ProgramIdentity;
import org.sdp4j.conf.Role;
import org.sdp4j.conf.RuleSet;
import org.sdp4j.log.SdpLog;
import org.sdp4j.ops.Counters;
import org.sdp4j.ops.Jfr;

/**
 * The fallback decision. For each connect and listen: the first matching libsdp.conf rule gives a family, and
 * this class turns it into the transport actually used — {@code tcp} untouched, {@code sdp} over the RDMA
 * transport or the application's exception saying why not, {@code both} over RDMA within a bounded time and
 * otherwise TCP, remembering a failed destination for a while. Every outcome is one log line (level 7).
 *
 * <p>The socket layers (java.net and NIO) supply the two ways to connect as callbacks; the Router never touches a
 * socket itself, so the same decision serves both layers and every transport.
 */
public final class Router {

    /** Connects over TCP with the given timeout (0 = none), on the caller's socket. */
    @FunctionalInterface
    public interface TcpPath {
        void connect(int timeoutMillis) throws IOException;
    }

    /** Connects over {@code transport} within the timeout; on failure leaves the caller's TCP path untouched. */
    @FunctionalInterface
    public interface RdmaPath {
        void connect(Transport transport, int timeoutMillis) throws IOException;
    }

    /** Server side: switch a bound listener to the given plan. */
    public interface ListenPaths {
        /** Listen on TCP only (the socket is already bound there). */
        void tcp() throws IOException;

        /** Listen on the RDMA transport only, on the same address and port. */
        void rdma(Transport transport) throws IOException;

        /** Listen on both, accepting whichever comes first. */
        void both(Transport transport) throws IOException;
    }

    private final RuleSet rules;
    private final ProgramIdentity program;
    private final Settings settings;
    private final NegativeCache failed;
    private final Function<Family, Transport> transports;

    /**
     * @param settings {@code both} attempt bound and retry interval, see {@link Settings}
     */
    public Router(RuleSet rules, ProgramIdentity program, Settings settings) {
        this(rules, program, settings, Transports::forFamily);
    }

    /** @param transports the transport serving a family, or null when none is installed ({@link Transports}) */
    public Router(RuleSet rules, ProgramIdentity program, Settings settings, Function<Family, Transport> transports) {
        this.rules = Objects.requireNonNull(rules, "rules");
        this.program = Objects.requireNonNull(program, "program");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.transports = Objects.requireNonNull(transports, "transports");
        this.failed = new NegativeCache(settings.retryMillis());
    }

    /** The caller's connect timeout during a bounded attempt on this thread (see {@link #callerTimeoutMillis}). */
    private static final ThreadLocal<int[]> CALLER_TIMEOUT = new ThreadLocal<>();

    /**
     * During a {@code both}/{@code ucx} attempt, on the thread making it: the connect timeout the application gave
     * (0: none); -1 outside an attempt. The attempt's own bound ({@code sdp4j.both.timeout}) is for finding out
     * whether the accelerated transport can serve at all; a transport that has found out (UCX: a live listener of
     * the right account took the connection into its queue) may take until the caller's own timeout to finish,
     * as a TCP connect to a busy listener would, instead of falling back for being queued.
     */
    public static int callerTimeoutMillis() {
        int[] t = CALLER_TIMEOUT.get();
        return t == null ? -1 : t[0];
    }

    public RuleSet rules() { return rules; }
    public ProgramIdentity program() { return program; }

    /** The negative cache (stat, JMX): each destination a failed RDMA attempt sends to TCP for now, and why. */
    public java.util.List<String> recentFailures() {
        return failed.describe();
    }
    public Settings settings() { return settings; }

    /** The rule decision alone, as {@code check} prints it. */
    public Match match(Role role, InetSocketAddress address) {
        return rules.match(role, program, address.getAddress(), address.getPort());
    }

    /**
     * Connects {@code remote} the way the rules say. Returns the transport that carries the connection.
     * An unresolved address goes to TCP untouched: the JDK reports it (or hands it to a SOCKS proxy) as it would
     * without sdp4j, and a rule cannot match an address that is not known.
     */
    public Transport connect(InetSocketAddress remote, int timeoutMillis, RdmaPath rdma, TcpPath tcp)
            throws IOException {
        long start = System.nanoTime();
        if (remote.isUnresolved()) {
            tcp.connect(timeoutMillis);
            return TcpTransport.INSTANCE;
        }
        return connect(remote, match(Role.CLIENT, remote), timeoutMillis, rdma, tcp, start);
    }

    private Transport connect(InetSocketAddress remote, Match m, int timeoutMillis, RdmaPath rdma, TcpPath tcp,
                              long start) throws IOException {
        switch (m.family()) {
            case TCP -> {
                tcpOrLog(remote, m, tcp, timeoutMillis, null, start);
                return TcpTransport.INSTANCE;
            }
            case SDP -> {
                String refused = UcxRdmaCmPorts.refusal(remote.getAddress(), remote.getPort());
                if (refused != null) {
                    decided(Role.CLIENT, remote, m, "none", null, refused, start);
                    throw new ConnectException("sdp4j: " + where(m) + " sends " + hostPort(remote) + " to RDMA, but "
                            + refused);
                }
                Transport t = transports.apply(Family.SDP);
                if (t == null || !t.isAvailable()) {
                    String why = unavailable(Family.SDP, t);
                    decided(Role.CLIENT, remote, m, "none", null, why, start);
                    throw (ConnectException) new ConnectException("sdp4j: " + where(m) + " sends " + hostPort(remote)
                            + " to RDMA, but " + why).initCause(t == null ? null : t.unavailabilityCause());
                }
                UcxRdmaCmPorts.connecting(remote.getPort());
                try {
                    return connectOn(t, remote, timeoutMillis, m, rdma, start);
                } finally {
                    UcxRdmaCmPorts.connected(remote.getPort());
                }
            }
            case SMC -> {
                return connectSmc(remote, timeoutMillis, m, rdma, tcp, start);
            }
            default -> {
                // both (rsockets) and ucx: the accelerated transport within a bounded time, else TCP
                return connectBoth(remote, timeoutMillis, m, rdma, tcp, start);
            }
        }
    }

    private Transport connectBoth(InetSocketAddress remote, int timeoutMillis, Match m, RdmaPath rdma, TcpPath tcp,
                                  long start) throws IOException {
        Family f = m.family().transportFamily();
        Transport t = transports.apply(f);
        if (t == null || !t.isAvailable()) {
            tcpOrLog(remote, m, tcp, timeoutMillis, unavailable(f, t), start);
            return TcpTransport.INSTANCE;
        }
        String recent = f == Family.SDP ? UcxRdmaCmPorts.refusal(remote.getAddress(), remote.getPort()) : null;
        if (recent == null) {
            recent = recentFailure(t, remote);
        }
        if (recent != null) {
            tcpOrLog(remote, m, tcp, timeoutMillis, recent, start);
            return TcpTransport.INSTANCE;
        }
        int bound = (int) Math.min(Integer.MAX_VALUE, settings.bothTimeoutMillis());
        int attempt = timeoutMillis > 0 ? Math.min(timeoutMillis, bound) : bound;
        long attemptStart = System.nanoTime();
        int[] outer = CALLER_TIMEOUT.get();
        CALLER_TIMEOUT.set(new int[] {Math.max(0, timeoutMillis)});
        if (f == Family.SDP) {
            UcxRdmaCmPorts.connecting(remote.getPort()); // a ucx rendezvous starting on that port waits for it
        }
        try {
            rdma.connect(t, attempt);
            failed.succeeded(remote);
            decided(Role.CLIENT, remote, m, t.name(), null, null, start);
            return t;
        } catch (IOException e) {
            String reason = t.name() + " connect failed: " + e.getMessage();
            failed.failed(remote, reason);
            int left = timeoutMillis;
            if (timeoutMillis > 0) {
                long spent = (System.nanoTime() - attemptStart) / 1_000_000L;
                left = (int) Math.max(1, timeoutMillis - spent);
            }
            tcpOrLog(remote, m, tcp, left, reason, start);
            return TcpTransport.INSTANCE;
        } finally {
            if (f == Family.SDP) {
                UcxRdmaCmPorts.connected(remote.getPort());
            }
            if (outer == null) {
                CALLER_TIMEOUT.remove();
            } else {
                CALLER_TIMEOUT.set(outer);
            }
        }
    }

    /**
     * {@code smc}: the kernel's SMC socket with the caller's own timeout; the protocol falls back to TCP by itself,
     * so a failure is the application's exception as a TCP connect's would be. Without SMC in this kernel: TCP.
     */
    private Transport connectSmc(InetSocketAddress remote, int timeoutMillis, Match m, RdmaPath rdma, TcpPath tcp,
                                 long start) throws IOException {
        Transport t = transports.apply(Family.SMC);
        if (t == null || !t.isAvailable()) {
            tcpOrLog(remote, m, tcp, timeoutMillis, unavailable(Family.SMC, t), start);
            return TcpTransport.INSTANCE;
        }
        return connectOn(t, remote, timeoutMillis, m, rdma, start);
    }

    /** Connects over {@code t} with the caller's timeout; a failure is the application's exception. */
    private Transport connectOn(Transport t, InetSocketAddress remote, int timeoutMillis, Match m, RdmaPath rdma,
                                long start) throws IOException {
        try {
            rdma.connect(t, timeoutMillis);
        } catch (IOException e) {
            decided(Role.CLIENT, remote, m, t.name(), null, e.toString(), start);
            throw e;
        }
        decided(Role.CLIENT, remote, m, t.name(), null, null, start);
        return t;
    }

    /** Why {@code remote} goes straight to TCP for now (the negative cache), or null. */
    private String recentFailure(Transport t, InetSocketAddress remote) {
        NegativeCache.Failure recent = failed.recent(remote);
        return recent == null ? null : t.name() + " to " + hostPort(remote) + " failed " + ago(recent.atNanos())
                + " ago (" + recent.reason() + "); next attempt after " + failed.retryMillis() + " ms";
    }

    /** Starts a connect over {@code transport} without waiting: true when it completed at once. */
    @FunctionalInterface
    public interface RdmaStart {
        boolean start(Transport transport) throws IOException;
    }

    /**
     * A non-blocking connect's RDMA attempt under a {@code both} or {@code ucx} rule, not finished yet: the
     * channel's {@code finishConnect} ends it with {@link #connected} or {@link #fallBack}, and the decision is
     * logged then (one line per connect, as for a blocking one).
     */
    public final class Pending {
        private final InetSocketAddress remote;
        private final Match m;
        private final Transport t;
        private final long start;
        /** When the attempt bound ({@code sdp4j.both.timeout}) passes. */
        public final long deadlineNanos;
        public final int boundMillis;

        private Pending(InetSocketAddress remote, Match m, Transport t, long start, int boundMillis) {
            this.remote = remote;
            this.m = m;
            this.t = t;
            this.start = start;
            this.boundMillis = boundMillis;
            this.deadlineNanos = System.nanoTime() + boundMillis * 1_000_000L;
        }

        public boolean expired() {
            return deadlineNanos - System.nanoTime() <= 0;
        }

        /** The attempt connected. */
        public void connected() {
            failed.succeeded(remote);
            decided(Role.CLIENT, remote, m, t.name(), null, null, start);
        }

        /** The attempt failed ({@code why}) or its bound passed: remembered, and the TCP path starts. */
        public void fallBack(IOException why, TcpPath tcp) throws IOException {
            String reason = t.name() + " connect failed: " + why.getMessage();
            failed.failed(remote, reason);
            tcpOrLog(remote, m, tcp, 0, reason, start);
        }
    }

    /**
     * NIO's non-blocking connect: decided as {@link #connect} decides, but an RDMA attempt is only started. Returns
     * null when the connect is decided now (connected, or under way on its final transport), or the attempt when a
     * {@code both}/{@code ucx} rule may still send it to TCP; {@code tcp} starts a non-blocking TCP connect.
     */
    public Pending connectNonBlocking(InetSocketAddress remote, RdmaStart rdma, TcpPath tcp) throws IOException {
        long start = System.nanoTime();
        Match m = remote.isUnresolved() ? null : match(Role.CLIENT, remote);
        if (m == null || m.family() == Family.TCP || m.family() == Family.SDP || m.family() == Family.SMC) {
            if (m == null) {
                tcp.connect(0);
            } else {
                connect(remote, m, 0, (t, ms) -> rdma.start(t), tcp, start);
            }
            return null;
        }
        Family f = m.family().transportFamily();
        Transport t = transports.apply(f);
        String notNow = t == null || !t.isAvailable() ? unavailable(f, t) : recentFailure(t, remote);
        if (notNow != null) {
            tcpOrLog(remote, m, tcp, 0, notNow, start);
            return null;
        }
        int[] outer = CALLER_TIMEOUT.get();
        CALLER_TIMEOUT.set(new int[] {0}); // a non-blocking connect has no timeout of its own
        boolean done;
        try {
            done = rdma.start(t);
        } catch (IOException e) {
            String reason = t.name() + " connect failed: " + e.getMessage();
            failed.failed(remote, reason);
            tcpOrLog(remote, m, tcp, 0, reason, start);
            return null;
        } finally {
            if (f == Family.SDP) {
                UcxRdmaCmPorts.connected(remote.getPort());
            }
            if (outer == null) {
                CALLER_TIMEOUT.remove();
            } else {
                CALLER_TIMEOUT.set(outer);
            }
        }
        Pending p = new Pending(remote, m, t, start, (int) Math.min(Integer.MAX_VALUE, settings.bothTimeoutMillis()));
        if (done) {
            p.connected();
            return null;
        }
        return p;
    }

    private void tcpOrLog(InetSocketAddress remote, Match m, TcpPath tcp, int timeoutMillis, String reason,
                          long start) throws IOException {
        try {
            tcp.connect(timeoutMillis);
        } catch (IOException e) {
            decided(Role.CLIENT, remote, m, "tcp", reason, e.toString(), start);
            throw e;
        }
        decided(Role.CLIENT, remote, m, "tcp", reason, null, start);
    }

    /**
     * Decides a listener bound at {@code local} (the actual address and port, after an ephemeral bind).
     * @return the transport the listener accepts on ({@code both}: the RDMA transport, TCP being implied)
     */
    public Transport listen(InetSocketAddress local, ListenPaths paths) throws IOException {
        long start = System.nanoTime();
        Match m = match(Role.SERVER, local);
        Family f = m.family().transportFamily();
        Transport t = m.family() == Family.TCP ? null : transports.apply(f);
        boolean rdmaOk = t != null && t.isAvailable();
        switch (m.family()) {
            case TCP -> {
                paths.tcp();
                decided(Role.SERVER, local, m, "tcp", null, null, start);
                return TcpTransport.INSTANCE;
            }
            case SDP -> {
                if (!rdmaOk) {
                    String why = unavailable(f, t);
                    decided(Role.SERVER, local, m, "none", null, why, start);
                    throw (SocketException) new SocketException("sdp4j: " + where(m) + " puts the listener "
                            + hostPort(local) + " on RDMA, but " + why)
                            .initCause(t == null ? null : t.unavailabilityCause());
                }
                return listenOn(t, local, m, paths, start);
            }
            case SMC -> {
                if (!rdmaOk) {
                    paths.tcp();
                    decided(Role.SERVER, local, m, "tcp", unavailable(f, t), null, start);
                    return TcpTransport.INSTANCE;
                }
                // a listener the kernel's SMC serves: SMC clients and, by the protocol, TCP ones
                return listenOn(t, local, m, paths, start);
            }
            default -> {
                if (!rdmaOk) {
                    paths.tcp();
                    decided(Role.SERVER, local, m, "tcp", unavailable(f, t), null, start);
                    return TcpTransport.INSTANCE;
                }
                try {
                    paths.both(t);
                } catch (IOException e) {
                    paths.tcp();
                    decided(Role.SERVER, local, m, "tcp", t.name() + " listen failed: " + e, null, start);
                    return TcpTransport.INSTANCE;
                }
                decided(Role.SERVER, local, m, t.name() + "+tcp", null, null, start);
                return t;
            }
        }
    }

    /** Listens on {@code t} alone; a failure is the application's exception. */
    private Transport listenOn(Transport t, InetSocketAddress local, Match m, ListenPaths paths, long start)
            throws IOException {
        try {
            paths.rdma(t);
        } catch (IOException e) {
            decided(Role.SERVER, local, m, t.name(), null, e.toString(), start);
            throw e;
        }
        decided(Role.SERVER, local, m, t.name(), null, null, start);
        return t;
    }

    /**
     * One decision: logged (at the decision level), counted for stat and JMX ({@link Counters}) and, where a
     * recording runs, a JFR event ({@link Jfr}): three views of the same line.
     */
    private void decided(Role role, InetSocketAddress a, Match m, String transport, String fallback, String error,
                         long start) {
        SdpLog.decision(role, a, program, m, transport, fallback, error);
        Counters.decision(role, transport, fallback, error);
        if (Jfr.enabled()) {
            Jfr.decision(role, hostPort(a), m.origin(), m.family().keyword(), transport, fallback, error, start);
        }
    }

    private static String unavailable(Family f, Transport t) {
        if (t == null) {
            return f == Family.UCX ? "no UCX transport is installed (sdp-ucx is not on the class path)"
                    : "no " + (f == Family.SMC ? "SMC" : "RDMA") + " transport is installed (sdp-jni is not on the class path)";
        }
        Throwable c = t.unavailabilityCause();
        return t.name() + " is unavailable: " + (c == null ? "unknown reason" : c.getMessage());
    }

    private static String where(Match m) {
        return m.isDefault() ? "the default (no rule matched)" : m.rule().toString();
    }

    /** host:port as the decision log writes it (an IPv6 address in brackets). */
    public static String hostPort(InetSocketAddress a) {
        String host = a.getAddress() != null ? a.getAddress().getHostAddress() : a.getHostString();
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + a.getPort();
    }

    private static String ago(long atNanos) {
        long ms = (System.nanoTime() - atNanos) / 1_000_000L;
        return ms < 10_000 ? ms + " ms" : (ms / 1000) + " s";
    }

    /**
     * How {@code both} behaves. {@code sdp4j.both.timeout} (ms, default 2000) bounds an RDMA attempt, address and
     * route resolution included; {@code sdp4j.both.retry} (ms, default 60000) is how long a destination where
     * RDMA failed goes straight to TCP (0 disables the memory).
     */
    public record Settings(long bothTimeoutMillis, long retryMillis) {
        public static final Settings DEFAULT = new Settings(2000, 60_000);

        public static Settings fromSystemProperties() {
            return new Settings(Props.longProperty("sdp4j.both.timeout", DEFAULT.bothTimeoutMillis, 0),
                    Props.longProperty("sdp4j.both.retry", DEFAULT.retryMillis, 0));
        }
    }
}
