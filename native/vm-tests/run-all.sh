#!/usr/bin/env bash
# The RDMA suite, run INSIDE the soft-RoCE VM:  native/vm/run-in-vm.sh -- native/vm-tests/run-all.sh
# Runs only what the host built (mvn package: sdp-core, sdp-jni classes + test classes + libsdp4j.so, the JUnit
# console launcher; native/build/vm-tests/*). Steps:
#   0  rxe0 is up (port ACTIVE on the dummy interface's 10.9.9.1)
#   a  the RsocketSocketImpl JUnit tests over real rsockets on 10.9.9.1 (1 MiB echo, random-size stream, SO_TIMEOUT,
#      available(), async close of read/accept/write, connect refused, connect timeout to 10.9.9.2, options, poller)
#      and the JNI argument checks with a live rsocket
#   b  proof RDMA carried it: rxe0's sent_pkts/rcvd_pkts counters must grow, in a and in each interop step
#   c  interop: the sdp4j client against rs_echo (C, rsocket API); a plain C TCP client under
#      LD_PRELOAD=librspreload.so against the sdp4j server; the sdp4j client against rdma-core's rstream server
#      (its sync + transfer protocol, data verified on both sides)
#   d  through the agent (sdp-jdbc/target/sdp4j-agent.jar): a plain java.net echo client and server on
#      "use sdp" rules; the decision log must name transport=rsocket for both ends
#   e  through the agent: the IBM Db2 JDBC driver against Derby 10.8.3.0's DRDA server, both ends "use sdp"
#   f  through the agent: the same JDBC workload with the client on "use both" and the server on TCP only (fallback)
#   g  through the agent: a "use both" server (rsockets + TCP on one port) serving an sdp and a tcp client
#   (d to g are skipped when the agent jar is not built)
#   h  NIO over rsockets: the RsocketNioTest JUnit class on 10.9.9.1 (SocketChannel echo on heap/direct buffers with
#      scatter/gather, socket adaptors, async close and interrupt of a blocked read, the sdp4j provider on "sdp" and
#      "both" rules, one Selector over rsocket channels + a TCP channel + a Pipe, a non-blocking "both" connect that
#      falls back, a "both" ServerSocketChannel accepting an rsocket and a TCP client on one port, no fd leaks) and
#      RsocketTunablesTest (global -Dsdp4j.rsocket.inline, per-rule #sdp4j: directives, per-socket RsocketOptions
#      reach rsetsockopt and read back with rgetsockopt; a busypoll spin sees data and a close); rxe0's counters must grow
#   i  the transport contract (docs/transport-contract.md): sdp-core's org.sdp4j.contract suite subclassed for
#      "use sdp" both ends, and a "use both" server with an rsocket and with a TCP client (SDP4J_CONTRACT_CLASSES: classes)
#   j  many concurrent rsocket connections (native/vm-tests/concurrent.sh; SDP4J_CONCURRENT, default "16 256";
#      "16 256 1000" adds 1,000 platform-thread connections, ~7 min more on a loaded host)
#   k  virtual threads park instead of pinning (native/vm-tests/virtual.sh; Temurin 25, parallelism 2, JFR)
#   l  an RDMA resource limit (native/vm-tests/memlock.sh): nobody with `ulimit -l 64` gets an error naming
#      RLIMIT_MEMLOCK on "use sdp" and falls back to TCP on "use both", never a hang or a crash
#   m  the JCC workload on virtual threads through HikariCP on "use sdp" (native/vm-tests/pooled.sh; Temurin 25,
#      parallelism 2, Derby's DRDA server, every row checked, every pooled connection on rsocket, JFR)
#   n  `sdp4j-agent.jar stat` against a JVM holding four rsocket connections (native/vm-tests/stat.sh): one line
#      each with its bytes and rule, text and JSON
#   o  `use smc` on the VM's 6.1 kernel (native/vm-tests/smc.sh): java.net and NIO echo through the agent with both
#      ends on the kernel's SMC socket, each connection's outcome logged from smc_diag (on 6.1 over rxe: TCP by the
#      protocol, with the kernel's reason; SMC-R itself: two-hosts.sh)
#   (l to o are skipped when the agent jar is not built)
# SDP4J_RDMA_SKIP="d e f o" leaves those steps out, each a SKIP line naming the stage that runs it instead (test.sh
# does when its two-host stages run).
# Closing line: "N passed, M failed[, K skipped]"; exit status 0 only when nothing failed.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
out=${SDP4J_OUT:-/tmp/sdp4j-vm-out}
# glibc reports heap corruption ("double free detected") on the terminal when there is one: on stderr, into the logs
export LIBC_FATAL_STDERR_=1
mkdir -p "$out"
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
addr=10.9.9.1
dev=rxe0
hw=/sys/class/infiniband/$dev/ports/1/hw_counters
passed=0 failed=0 skipped=0
summary=()

