#!/usr/bin/env bash
# Many concurrent rsocket connections (issue 13), run INSIDE the soft-RoCE VM; also step i of run-all.sh.
#   native/vm/run-in-vm.sh -t 900 -- native/vm-tests/concurrent.sh [N...]
# For each N (default: 4 16 1000): an echo server and N platform-thread clients in one JVM, then the server in its
# own JVM and N clients connecting at once from another, every byte of every round trip checked, each run bounded
# (a hang is a failure with a thread dump, not a stuck suite). Closing line "N passed, M failed".
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
out=${SDP4J_OUT:-/tmp/sdp4j-vm-out}
mkdir -p "$out"
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
addr=10.9.9.1
core=${SDP4J_CORE_CLASSES:-$repo/sdp-core/target/classes}
# SDP4J_CLASSES / SDP4J_TEST_CLASSES / SDP4J_CORE_CLASSES: another build of sdp-jni's classes (with its libsdp4j.so),
# test classes, sdp-core's classes (e.g. one from before a fix, or a snapshot the host does not rebuild under the VM)
cp="${SDP4J_TEST_CLASSES:-$repo/sdp-jni/target/test-classes}:${SDP4J_CLASSES:-$repo/sdp-jni/target/classes}:$core"
. "$repo/native/vm-tests/guest-jvm.sh"
jvm=("${guest_jvm_busy[@]}" -Xss512k)
sizes=("$@"); [ ${#sizes[@]} -gt 0 ] || sizes=(4 16 1000)
passed=0 failed=0 summary=()
record() { if [ "$2" = 0 ]; then passed=$((passed + 1)); summary+=("PASS  $1 (${3}s)")
           else failed=$((failed + 1)); summary+=("FAIL  $1 (${3}s, status $2)"); fi; }
# each rsocket takes 3 descriptors (rdma_cm channel, completion channel, sdp4j's eventfd): 1,000 connections with
# both ends in one JVM need ~6,000; the guest's default is 1,024
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
echo "memlock: $(ulimit -l) KiB (root: CAP_IPC_LOCK, not enforced), nofile: $(ulimit -n), $(nproc) cpus, $(free -m | awk '/Mem:/{print $2}') MiB"
port=7600
# Hang bounds, not speed limits: ConcurrentEcho fails when nothing has moved for $stall s (its thread dump says
# where); the kill is the last resort for a JVM that cannot even do that. Under TCG the 256 two-JVM connects alone
# took 93-200 s idle and past 248 s beside a busy host, which a total-time bound kept mistaking for a hang.
stall=120 kill=1200
for n in "${sizes[@]}"; do
  rounds=50; [ "$n" -ge 256 ] && rounds=10
  port=$((port + 1))
  echo "== same JVM: echo server + $n clients, $rounds round trips of 64 B each"
  t0=$(date +%s)
  timeout -s KILL $kill "$java" "${jvm[@]}" -Dsdp4j.test.echoStall=$stall \
    -Dsdp4j.rsocket.maxConnections=$((2 * n + 16)) -cp "$cp" \
    org.sdp4j.rsocket.ConcurrentEcho same-jvm $addr $port "$n" $rounds 64 platform 2>&1
  record "i: same JVM, $n concurrent rsocket clients, every byte checked" "${PIPESTATUS[0]}" $(( $(date +%s) - t0 ))
  port=$((port + 1))
  echo "== two JVMs: echo server, $n clients connecting at once"
  t0=$(date +%s)
  timeout -s KILL $kill "$java" "${jvm[@]}" -Dsdp4j.test.echoStall=$stall -cp "$cp" \
    org.sdp4j.rsocket.ConcurrentEcho server $addr $port "$n" platform > "$out/concurrent-server-$n.log" 2>&1 &
  srv=$!
  for _ in $(seq 600); do grep -q listening "$out/concurrent-server-$n.log" 2>/dev/null && break; sleep 0.1; done
  timeout -s KILL $kill "$java" "${jvm[@]}" -Dsdp4j.test.echoStall=$stall -cp "$cp" \
    org.sdp4j.rsocket.ConcurrentEcho clients $addr $port "$n" $rounds 64 platform 2>&1
  rc=${PIPESTATUS[0]}
  [ "$rc" = 0 ] || kill "$srv" 2>/dev/null # the server would wait for the clients that failed
  wait "$srv"; src=$?; [ "$rc" = 0 ] && rc=$src
  cat "$out/concurrent-server-$n.log"
  record "i: two JVMs, $n rsocket clients connecting at once, every byte checked" "$rc" $(( $(date +%s) - t0 ))
done
printf '%s\n' "${summary[@]}"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
