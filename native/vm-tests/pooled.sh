#!/usr/bin/env bash
# The JCC workload on virtual threads through HikariCP on `use sdp` (issue 13), run INSIDE the soft-RoCE VM; also
# step m of run-all.sh:  native/vm/run-in-vm.sh -- native/vm-tests/pooled.sh [THREADS POOL REQUESTS]
# Derby 10.8.3.0's DRDA network server (JDK 17) and, on Temurin 25 with -Djdk.virtualThreadScheduler.parallelism=2,
# PooledVirtualWorkloadMain (src/test: THREADS virtual threads share a HikariCP pool of POOL IBM JCC connections,
# each request INSERTs a row and reads it back, checked), both through the agent on `use sdp`. Checks: every row,
# the decision log names transport=rsocket for every pooled connection (at least POOL) and tcp for none, rxe0's
# counters grew, and a JFR recording of the client has no jdk.VirtualThreadPinned event with an sdp4j frame.
# Closing line "N passed, M failed".
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
. "$repo/native/vm-tests/guest-jvm.sh"
out=${SDP4J_OUT:-/tmp/sdp4j-vm-out}
mkdir -p "$out"
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
jdk=${SDP4J_VT_JDK:-/usr/lib/jvm/temurin-25-jdk-amd64}
addr=10.9.9.1
port=50125
threads=${1:-32} pool=${2:-10} requests=${3:-8}
agent=$repo/sdp-jdbc/target/sdp4j-agent.jar
vmlib=$repo/sdp-jni/target/vm-lib
apps=$repo/src/test/target/test-classes
hw=/sys/class/infiniband/rxe0/ports/1/hw_counters
passed=0 failed=0 summary=()
record() { if [ "$2" = 0 ]; then passed=$((passed + 1)); summary+=("PASS  $1 (${3}s) ${4:-}")
           else failed=$((failed + 1)); summary+=("FAIL  $1 (${3}s, status $2) ${4:-}"); fi; }
counters() { echo "$(cat "$hw/sent_pkts" 2>/dev/null || echo 0) $(cat "$hw/rcvd_pkts" 2>/dev/null || echo 0)"; }
for f in "$agent" "$vmlib/hikaricp.jar" "$vmlib/slf4j-api.jar" "$vmlib/jcc.jar" "$vmlib/derbynet.jar" \
         "$apps/org/sdp4j/e2e/apps/PooledVirtualWorkloadMain.class" "$jdk/bin/java"; do
  [ -e "$f" ] || { echo "missing $f: build on the host first (mvn install)"; echo "0 passed, 1 failed"; exit 2; }
done
"$jdk/bin/java" -version 2>&1 | head -1
printf '%s\n' 'log min-level 7 destination stderr' "use sdp server * $addr:$port" 'use tcp server * *:*' \
  > "$out/libsdp-m-server.conf"
printf '%s\n' 'log min-level 7 destination stderr' "use sdp client * $addr:$port" 'use tcp client * *:*' \
  > "$out/libsdp-m-client.conf"
home=$(mktemp -d /tmp/sdp4j-derby-m.XXXXXX)

echo "== Derby 10.8.3.0 DRDA server on $addr:$port, 'use sdp', through the agent"
t0=$(date +%s)
timeout -s KILL 900 "$java" "${guest_jvm[@]}" \
  -Dderby.system.home="$home" -javaagent:"$agent"=conf="$out/libsdp-m-server.conf" \
  -cp "$vmlib/derby.jar:$vmlib/derbynet.jar" org.apache.derby.drda.NetworkServerControl \
  start -h $addr -p $port -noSecurityManager > "$out/pooled-derby.log" 2>&1 &
srv=$!
up=1
for _ in $(seq 1200); do grep -q 'started and ready' "$out/pooled-derby.log" 2>/dev/null && { up=0; break; }; sleep 0.1; done
[ "$up" = 0 ] || { echo "Derby did not start in 120 s"; cat "$out/pooled-derby.log"; }