log() { echo "== $*"; }
# want STEP WHERE: 0 unless STEP is in SDP4J_RDMA_SKIP (test.sh leaves out the steps its later stages run in a
# stronger form); a skipped step is a SKIP line of the summary naming WHERE it runs, never silence
want() {
  case " ${SDP4J_RDMA_SKIP:-} " in
    *" $1 "*) log "$1: skipped (SDP4J_RDMA_SKIP): run by $2"; summary+=("SKIP  $1: run by $2"); skipped=$((skipped + 1)); return 1 ;;
  esac
}
record() { # name status seconds detail [log]
  if [ "$2" = 0 ]; then passed=$((passed + 1)); summary+=("PASS  $1 (${3}s) $4")
  else failed=$((failed + 1)); summary+=("FAIL  $1 (${3}s, status $2) $4$(crash_cause "$2" "${5:-}")"); fi
}
# crash_cause STATUS [LOG] -> for a process killed by a signal (status > 128), "; died of signal N", what the C
# library or the JVM said last in LOG (glibc's "double free detected", an assertion), and what each hs_err file
# the step's JVMs left (guest-jvm.sh's -XX:ErrorFile) says: the signal and the problematic frame, the first native
# frames. The summary is all CI shows of a VM run, and a crash that happens once in twenty runs must be
# diagnosable from that one run.
crash_cause() {
  local f
  [ "$1" -gt 128 ] 2>/dev/null || return 0
  printf '; died of signal %d (%s)' "$(($1 - 128))" "$(kill -l $(($1 - 128)) 2>/dev/null)"
  [ -n "${2:-}" ] && [ -f "$2" ] && printf '; its log ends: %s' "$(sed 's/\x1b\[[0-9;]*m//g' "$2" | grep -a -v '^[│├└╷ #]' \
    | grep -a . | tail -3 | cut -c1-200 | tr '\n' ';')"
  for f in "$out"/hs_err_pid*.log; do
    [ -f "$f" ] && ! grep -qxF "$f" "$out/.hs_err_reported" 2>/dev/null || continue
    echo "$f" >> "$out/.hs_err_reported"
    printf '; %s: %s' "${f##*/}" "$(grep -m1 -E '^# +(SIG|Internal Error|Out of Memory|fatal error)' "$f" | sed 's/^# *//')"
    printf ' | %s' "$(grep -A1 -m1 '^# Problematic frame:' "$f" | tail -1 | sed 's/^# *//')"
    printf ' | native frames: %s' "$(sed -n '/^Native frames:/,/^$/p' "$f" | sed -n '2,7p' | sed 's/  */ /g' | tr '\n' ';')"
  done
}
# failed LOG -> "; failed: NAME (MESSAGE) ..." for up to 3 failed JUnit tests of a --details=tree log, so that the
# summary (all CI shows of a failing VM run) names them; empty when none failed
failed_tests() {
  local f
  f=$(sed 's/\x1b\[[0-9;]*m//g' "$1" 2>/dev/null | grep -a '✘' | sed -E 's/^[│├└─ ]+//; s/ ✘ ?/ (/; s/$/)/; s/ \(\)$//' \
        | head -3 | tr '\n' ';' | sed 's/;$//; s/;/; /g')
  [ -n "$f" ] && echo "; failed: $f"
}
counters() { echo "$(cat "$hw/sent_pkts" 2>/dev/null || echo 0) $(cat "$hw/rcvd_pkts" 2>/dev/null || echo 0)"; }
# delta BEFORE AFTER -> "sent+N rcvd+M"; status 0 when both grew by at least MIN
delta() {
  local s0 r0 s1 r1 min=$3
  read -r s0 r0 <<< "$1"; read -r s1 r1 <<< "$2"
  echo "rxe0 sent_pkts +$((s1 - s0)), rcvd_pkts +$((r1 - r0))"
  [ $((s1 - s0)) -ge "$min" ] && [ $((r1 - r0)) -ge "$min" ]
}
wait_for_line() { # FILE PATTERN SECONDS
  local i
  for ((i = 0; i < $3 * 10; i++)); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  return 1
}

