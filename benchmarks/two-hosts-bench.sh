#!/usr/bin/env bash
# JCC over the two-host wire: sdp (rsockets on soft-RoCE) against tcp, same client, same Derby server, same wire.
#   benchmarks/two-hosts-bench.sh
# Boots the two guests of native/vm/two-hosts.sh and runs its steps "wire bench" (native/vm-tests/two-hosts/bench.sh):
# JMH's JccWorkload (single INSERT with autocommit, point SELECT, SELECT of 4000 rows) on guest a under the agent,
# alternately on 'use sdp' and 'use tcp', against one Derby 10.8.3.0 on guest b listening on 'use both'. Then it
# prints, per benchmark, the ratio sdp / tcp of JMH's score (time per operation: < 1 means sdp is faster) per round,
# with the median and [min, max] over rounds. Absolute times under TCG emulation mean nothing; only these ratios,
# measured side by side in one run, do. SDP4J_2H_BENCH_ROUNDS (3) and SDP4J_2H_BENCH_JMH reach the guest.
# Not done yet: sdp4j against rdma-core's rstream across the wire (RdmaVsRstream needs a remote peer for that).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
[ -f benchmarks/target/benchmarks.jar ] || mvn -B -ntp -q -pl benchmarks -am package -DskipTests
set +e
SDP4J_2H_STEPS="wire bench" native/vm/two-hosts.sh -t "${SDP4J_VM_TIMEOUT:-3000}" | tee /dev/stderr | tail -1 > /tmp/sdp4j-2h-bench.out.$$
rc=${PIPESTATUS[0]}
set -e
out=$(cat /tmp/sdp4j-2h-bench.out.$$); rm -f /tmp/sdp4j-2h-bench.out.$$
[ -d "$out/a/bench" ] || { echo "no bench results in $out/a/bench" >&2; exit 1; }
python3 - "$out/a/bench" <<'EOF' | tee "$out/bench-summary.md"
import glob, json, os, statistics, sys
d = sys.argv[1]
runs = {}
for f in sorted(glob.glob(os.path.join(d, "*-*.json"))):
    rnd, transport = os.path.basename(f)[:-5].split("-", 1)
    try:
        data = json.load(open(f))
    except ValueError:
        continue
    for b in data:
        name = b["benchmark"].rsplit(".", 1)[1]
        runs.setdefault(name, {}).setdefault(int(rnd), {})[transport] = (b["primaryMetric"]["score"], b["primaryMetric"]["scoreUnit"])
print("| JCC over the wire | sdp | tcp | sdp / tcp per round | median [min, max] |")
print("|---|---|---|---|---|")
for name, rounds in sorted(runs.items()):
    ratios = [r["sdp"][0] / r["tcp"][0] for _, r in sorted(rounds.items()) if "sdp" in r and "tcp" in r]
    sdp = [r["sdp"][0] for r in rounds.values() if "sdp" in r]
    tcp = [r["tcp"][0] for r in rounds.values() if "tcp" in r]
    unit = next(iter(rounds.values()))[next(iter(next(iter(rounds.values()))))][1]
    if not ratios:
        continue
    print(f"| {name} | {statistics.median(sdp):.1f} {unit} | {statistics.median(tcp):.1f} {unit} | "
          f"{', '.join(f'{x:.2f}' for x in ratios)} | {statistics.median(ratios):.2f} [{min(ratios):.2f}, {max(ratios):.2f}] |")
EOF
echo "$out"
exit "$rc"
