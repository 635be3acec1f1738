#!/usr/bin/env bash
# sdp4j vs rdma-core's rstream, run INSIDE the soft-RoCE VM (benchmarks/rdma-vm.sh boots the VM and runs this):
#   native/vm/run-in-vm.sh -t 600 -- native/vm-tests/bench-rdma.sh
# Not part of the CI suite (run-all.sh): it takes minutes.
#
# What it compares, in one run, on rxe0 (10.9.9.1), round after round, alternating which goes first (A B, B A, ...):
#   sdp4j:   JMH's org.sdp4j.bench.RdmaVsRstream in one JVM under the agent (sdp4j-agent.jar, "use sdp" rules for
#            10.9.9.1): plain java.net.Socket client and ServerSocket peer thread, rsockets underneath. roundTrip =
#            one 64 B message each way; stream = 32 x 64 KiB one way then 32 x 64 KiB back (one rstream iteration).
#            The JVM stays up (org.sdp4j.bench.BenchServer: JMH -f 0, one run per request) so every round measures
#            the same JIT-compiled code; each run connects anew.
#   rstream: rdma-core's own client and server processes, the same exchanges: `rstream -S 64 -C 1 -I N` and
#            `rstream -S 65536 -C 32 -I N`, in its default mode (non-blocking rsend/rrecv in a busy loop: both
#            processes spin) and with -T b (blocking calls: rsockets' own wait in the completion channel).
# A ratio is sdp4j / rstream per round (time for the round trip: > 1 is slower; bandwidth: < 1 is slower), summarized
# over the measured rounds as the median (the robust one: under TCG a round now and then runs 3-10x slow, for rstream
# as for sdp4j), the geometric mean and [min, max]. Round 0 is a warm-up, dropped.
# Absolute numbers mean nothing under TCG emulation: only ratios measured side by side.
#
# With SDP4J_BENCH_BUSYPOLL_US=N a second sdp4j JVM runs too ("sdp4j-busypoll"), with -Dsdp4j.rsocket.busypoll=N
# (the busypoll tunable, docs/tunables.md): every rsocket of that JVM, both ends, re-checks the rsocket with
# rpoll(0) for up to N µs before it sleeps in rpoll, as rstream's default mode spins. BenchServer runs JMH in its
# own JVM (-f 0), so the property on this command line is the one the benchmark sees (a forking JMH run would need
# it in jvmArgsAppend).
# Tunables (environment; SDP4J_* reach the guest): SDP4J_BENCH_ROUNDS (8), SDP4J_BENCH_LAT_ITERS (rstream -I for
# the round trip, 3000), SDP4J_BENCH_BW_ITERS (rstream -I for streaming, 3), SDP4J_BENCH_JMH ("1 300 2 500":
# warm-up iterations, ms, measured iterations, ms per sdp4j run), SDP4J_BENCH_COUNT (messages per exchange, 32),
# SDP4J_BENCH_BUSYPOLL_US (unset: no sdp4j-busypoll variant), SDP4J_BENCH_NOPOLICY=1 (with a busypoll: a third
# JVM, "sdp4j-busypoll-nopolicy", spins as before the shared waiting policy, -Dsdp4j.spin.policy=false: issue 18's
# check that the policy makes no ratio worse), SDP4J_BENCH_BASELINE_NATIVE=PATH (one more JVM, "sdp4j-baseline",
# loads that libsdp4j.so instead of the build's: a native change's effect read side by side, e.g. the rsocket
# lock of sdp4j_rslock.c against the library before it).
# Output: $SDP4J_OUT/bench/ (raw.tsv, summary.md, summary.json, sdp4j*.log and sdp4j*-jmh.json per measuring JVM,
# rstream-*.log).
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
out=${SDP4J_OUT:-/tmp/sdp4j-vm-out}/bench
mkdir -p "$out"
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
addr=10.9.9.1
dev=rxe0
hw=/sys/class/infiniband/$dev/ports/1/hw_counters
rounds=${SDP4J_BENCH_ROUNDS:-8}
lat_iters=${SDP4J_BENCH_LAT_ITERS:-3000}
bw_iters=${SDP4J_BENCH_BW_ITERS:-3}
count=${SDP4J_BENCH_COUNT:-32}
read -r jw jwms jm jmms <<< "${SDP4J_BENCH_JMH:-1 300 2 500}"
size_bw=65536
port=7600
log() { echo "== $*"; }
die() { echo "bench-rdma: $*" >&2; exit 1; }
counters() { echo "$(cat "$hw/sent_pkts" 2>/dev/null || echo 0) $(cat "$hw/rcvd_pkts" 2>/dev/null || echo 0)"; }
wait_for_line() { # FILE PATTERN SECONDS
  local i
  for ((i = 0; i < $3 * 10; i++)); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  return 1
}