# ---- 0: the device and the artifacts ----
log "0: soft-RoCE device"
rdma link show 2>&1
ibv_devinfo -d "$dev" 2>&1 | grep -E 'hca_id|state|active_mtu|link_layer' || true
if ! rdma link show "$dev/1" 2>/dev/null | grep -q 'state ACTIVE'; then
  echo "rxe0 is not up: nothing RDMA can run"; echo "0 passed, 1 failed"; exit 1
fi
lib=$repo/sdp-jni/target/classes/META-INF/native/linux-x86_64/libsdp4j.so
launcher=$repo/sdp-jni/target/vm-lib/junit-platform-console-standalone.jar
core=$repo/sdp-core/target/classes
[ -f "$core/org/sdp4j/transport/Poller.class" ] || core=$(ls "$repo"/sdp-core/target/sdp-core-*.jar 2>/dev/null | head -1)
# sdp-core's test classes: the contract suite (step i) and test helpers (org.sdp4j.testing.Growth, steps a and h)
cp="$repo/sdp-jni/target/test-classes:$repo/sdp-jni/target/classes:$core:$repo/sdp-core/target/test-classes"
for f in "$lib" "$launcher" "$repo/sdp-jni/target/test-classes/org/sdp4j/rsocket/VmInterop.class" \
         "$repo/sdp-core/target/test-classes/org/sdp4j/contract/ContractBase.class" \
         "$core" "$repo/native/build/vm-tests/rs_echo" "$repo/native/build/vm-tests/tcp_echo_client"; do
  [ -e "$f" ] || { echo "missing $f: build on the host first (mvn package, or test.sh)"; echo "0 passed, 1 failed"; exit 2; }
done
preload=$(ls /usr/lib/x86_64-linux-gnu/rsocket/librspreload.so 2>/dev/null || dpkg -L librdmacm1 | grep 'librspreload.so$' | head -1)
"$java" -version 2>&1 | head -1
. "$repo/native/vm-tests/guest-jvm.sh"
jvm=("${guest_jvm[@]}")

# ---- a + b: the Java rsocket tests, counted on rxe0 ----
log "a: RsocketSocketImpl and JNI tests over rsockets on $addr"
c0=$(counters); t0=$(date +%s)
# RsocketCloseRaceTest, BothListenerTest: 10,000 and 2,000 rounds on the host over the shim; fewer here, where a
# connection or a listener costs far more; BothListenerTest's rping test runs only here (real RDMA-CM);
# RsocketDuplexTest: 10 s here (3 on the host), where librdmacm's send accounting meets another thread's rpoll
# (BothListenerTest installs sdp4j's socket factories: the JDK internals they use, opened as the agent opens them)
"$java" "${guest_jvm_busy[@]}" --add-exports java.base/sun.nio.ch=ALL-UNNAMED --add-opens java.base/java.net=ALL-UNNAMED \
  -Dsdp4j.test.address=$addr -Dsdp4j.test.blackhole=10.9.9.2 -Dsdp4j.test.raceRounds=300 \
  -Dsdp4j.test.bothCloseRounds=200 -Dsdp4j.test.duplexSeconds=10 -Dsdp4j.test.rsEcho="$repo/native/build/vm-tests/rs_echo" \
  -Dsdp4j.test.stopCmService="$repo/native/vm-tests/stop-cm-service.py" \
  -jar "$launcher" execute --disable-banner --details=tree --fail-if-no-tests \
  -cp "$cp" --select-class org.sdp4j.rsocket.RsocketSocketImplTest --select-class org.sdp4j.rsocket.RsocketCloseRaceTest \
  --select-class org.sdp4j.rsocket.BothListenerTest --select-class org.sdp4j.rsocket.RsocketPeerGoneTest \
  --select-class org.sdp4j.rsocket.NativeValidationTest --select-class org.sdp4j.rsocket.RsocketPlatformParkTest \
  --select-class org.sdp4j.rsocket.RsocketDuplexTest \
  --reports-dir "$out/junit" 2>&1 | tee "$out/junit.log"
