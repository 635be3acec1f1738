# The 'bench' step of the two-host suite (sourced by guest.sh; not in the default step list: benchmarks/two-hosts-bench.sh
# runs "wire bench"). JMH's org.sdp4j.bench.JccWorkload (IBM JCC: single INSERT with autocommit, point SELECT, SELECT
# of 4000 rows) on a, against ONE Derby 10.8.3.0 DRDA server on b listening on 'use both' (rsockets and TCP on one
# port), the client JVM under the agent on 'use sdp' and on 'use tcp' alternately, round after round (sdp tcp, tcp
# sdp, ...), so both see the same server, wire and machine load. JMH in the agent's JVM (-f 0) with -Djdbc.url=... .
# Results: $SDP4J_OUT/bench/ROUND-TRANSPORT.json (JMH), summarized on the host by benchmarks/two-hosts-bench.sh.
# Knobs: SDP4J_2H_BENCH_ROUNDS (3), SDP4J_2H_BENCH_JMH ("-wi 2 -w 1 -i 3 -r 1").
bench_port=50130
expect_bench="--roce --tcp $bench_port"
serve_bench() {
  conf $work/bench-server.conf "use both server * $B:$bench_port" 'use tcp server * *:*'
  rm -f $work/derby-stop
  timeout 3000 "$java" "${jvm[@]}" -Dderby.system.durability=test -javaagent:"$agent"=conf=$work/bench-server.conf \
    -cp "$jdbc_cp" org.sdp4j.rsocket.TwoHostJdbc derby-server $B $bench_port $work/derby-stop > "$out/$step-server.log" 2>&1 &
  srv=$!
  wait_for_line "$out/$step-server.log" 'DRDA server listening' 300
}
check_bench() {
  grep -q "server $B:$bench_port .*family=both transport=rsocket+tcp" "$out/$step-server.log" ||
    { echo "b's Derby is not on a 'use both' listener (rsocket+tcp)"; return 3; }
}
client_bench() {
  local jar=$repo/benchmarks/target/benchmarks.jar r t order rc=0
  [ -f "$jar" ] || { echo "missing $jar: build benchmarks first (mvn -pl benchmarks package)"; return 2; }
  mkdir -p "$out/bench"
  conf $work/bench-sdp.conf "use sdp client * $B:$bench_port" 'use tcp client * *:*'
  conf $work/bench-tcp.conf "use tcp client * *:*"
  read -r -a jmh <<< "${SDP4J_2H_BENCH_JMH:--wi 2 -w 1 -i 3 -r 1}"
  for ((r = 0; r < ${SDP4J_2H_BENCH_ROUNDS:-3}; r++)); do
    if [ $((r % 2)) = 0 ]; then order="sdp tcp"; else order="tcp sdp"; fi
    for t in $order; do
      log "bench round $r: $t"
      timeout 900 "$java" -XX:+UseSerialGC -Xms256m -Xmx256m -Djava.net.preferIPv4Stack=true \
        -javaagent:"$agent"=conf=$work/bench-$t.conf \
        "-Djdbc.url=jdbc:db2://$B:$bench_port/\"benchdb;create=true\"" -Djdbc.user=app -Djdbc.password=app \
        -Djdbc.securityMechanism=3 -jar "$jar" 'JccWorkload\.(insert|pointSelect|select)$' -f 0 "${jmh[@]}" \
        -rf json -rff "$out/bench/$r-$t.json" > "$out/bench/$r-$t.log" 2>&1 || { rc=1; tail -30 "$out/bench/$r-$t.log"; }
      grep -E "client $B:$bench_port " "$out/bench/$r-$t.log" | head -1
      grep -E '^JccWorkload\.' "$out/bench/$r-$t.log" | grep -v '·p' || true
    done
  done
  # every run on the transport it was meant for
  grep -l "client $B:$bench_port .*transport=rsocket" "$out"/bench/*-sdp.log | wc -l | grep -qx "${SDP4J_2H_BENCH_ROUNDS:-3}" ||
    { echo "not every sdp run rode rsockets"; rc=3; }
  grep -l "client $B:$bench_port .*transport=tcp" "$out"/bench/*-tcp.log | wc -l | grep -qx "${SDP4J_2H_BENCH_ROUNDS:-3}" ||
    { echo "not every tcp run rode TCP"; rc=3; }
  return $rc
}
