#!/usr/bin/env bash
# `sdp4j-agent.jar stat` on rsockets (issue 21), run INSIDE the soft-RoCE VM; step n of run-all.sh.
# HoldConnectionsMain (src/test) through the agent on `use sdp` for 10.9.9.1 holds a listener, two client
# connections that wrote 1000 bytes each and the two accepted ends that read them; stat must list four rsocket
# connections with those bytes and the rules that decided them, in text and JSON. Closing line "N passed, M failed".
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
. "$repo/native/vm-tests/guest-jvm.sh"
out=${SDP4J_OUT:-/tmp/sdp4j-vm-out}
mkdir -p "$out"
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
addr=10.9.9.1
agent=$repo/sdp-jdbc/target/sdp4j-agent.jar
apps=$repo/src/test/target/test-classes
for f in "$agent" "$apps/org/sdp4j/e2e/apps/HoldConnectionsMain.class"; do
  [ -e "$f" ] || { echo "missing $f: build on the host first (mvn install)"; echo "0 passed, 1 failed"; exit 2; }
done
conf=$out/libsdp-n.conf
printf '%s\n' "use tcp client * $addr:9" "use sdp server * $addr:*" "use sdp client * $addr:*" > "$conf"
t0=$(date +%s)
coproc HOLD { timeout -s KILL 300 "$java" "${guest_jvm[@]}" \
  -javaagent:"$agent"=conf="$conf" -cp "$apps" org.sdp4j.e2e.apps.HoldConnectionsMain 9 "$addr" 2> "$out/stat-hold.err"; }
ready=
for _ in $(seq 120); do
  IFS= read -r -t 1 line <&"${HOLD[0]}" && case "$line" in READY*) ready=$line; break ;; esac
done
rc=0
if [ -z "$ready" ]; then
  echo "HoldConnectionsMain did not get ready"; cat "$out/stat-hold.err"; rc=3
else
  read -r _ pid port <<< "$ready"
  "$java" -jar "$agent" stat "$pid" > "$out/stat.txt" 2>&1 || rc=$?
  "$java" -jar "$agent" stat --json "$pid" > "$out/stat.json" 2>&1 || rc=$?
  cat "$out/stat.txt"
  clients=$(grep -Ec "^  rsocket +client +$addr:[0-9]+ +$addr:$port +$conf:3 +[^ ]+ +0 +1000  rsockets$" "$out/stat.txt")
  accepted=$(grep -Ec "^  rsocket +accepted +$addr:$port +$addr:[0-9]+ +$conf:2 +[^ ]+ +1000 +0  rsockets$" "$out/stat.txt")
  total=$(grep -Ec "^  rsocket +2 +2 +[12] +0 +0 +4 +2000 +2000$" "$out/stat.txt")  # listens: the JMX connector's too, as in OperationsTest
  json=$(grep -o '"transport":"rsocket","role":"client"[^}]*"bytesOut":1000,"via":"rsockets"' "$out/stat.json" | wc -l)
  echo "stat: $clients client lines, $accepted accepted lines, totals row $total, JSON client lines $json"
  [ "$rc" = 0 ] && { [ "$clients" = 2 ] && [ "$accepted" = 2 ] && [ "$total" = 1 ] && [ "$json" = 2 ] || rc=3; }
fi
exec {HOLD[1]}>&-  # closes the app's stdin: it ends
wait "$HOLD_PID" 2>/dev/null
if [ "$rc" = 0 ]; then echo "PASS  n: stat lists 4 rsocket connections with their bytes and rules ($(( $(date +%s) - t0 ))s)"; echo "1 passed, 0 failed"
else echo "FAIL  n: stat on rsockets (status $rc)"; echo "0 passed, 1 failed"; fi
[ "$rc" = 0 ]