rc=${PIPESTATUS[0]}
c1=$(counters); d=$(delta "$c0" "$c1" 2048); drc=$?
tests=$(grep -Eo '[0-9]+ tests successful' "$out/junit.log" | head -1)
tfail=$(grep -Eo '[0-9]+ tests failed' "$out/junit.log" | head -1)
record "a: JUnit RsocketSocketImplTest, RsocketCloseRaceTest, BothListenerTest, RsocketPeerGoneTest, NativeValidationTest, RsocketPlatformParkTest, RsocketDuplexTest ($tests, $tfail)" "$rc" $(( $(date +%s) - t0 )) \
  "$(failed_tests "$out/junit.log")" "$out/junit.log"
record "b: RDMA carried the JUnit traffic" "$drc" 0 "$d"

# ---- c1: sdp4j client -> rs_echo (C, rsocket API) ----
log "c1: sdp4j client against rs_echo (librdmacm rsocket server)"
t0=$(date +%s)
"$repo/native/build/vm-tests/rs_echo" $addr 7471 1 > "$out/rs_echo.log" 2>&1 &
srv=$!
rc=1
if wait_for_line "$out/rs_echo.log" listening 20; then
  c0=$(counters)
  "$java" "${jvm[@]}" -cp "$cp" org.sdp4j.rsocket.VmInterop client $addr 7471 1048576 2>&1
  rc=$?
  wait "$srv"; src=$?; [ "$src" = 0 ] || rc=$src
  c1=$(counters)
else
  kill "$srv" 2>/dev/null; c0=$(counters); c1=$c0
fi
cat "$out/rs_echo.log"
d=$(delta "$c0" "$c1" 2048); drc=$?
[ "$rc" = 0 ] && rc=$drc
record "c1: sdp4j client <-> rs_echo, 1 MiB echoed" "$rc" $(( $(date +%s) - t0 )) "$d"

# ---- c2: C TCP client under librspreload -> sdp4j server ----
log "c2: LD_PRELOAD=librspreload.so TCP client against the sdp4j server"
t0=$(date +%s)
"$java" "${jvm[@]}" -cp "$cp" org.sdp4j.rsocket.VmInterop echo-server $addr 7472 1 > "$out/echo_server.log" 2>&1 &
srv=$!
rc=1
if wait_for_line "$out/echo_server.log" listening 60; then
  c0=$(counters)
  LD_PRELOAD=$preload "$repo/native/build/vm-tests/tcp_echo_client" $addr 7472 1048576 2>&1
  rc=$?
  wait "$srv"; src=$?; [ "$src" = 0 ] || rc=$src
  c1=$(counters)
else
  kill "$srv" 2>/dev/null; c0=$(counters); c1=$c0
fi
cat "$out/echo_server.log"
d=$(delta "$c0" "$c1" 2048); drc=$?
[ "$rc" = 0 ] && rc=$drc
record "c2: librspreload TCP client <-> sdp4j server, 1 MiB echoed" "$rc" $(( $(date +%s) - t0 )) "$d"

# ---- c3: sdp4j client -> rdma-core's rstream server (same -S/-C/-T on both sides: rstream's own protocol) ----
log "c3: sdp4j client against rdma-core's rstream server (rstream -S 65536 -C 16 -T b -T v)"
t0=$(date +%s)
stdbuf -oL rstream -b $addr -p 7473 -S 65536 -C 16 -T b -T v > "$out/rstream.log" 2>&1 &
srv=$!
rc=1
if wait_for_line "$out/rstream.log" 'name' 20; then
  c0=$(counters)
  "$java" "${jvm[@]}" -cp "$cp" org.sdp4j.rsocket.VmInterop rstream-client $addr 7473 65536 16 2>&1
  rc=$?
  wait "$srv"; src=$?; [ "$src" = 0 ] || rc=$src
  c1=$(counters)
else
  kill "$srv" 2>/dev/null; c0=$(counters); c1=$c0
fi
cat "$out/rstream.log"
d=$(delta "$c0" "$c1" 1024); drc=$?
[ "$rc" = 0 ] && rc=$drc
record "c3: sdp4j client <-> rstream server, 16 x 64 KiB each way, verified by both" "$rc" $(( $(date +%s) - t0 )) "$d"

