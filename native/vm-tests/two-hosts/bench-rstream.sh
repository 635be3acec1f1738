# The 'bench-rstream' step of the two-host suite (sourced by guest.sh; not in the default step list:
# benchmarks/two-hosts-bench.sh runs it): sdp4j against rdma-core's rstream ACROSS THE WIRE, a -> b, in one boot.
#   sdp4j:   JMH's RdmaVsRstream (java.net.Socket under the agent, 'use sdp') in one measuring JVM on a, kept up for
#            every round (org.sdp4j.bench.BenchServer, JMH -f 0, driven through two fifos), against
#            org.sdp4j.bench.RstreamPeer on b, also under the agent ('use sdp' server), -Dsdp4j.bench.peer=B:PORT. Each
#            run connects anew; its header (size, count) is checked and confirmed by the peer.
#   rstream: rdma-core's rstream, server on b (-b B), client on a (-s B): -S 64 -C 1 and -S 65536 -C 32, in its default
#            mode (non-blocking calls in a busy loop), with -T b (blocking calls: rsockets waits in its completion
#            channel) and with -T a -T b (rpoll before each blocking call: sdp4j's own pattern, which waits in rpoll).
#            b starts one rstream server per run on a's request (ctl/rs-N.req "PORT SIZE COUNT ITERS MODE", answered
#            by rs-N.up, rs-N.done).
# Round 0 is a warm-up (dropped by the summary); sdp4j goes first in even rounds, rstream in odd ones. Every result
# is µs per exchange (one rstream iteration: count x size there, count x size back): $SDP4J_OUT/bench-rstream/raw.tsv
# "round test impl us", summarized on the host by benchmarks/two-hosts-bench.sh as ratios sdp4j / rstream per round.
# Knobs: SDP4J_2H_RS_ROUNDS (6), SDP4J_2H_RS_LAT_ITERS (rstream -I for 64 B, 1000), SDP4J_2H_RS_BW_ITERS (rstream -I
# for 32 x 64 KiB, 3), SDP4J_2H_RS_JMH ("1 500 2 2000": sdp4j warm-up iterations, ms, measured iterations, ms).
rs_port=7480
rs_dir=$out/bench-rstream
expect_bench_rstream="--rdma $rs_port"
rs_jvm=(-XX:+UseSerialGC -Xms256m -Xmx256m -Djava.net.preferIPv4Stack=true)
rs_jar=$repo/benchmarks/target/benchmarks.jar

serve_bench_rstream() {
  [ -f "$rs_jar" ] || { echo "missing $rs_jar: build benchmarks first (mvn -pl benchmarks package)"; return 2; }
  command -v rstream >/dev/null || { echo "rstream missing (Debian package rdmacm-utils)"; return 2; }
  mkdir -p "$rs_dir"
  conf $work/rs-peer.conf "use sdp server * $B:$rs_port" 'use tcp server * *:*'
  timeout 3000 "$java" "${rs_jvm[@]}" -javaagent:"$agent"=conf=$work/rs-peer.conf -cp "$rs_jar" \
    org.sdp4j.bench.RstreamPeer $B $rs_port > "$out/$step-server.log" 2>&1 &
  srv=$!
  rs_servers > "$rs_dir/servers.log" 2>&1 &
  rs_loop=$!
  wait_for_line "$out/$step-server.log" '@@listening' 300
}
rs_opts() { case "$1" in b) opt=(-T b) ;; ab) opt=(-T a -T b) ;; *) opt=() ;; esac; }
# b: one rstream server per request of a, until a's client is done. The request comes from the other guest: checked.
rs_servers() {
  local n=1 req port size cnt iters mode pid rc
  while :; do
    until [ -e "$ctl/rs-$n.req" ]; do
      [ -e "$ctl/$step.client-done" ] || [ -e "$ctl/abort" ] && return 0
      sleep 0.1
    done
    req=$(head -c 100 "$ctl/rs-$n.req")
    if ! [[ "$req" =~ ^(7[5-9][0-9][0-9])\ ([0-9]{1,7})\ ([0-9]{1,4})\ ([0-9]{1,6})\ (default|b|ab)$ ]]; then
      echo "rs-$n: bad request '$req'"; put "rs-$n.up" "bad request"; return 1
    fi
    read -r port size cnt iters mode <<< "$req"
    local opt=(); rs_opts "$mode"
    stdbuf -oL timeout 600 rstream -b $B -p "$port" -S "$size" -C "$cnt" -I "$iters" "${opt[@]}" \
      > "$rs_dir/rs-$n-server.log" 2>&1 &
    pid=$!
    if wait_for_line "$rs_dir/rs-$n-server.log" name 60; then put "rs-$n.up" ok; else put "rs-$n.up" "no server"; kill $pid; fi
    wait $pid; rc=$?
    echo "rs-$n: $req: status $rc"
    put "rs-$n.done" $rc
    n=$((n + 1))
  done
}
stop_bench_rstream() {
  kill "$srv" 2>/dev/null
  wait "$srv"
  local i
  for ((i = 0; i < 50; i++)); do kill -0 "$rs_loop" 2>/dev/null || break; sleep 0.2; done
  kill "$rs_loop" 2>/dev/null
  wait "$rs_loop"
  cat "$rs_dir/servers.log"
  grep -q 'rstream-peer: connection .* size 64, count 1$' "$out/$step-server.log" &&
    grep -q 'rstream-peer: connection .* size 65536, count 32$' "$out/$step-server.log" ||
    { echo "the peer served no 64 B or no 32 x 64 KiB connection"; return 1; }
  ! grep 'status [1-9]' "$rs_dir/servers.log"
}
check_bench_rstream() {
  grep -q "server $B:$rs_port .*family=sdp transport=rsocket" "$out/$step-server.log" ||
    { echo "the peer's decision log does not show transport=rsocket"; return 3; }
}

