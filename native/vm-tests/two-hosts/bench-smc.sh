# The 'bench-smc' step of the two-host suite (sourced by guest.sh; not in the default step list; run on the 6.12
# guest kernel by benchmarks/two-hosts-bench.sh --smc): smc next to sdp (rsockets) and tcp ACROSS THE WIRE, a -> b.
# JMH's RdmaVsRstream (java.net.Socket, TCP_NODELAY: a 64 B round trip, and 32 x 64 KiB one way then back) in a fresh
# JVM on a under the agent per run, against org.sdp4j.bench.RstreamPeer on b: one peer per transport, on its own port
# and rule ('use smc', 'use sdp', 'use tcp' server). Rounds interleave the three transports, rotating which goes
# first; round 0 is a warm-up. Results: $SDP4J_OUT/bench-smc/raw.tsv "round test transport us" (JMH's score, µs per
# exchange), summarized on the host as ratios smc / tcp and smc / sdp per round (median [min, max]).
# Knobs: SDP4J_2H_SMC_ROUNDS (4), SDP4J_2H_SMC_JMH ("-wi 1 -w 1 -i 2 -r 2").
sb_dir=$out/bench-smc
expect_bench_smc="--roce --smc 7491 --tcp 7493"
sb_port() { case "$1" in smc) echo 7491 ;; sdp) echo 7492 ;; tcp) echo 7493 ;; esac; }
serve_bench_smc() {
  [ -f "$rs_jar" ] || { echo "missing $rs_jar: build benchmarks first (mvn -pl benchmarks package)"; return 2; }
  smc_setup || return 1
  mkdir -p "$sb_dir"
  local t
  sb_pids=()
  for t in smc sdp tcp; do
    conf $work/sb-peer-$t.conf "use $t server * $B:$(sb_port $t)" 'use tcp server * *:*'
    timeout 3000 "$java" "${rs_jvm[@]}" -javaagent:"$agent"=conf=$work/sb-peer-$t.conf -cp "$rs_jar" \
      org.sdp4j.bench.RstreamPeer $B "$(sb_port $t)" > "$sb_dir/peer-$t.log" 2>&1 &
    sb_pids+=($!)
  done
  srv=${sb_pids[0]}
  for t in smc sdp tcp; do wait_for_line "$sb_dir/peer-$t.log" '@@listening' 300 || { cat "$sb_dir/peer-$t.log"; return 1; }; done
  echo listening
}
stop_bench_smc() {
  local p
  for p in "${sb_pids[@]}"; do kill "$p" 2>/dev/null; wait "$p"; done
  cat "$sb_dir"/peer-*.log > "$out/$step-server.log"
  return 0
}
check_bench_smc() {
  local t
  for t in smc sdp tcp; do
    grep -q "server $B:$(sb_port $t) .*family=$t transport=$(case $t in sdp) echo rsocket ;; *) echo $t ;; esac)" \
      "$sb_dir/peer-$t.log" || { echo "the $t peer's decision log does not show its transport"; return 3; }
  done
}
client_bench_smc() {
  [ -f "$rs_jar" ] || { echo "missing $rs_jar: build benchmarks first"; return 2; }
  smc_setup || return 1
  mkdir -p "$sb_dir"
  : > "$sb_dir/raw.tsv"
  local r t order rc=0 want
  read -r -a jmh <<< "${SDP4J_2H_SMC_JMH:--wi 1 -w 1 -i 2 -r 2}"
  for t in smc sdp tcp; do conf $work/sb-$t.conf "use $t client * $B:$(sb_port $t)" 'use tcp client * *:*'; done
  for ((r = 0; r <= ${SDP4J_2H_SMC_ROUNDS:-4}; r++)); do
    case $((r % 3)) in 0) order="smc sdp tcp" ;; 1) order="sdp tcp smc" ;; 2) order="tcp smc sdp" ;; esac
    for t in $order; do
      timeout 900 "$java" "${rs_jvm[@]}" -javaagent:"$agent"=conf=$work/sb-$t.conf \
        -Dsdp4j.bench.peer=$B:"$(sb_port $t)" -jar "$rs_jar" 'RdmaVsRstream\.(roundTrip|stream)$' -f 0 "${jmh[@]}" \
        -rf json -rff "$sb_dir/$r-$t.json" > "$sb_dir/$r-$t.log" 2>&1 || { rc=1; tail -30 "$sb_dir/$r-$t.log"; break 2; }
      python3 - "$sb_dir/$r-$t.json" "$r" "$t" >> "$sb_dir/raw.tsv" <<'PY'
import json, sys
for b in json.load(open(sys.argv[1])):
    test = "lat" if b["benchmark"].endswith("roundTrip") else "bw"
    print(f"{sys.argv[2]}\t{test}\t{sys.argv[3]}\t{b['primaryMetric']['score']:.3f}")
PY
      tail -n 2 "$sb_dir/raw.tsv"
      want=$(case $t in sdp) echo rsocket ;; *) echo $t ;; esac)
      grep -q "client $B:$(sb_port $t) .*family=$t transport=$want" "$sb_dir/$r-$t.log" ||
        { echo "run $r-$t did not ride $want"; rc=3; }
      if [ $t = smc ]; then
        grep -q "smc: connection to $B:$(sb_port smc) on SMC-R" "$sb_dir/$r-$t.log" || { echo "run $r-smc not on SMC-R"; rc=3; }
      fi
    done
  done
  return $rc
}