# ---- d, e: through the agent, unmodified java.net code and JDBC decided by libsdp.conf rules ----
agent=$repo/sdp-jdbc/target/sdp4j-agent.jar
vmlib=$repo/sdp-jni/target/vm-lib
if [ ! -f "$agent" ]; then
  summary+=("SKIP  d-g: no $agent (build sdp-jdbc first)"); skipped=4
else
  rows=${SDP4J_VM_JDBC_ROWS:-4000}
  if want d "two-hosts.sh's echo-net: java.net echo on 'use sdp' across a wire"; then
    # d: a plain java.net echo server and client, both under the agent, on "use sdp" rules
    log "d: plain java.net client and server under the agent (use sdp server/client)"
    printf '%s\n' 'log min-level 7 destination stderr' 'use sdp server * *:*' 'use sdp client * 10.9.9.1:*' \
      > "$out/libsdp-d.conf"
    t0=$(date +%s)
    "$java" "${jvm[@]}" -javaagent:"$agent"=conf="$out/libsdp-d.conf" -cp "$repo/sdp-jni/target/test-classes" \
      org.sdp4j.rsocket.PlainEcho server $addr 7474 1 > "$out/plain_server.log" 2>&1 &
    srv=$!
    rc=1
    if wait_for_line "$out/plain_server.log" listening 60; then
      c0=$(counters)
      "$java" "${jvm[@]}" -javaagent:"$agent"=conf="$out/libsdp-d.conf" -cp "$repo/sdp-jni/target/test-classes" \
        org.sdp4j.rsocket.PlainEcho client $addr 7474 1048576 > "$out/plain_client.log" 2>&1
      rc=$?
      cat "$out/plain_client.log"
      wait "$srv"; src=$?; [ "$src" = 0 ] || rc=$src
      c1=$(counters)
    else
      kill "$srv" 2>/dev/null; c0=$(counters); c1=$c0
    fi
    cat "$out/plain_server.log"
    if [ "$rc" = 0 ] && ! { grep -q "client $addr:7474 .*rule=line 3 family=sdp transport=rsocket" "$out/plain_client.log" &&
                            grep -q "server $addr:7474 .*rule=line 2 family=sdp transport=rsocket" "$out/plain_server.log"; }; then
      echo "the decision log does not show both ends on transport=rsocket"; rc=3
    fi
    d=$(delta "$c0" "$c1" 2048); drc=$?
    [ "$rc" = 0 ] && rc=$drc
    record "d: agent: plain java.net client <-> server, both 'use sdp', 1 MiB echoed" "$rc" $(( $(date +%s) - t0 )) "$d"
  fi

  # e: the IBM Db2 JDBC driver against Derby 10.8.3.0's DRDA server, both ends on "use sdp"
  if want e "two-hosts.sh's jcc-sdp: JCC to Derby on 'use sdp' across a wire"; then
    log "e: agent: IBM JCC against Derby 10.8.3.0 DRDA, both ends on use sdp ($rows rows)"
    printf '%s\n' 'log min-level 7 destination stderr' "use sdp server * $addr:50123" "use sdp client * $addr:50123" \
      'use tcp server * *:*' 'use tcp client * *:*' > "$out/libsdp-e.conf"
    t0=$(date +%s)
    c0=$(counters)
    "$java" "${jvm[@]}" -javaagent:"$agent"=conf="$out/libsdp-e.conf" \
      -cp "$repo/sdp-jni/target/test-classes:$vmlib/jcc.jar:$vmlib/derby.jar:$vmlib/derbynet.jar" \
      org.sdp4j.rsocket.JccDerbyVm $addr 50123 "$rows" > "$out/jcc.log" 2>&1
    rc=$?
    c1=$(counters)
    cat "$out/jcc.log"
    if [ "$rc" = 0 ] && ! { grep -q "server $addr:50123 .*family=sdp transport=rsocket" "$out/jcc.log" &&
                            grep -q "client $addr:50123 .*family=sdp transport=rsocket" "$out/jcc.log"; }; then
      echo "the decision log does not show both ends on transport=rsocket"; rc=3
    fi
    d=$(delta "$c0" "$c1" 1000); drc=$?
    [ "$rc" = 0 ] && rc=$drc
    record "e: agent: IBM JCC <-> Derby 10.8.3.0 DRDA, both 'use sdp', $rows rows INSERTed and SELECTed" \
      "$rc" $(( $(date +%s) - t0 )) "$d"
  fi

  if want f "two-hosts.sh's jcc-both-tcp: JCC on 'use both' to a TCP-only Derby across a wire"; then
    # f: the same workload with the client on "both" and the server on TCP only: the RDMA attempt is rejected (no
    # rsocket listener on that port), the client falls back to TCP, and every row still arrives once
    log "f: agent: IBM JCC on 'use both' against Derby on TCP only ($rows rows): fallback"
    printf '%s\n' 'log min-level 7 destination stderr' "use tcp server * $addr:50124" "use both client * $addr:50124" \
      'use tcp server * *:*' 'use tcp client * *:*' > "$out/libsdp-f.conf"
    t0=$(date +%s)
    "$java" "${jvm[@]}" -javaagent:"$agent"=conf="$out/libsdp-f.conf" \
      -cp "$repo/sdp-jni/target/test-classes:$vmlib/jcc.jar:$vmlib/derby.jar:$vmlib/derbynet.jar" \
      org.sdp4j.rsocket.JccDerbyVm $addr 50124 "$rows" > "$out/jcc-both.log" 2>&1
    rc=$?
    cat "$out/jcc-both.log"
    if [ "$rc" = 0 ] && ! { grep -q "server $addr:50124 .*family=tcp transport=tcp" "$out/jcc-both.log" &&
                            grep -q "client $addr:50124 .*family=both transport=tcp fallback=\"rsocket connect failed" "$out/jcc-both.log"; }; then
      echo "the decision log does not show the client's fallback from rsocket to tcp"; rc=3
    fi
    record "f: agent: IBM JCC 'use both' -> Derby on TCP only: fell back to TCP, $rows rows checked" \
      "$rc" $(( $(date +%s) - t0 )) ""
  fi

  # g: a "both" server listens on rsockets and TCP on one port; an sdp client and a tcp client are both served
  log "g: agent: 'use both' server accepting an rsocket client and a TCP client on one port"
  printf '%s\n' 'log min-level 7 destination stderr' 'use both server * *:*' > "$out/libsdp-g-server.conf"
  printf '%s\n' 'log min-level 7 destination stderr' 'use sdp client * *:*' > "$out/libsdp-g-sdp.conf"
  printf '%s\n' 'log min-level 7 destination stderr' 'use tcp client * *:*' > "$out/libsdp-g-tcp.conf"
  t0=$(date +%s)
  # bounded: a server that never gets its second client must not hang the suite
  timeout 180 "$java" "${jvm[@]}" -javaagent:"$agent"=conf="$out/libsdp-g-server.conf" \
    -cp "$repo/sdp-jni/target/test-classes" org.sdp4j.rsocket.PlainEcho server $addr 7475 2 > "$out/both_server.log" 2>&1 &
  srv=$!
  rc=1
  if wait_for_line "$out/both_server.log" listening 60; then
    c0=$(counters)
    "$java" "${jvm[@]}" -javaagent:"$agent"=conf="$out/libsdp-g-sdp.conf" -cp "$repo/sdp-jni/target/test-classes" \
      org.sdp4j.rsocket.PlainEcho client $addr 7475 262144 > "$out/both_client_sdp.log" 2>&1
    rc=$?
    c1=$(counters)
    "$java" "${jvm[@]}" -javaagent:"$agent"=conf="$out/libsdp-g-tcp.conf" -cp "$repo/sdp-jni/target/test-classes" \
      org.sdp4j.rsocket.PlainEcho client $addr 7475 262144 > "$out/both_client_tcp.log" 2>&1
    trc=$?; [ "$rc" = 0 ] && rc=$trc
    wait "$srv"; src=$?; [ "$rc" = 0 ] && rc=$src
  else
    kill "$srv" 2>/dev/null; c0=$(counters); c1=$c0
  fi
  cat "$out/both_server.log" "$out/both_client_sdp.log" "$out/both_client_tcp.log" 2>/dev/null
  if [ "$rc" = 0 ] && ! { grep -q "server $addr:7475 .*family=both transport=rsocket+tcp" "$out/both_server.log" &&
                          grep -q "client $addr:7475 .*family=sdp transport=rsocket" "$out/both_client_sdp.log" &&
                          grep -q "client $addr:7475 .*family=tcp transport=tcp" "$out/both_client_tcp.log"; }; then
    echo "the decision logs do not show a dual listener serving an rsocket and a tcp client"; rc=3
  fi
  d=$(delta "$c0" "$c1" 256); drc=$?
  [ "$rc" = 0 ] && rc=$drc
  record "g: agent: 'use both' server on one port served an rsocket client and a TCP client" \
    "$rc" $(( $(date +%s) - t0 )) "$d"
