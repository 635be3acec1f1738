#!/usr/bin/env bash
# An RDMA resource limit reached (issue 13), run INSIDE the soft-RoCE VM; also step l of run-all.sh:
#   native/vm/run-in-vm.sh -- native/vm-tests/memlock.sh
# A non-root user (nobody, through setpriv: no CAP_IPC_LOCK) with `ulimit -l 64` (KiB) cannot pin an rsocket's send
# and receive buffers (128 KiB each by default). Through the agent, against a `use both` server run by root:
#   1. a `use sdp` client gets an IOException naming RLIMIT_MEMLOCK (no fallback on `sdp`), exits by itself, no crash
#   2. a `use both` client falls back to TCP, the decision log names the limit, 256 KiB echoed and checked
# Every run is bounded (a hang is a failure). Closing line "N passed, M failed".
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
out=${SDP4J_OUT:-/tmp/sdp4j-vm-out}
mkdir -p "$out"
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
java=$(command -v "$java")
addr=10.9.9.1
port=7480
kib=${SDP4J_MEMLOCK_KIB:-64}
agent=$repo/sdp-jdbc/target/sdp4j-agent.jar
tc=$repo/sdp-jni/target/test-classes
. "$repo/native/vm-tests/guest-jvm.sh"
jvm=("${guest_jvm[@]}")
passed=0 failed=0 summary=()
record() { if [ "$2" = 0 ]; then passed=$((passed + 1)); summary+=("PASS  $1 (${3}s)")
           else failed=$((failed + 1)); summary+=("FAIL  $1 (${3}s, status $2)"); fi; }
[ -f "$agent" ] || { echo "missing $agent: build on the host first"; echo "0 passed, 1 failed"; exit 2; }
# nobody's files: the confs and a temporary directory for the agent's native library (0700, nobody's)
work=$(mktemp -d /tmp/sdp4j-memlock.XXXXXX)
chmod 0755 "$work"
tmp=$work/tmp; mkdir -p "$tmp"; chown 65534:65534 "$tmp"; chmod 0700 "$tmp"
printf '%s\n' 'log min-level 7 destination stderr' 'use both server * *:*' > "$work/server.conf"
printf '%s\n' 'log min-level 7 destination stderr' "use sdp client * $addr:*" > "$work/sdp.conf"
printf '%s\n' 'log min-level 7 destination stderr' "use both client * $addr:*" > "$work/both.conf"
chmod 0644 "$work"/*.conf
# nobody runs copies: a checkout under /root (0700, as CI's fresh clone is; the guest sees the host's modes over 9p)
# is closed to it, and its JVM then failed at start ("Error opening zip file ... sdp4j-agent.jar")
cp "$agent" "$work/sdp4j-agent.jar" && cp -r "$tc" "$work/test-classes" && chmod -R a+rX "$work/sdp4j-agent.jar" "$work/test-classes" || {
  echo "cannot copy the agent and test classes for nobody"; echo "0 passed, 1 failed"; exit 2; }
nobody_agent=$work/sdp4j-agent.jar nobody_tc=$work/test-classes
# as nobody with memlock at $kib KiB; output to the caller's file (opened here, by root). The `both` attempt bound
# is raised from 2 s: under a loaded TCG host the address and route resolution alone can take longer, and the
# fallback would then name the timeout instead of the limit (still bounded: the run is killed after 180 s)
as_nobody() { # CONF LOG ARGS...
  local conf=$1 log=$2; shift 2
  (ulimit -l "$kib" && timeout -s KILL 180 setpriv --reuid=65534 --regid=65534 --clear-groups -- \
     "$java" "${jvm[@]}" -Djava.io.tmpdir="$tmp" -Dsdp4j.both.timeout=60000 -javaagent:"$nobody_agent"=conf="$conf" \
     -cp "$nobody_tc" \
     org.sdp4j.rsocket.PlainEcho "$@") > "$log" 2>&1
}
id nobody; echo "memlock for nobody: $kib KiB (root's: $(ulimit -l) KiB)"

echo "== a 'use both' server (root, rsockets + TCP on one port)"
timeout -s KILL 300 "$java" "${jvm[@]}" -javaagent:"$agent"=conf="$work/server.conf" -cp "$tc" \
  org.sdp4j.rsocket.PlainEcho server $addr $port 1 > "$out/memlock-server.log" 2>&1 &
srv=$!
for _ in $(seq 600); do grep -q listening "$out/memlock-server.log" 2>/dev/null && break; sleep 0.1; done

echo "== 1: nobody, 'use sdp' client, ulimit -l $kib: an IOException naming the limit"
t0=$(date +%s)
as_nobody "$work/sdp.conf" "$out/memlock-sdp.log" client $addr $port 262144
rc=$?
cat "$out/memlock-sdp.log"
ok=1
# PlainEcho lets the exception out of main: exit 1, not a signal (137: the bound; 134: a crash)
[ "$rc" = 1 ] || { echo "expected exit 1 from an exception, got $rc"; ok=0; }
grep -q 'Exception.*RLIMIT_MEMLOCK '"$kib"' KiB' "$out/memlock-sdp.log" || { echo "no exception naming RLIMIT_MEMLOCK $kib KiB"; ok=0; }
grep -q "client $addr:$port .*family=sdp" "$out/memlock-sdp.log" || { echo "no decision for the sdp client"; ok=0; }
ls "$tmp"/hs_err* "$PWD"/hs_err* 2>/dev/null && ok=0
record "l: nobody with ulimit -l $kib, 'use sdp': IOException naming RLIMIT_MEMLOCK, no hang, no crash" $((1 - ok)) $(( $(date +%s) - t0 ))

echo "== 2: nobody, 'use both' client, ulimit -l $kib: falls back to TCP"
t0=$(date +%s)
as_nobody "$work/both.conf" "$out/memlock-both.log" client $addr $port 262144
rc=$?
cat "$out/memlock-both.log"
wait "$srv"; src=$?
cat "$out/memlock-server.log"
[ "$rc" = 0 ] && rc=$src
if [ "$rc" = 0 ] && ! grep -q "client $addr:$port .*family=both transport=tcp fallback=\"rsocket connect failed.*RLIMIT_MEMLOCK $kib KiB" "$out/memlock-both.log"; then
  echo "the decision log does not show the fallback naming RLIMIT_MEMLOCK $kib KiB"; rc=3
fi
if [ "$rc" = 0 ] && ! grep -q "echoed 262144 bytes" "$out/memlock-server.log"; then
  echo "the server did not echo the 256 KiB"; rc=3
fi
record "l: nobody with ulimit -l $kib, 'use both': fell back to TCP naming RLIMIT_MEMLOCK, 256 KiB checked" \
  "$rc" $(( $(date +%s) - t0 ))
rm -rf "$work"
printf '%s\n' "${summary[@]}"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
