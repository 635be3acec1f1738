#!/usr/bin/env bash
# Benchmarks across the two-host wire (native/vm/two-hosts.sh: two soft-RoCE guests, a = 10.9.9.1, b = 10.9.9.2):
#   benchmarks/two-hosts-bench.sh [--jcc | --rstream | --smc]      (default: --jcc and --rstream, in one boot)
# --jcc:     the step "bench" (native/vm-tests/two-hosts/bench.sh): JMH's JccWorkload (single INSERT with autocommit,
#            point SELECT, SELECT of 4000 rows) on guest a under the agent, alternately on 'use sdp' and 'use tcp',
#            against one Derby 10.8.3.0 on guest b listening on 'use both'. Ratio sdp / tcp of JMH's time per operation.
# --rstream: the step "bench-rstream" (native/vm-tests/two-hosts/bench-rstream.sh): sdp4j (RdmaVsRstream over
#            java.net.Socket under the agent on a, RstreamPeer under the agent on b) against rdma-core's rstream
#            (client on a, server on b; default busy-poll mode, -T b, -T a -T b), 64 B round trip and 32 x 64 KiB each way,
#            interleaved round by round. Ratio sdp4j / rstream of the time per exchange (> 1: sdp4j slower).
# --smc:     the step "bench-smc" (native/vm-tests/two-hosts/bench-smc.sh) on the guests booted with Linux 6.12
#            (native/vm/smc-kernel.sh): RdmaVsRstream's 64 B round trip and 32 x 64 KiB each way over java.net.Socket
#            under the agent on a, on 'use smc', 'use sdp' and 'use tcp' in turn, each against its own RstreamPeer on b.
#            Ratios smc / tcp and smc / sdp of the time per exchange (< 1: smc faster).
# Per benchmark it prints the ratio per round, the median and [min, max] over rounds (OUT/bench-summary.md). Absolute
# times under TCG emulation mean nothing; only these ratios, measured side by side in one run, do.
# SDP4J_2H_BENCH_ROUNDS (3), SDP4J_2H_BENCH_JMH, SDP4J_2H_RS_ROUNDS (6), SDP4J_2H_RS_* reach the guests.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
case "${1:-}" in
  --jcc) steps="wire bench" ;;
  --rstream) steps="wire bench-rstream" ;;
  --smc) steps="wire bench-smc"; SDP4J_VM_KERNEL=$(native/vm/smc-kernel.sh); export SDP4J_VM_KERNEL ;;
  "") steps="wire bench bench-rstream" ;;
  *) echo "usage: $0 [--jcc | --rstream | --smc]" >&2; exit 2 ;;
esac
[ -f benchmarks/target/benchmarks.jar ] || mvn -B -ntp -q -pl benchmarks -am package -DskipTests
set +e
SDP4J_2H_STEPS="$steps" native/vm/two-hosts.sh -t "${SDP4J_VM_TIMEOUT:-3000}" | tee /dev/stderr | tail -1 > /tmp/sdp4j-2h-bench.out.$$
rc=${PIPESTATUS[0]}
set -e
out=$(cat /tmp/sdp4j-2h-bench.out.$$); rm -f /tmp/sdp4j-2h-bench.out.$$
[ -d "$out/a" ] || { echo "no guest output in $out" >&2; exit 1; }
python3 - "$out/a" <<'PY' | tee "$out/bench-summary.md"
import glob, json, os, statistics, sys
d = sys.argv[1]


def spread(xs):
    return f"{statistics.median(xs):.2f} [{min(xs):.2f}, {max(xs):.2f}]"


# JCC: sdp / tcp of JMH's time per operation, per round
runs = {}
for f in sorted(glob.glob(os.path.join(d, "bench", "*-*.json"))):
    rnd, transport = os.path.basename(f)[:-5].split("-", 1)
    try:
        data = json.load(open(f))
    except ValueError:
        continue
    for b in data:
        name = b["benchmark"].rsplit(".", 1)[1]
        runs.setdefault(name, {}).setdefault(int(rnd), {})[transport] = (b["primaryMetric"]["score"], b["primaryMetric"]["scoreUnit"])
if runs:
    print("| JCC over the wire | sdp | tcp | sdp / tcp per round | median [min, max] |")
    print("|---|---|---|---|---|")
    for name, rounds in sorted(runs.items()):
        ratios = [r["sdp"][0] / r["tcp"][0] for _, r in sorted(rounds.items()) if "sdp" in r and "tcp" in r]
        if not ratios:
            continue
        sdp = [r["sdp"][0] for r in rounds.values() if "sdp" in r]
        tcp = [r["tcp"][0] for r in rounds.values() if "tcp" in r]
        unit = next(v for r in rounds.values() for v in r.values())[1]
        print(f"| {name} | {statistics.median(sdp):.1f} {unit} | {statistics.median(tcp):.1f} {unit} | "
              f"{', '.join(f'{x:.2f}' for x in ratios)} | {spread(ratios)} |")
    print()