fi

# ---- h: NIO over rsockets (RsocketSocketChannel / RsocketServerSocketChannel, sdp4j's Selector over rpoll) ----
log "h: NIO over rsockets and tunables: RsocketNioTest, RsocketTunablesTest on $addr"
c0=$(counters); t0=$(date +%s)
timeout 120 "$java" "${guest_jvm_busy[@]}" --add-exports java.base/sun.nio.ch=ALL-UNNAMED --add-opens java.base/java.net=ALL-UNNAMED \
  -Dsdp4j.test.address=$addr -Dsdp4j.rsocket.inline=96 -jar "$launcher" execute --disable-banner --details=tree \
  --fail-if-no-tests -cp "$cp" --select-class org.sdp4j.rsocket.RsocketNioTest \
  --select-class org.sdp4j.rsocket.RsocketTunablesTest --reports-dir "$out/junit-nio" 2>&1 | tee "$out/junit-nio.log"
rc=${PIPESTATUS[0]}
c1=$(counters); d=$(delta "$c0" "$c1" 512); drc=$?
[ "$rc" = 0 ] && rc=$drc
tests=$(grep -Eo '[0-9]+ tests successful' "$out/junit-nio.log" | head -1)
tfail=$(grep -Eo '[0-9]+ tests failed' "$out/junit-nio.log" | head -1)
record "h: NIO over rsockets + tunables: JUnit RsocketNioTest, RsocketTunablesTest ($tests, $tfail), RDMA carried it" "$rc" $(( $(date +%s) - t0 )) "$d$(failed_tests "$out/junit-nio.log")" "$out/junit-nio.log"