log "soft-RoCE device"
rdma link show "$dev/1" 2>/dev/null | grep -q 'state ACTIVE' || die "rxe0 is not up"
agent=$repo/sdp-jdbc/target/sdp4j-agent.jar
jar=$repo/benchmarks/target/benchmarks.jar
for f in "$agent" "$jar"; do [ -f "$f" ] || die "missing $f: build on the host first (benchmarks/rdma-vm.sh does)"; done
command -v rstream >/dev/null || die "rstream missing (Debian package rdmacm-utils; native/vm/setup.sh installs it)"
"$java" -version 2>&1 | head -1
echo "rstream: $(dpkg-query -W -f='${Package} ${Version}' rdmacm-utils 2>/dev/null); kernel $(uname -r); $(nproc) vCPUs"

# ---- the sdp4j side: one measuring JVM under the agent per variant, kept up for every round ----
printf '%s\n' 'log min-level 7 destination stderr' "use sdp server * $addr:*" "use sdp client * $addr:*" \
  'use tcp server * *:*' 'use tcp client * *:*' > "$out/libsdp.conf"
variants=(sdp4j)
[ -n "${SDP4J_BENCH_BUSYPOLL_US:-}" ] && variants+=(sdp4j-busypoll)
[ -n "${SDP4J_BENCH_BUSYPOLL_US:-}" ] && [ "${SDP4J_BENCH_NOPOLICY:-0}" = 1 ] && variants+=(sdp4j-busypoll-nopolicy)
if [ -n "${SDP4J_BENCH_BASELINE_NATIVE:-}" ]; then
  [ -f "$SDP4J_BENCH_BASELINE_NATIVE" ] || die "SDP4J_BENCH_BASELINE_NATIVE: no file $SDP4J_BENCH_BASELINE_NATIVE"
  variants+=(sdp4j-baseline)
fi
fifos=$(mktemp -d)
declare -A jin jout jpid
for v in "${variants[@]}"; do
  mkfifo "$fifos/$v.in" "$fifos/$v.out"
  rm -f "$out/$v.log"
  case $v in sdp4j-busypoll*) busypoll=$SDP4J_BENCH_BUSYPOLL_US ;; *) busypoll=0 ;; esac
  case $v in *-nopolicy) policy=false ;; *) policy=true ;; esac
  native=()
  [ "$v" = sdp4j-baseline ] && native=(-Dsdp4j.native.path="$SDP4J_BENCH_BASELINE_NATIVE")
  "$java" "${native[@]}" -XX:+UseSerialGC -Xms256m -Xmx256m -Djava.net.preferIPv4Stack=true -Dsdp4j.rsocket.busypoll="$busypoll" \
    -Dsdp4j.spin.policy=$policy \
    -javaagent:"$agent"=conf="$out/libsdp.conf" -Dsdp4j.bench.host=$addr \
    -cp "$jar" org.sdp4j.bench.BenchServer --json "$out/$v-jmh.json" --log "$out/$v.log" \
    < "$fifos/$v.in" > "$fifos/$v.out" 2>> "$out/$v.log" &
  jpid[$v]=$!
  exec {fd}> "$fifos/$v.in"; jin[$v]=$fd
  exec {fd}< "$fifos/$v.out"; jout[$v]=$fd
done
for v in "${variants[@]}"; do
  read -r -t 120 line <&"${jout[$v]}" || die "the $v JVM did not start (log: $(tail -5 "$out/$v.log"))"
  [ "$line" = "@@ready" ] || die "$v JVM: $line"
done

stuck() {
  echo "bench-rdma: $1 run $2 did not finish within $3 s; thread dump:" >&2
  kill -3 "${jpid[$1]}" 2>/dev/null; sleep 3
  tail -n 150 "$out/$1.log" >&2
  kill "${jpid[@]}" 2>/dev/null
  exit 1
}
# sdp4j VARIANT ID REGEX PARAMS... -> prints the score (µs per exchange)
sdp4j() {
  local v=$1 id=$2 re=$3 ok rid score unit geo
  shift 3
  echo "run $id $re $jw $jwms $jm $jmms $*" >&"${jin[$v]}"
  read -r -t 300 ok rid score unit geo <&"${jout[$v]}" || stuck "$v" "$id" 300
  [ "$ok" = "@@ok" ] || { echo "bench-rdma: $v run $id: $ok $rid $score $unit $geo" >&2; tail -40 "$out/$v.log" >&2; exit 1; }
  echo "$score"
}
# rstream ID PORT SIZE COUNT ITERS [OPTIONS] -> prints µs per exchange (usec/xfer x 2 x count: rstream's own number)
rstream_run() {
  local id=$1 port=$2 size=$3 cnt=$4 iters=$5 srv crc x
  shift 5
  stdbuf -oL rstream -b $addr -p $port -S "$size" -C "$cnt" -I "$iters" "$@" > "$out/rstream-$id-server.log" 2>&1 &
  srv=$!
  wait_for_line "$out/rstream-$id-server.log" name 30 || { kill $srv; die "rstream server $id did not start"; }
  timeout 120 rstream -s $addr -p $port -S "$size" -C "$cnt" -I "$iters" "$@" > "$out/rstream-$id.log" 2>&1
  crc=$?
  wait $srv || crc=1
  [ $crc = 0 ] || { cat "$out/rstream-$id.log" "$out/rstream-$id-server.log" >&2; die "rstream $id failed"; }
  x=$(awk '$1 == "custom" { print $8 }' "$out/rstream-$id.log")
  [ -n "$x" ] || die "rstream $id: no result line"
  awk -v x="$x" -v c="$cnt" 'BEGIN { printf "%.3f\n", x * 2 * c }'
}

