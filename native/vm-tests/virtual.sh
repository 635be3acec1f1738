#!/usr/bin/env bash
# Virtual threads on rsockets park instead of pinning (issue 13), run INSIDE the soft-RoCE VM; also step j of
# run-all.sh:  native/vm/run-in-vm.sh -t 900 -- native/vm-tests/virtual.sh [N]
# Temurin 25 with -Djdk.virtualThreadScheduler.parallelism=2: a virtual-thread echo server (accept and one virtual
# thread per connection) and N (default 1000) virtual-thread clients in one JVM, 10 round trips of 64 B each, every
# byte checked. A wait that held its carrier (rpoll in native code) would stop the two carriers at the first two
# blocked readers: the run would hang (bounded: a failure with a thread dump). Under a JFR recording, which must have
# no jdk.VirtualThreadPinned event with an sdp4j frame. Closing line "N passed, M failed".
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
. "$repo/native/vm-tests/guest-jvm.sh"
out=${SDP4J_OUT:-/tmp/sdp4j-vm-out}
mkdir -p "$out"
jdk=${SDP4J_VT_JDK:-/usr/lib/jvm/temurin-25-jdk-amd64}
addr=10.9.9.1
n=${1:-1000}
core=${SDP4J_CORE_CLASSES:-$repo/sdp-core/target/classes}
cp="${SDP4J_TEST_CLASSES:-$repo/sdp-jni/target/test-classes}:${SDP4J_CLASSES:-$repo/sdp-jni/target/classes}:$core"
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
passed=0 failed=0 summary=()
record() { if [ "$2" = 0 ]; then passed=$((passed + 1)); summary+=("PASS  $1 (${3}s)")
           else failed=$((failed + 1)); summary+=("FAIL  $1 (${3}s, status $2)"); fi; }
[ -x "$jdk/bin/java" ] || { echo "no JDK 21+ at $jdk (SDP4J_VT_JDK)"; echo "0 passed, 1 failed"; exit 1; }
"$jdk/bin/java" -version 2>&1 | head -1
# hang bounds, not speed limits (see concurrent.sh): nothing moved for $stall s, or the last-resort kill
stall=120 kill=1200
jfr=$out/virtual-$n.jfr
echo "== $n virtual-thread clients + a virtual-thread server, parallelism 2, JFR"
t0=$(date +%s)
timeout -s KILL $kill "$jdk/bin/java" "${guest_jvm_busy[@]}" \
  -Djdk.virtualThreadScheduler.parallelism=2 -Djdk.virtualThreadScheduler.maxPoolSize=2 \
  -XX:StartFlightRecording=filename="$jfr",settings=default \
  -Dsdp4j.test.echoStall=$stall -Dsdp4j.rsocket.maxConnections=$((2 * n + 16)) -cp "$cp" \
  org.sdp4j.rsocket.ConcurrentEcho same-jvm $addr 7700 "$n" 10 64 virtual 2>&1
record "j: $n virtual-thread rsocket clients + virtual-thread server, parallelism 2, every byte checked" \
  "${PIPESTATUS[0]}" $(( $(date +%s) - t0 ))
if [ -s "$jfr" ]; then
  # -J-Xint: the checker itself runs without JIT; under TCG its JIT code once died of SIGILL (CI, step m, in
  # RecordingInput.readLong, C1) and failed the step while the recording was sound; interpreted it takes seconds.
  "$jdk/bin/jfr" -J-Xint print --stack-depth 64 --events jdk.VirtualThreadPinned "$jfr" > "$out/pinned-$n.txt" 2>&1
  jrc=$?
  pinned=$(grep -c 'jdk.VirtualThreadPinned' "$out/pinned-$n.txt")
  ours=$(grep -c 'org\.sdp4j' "$out/pinned-$n.txt")
  echo "JFR: $pinned jdk.VirtualThreadPinned events, $ours sdp4j frames in them"
  [ "$ours" -gt 0 ] && grep -B5 -A25 'org\.sdp4j' "$out/pinned-$n.txt" | head -60
  [ "$jrc" = 0 ] && [ "$ours" = 0 ]; record "j: JFR: no jdk.VirtualThreadPinned event with an sdp4j frame ($pinned events)" $? 0
else
  record "j: JFR recording written" 1 0
fi
printf '%s\n' "${summary[@]}"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