# ---- i: the transport contract (sdp-core's org.sdp4j.contract) on rsockets and where rsockets meet TCP ----
log "i: transport contract: RsocketContractTest, BothServer{Rsocket,Tcp}ClientContractTest on $addr"
c0=$(counters); t0=$(date +%s)
ctests=${SDP4J_CONTRACT_CLASSES:-org.sdp4j.rsocket.contract.RsocketContractTest org.sdp4j.rsocket.contract.BothServerRsocketClientContractTest org.sdp4j.rsocket.contract.BothServerTcpClientContractTest}
csel=(); for c in $ctests; do csel+=(--select-class "$c"); done
timeout 1500 "$java" "${guest_jvm_busy[@]}" --add-exports java.base/sun.nio.ch=ALL-UNNAMED --add-opens java.base/java.net=ALL-UNNAMED \
  --add-opens java.base/sun.nio.ch=ALL-UNNAMED -Dsdp4j.test.address=$addr -Dsdp4j.contract.classpath="$cp:$launcher" \
  -jar "$launcher" execute --disable-banner --details=tree --fail-if-no-tests -cp "$cp" "${csel[@]}" \
  --reports-dir "$out/junit-contract" 2>&1 | tee "$out/junit-contract.log"
rc=${PIPESTATUS[0]}
c1=$(counters); d=$(delta "$c0" "$c1" 512); drc=$?
[ "$rc" = 0 ] && rc=$drc
tests=$(grep -Eo '[0-9]+ tests successful' "$out/junit-contract.log" | head -1)
tfail=$(grep -Eo '[0-9]+ tests failed' "$out/junit-contract.log" | head -1)
record "i: transport contract on rsockets ($tests, $tfail), RDMA carried it" "$rc" $(( $(date +%s) - t0 )) \
  "$d$(failed_tests "$out/junit-contract.log")" "$out/junit-contract.log"

# ---- j: many concurrent rsocket connections (issue 13): no crash, no hang, every byte checked ----
# native/vm-tests/concurrent.sh: an echo server + N platform-thread clients in one JVM, then N clients connecting at
# once to a server in another JVM; N from SDP4J_CONCURRENT (default "16 256"; beyond a few waiting platform threads
# park on RsocketParker's poller as virtual threads do; 1,000 passes too but takes minutes under TCG: an opt-in)
log "j: concurrent rsocket connections: ${SDP4J_CONCURRENT:-16 256}"
t0=$(date +%s)
# shellcheck disable=SC2086
"$repo/native/vm-tests/concurrent.sh" ${SDP4J_CONCURRENT:-16 256} 2>&1 | tee "$out/concurrent.log"
rc=${PIPESTATUS[0]}
record "j: concurrent rsocket connections ($(grep -Eo '[0-9]+ passed, [0-9]+ failed' "$out/concurrent.log" | tail -1))" \
  "$rc" $(( $(date +%s) - t0 )) ""

