#!/usr/bin/env bash
# `use smc` on the VM's own kernel, run INSIDE the soft-RoCE VM; step o of run-all.sh. Debian's 6.1 has the smc
# module but SMC-R over rxe does not work there (FACTS.md, issue 24), and no pnet table or UEID is set: every
# connection must fall back to TCP by the protocol. What this step proves is sdp4j's part on a kernel with SMC:
# the rules put both ends on transport=smc (the JDK's sockets made SMC: /proc/net/protocols counts them), java.net
# and NIO echo 1 MiB byte for byte, and each connection's outcome is logged from smc_diag with the kernel's reason.
# SMC-R itself is proven between two guests on 6.12 (two-hosts.sh smc-* steps). Closing line "N passed, M failed".
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
out=${SDP4J_OUT:-/tmp/sdp4j-vm-out}
mkdir -p "$out"
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
addr=10.9.9.1
agent=$repo/sdp-jdbc/target/sdp4j-agent.jar
apps=$repo/src/test/target/test-classes
jcp="$repo/sdp-jni/target/test-classes"
for f in "$agent" "$apps/org/sdp4j/e2e/apps/NioEchoMain.class" "$jcp/org/sdp4j/rsocket/PlainEcho.class"; do
  [ -e "$f" ] || { echo "missing $f: build on the host first (mvn install)"; echo "0 passed, 1 failed"; exit 2; }
done
passed=0 failed=0
ok() { echo "PASS $*"; passed=$((passed + 1)); }
bad() { echo "FAIL $*"; failed=$((failed + 1)); }
wait_for_line() { local i; for ((i = 0; i < $3 * 10; i++)); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done; return 1; }

modprobe smc 2>&1; modprobe smc_diag 2>&1
grep -E '^(SMC|SMC6) ' /proc/net/protocols || { bad "no SMC in /proc/net/protocols after modprobe smc"; echo "$passed passed, $failed failed"; exit 1; }
st=$("$java" -jar "$agent" selftest 2>&1 | grep '^transport smc')
echo "$st"
case "$st" in
  *"available: "*"_SMC; RDMA devices: rxe0; User EIDs: none (SMC-Rv2 needs one"*) ok "selftest: $st" ;;
  *) bad "selftest does not show SMC available with rxe0 and no UEID: '$st'" ;;
esac
conf=$out/libsdp-o.conf
printf '%s\n' 'log min-level 7 destination stderr' "use smc server * $addr:*" "use smc client * $addr:*" > "$conf"
. "$repo/native/vm-tests/guest-jvm.sh"
jvm=("${guest_jvm[@]}" -javaagent:"$agent"=conf="$conf")

run() { # NAME PORT SERVER_CMD CLIENT_CMD...
  local name=$1 port=$2 srv rc; shift 2
  local scls=$1; shift
  timeout -s KILL 120 "$java" "${jvm[@]}" -cp "$apps:$jcp" $scls server $addr "$port" 1 > "$out/smc-$name-server.log" 2>&1 &
  srv=$!
  if ! wait_for_line "$out/smc-$name-server.log" listening 60; then
    kill -9 $srv 2>/dev/null; bad "$name: the server did not listen"; cat "$out/smc-$name-server.log"; return
  fi
  timeout -s KILL 120 "$java" "${jvm[@]}" -cp "$apps:$jcp" "$scls" client $addr "$port" 1048576 > "$out/smc-$name-client.log" 2>&1
  rc=$?
  wait $srv; src=$?
  cat "$out/smc-$name-client.log" "$out/smc-$name-server.log"
  [ $rc = 0 ] && [ $src = 0 ] || { bad "$name: echo failed (client $rc, server $src)"; return; }
  grep -q "client $addr:$port .*family=smc transport=smc" "$out/smc-$name-client.log" \
    || { bad "$name: the client's decision is not transport=smc"; return; }
  grep -q "server $addr:$port .*family=smc transport=smc" "$out/smc-$name-server.log" \
    || { bad "$name: the listener's decision is not transport=smc"; return; }
  outcome=$(grep -o "smc: connection to $addr:$port on .*" "$out/smc-$name-client.log" | head -1)
  case "$outcome" in
    *"on TCP (SMC fell back: 0x"*) ok "$name: 1 MiB echoed, both ends transport=smc; $outcome" ;;
    *"on SMC-R"*) ok "$name: 1 MiB echoed, both ends transport=smc; $outcome (SMC-R on this kernel)" ;;
    *) bad "$name: no smc_diag outcome for the connection: '$outcome'" ;;
  esac
}
run java.net 7480 org.sdp4j.rsocket.PlainEcho
run nio 7481 org.sdp4j.e2e.apps.NioEchoMain

# the transport contract with both ends on smc (sdp-jni's SmcContractTest): on one host TCP by the protocol under
# SMC sockets, so this is the JDK's socket semantics kept by sdp4j's SMC conversion, not SMC-R's data path
. "$repo/native/vm-tests/smc-contract.sh"
if smc_contract smc-contract $addr; then ok "contract on smc sockets: $contract_counts"
else bad "contract on smc sockets ($contract_counts)"; fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
