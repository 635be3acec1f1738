#!/usr/bin/env bash
# The transport contract on SMC-R itself, run INSIDE one soft-RoCE VM booted with Debian's 6.12 kernel (test.sh:
# SDP4J_VM_KERNEL=$(native/vm/smc-kernel.sh) native/vm/run-in-vm.sh -- native/vm-tests/smc-wire.sh).
# A connection to one's own address goes through lo, where SMC finds no RDMA device and falls back (smc.sh), and
# the contract needs both ends in one JVM. So this guest gets a wire of its own: a veth pair va (10.7.7.1) - vb
# (10.7.7.2) with an rxe device on each end, and policy routing that sends locally generated packets for the other
# address out of the pair instead of through lo (the local table is looked up after two rules; accept_local lets a
# packet from one's own address in). A client connecting to 10.7.7.2 leaves by va, the listener receives on vb,
# and SMC-Rv2 (one User EID, as between the two guests) links rxa and rxb: RoCEv2 over the pair.
# Every connected endpoint must be on SMC-R (SmcFixture with -Dsdp4j.test.smc=smc-r asks smc_diag), and the rxe
# counters must show the traffic. Closing line "N passed, M failed".
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
out=${SDP4J_OUT:-/tmp/sdp4j-vm-out}
mkdir -p "$out"
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
A=10.7.7.1 B=10.7.7.2
passed=0 failed=0
ok() { echo "PASS $*"; passed=$((passed + 1)); }
bad() { echo "FAIL $*"; failed=$((failed + 1)); }
end() { echo "$passed passed, $failed failed"; [ "$failed" = 0 ]; exit; }
[ -e "$repo/sdp-jni/target/test-classes/org/sdp4j/smc/contract/SmcContractTest.class" ] ||
  { bad "missing sdp-jni's test classes: build on the host first (mvn install)"; end; }

modprobe smc && modprobe smc_diag && modprobe veth || { bad "no smc, smc_diag or veth module in $(uname -r)"; end; }
python3 "$repo/native/vm-tests/two-hosts/smc-ueid.py" add SDP4J-SMC-WIRE || { bad "could not set a User EID"; end; }
ip link add va type veth peer name vb || { bad "could not make the veth pair"; end; }
ip addr add $A/24 dev va && ip addr add $B/24 dev vb || { bad "could not address the pair"; end; }
for d in all default va vb; do sysctl -qw net.ipv4.conf.$d.accept_local=1 net.ipv4.conf.$d.rp_filter=0; done
ip link set va up && ip link set vb up
ip route add $B dev va src $A table 100 && ip route add $A dev vb src $B table 101 &&
  ip rule add pref 50 iif lo to $B lookup 100 && ip rule add pref 51 iif lo to $A lookup 101 &&
  ip rule add pref 100 lookup local && ip rule del pref 0 lookup local || { bad "policy routing"; ip rule show; end; }
ip route get $B | grep -q "dev va" || { bad "$B is not routed out of va: $(ip route get $B)"; end; }
rdma link add rxa type rxe netdev va && rdma link add rxb type rxe netdev vb || { bad "no rxe on the pair"; end; }
for d in rxa rxb; do
  for ((i = 0; i < 100; i++)); do grep -q ACTIVE /sys/class/infiniband/$d/ports/1/state 2>/dev/null && break; sleep 0.1; done
done
ok "a wire in one guest: $(rdma link show rxa/1 | cut -d' ' -f2-8), $(rdma link show rxb/1 | cut -d' ' -f2-8); $(ip route get $B | head -1)"

pkts() { cat /sys/class/infiniband/$1/ports/1/hw_counters/$2; }
s0=$(pkts rxa sent_pkts) r0=$(pkts rxa rcvd_pkts)
. "$repo/native/vm-tests/smc-contract.sh"
if smc_contract smc-r-contract $B -Dsdp4j.test.smc=smc-r; then ok "contract on SMC-R (every connected endpoint on SMC-R): $contract_counts"
else bad "contract on SMC-R ($contract_counts)"; fi
sent=$(( $(pkts rxa sent_pkts) - s0 )) rcvd=$(( $(pkts rxa rcvd_pkts) - r0 ))
if [ $sent -ge 1000 ] && [ $rcvd -ge 1000 ]; then ok "RoCEv2 over the pair: rxa sent $sent and received $rcvd packets"
else bad "too little RoCEv2 over the pair for SMC-R: rxa sent $sent, received $rcvd packets"; fi
end