echo "== $threads virtual threads, HikariCP pool of $pool JCC connections, $requests requests each; parallelism 2, JFR"
jfr=$out/pooled.jfr
c0=$(counters)
timeout -s KILL 600 "$jdk/bin/java" "${guest_jvm[@]}" \
  -Djdk.virtualThreadScheduler.parallelism=2 -XX:StartFlightRecording=filename="$jfr",settings=default \
  -javaagent:"$agent"=conf="$out/libsdp-m-client.conf" \
  -cp "$apps:$vmlib/hikaricp.jar:$vmlib/slf4j-api.jar:$vmlib/jcc.jar" org.sdp4j.e2e.apps.PooledVirtualWorkloadMain \
  "jdbc:db2://$addr:$port/\"pooldb;create=true\"" "$threads" "$pool" "$requests" \
  user=app password=app securityMechanism=3 retrieveMessagesFromServerOnGetMessage=true > "$out/pooled.log" 2>&1
rc=$?
c1=$(counters)
kill "$srv" 2>/dev/null; wait "$srv" 2>/dev/null
rm -rf "$home"
grep -Ev '^(SLF4J|sdp4j: )' "$out/pooled.log" | tail -20
total=$((threads * requests))
ours=$(grep -c "client $addr:$port .*family=sdp transport=rsocket" "$out/pooled.log")
tcp=$(grep -c "client $addr:$port .*transport=tcp" "$out/pooled.log")
echo "decisions for $addr:$port: $ours on rsocket, $tcp on tcp"
served=$(grep -c "server $addr:$port .*family=sdp transport=rsocket" "$out/pooled-derby.log")
read -r s0 r0 <<< "$c0"; read -r s1 r1 <<< "$c1"
d="rxe0 sent_pkts +$((s1 - s0)), rcvd_pkts +$((r1 - r0))"
echo "$d"
if [ "$rc" = 0 ]; then
  grep -q "^POOLED $total$" "$out/pooled.log" && grep -q "^COUNTED $total$" "$out/pooled.log" &&
    grep -q '^RESULT OK' "$out/pooled.log" || { echo "not every row: expected POOLED/COUNTED $total"; rc=3; }
fi
[ "$rc" = 0 ] && { [ "$ours" -ge "$pool" ] && [ "$tcp" = 0 ] && [ "$served" -ge 1 ] ||
  { echo "the pool's connections are not all on rsocket (server listener on rsocket: $served)"; rc=3; }; }
[ "$rc" = 0 ] && { [ $((s1 - s0)) -ge 1000 ] && [ $((r1 - r0)) -ge 1000 ] || { echo "RDMA did not carry it"; rc=3; }; }
record "m: HikariCP on virtual threads (parallelism 2), $pool JCC connections on 'use sdp' to Derby, $total rows checked" \
  "$rc" $(( $(date +%s) - t0 )) "$ours rsocket connections; $d"
if [ -s "$jfr" ]; then
  # -J-Xint: the checker itself runs without JIT; under TCG its JIT code once died of SIGILL (CI, step m, in
  # RecordingInput.readLong, C1) and failed the step while the recording was sound; interpreted it takes seconds.
  "$jdk/bin/jfr" -J-Xint print --stack-depth 64 --events jdk.VirtualThreadPinned "$jfr" > "$out/pooled-pinned.txt" 2>&1
  jrc=$?
  pinned=$(grep -c 'jdk.VirtualThreadPinned' "$out/pooled-pinned.txt")
  # sdp4j's frames, not the application's (org.sdp4j.e2e.apps)
  sdp=$(grep 'org\.sdp4j\.' "$out/pooled-pinned.txt" | grep -vc 'org\.sdp4j\.e2e\.')
  echo "JFR: $pinned jdk.VirtualThreadPinned events, $sdp sdp4j frames in them"
  [ "$sdp" -gt 0 ] && grep -B5 -A25 'org\.sdp4j\.' "$out/pooled-pinned.txt" | head -60
  [ "$jrc" = 0 ] && [ "$sdp" = 0 ]; record "m: JFR: no jdk.VirtualThreadPinned event with an sdp4j frame ($pinned events)" $? 0
else
  record "m: JFR recording written" 1 0
fi
printf '%s\n' "${summary[@]}"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