: > "$out/raw.tsv"
rec() { printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" | tee -a "$out/raw.tsv"; }   # round test impl us_per_exchange
lat_re='RdmaVsRstream.roundTrip'
bw_re='RdmaVsRstream.stream'
c_start=$(counters)
t_start=$(date +%s)
log "rounds: 0 (warm-up, dropped) .. $rounds; sdp4j JMH $jw x ${jwms} ms warm-up + $jm x ${jmms} ms; rstream -I $lat_iters (64 B), -I $bw_iters (32 x 64 KiB)"
printf 'round\ttest\timpl\tus_per_exchange\n'
for ((r = 0; r <= rounds; r++)); do
  for test in lat bw; do
    if [ "$test" = lat ]; then size=64 cnt=1 iters=$lat_iters re=$lat_re params="size=64"
    else size=$size_bw cnt=$count iters=$bw_iters re=$bw_re params="size=$size_bw count=$count"; fi
    # A B / B A: sdp4j first in even rounds, rstream first in odd ones
    if ((r % 2 == 0)); then order="${variants[*]} rstream rstream-b"; else order="rstream rstream-b ${variants[*]}"; fi
    for impl in $order; do
      case $impl in
        sdp4j*)
          c0=$(counters)
          v=$(sdp4j "$impl" "$test$r" "$re" $params) || exit 1
          c1=$(counters)
          read -r s0 r0 <<< "$c0"; read -r s1 r1 <<< "$c1"
          [ $((s1 - s0)) -gt 100 ] && [ $((r1 - r0)) -gt 100 ] || die "rxe0 counters did not grow during sdp4j run $test$r: not RDMA"
          ;;
        rstream) port=$((port + 1)); v=$(rstream_run "$test$r" $port $size $cnt $iters) || exit 1 ;;
        rstream-b) port=$((port + 1)); v=$(rstream_run "$test$r-b" $port $size $cnt $iters -T b) || exit 1 ;;
      esac
      rec "$r" "$test" "$impl" "$v"
    done
  done
done
for v in "${variants[@]}"; do echo quit >&"${jin[$v]}"; done
wait "${jpid[@]}"
rm -rf "$fifos"
secs=$(( $(date +%s) - t_start ))
read -r s0 r0 <<< "$c_start"; read -r s1 r1 <<< "$(counters)"

# the decision log must show both ends of the sdp4j sockets on rsockets
for v in "${variants[@]}"; do
  grep -q "server $addr:.* family=sdp transport=rsocket" "$out/$v.log" &&
    grep -q "client $addr:.* family=sdp transport=rsocket" "$out/$v.log" ||
    die "the agent's decision log does not show transport=rsocket for both ends (see $out/$v.log)"
  grep -m2 'rdma-vs-rstream:' "$out/$v.log"
done