# rstream -T a ends its poll loop with an error, printing nothing, when a poll sees POLLHUP (common.c do_poll): the
# server closes right after its last send, and when that close arrives with the last data the client fails after
# the server has measured the run. That run has no client result: it is left out (and counted), not fatal.
rs_ab_failed() {
  echo "rstream -T a -T b run $1: no result (its last poll saw the server's close: POLLHUP); left out"
  echo "$1" >> "$rs_dir/ab-failed"
}
# a: rs_sdp4j ID REGEX PARAMS... -> µs per exchange (JMH's score) from the measuring JVM
rs_sdp4j() {
  local id=$1 re=$2 ok rid score unit geo
  shift 2
  echo "run $id $re $rs_jw $rs_jwms $rs_jm $rs_jmms $*" >&"$rs_in"
  read -r -t 600 ok rid score unit geo <&"$rs_out" || { echo "sdp4j run $id: no answer within 600 s" >&2; return 1; }
  [ "$ok" = "@@ok" ] || { echo "sdp4j run $id: $ok $rid $score $unit $geo" >&2; tail -30 "$rs_dir/sdp4j.log" >&2; return 1; }
  echo "$score"
}
# a: rs_rstream N SIZE COUNT ITERS MODE -> µs per exchange (rstream's usec/xfer x 2 x count); N numbers the request
rs_rstream() {
  local rs_n=$1 size=$2 cnt=$3 iters=$4 mode=$5 port x rc
  port=$((7500 + rs_n))
  put "rs-$rs_n.req" "$port $size $cnt $iters $mode"
  await "rs-$rs_n.up" 120 && [ "$(cat "$ctl/rs-$rs_n.up")" = ok ] || { echo "b started no rstream server ($rs_n)" >&2; return 1; }
  local opt=(); rs_opts "$mode"
  timeout 300 rstream -s $B -p $port -S "$size" -C "$cnt" -I "$iters" "${opt[@]}" > "$rs_dir/rs-$rs_n.log" 2>&1; rc=$?
  await "rs-$rs_n.done" 120 || rc=1
  [ $rc = 0 ] && [ "$(cat "$ctl/rs-$rs_n.done")" = 0 ] || { cat "$rs_dir/rs-$rs_n.log" >&2; echo "rstream $rs_n failed" >&2; return 1; }
  x=$(awk '$1 == "custom" { print $8 }' "$rs_dir/rs-$rs_n.log")
  [ -n "$x" ] || { echo "rstream $rs_n: no result line" >&2; return 1; }
  awk -v x="$x" -v c="$cnt" 'BEGIN { printf "%.3f\n", x * 2 * c }'
}
# a: where a 64 B round trip's time goes, on the measuring side (a), per round trip: wall time, CPU time (perf's
# task-clock: every thread of the process), context switches and system calls (raw_syscalls:sys_enter; tracefs is
# mounted for it), for sdp4j's measuring JVM (perf attached for 4 s in the middle of one 8 s JMH iteration: JMH's
# own threads and the JIT are in it) and for rstream and rstream -T b (the whole client process, N round trips:
# its connection setup is in it). -> $rs_dir/profile.tsv "impl us cpu_us cswitch syscalls" per round trip.
rs_profile() {
  local n=$1 ev=task-clock,context-switches,raw_syscalls:sys_enter iters=2000 ok rid score unit geo mode port rc
  mountpoint -q /sys/kernel/tracing || mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
  perf stat -e $ev true > /dev/null 2>&1 || ev=task-clock,context-switches
  # which system calls: the ones these programs make on their data path, counted per call
  local sc
  for sc in read write poll ppoll futex ioctl sched_yield epoll_wait clock_nanosleep timerfd_settime recvfrom sendto \
      mprotect madvise; do
    perf stat -e syscalls:sys_enter_$sc true > /dev/null 2>&1 && ev=$ev,syscalls:sys_enter_$sc
  done
  printf 'impl\tus\tcpu_us\tcswitch\tsyscalls\n' > "$rs_dir/profile.tsv"
  : > "$rs_dir/profile-syscalls.tsv"
  echo "run prof RdmaVsRstream.roundTrip 1 300 1 8000 size=64" >&"$rs_in"
  sleep 3
  perf stat -x, -e $ev -p "$jpid" -o "$rs_dir/perf-sdp4j.csv" -- sleep 4
  read -r -t 600 ok rid score unit geo <&"$rs_out"
  [ "$ok" = "@@ok" ] || { echo "sdp4j profile run: $ok $rid $score"; return 1; }
  rs_perf_row sdp4j "$score" "$(awk -v s="$score" 'BEGIN { printf "%.1f", 4e6 / s }')" "$rs_dir/perf-sdp4j.csv"
  for mode in default b ab; do
    n=$((n + 1)); port=$((7500 + n))
    put "rs-$n.req" "$port 64 1 $iters $mode"
    await "rs-$n.up" 120 && [ "$(cat "$ctl/rs-$n.up")" = ok ] || { echo "b started no rstream server ($n)"; return 1; }
    local opt=(); rs_opts "$mode"
    timeout 300 perf stat -x, -e $ev -o "$rs_dir/perf-rstream-$mode.csv" -- \
      rstream -s $B -p $port -S 64 -C 1 -I $iters "${opt[@]}" > "$rs_dir/rs-$n.log" 2>&1; rc=$?
    await "rs-$n.done" 120 || rc=1
    [ $rc != 0 ] && [ $mode = ab ] && { rs_ab_failed $n; continue; }
    [ $rc = 0 ] || { cat "$rs_dir/rs-$n.log"; return 1; }
    rs_perf_row "rstream$(case $mode in b) echo ' -T b' ;; ab) echo ' -T a -T b' ;; esac)" \
      "$(awk '$1 == "custom" { printf "%.3f", $8 * 2 }' "$rs_dir/rs-$n.log")" $iters "$rs_dir/perf-rstream-$mode.csv"
  done
  cat "$rs_dir/profile.tsv" "$rs_dir/profile-syscalls.tsv"
}
rs_perf_row() { # IMPL US_PER_RT ROUND_TRIPS PERF_CSV
  awk -F, -v impl="$1" -v us="$2" -v n="$3" '
    $3 ~ /^task-clock/ { cpu = $1 } $3 ~ /^context-switches/ { cs = $1 } $3 ~ /^raw_syscalls:sys_enter/ { sc = $1 }
    END { printf "%s\t%.1f\t%.1f\t%.2f\t%s\n", impl, us, cpu * 1000 / n, cs / n, sc == "" ? "-" : sprintf("%.1f", sc / n) }
  ' "$4" | tee -a "$rs_dir/profile.tsv"
  # per system call, per round trip: -> profile-syscalls.tsv "impl syscall count"
  awk -F, -v impl="$1" -v n="$3" '$3 ~ /^syscalls:sys_enter_/ && $1 + 0 > 0 {
    sub(/^syscalls:sys_enter_/, "", $3); printf "%s\t%s\t%.2f\n", impl, $3, $1 / n }' "$4" >> "$rs_dir/profile-syscalls.tsv"
}
client_bench_rstream() {
  [ -f "$rs_jar" ] || { echo "missing $rs_jar: build benchmarks first (mvn -pl benchmarks package)"; return 2; }
  mkdir -p "$rs_dir"
  : > "$rs_dir/raw.tsv"
  read -r rs_jw rs_jwms rs_jm rs_jmms <<< "${SDP4J_2H_RS_JMH:-1 500 2 2000}"
  local rounds=${SDP4J_2H_RS_ROUNDS:-6} lat_iters=${SDP4J_2H_RS_LAT_ITERS:-1000} bw_iters=${SDP4J_2H_RS_BW_ITERS:-3}
  local r test size cnt iters re params order impl v c0 c1 line jpid rc=0 n=0
  conf $work/rs-client.conf "use sdp client * $B:$rs_port" 'use tcp client * *:*'
  rm -f $work/rs.in $work/rs.out && mkfifo $work/rs.in $work/rs.out
  "$java" "${rs_jvm[@]}" -javaagent:"$agent"=conf=$work/rs-client.conf -Dsdp4j.bench.peer=$B:$rs_port -cp "$rs_jar" \
    org.sdp4j.bench.BenchServer --json "$rs_dir/sdp4j-jmh.json" --log "$rs_dir/sdp4j.log" \
    < $work/rs.in > $work/rs.out 2>> "$rs_dir/sdp4j.log" &
  jpid=$!
  exec {rs_in}> $work/rs.in
  exec {rs_out}< $work/rs.out
  read -r -t 300 line <&"$rs_out"
  [ "$line" = @@ready ] || { echo "the measuring JVM did not start: $line"; tail -20 "$rs_dir/sdp4j.log"; return 1; }
  echo "rounds 0 (warm-up) .. $rounds; sdp4j JMH $rs_jw x $rs_jwms ms + $rs_jm x $rs_jmms ms; rstream -I $lat_iters (64 B), -I $bw_iters (32 x 64 KiB)"
  for ((r = 0; r <= rounds && rc == 0; r++)); do
    for test in lat bw; do
      if [ $test = lat ]; then size=64 cnt=1 iters=$lat_iters re=RdmaVsRstream.roundTrip params="size=64"
      else size=65536 cnt=32 iters=$bw_iters re=RdmaVsRstream.stream params="size=65536 count=32"; fi
      if ((r % 2 == 0)); then order="sdp4j rstream rstream-b rstream-ab"; else order="rstream rstream-b rstream-ab sdp4j"; fi
      for impl in $order; do
        c0=$(counters)
        case $impl in
          sdp4j) v=$(rs_sdp4j "$test$r" $re $params) ;;
          rstream) n=$((n + 1)); v=$(rs_rstream $n $size $cnt $iters default) ;;
          rstream-b) n=$((n + 1)); v=$(rs_rstream $n $size $cnt $iters b) ;;
          rstream-ab) n=$((n + 1)); v=$(rs_rstream $n $size $cnt $iters ab) || { rs_ab_failed $n; continue; } ;;
        esac || { rc=1; break 2; }
        c1=$(counters)
        delta "$c0" "$c1" 4 > /dev/null || { echo "rxe0 counters did not grow during $impl $test$r: not RDMA"; rc=3; break 2; }
        printf '%s\t%s\t%s\t%s\n' "$r" "$test" "$impl" "$v" | tee -a "$rs_dir/raw.tsv"
      done
    done
  done
  [ $rc = 0 ] && [ "${SDP4J_2H_RS_PROFILE:-1}" = 1 ] && { rs_profile $n || rc=1; }
  echo quit >&"$rs_in"
  exec {rs_in}>&- {rs_out}<&-
  wait $jpid || rc=1
  grep -m 2 'rdma-vs-rstream:' "$rs_dir/sdp4j.log"
  grep -q "client $B:$rs_port .*family=sdp transport=rsocket" "$rs_dir/sdp4j.log" ||
    { echo "the measuring JVM's decision log does not show transport=rsocket"; rc=3; }
  grep -q 'rdma-vs-rstream: .*(remote peer)' "$rs_dir/sdp4j.log" || { echo "sdp4j did not measure against the remote peer"; rc=3; }
  return $rc
}
