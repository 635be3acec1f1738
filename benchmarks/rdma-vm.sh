#!/usr/bin/env bash
# sdp4j vs rdma-core's rstream on soft-RoCE, in the project's qemu VM: 64 B round trip and 64 KiB streaming, the JMH
# benchmark org.sdp4j.bench.RdmaVsRstream (plain java.net.Socket under the agent, "use sdp") interleaved round by
# round with rstream's own client and server (default busy-poll mode and -T b), ratios sdp4j / rstream.
#
# usage: benchmarks/rdma-vm.sh [--rounds N] [--busypoll N [--no-policy]] [--baseline-native SO] [--out DIR] [--timeout S]
#   --rounds N    measured rounds (default 8; one more warm-up round is run and dropped)
#   --out DIR     where the result goes (default benchmarks/target/rdma-vm): summary.md, summary.json, raw.tsv, logs
#   --timeout S   the VM's overall limit (default 600)
#   --busypoll N  also measure sdp4j with -Dsdp4j.rsocket.busypoll=N (the busypoll tunable, docs/tunables.md:
#                 busy-poll the rsocket up to N µs before sleeping in rpoll); --spin-us N is an old name for it
#   --no-policy   with --busypoll: a third JVM spins as before the shared waiting policy (-Dsdp4j.spin.policy=false),
#                 so the policy's effect on the ratios is read side by side (issue 18)
#   --baseline-native SO  one more sdp4j JVM loads this libsdp4j.so (-Dsdp4j.native.path) instead of the build's:
#                 a native change read side by side against the library before it (build the old one from git)
#   finer knobs (environment, passed into the guest): SDP4J_BENCH_LAT_ITERS, SDP4J_BENCH_BW_ITERS, SDP4J_BENCH_JMH,
#   SDP4J_BENCH_COUNT (see native/vm-tests/bench-rdma.sh)
# About 3-5 minutes on an idle 2-core host, boot included (the VM runs under TCG: ABSOLUTE NUMBERS ARE MEANINGLESS,
# only the ratios measured side by side in the run are). Needs root once for native/vm/setup.sh (qemu, the 6.1
# kernel, rdma-core incl. rstream from rdmacm-utils). Exit status: the guest script's (0 ok), 4 build.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
start=$(date +%s)
out=$here/target/rdma-vm timeout=600
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) export SDP4J_BENCH_ROUNDS=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --timeout) timeout=$2; shift 2 ;;
    --busypoll|--spin-us) export SDP4J_BENCH_BUSYPOLL_US=$2; shift 2 ;;
    --no-policy) export SDP4J_BENCH_NOPOLICY=1; shift ;;
    --baseline-native) export SDP4J_BENCH_BASELINE_NATIVE=$(realpath "$2"); shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "rdma-vm.sh: unknown argument $1 (--help)" >&2; exit 2 ;;
  esac
done

. "$here/lib/build.sh"
ensure_built 1 1 || exit 4
"$root/native/vm/setup.sh"

mkdir -p "$out"
out=$(cd "$out" && pwd)
vmout=$out/vm
rm -rf "$vmout"
mkdir -p "$vmout"
cd "$root"
set +e
SDP4J_VM_OUT=$vmout "$root/native/vm/run-in-vm.sh" -t "$timeout" -- native/vm-tests/bench-rdma.sh
rc=$?
set -e
for f in summary.md summary.json raw.tsv; do [ -f "$vmout/bench/$f" ] && cp "$vmout/bench/$f" "$out/$f"; done
echo
if [ "$rc" = 0 ] && [ -f "$out/summary.md" ]; then
  cat "$out/summary.md"
  echo
  echo "rdma-vm.sh: $(( $(date +%s) - start )) s; result in $out/summary.md and summary.json (logs: $vmout)"
else
  echo "rdma-vm.sh: FAILED (status $rc) after $(( $(date +%s) - start )) s; logs in $vmout" >&2
fi
exit "$rc"