# ---- summary: per-round ratios sdp4j / rstream over rounds 1..N: geometric mean, median, min, max ----
awk -F'\t' -v rounds="$rounds" -v count="$count" -v bw="$size_bw" -v secs="$secs" -v variants="${variants[*]}" \
    -v busypoll="${SDP4J_BENCH_BUSYPOLL_US:-}" -v date="$(date -u +%Y-%m-%dT%H:%MZ)" -v kernel="$(uname -r)" \
    -v pk="sent_pkts +$((s1 - s0)), rcvd_pkts +$((r1 - r0))" -v md="$out/summary.md" -v js="$out/summary.json" '
  $1 ~ /^[0-9]+$/ && $1 > 0 { v[$2, $3, $1] = $4 }
  function gm(t, impl,   r, s, n) { s = 0; n = 0; for (r = 1; r <= rounds; r++) if ((t, impl, r) in v) { s += log(v[t, impl, r]); n++ } return n ? exp(s / n) : 0 }
  # sdp4j-variant A against REF for test t, per round: time ratio for lat, bandwidth ratio (the inverse) for bw.
  # Sets lo, hi, med, nr; returns the geometric mean.
  function ratios(t, a, ref,   r, x, s, n, xs, i, j, tmp) {
    s = 0; n = 0; lo = 1e99; hi = 0
    for (r = 1; r <= rounds; r++) if ((t, a, r) in v && (t, ref, r) in v) {
      x = v[t, a, r] / v[t, ref, r]; if (t == "bw") x = 1 / x
      s += log(x); xs[++n] = x; if (x < lo) lo = x; if (x > hi) hi = x
    }
    for (i = 2; i <= n; i++) for (j = i; j > 1 && xs[j - 1] > xs[j]; j--) { tmp = xs[j]; xs[j] = xs[j - 1]; xs[j - 1] = tmp }
    med = n ? (n % 2 ? xs[(n + 1) / 2] : sqrt(xs[n / 2] * xs[n / 2 + 1])) : 0
    nr = n; return n ? exp(s / n) : 0
  }
  function mbit(us) { return 2 * count * bw * 8 / us }
  function val(t, impl) { return t == "lat" ? sprintf("%.1f µs", gm(t, impl)) : sprintf("%.1f Mbit/s", mbit(gm(t, impl))) }
  function name(a) { return a == "sdp4j" ? "sdp4j" : a == "sdp4j-baseline" ? "sdp4j, baseline libsdp4j.so" : "sdp4j, -Dsdp4j.rsocket.busypoll=" busypoll (a ~ /-nopolicy$/ ? " -Dsdp4j.spin.policy=false" : "") }
  END {
    nv = split(variants, vs, " "); nrefs = split("rstream rstream-b", refs, " ")
    split("lat bw", tests, " ")
    title["lat"] = "64 B round trip (time per round trip; ratio > 1 = sdp4j slower)"
    title["bw"] = sprintf("64 KiB streaming, %d x 64 KiB each way (bandwidth; ratio < 1 = sdp4j slower)", count)
    printf "sdp4j vs rstream on soft-RoCE (rxe0, qemu TCG, kernel %s), %s: %d measured rounds (+1 warm-up, dropped), %d s; rxe0 %s\n", kernel, date, rounds, secs, pk > md
    printf "ABSOLUTE NUMBERS ARE MEANINGLESS (TCG emulation; the times are geometric means over the rounds). Read the ratios, taken per round side by side: median over the rounds (geometric mean) [min, max].\n\n" > md
    printf "| measurement | sdp4j (java.net.Socket, agent `use sdp`) | rstream (default: busy-poll) | rstream -T b (blocking) | sdp4j / rstream | sdp4j / rstream -T b |\n|---|---|---:|---:|---:|---:|\n" > md
    printf "{\"date\":\"%s\",\"kernel\":\"%s\",\"rounds\":%d,\"seconds\":%d,\"count\":%d,\"note\":\"absolute numbers meaningless under TCG; ratio = sdp4j/rstream per round: time ratio for lat (>1 slower), bandwidth ratio for bw (<1 slower)\",\"results\":[", date, kernel, rounds, secs, count > js
    sep = ""
    for (ti = 1; ti <= 2; ti++) { t = tests[ti]
      for (vi = 1; vi <= nv; vi++) { a = vs[vi]
        line = sprintf("| %s | %s: %s | %s | %s", title[t], name(a), val(t, a), val(t, "rstream"), val(t, "rstream-b"))
        printf "%s{\"test\":\"%s\",\"sdp4j\":\"%s\",\"us_per_exchange\":{\"sdp4j\":%.3f,\"rstream\":%.3f,\"rstream_blocking\":%.3f}", sep, t, name(a), gm(t, a), gm(t, "rstream"), gm(t, "rstream-b") > js
        sep = ",\n "
        for (ri = 1; ri <= nrefs; ri++) { ref = refs[ri]
          g = ratios(t, a, ref)
          line = line sprintf(" | **%.2f** (geo. mean %.2f) [%.2f, %.2f]", med, g, lo, hi)
          printf ",\"ratio_%s\":{\"gm\":%.4f,\"median\":%.4f,\"min\":%.4f,\"max\":%.4f,\"n\":%d}", ref == "rstream" ? "rstream" : "rstream_blocking", g, med, lo, hi, nr > js
        }
        print line " |" > md
        printf "}" > js
      }
    }
    printf "]}\n" > js
    close(md); close(js)
  }' "$out/raw.tsv"
echo
cat "$out/summary.md"