# ---- k: virtual threads park instead of pinning (issue 13): Temurin 25, parallelism 2, JFR ----
# native/vm-tests/virtual.sh: N (SDP4J_VIRTUAL, default 1000) virtual-thread clients + a virtual-thread server
log "k: virtual threads on rsockets: ${SDP4J_VIRTUAL:-1000} clients, parallelism 2, JFR"
t0=$(date +%s)
"$repo/native/vm-tests/virtual.sh" "${SDP4J_VIRTUAL:-1000}" 2>&1 | tee "$out/virtual.log"
rc=${PIPESTATUS[0]}
record "k: virtual threads park ($(grep -Eo '[0-9]+ passed, [0-9]+ failed' "$out/virtual.log" | tail -1))" \
  "$rc" $(( $(date +%s) - t0 )) ""

# ---- l, m, n: a resource limit reached; a JDBC pool on virtual threads (issue 13); stat (issue 21): through the agent ----
if [ -f "$agent" ]; then
  log "l: RDMA resource limit: nobody with ulimit -l 64, 'use sdp' and 'use both' clients"
  t0=$(date +%s)
  "$repo/native/vm-tests/memlock.sh" 2>&1 | tee "$out/memlock.log"
  rc=${PIPESTATUS[0]}
  record "l: RLIMIT_MEMLOCK named, 'both' falls back ($(grep -Eo '[0-9]+ passed, [0-9]+ failed' "$out/memlock.log" | tail -1))" \
    "$rc" $(( $(date +%s) - t0 )) ""
  log "m: HikariCP on virtual threads, IBM JCC on 'use sdp' to Derby"
  t0=$(date +%s)
  "$repo/native/vm-tests/pooled.sh" 2>&1 | tee "$out/pooled-step.log"
  rc=${PIPESTATUS[0]}
  record "m: HikariCP + JCC on virtual threads over rsockets ($(grep -Eo '[0-9]+ passed, [0-9]+ failed' "$out/pooled-step.log" | tail -1))" \
    "$rc" $(( $(date +%s) - t0 )) ""
  log "n: stat on rsockets: a JVM holding four connections, read through the Attach API"
  t0=$(date +%s)
  "$repo/native/vm-tests/stat.sh" 2>&1 | tee "$out/stat-step.log"
  rc=${PIPESTATUS[0]}
  record "n: stat lists rsocket connections with their bytes and rules ($(grep -Eo '[0-9]+ passed, [0-9]+ failed' "$out/stat-step.log" | tail -1))" \
    "$rc" $(( $(date +%s) - t0 )) ""
  if want o "the 6.12 two-host stage's smc steps and native/vm-tests/smc-wire.sh (the contract on SMC-R)"; then
    log "o: use smc on this kernel: java.net and NIO through the agent, the outcome from smc_diag"
    t0=$(date +%s)
    "$repo/native/vm-tests/smc.sh" 2>&1 | tee "$out/smc-step.log"
    rc=${PIPESTATUS[0]}
    record "o: use smc: both ends on the kernel's SMC socket, 1 MiB echoed, outcome logged ($(grep -Eo '[0-9]+ passed, [0-9]+ failed' "$out/smc-step.log" | tail -1)): $(grep -o 'SMC fell back: 0x[0-9a-f]*\|on SMC-R' "$out/smc-step.log" | sort -u | tr '\n' ' ')" \
      "$rc" $(( $(date +%s) - t0 )) ""
  fi
else
  summary+=("SKIP  l-o: no $agent (build sdp-jdbc first)"); skipped=$((skipped + 4))
fi

# ---- summary ----
echo
log "summary"
printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
if [ "$skipped" -gt 0 ]; then
  echo "$passed passed, $failed failed, $skipped skipped" | tee -a "$out/summary.txt"
else
  echo "$passed passed, $failed failed" | tee -a "$out/summary.txt"
fi
[ "$failed" = 0 ]