# rstream: sdp4j / rstream of the time per exchange, per round; round 0 is the warm-up
raw = os.path.join(d, "bench-rstream", "raw.tsv")
if os.path.exists(raw):
    v = {}
    for line in open(raw):
        w = line.split("\t")
        if len(w) == 4 and w[0].isdigit() and int(w[0]) > 0:
            v.setdefault(w[1], {}).setdefault(int(w[0]), {})[w[2]] = float(w[3])
    names = {"lat": "64 B round trip", "bw": "32 x 64 KiB each way"}
    refs = {"rstream": "rstream (busy-poll)", "rstream-b": "rstream -T b (blocking)",
            "rstream-ab": "rstream -T a -T b (rpoll, then blocking)"}
    print("| across the wire, a -> b | reference | sdp4j | reference | sdp4j / reference per round | median [min, max] |")
    print("|---|---|---:|---:|---|---:|")
    for t in ("lat", "bw"):
        rounds = v.get(t, {})

        def med(impl):
            xs = [r[impl] for r in rounds.values() if impl in r]
            if not xs:
                return "-"
            m = statistics.median(xs)
            return f"{m:.0f} µs" + (f" ({2 * 32 * 65536 * 8 / m:.0f} Mbit/s)" if t == "bw" else "")
        for ref, label in refs.items():
            ratios = [r["sdp4j"] / r[ref] for _, r in sorted(rounds.items()) if "sdp4j" in r and ref in r]
            if ratios:
                print(f"| {names[t]} | {label} | {med('sdp4j')} | {med(ref)} | {', '.join(f'{x:.2f}' for x in ratios)} "
                      f"| **{spread(ratios)}** |")
    print(f"\n{len(v.get('lat', {}))} measured rounds (round 0, the warm-up, dropped); time per exchange, median over "
          "rounds; ratio > 1: sdp4j slower. Absolute times under TCG mean nothing.")
# smc: smc / tcp and smc / sdp of the time per exchange, per round; round 0 is the warm-up
raw = os.path.join(d, "bench-smc", "raw.tsv")
if os.path.exists(raw):
    v = {}
    for line in open(raw):
        w = line.rstrip("\n").split("\t")
        if len(w) == 4 and w[0].isdigit() and int(w[0]) > 0:
            v.setdefault(w[1], {}).setdefault(int(w[0]), {})[w[2]] = float(w[3])
    names = {"lat": "64 B round trip", "bw": "32 x 64 KiB each way"}
    print("| across the wire, a -> b | smc | sdp (rsockets) | tcp | smc / tcp per round | median [min, max] "
          "| smc / sdp per round | median [min, max] |")
    print("|---|---:|---:|---:|---|---:|---|---:|")
    for t in ("lat", "bw"):
        rounds = v.get(t, {})
        if not rounds:
            continue

        def med(impl):
            xs = [r[impl] for r in rounds.values() if impl in r]
            return f"{statistics.median(xs):.0f} µs" if xs else "-"
        cells = []
        for ref in ("tcp", "sdp"):
            ratios = [r["smc"] / r[ref] for _, r in sorted(rounds.items()) if "smc" in r and ref in r]
            cells += [", ".join(f"{x:.2f}" for x in ratios), f"**{spread(ratios)}**" if ratios else "-"]
        print(f"| {names[t]} | {med('smc')} | {med('sdp')} | {med('tcp')} | " + " | ".join(cells) + " |")
    print(f"\n{len(v.get('lat', {}))} measured rounds (round 0 dropped); JMH's time per exchange, median over rounds; "
          "ratio < 1: smc faster. Absolute times under TCG mean nothing.")
prof = os.path.join(d, "bench-rstream", "profile.tsv")
if os.path.exists(prof):
    rows = [line.rstrip("\n").split("\t") for line in open(prof)][1:]
    print("\n| 64 B round trip, on a, per round trip | wall µs | CPU µs (all threads) | context switches | system calls |")
    print("|---|---:|---:|---:|---:|")
    for r in rows:
        if len(r) == 5:
            print("| " + " | ".join(r) + " |")
    calls = {}
    sc = os.path.join(d, "bench-rstream", "profile-syscalls.tsv")
    for line in open(sc) if os.path.exists(sc) else []:
        w = line.rstrip("\n").split("\t")
        if len(w) == 3:
            calls.setdefault(w[1], {})[w[0]] = w[2]
    if calls:
        impls = [r[0] for r in rows if len(r) == 5]
        print("\n| system calls per round trip, on a | " + " | ".join(impls) + " |")
        print("|---|" + "---:|" * len(impls))
        for name in sorted(calls, key=lambda k: -max(float(x) for x in calls[k].values())):
            print(f"| {name} | " + " | ".join(calls[name].get(i, "0") for i in impls) + " |")
PY
echo "$out"
exit "$rc"
