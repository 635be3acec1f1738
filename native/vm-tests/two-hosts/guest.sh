#!/usr/bin/env bash
# The two-host suite, run INSIDE both guests by native/vm/two-hosts.sh:  guest.sh a|b
#   a = 10.9.9.1 runs the clients and drives the steps; b = 10.9.9.2 runs the servers. rxe0 sits on each guest's
#   virtio NIC; the NICs share one virtual Ethernet wire that exists only between the two qemu processes.
# The guests coordinate through files in a shared 9p folder (/sdp4j-shared/ctl, no caching: each read sees the
# other guest's writes), never over the wire, so the wire carries only what a step measures. Per step S:
#   a: S.cap-start -> (host: filter-dump on, S.cap-on) -> S.expect, S.serve -> (b: server up, S.ready)
#      -> client runs -> S.client-done -> (b: server stopped, S.server-done) -> S.cap-stop -> (host: S.cap-off)
# Each side writes its verdict to /sdp4j-shared/results/S.a|S.b ("STATUS SECONDS DETAIL"); the host adds the
# capture check (native/vm/pcapcheck.py, expectation in S.expect) and writes summary.txt.
# Steps (b's server and a's client both under the agent unless said otherwise):
#   wire            ping across the wire, rxe0 ACTIVE on both
#   echo-net        java.net echo a->b on 'use sdp': 1 MiB + a random-size stream, random write/read sizes, byte for byte
#   echo-nio        the same with NIO SocketChannel/ServerSocketChannel
#   jcc-sdp         IBM JCC on a -> Derby 10.8.3.0 DRDA on b, both 'use sdp': ROWS INSERTs, SELECT, every row checked
#   jcc-both-tcp    JCC on 'use both' -> Derby on TCP only: the rsocket attempt is refused, TCP carries it
#                   (the fallback steps use SDP4J_2H_FALLBACK_ROWS rows, default 1000)
#   mariadb-preload MariaDB 10.11 (Debian) on b under LD_PRELOAD="libaccept4shim.so librspreload.so", MariaDB
#                   Connector/J on a on 'use sdp': ROWS INSERTs, SELECT, every row checked (native/README.md: why
#                   the shim, why not PostgreSQL)
#   mariadb-factory the same server; on a, Connector/J through org.sdp4j.jdbc.SdpSocketFactory: no agent, no flag
#   pg-preload      (not in the default list) PostgreSQL (Debian) on b under librspreload: FAILS, printing why
#   ucx             java.net echo a->b on 'use ucx' both ends: UCX over RDMA across the wire (the cross-host
#                   rendezvous on RDMA-CM's port space, the TCP connection carrying only the upgrade and end-of-stream)
#   ucx-lossy       the same with both NICs dropping 2% of the frames they send: every stream echoed byte for byte, or
#                   its connection failed with the transport's SocketException within 60 s (never a timeout, an early
#                   end of stream or a wrong byte; TwoHostEcho -Decho.failWithin); the verdict says which
#   sdp-lossy       echo-net with both NICs dropping 2% of their frames, judged the same way
#   tcp-lossy       the same on 'use tcp': the reference
#   ucx-nio         (not in the default list) the same with NIO channels on both ends
#   ucx-fallback    (not in the default list) 'use ucx' client -> TCP-only listener on b: bounded attempt, TCP carries it
#   ucx-probe       (not in the default list) ucx_info and ucx_perftest over rxe0 between the guests
#   smc-echo        (needs the 6.12 guest kernel: test.sh's second two-host run) java.net echo a->b on 'use smc': the
#                   JDK's sockets made SMC, SMC-R over rxe0 with a UEID both guests share; TCP only the CLC handshake
#   smc-echo-nio    the same with NIO channels
#   smc-jcc         IBM JCC on a -> Derby on b, both 'use smc': FALLBACK_ROWS INSERTs, every row checked, SMC-R
#   smc-native      PostgreSQL on b under sdp4j's SMC preload (socket() -> IPPROTO_SMC), pgjdbc on a on 'use smc'
#   smc-fallback    b without a UEID: the protocol falls back to TCP on the same connection, logged with its reason
#   wire-cut-tcp|sdp|ucx  a's NIC drops every frame it sends for about 2.5 s under a java.net reader with SO_TIMEOUT
#                   2 s: a timeout on time and a usable socket after (or an IOException saying why once the
#                   transport gave up, and no hang either way); wire-cut-long-* (not in the default list) cut the
#                   wire for SDP4J_2H_LONG_CUT seconds (40) while the reads go on timing out (docs/reliability.md)
#   pool-cut        HikariCP + JCC pools on tcp, sdp and ucx to one Derby across a 2.5 s cut (the same connections
#                   answer after it) and a 25 s cut (each pool evicts its connection; a new one answers after it)
#   device-gone-sdp|ucx a deletes its rxe0 under the open connection: an IOException naming rxe0 within 30 s (sdp:
#                   RdmaDeviceWatch names the device; docs/reliability.md); rxe0 is added back after
#   host-crash      (the last step of a list) b's qemu killed by the host under blocked reads, writes and keep-alive
#                   reads on tcp, sdp and ucx: each one's outcome and time; never an end of stream (docs/reliability.md)
#   jcc-both-norxe  b's rxe0 removed (rdma link delete): JCC on 'use both' makes a bounded RDMA attempt, falls back,
#                   the second connection goes straight to TCP (negative cache), every row checked
set -uo pipefail
role=${1:?usage: guest.sh a|b}
repo=$(cd "$(dirname "$0")/../../.." && pwd)
A=10.9.9.1 B=10.9.9.2
case "$role" in a) me=$A ;; b) me=$B ;; *) echo "role must be a or b" >&2; exit 2 ;; esac
sh=/sdp4j-shared
mkdir -p $sh
mountpoint -q $sh || mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 sdp4jshared $sh || exit 3
ctl=$sh/ctl res=$sh/results
mkdir -p $ctl $res
out=${SDP4J_OUT:-/tmp/sdp4j-2h}
work=/tmp/sdp4j-2h && mkdir -p $work
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
agent=$repo/sdp-jdbc/target/sdp4j-agent.jar
vmlib=$repo/sdp-jni/target/vm-lib
tc=$repo/sdp-jni/target/test-classes
preload=$(ls /usr/lib/x86_64-linux-gnu/rsocket/librspreload.so 2>/dev/null || dpkg -L librdmacm1 | grep 'librspreload.so$' | head -1)
. "$repo/native/vm-tests/guest-jvm.sh"
jvm=("${guest_jvm[@]}")
rows=${SDP4J_2H_ROWS:-4000}
# the fallback steps prove "TCP carried it, nothing lost"; fewer rows keep the suite within its time budget
fallback_rows=${SDP4J_2H_FALLBACK_ROWS:-1000}
STEPS=(wire echo-net echo-nio jcc-sdp jcc-both-tcp mariadb-preload mariadb-factory ucx wire-cut-tcp wire-cut-sdp
  wire-cut-ucx pool-cut tcp-lossy sdp-lossy ucx-lossy device-gone-sdp device-gone-ucx jcc-both-norxe host-crash)
[ -n "${SDP4J_2H_STEPS:-}" ] && read -r -a STEPS <<< "$SDP4J_2H_STEPS"
hw=/sys/class/infiniband/rxe0/ports/1/hw_counters

log() { echo "== [$role] $(date +%T) $*"; }
put() { printf '%s\n' "$2" > "$ctl/.$1.tmp" && mv "$ctl/.$1.tmp" "$ctl/$1"; }
await() { # NAME SECONDS: 0 once ctl/NAME exists; 1 after SECONDS or when the other side aborted
  local i
  for ((i = 0; i < $2 * 5; i++)); do
    [ -e "$ctl/$1" ] && return 0
    [ -e "$ctl/abort" ] && return 1
    sleep 0.2
  done
  echo "[$role] timed out after $2 s waiting for $1"
  return 1
}
wait_for_line() { # FILE PATTERN SECONDS: 0 once FILE shows PATTERN; 1 after SECONDS, or at once when the server
  local i        # started for this step ($srv) has ended without printing it (a crash must not cost the whole bound)
  for ((i = 0; i < $3 * 5; i++)); do
    grep -q "$2" "$1" 2>/dev/null && return 0
    if [ -n "${srv:-}" ] && ! kill -0 "$srv" 2>/dev/null; then
      grep -q "$2" "$1" 2>/dev/null && return 0
      echo "[$role] the server (pid $srv) ended before it printed '$2'"
      return 1
    fi
    sleep 0.2
  done
  return 1
}
counters() { echo "$(cat $hw/sent_pkts 2>/dev/null || echo 0) $(cat $hw/rcvd_pkts 2>/dev/null || echo 0)"; }
delta() { # BEFORE AFTER MIN -> text; 0 when both grew by MIN
  local s0 r0 s1 r1
  read -r s0 r0 <<< "$1"; read -r s1 r1 <<< "$2"
  if [ "$s1" -lt "$s0" ] || [ "$r1" -lt "$r0" ]; then # device-gone-*: rxe0 was deleted and added again
    echo "rxe0's counters restarted (the device was re-created: sent $s1 rcvd $r1 since)"; [ "$3" = 0 ]; return
  fi
  echo "rxe0 sent +$((s1 - s0)) rcvd +$((r1 - r0))"
  [ $((s1 - s0)) -ge "$3" ] && [ $((r1 - r0)) -ge "$3" ]
}
conf() { # FILE RULE... : a libsdp.conf with decision logging
  local f=$1; shift
  printf '%s\n' 'log min-level 7 destination stderr' "$@" > "$f"
}
ajava() { # CONF CLASSPATH MAIN ARGS...: a JVM under the agent
  local c=$1 cp=$2; shift 2
  "$java" "${jvm[@]}" -javaagent:"$agent"=conf="$c" -cp "$cp" "$@"
}
jdbc_cp=$tc:$vmlib/jcc.jar:$vmlib/derby.jar:$vmlib/derbynet.jar:$vmlib/pgjdbc.jar:$vmlib/mariadb.jar
jextra=()
jcc_props=(user=app password=app securityMechanism=3 retrieveMessagesFromServerOnGetMessage=true)

# ---------------------------------------------------------------- the steps: server_S on b, client_S on a
# Each prints its log, returns its status and may set 'detail'. S.expect (set by a) is the capture check's arguments.
expect_wire="--rdma 7470 --min 4"
client_wire() {
  busybox ping -c 3 -W 5 $B || return 1
  rdma link show rxe0/1 | grep 'state ACTIVE' || return 1
  # one RDMA exchange across the wire, so the capture holds RoCEv2 both ways: rping (rdma_cm + RC verbs)
  timeout 60 rping -c -a $B -C 3 -S 64 -v -p 7470
}
serve_wire() { timeout 90 rping -s -a $B -C 3 -S 64 -p 7470 > "$out/wire-rping.log" 2>&1 & srv=$!; sleep 2; echo listening; }

xjvm=() # more JVM options for the echo steps' JVMs (the lossy steps set their own, local, list)
rnd=r # the echo steps' second stream: a random size up to 3 MiB (the lossy steps: up to 1 MiB, "r1048576")
# streams_ended N: the client's N streams each echoed byte for byte - or, on a lossy step (TwoHostEcho's
# -Decho.failWithin), ended in the transport's SocketException within the bound; sets 'detail' to say which
streams_ended() {
  local whole failed
  whole=$(grep -c 'echoed byte for byte' "$out/$step-client.log")
  failed=$(grep -c 'the connection failed after' "$out/$step-client.log")
  [ $((whole + failed)) = "$1" ] || { echo "$whole of $1 streams echoed, $failed failed as allowed: not all $1 ended"; return 1; }
  if [ ${#xjvm[@]} -gt 0 ]; then
    detail="$whole of $1 streams echoed byte for byte ($(sed -n 's/.*: \([0-9]*\) bytes echoed byte for byte by .* in \([0-9]*\) ms/\1 B in \2 ms/p' \
      "$out/$step-client.log" | paste -sd, | sed 's/,/, /g'))"
    [ "$failed" = 0 ] || detail="$detail; $failed failed with an IOException in time: $(grep -o 'the connection failed after.*' \
      "$out/$step-client.log" | head -1 | cut -c1-200)"
  fi
}
echo_server() { # MODE PORT FAMILY
  conf $work/$1-server.conf "use $3 server * $B:$2" 'use tcp server * *:*'
  timeout 600 "$java" "${jvm[@]}" "${xjvm[@]}" -javaagent:"$agent"=conf=$work/$1-server.conf -cp "$tc" \
    org.sdp4j.rsocket.TwoHostEcho server "$1" $B "$2" 2 > "$out/$step-server.log" 2>&1 &
  srv=$!
  wait_for_line "$out/$step-server.log" listening 180
}
echo_client() { # MODE PORT FAMILY
  conf $work/$1-client.conf "use $3 client * $B:$2" 'use tcp client * *:*'
  timeout 600 "$java" "${jvm[@]}" "${xjvm[@]}" -javaagent:"$agent"=conf=$work/$1-client.conf -cp "$tc" \
    org.sdp4j.rsocket.TwoHostEcho client "$1" $B "$2" "$RANDOM$RANDOM" 1048576 $rnd > "$out/$step-client.log" 2>&1
  local rc=$?
  cat "$out/$step-client.log"
  [ $rc = 0 ] || return $rc
  streams_ended 2 || return 4
  grep -q "client $B:$2 .*family=$3 transport=$4" "$out/$step-client.log" ||
    { echo "the client's decision log does not show family=$3 transport=$4 to $B:$2"; return 3; }
}
echo_server_check() { # PORT FAMILY TRANSPORT
  grep -q "server $B:$1 .*family=$2 transport=$3" "$out/$step-server.log" ||
    { echo "the server's decision log does not show family=$2 transport=$3 on $B:$1"; return 3; }
}

expect_echo_net="--rdma 7474"
serve_echo_net() { echo_server net 7474 sdp; }
client_echo_net() { echo_client net 7474 sdp rsocket; }
check_echo_net() { echo_server_check 7474 sdp rsocket; }

expect_echo_nio="--rdma 7475"
serve_echo_nio() { echo_server nio 7475 sdp; }
client_echo_nio() { echo_client nio 7475 sdp rsocket; }
check_echo_nio() { echo_server_check 7475 sdp rsocket; }

# ucx: both ends on 'use ucx'. The server's UCX listener also listens on RDMA-CM port 7476 (RDMA_PS_TCP, not the
# kernel's TCP port); the client claims a TCP source port there, proves it over a TCP connection to 7476, and the
# stream rides UCX over RDMA (rc_verbs/ud_verbs on rxe0; UCX's tcp transport is not in sdp4j's list across hosts).
# The capture: RoCEv2 both ways, and TCP payload only on 7476, at most 256 B each way per connection (the upgrade
# handshake and the end-of-stream marker). The client's attempt bound is raised (sdp4j.both.timeout, and
# sdp4j.ucx.handshake, which caps it at 5 s): under TCG an RDMA-CM connect plus the rendezvous reply takes longer
# than the 2 s default, and on the lossy wire of ucx-lossy one lost connection-manager frame costs RDMA-CM's ~4 s
# retry (CI once: the second connection's rendezvous found no answer within 5 s and went to TCP, correctly, and the
# step, which is about closes, failed).
expect_ucx="--upgrade 7476"
# streams (connections) per ucx step: 1 MiB, then random sizes (SDP4J_2H_UCX_STREAMS, 2; more for a stress run)
ucx_streams=${SDP4J_2H_UCX_STREAMS:-2}
[[ "$ucx_streams" =~ ^[1-9][0-9]?$ ]] || { echo "SDP4J_2H_UCX_STREAMS must be 1-99, not $ucx_streams"; exit 2; }
ucx_jvm=(-Dsdp4j.both.timeout=${SDP4J_2H_UCX_ATTEMPT:-30000} -Dsdp4j.ucx.handshake=${SDP4J_2H_UCX_ATTEMPT:-30000})
ucx_server() { # MODE PORT
  conf $work/ucx-$1-server.conf "use ucx server * $B:$2" 'use tcp server * *:*'
  timeout 600 "$java" "${jvm[@]}" "${xjvm[@]}" -javaagent:"$agent"=conf=$work/ucx-$1-server.conf -cp "$tc" \
    org.sdp4j.rsocket.TwoHostEcho server $1 $B $2 $ucx_streams > "$out/$step-server.log" 2>&1 &
  srv=$!
  wait_for_line "$out/$step-server.log" listening 180 || { cat "$out/$step-server.log"; return 1; }
  grep 'rendezvous on RDMA-CM\|serves this host only' "$out/$step-server.log" || true
}
ucx_client() { # MODE PORT
  conf $work/ucx-$1-client.conf "use ucx client * $B:$2" 'use tcp client * *:*'
  # which verbs QPs the client JVM holds while it runs (UCX's own transport report is compiled out of Debian's UCX)
  (for i in $(seq 1 600); do rdma resource show qp 2>/dev/null | grep -w java; sleep 0.5; done) > "$out/$step-qps.log" &
  local qps=$!
  timeout 600 "$java" "${jvm[@]}" "${ucx_jvm[@]}" "${xjvm[@]}" -javaagent:"$agent"=conf=$work/ucx-$1-client.conf -cp "$tc" \
    org.sdp4j.rsocket.TwoHostEcho client $1 $B $2 "$RANDOM$RANDOM" 1048576 $(for ((i = 2; i <= ucx_streams; i++)); do printf ' %s' "$rnd"; done) \
    > "$out/$step-client.log" 2>&1
  local rc=$?
  kill $qps 2>/dev/null; wait $qps 2>/dev/null
  cat "$out/$step-client.log"
  echo "verbs QPs of the client JVM seen while it ran (rdma resource show qp, sampled every 0.5 s):"
  sed -n 's/.*\(lqpn [0-9]*\).* \(type [A-Z]*\) \(state [A-Z]*\).*/\1 \2 \3/p' "$out/$step-qps.log" | sort -u
  [ $rc = 0 ] || return $rc
  # RC QPs in RTS carry the streams; the UD ones in RESET are RDMA-CM's placeholder QPs of UCX's CM endpoints
  grep -q 'type RC state RTS' "$out/$step-qps.log" || { echo "no RC QP of the client JVM in RTS: not UCX rc_verbs?"; return 3; }
  streams_ended $ucx_streams || return 4
  [ "$(grep -c "client $B:$2 .*family=ucx transport=ucx" "$out/$step-client.log")" = $ucx_streams ] ||
    { echo "the client's decision log does not show two connections with family=ucx transport=ucx to $B:$2"; return 3; }
  if [ "$1" = net ]; then
    [ "$(grep -c "to $B:$2: UCX over RDMA across hosts" "$out/$step-client.log")" = $ucx_streams ] ||
      { echo "the client's log does not name UCX over RDMA for both connections"; return 3; }
  fi
}
ucx_check() { # MODE PORT
  echo_server_check $2 ucx ucx+tcp || return 3
  if [ "$1" = net ]; then
    [ "$(grep -c "accepted on $B:$2: UCX over RDMA across hosts" "$out/$step-server.log")" = $ucx_streams ] ||
      { echo "the server's log does not show two connections accepted over UCX over RDMA"; return 3; }
  fi
}
serve_ucx() { ucx_server net 7476; }
client_ucx() { ucx_client net 7476; }
check_ucx() { ucx_check net 7476; }

# ucx-lossy: the ucx step with both NICs dropping 2% of the frames they send (netem, this step only;
# SDP4J_2H_LOSSY=PERCENT): RC retransmits after its timeout, so the closing server's last bytes wait for their
# acknowledgements well past a second. A close that gave them a one-second bound lost the tail of a stream (the
# client's 120 s read timeout, CI once) or aborted the server in ucp_worker_destroy under a request still posted;
# a closed connection now lingers until they are delivered (UcxConnection.settle, Linger).
expect_ucx_lossy="--upgrade 7479"
lossy() { modprobe sch_netem && tc qdisc replace dev eth0 root netem loss "${SDP4J_2H_LOSSY:-2}%" && tc qdisc show dev eth0; }
unlossy() {
  if [ -n "${SDP4J_2H_LOSS:-}" ]; then tc qdisc replace dev eth0 root netem loss "$SDP4J_2H_LOSS%"
  else tc qdisc del dev eth0 root 2>/dev/null || true; fi
}
lossy_jvm=(-Decho.failWithin=${SDP4J_2H_LOSSY_BOUND:-60})
# lossy_serve|lossy_client CMD...: CMD (an echo step's server or client) on a lossy NIC, with the lossy steps' JVM
# options and stream sizes; the client puts the NIC back after, lossy_stop after the server
lossy_serve() { local -a xjvm=("${lossy_jvm[@]}"); local rnd=r1048576; lossy || return 1; "$@"; }
lossy_client() { local -a xjvm=("${lossy_jvm[@]}"); local rnd=r1048576 rc; lossy || return 1; "$@"; rc=$?; unlossy; return $rc; }
lossy_stop() { local rc; stop_server; rc=$?; unlossy; return $rc; }
serve_ucx_lossy() { lossy_serve ucx_server net 7479; }
client_ucx_lossy() { lossy_client ucx_client net 7479; }
stop_ucx_lossy() { lossy_stop; }
check_ucx_lossy() { ucx_check net 7479; }

# sdp-lossy (issue 20): echo-net's java.net echo on 'use sdp' with both NICs dropping 2% of
# the frames they send: rsockets' RC queue pairs retransmit; every byte must arrive (or the connection fail with an
# IOException - never a silent wait)
expect_sdp_lossy="--rdma 7498"
serve_sdp_lossy() { lossy_serve echo_server net 7498 sdp; }
client_sdp_lossy() { lossy_client echo_client net 7498 sdp rsocket; }
stop_sdp_lossy() { lossy_stop; }
check_sdp_lossy() { echo_server_check 7498 sdp rsocket; }
# tcp-lossy: the same on 'use tcp', the reference the lossy rows of docs/reliability.md compare with
expect_tcp_lossy="--tcp 7499"
serve_tcp_lossy() { lossy_serve echo_server net 7499 tcp; }
client_tcp_lossy() { lossy_client echo_client net 7499 tcp tcp; }
stop_tcp_lossy() { lossy_stop; }
check_tcp_lossy() { echo_server_check 7499 tcp tcp; }

# ucx-nio (not in the default list): the same with NIO SocketChannel/ServerSocketChannel on both ends
expect_ucx_nio="--upgrade 7478"
serve_ucx_nio() { ucx_server nio 7478; }
client_ucx_nio() { ucx_client nio 7478; }
check_ucx_nio() { ucx_check nio 7478; }

# ucx-fallback (not in the default list): a 'use ucx' client towards a b whose listener is TCP only (no RDMA-CM
# rendezvous on 7477): RDMA-CM rejects the connect at once, the client falls back to TCP within its attempt bound and
# the streams ride TCP, byte for byte
expect_ucx_fallback="--tcp 7477"
serve_ucx_fallback() {
  conf $work/ucxfb-server.conf "use tcp server * $B:7477"
  timeout 600 "$java" "${jvm[@]}" -javaagent:"$agent"=conf=$work/ucxfb-server.conf -cp "$tc" \
    org.sdp4j.rsocket.TwoHostEcho server net $B 7477 2 > "$out/$step-server.log" 2>&1 &
  srv=$!
  wait_for_line "$out/$step-server.log" listening 180 || { cat "$out/$step-server.log"; return 1; }
}
client_ucx_fallback() {
  conf $work/ucxfb-client.conf "use ucx client * $B:7477" 'use tcp client * *:*'
  local t0=$(date +%s%N) rc
  timeout 600 "$java" "${jvm[@]}" -javaagent:"$agent"=conf=$work/ucxfb-client.conf -cp "$tc" \
    org.sdp4j.rsocket.TwoHostEcho client net $B 7477 "$RANDOM$RANDOM" 1048576 r > "$out/$step-client.log" 2>&1
  rc=$?
  cat "$out/$step-client.log"
  echo "client run: $(( ($(date +%s%N) - t0) / 1000000 )) ms"
  [ $rc = 0 ] || return $rc
  streams_ended 2 || return 4
  grep -q "client $B:7477 .*family=ucx transport=tcp fallback=" "$out/$step-client.log" ||
    { echo "the client's decision log does not show the fallback from UCX to TCP"; return 3; }
}

# ucx-probe (not in the default list): can UCX 1.13 use rxe0 across the wire at all? ucx_info on each side, then
# ucx_perftest b->a over rc_verbs/ud_verbs on rxe0 (its own out-of-band exchange is a TCP socket on 13337)
expect_ucx_probe="--roce"
ucx_probe_env=(UCX_NET_DEVICES=rxe0:1 UCX_TLS=rc_verbs,ud_verbs,self UCX_SOCKADDR_TLS_PRIORITY=rdmacm)
serve_ucx_probe() {
  ucx_info -d 2>&1 | grep -E 'Memory domain|Transport|Device|Component' > "$out/ucx-probe-info.log"
  cat "$out/ucx-probe-info.log"
  # one server run per test (the client runs three)
  (for i in 1 2 3; do env "${ucx_probe_env[@]}" timeout 200 ucx_perftest -p 13337; done) > "$out/$step-server.log" 2>&1 &
  srv=$!
  sleep 2; echo listening
}
client_ucx_probe() {
  ucx_info -d 2>&1 | grep -E 'Memory domain|Transport|Device|Component'
  local t rc=0
  for t in "stream_bw -s 65536 -n 200" "stream_lat -s 64 -n 2000" "tag_lat -s 64 -n 2000"; do
    echo "---- ucx_perftest $B -t $t"
    # shellcheck disable=SC2086
    env "${ucx_probe_env[@]}" timeout 120 ucx_perftest $B -p 13337 -t $t > $work/perftest.out 2>&1 || rc=1
    grep -v '^ *[0-9]*  ' $work/perftest.out | tail -n 25 # without UCX's backtrace frames
    sleep 1
  done
  return $rc
}

# wire-cut-tcp, wire-cut-sdp, wire-cut-ucx (issue 20): a's NIC drops every frame it
# sends (netem loss 100%) while a java.net client under the agent reads with SO_TIMEOUT 2 s, then the wire comes back
# (org.sdp4j.rsocket.TwoHostWireCut: the script cuts and restores when the client asks, through files). The client
# must see a SocketTimeoutException on time and then a usable socket (the 1 KiB sent during the cut echoed, then
# 1 MiB byte for byte), or - if the transport gave up during the cut - an IOException saying why, and every later
# call failing at once. The verdict states which, with the times measured. b's echo server may end on a reset.
wirecut_server() { # PORT FAMILY
  conf $work/$step-server.conf "use $2 server * $B:$1" 'use tcp server * *:*'
  timeout 600 "$java" "${jvm[@]}" -javaagent:"$agent"=conf=$work/$step-server.conf -cp "$tc" \
    org.sdp4j.rsocket.TwoHostEcho server net $B "$1" 1 > "$out/$step-server.log" 2>&1 &
  srv=$!
  wait_for_line "$out/$step-server.log" listening 180 || { cat "$out/$step-server.log"; return 1; }
}
wirecut_stop() { # the echo server ends with its one connection, or on a reset when the transport gave up
  local i
  for ((i = 0; i < 100; i++)); do kill -0 "$srv" 2>/dev/null || break; sleep 0.2; done
  kill "$srv" 2>/dev/null; wait "$srv" 2>/dev/null
  grep -q 'listening' "$out/$step-server.log"
}
wirecut_client() { # PORT FAMILY TRANSPORT CUT-SECONDS(0: until the client asks) [JVM ARGS...]
  local port=$1 fam=$2 tr=$3 secs=$4 c=$work/wirecut-$1 pid i mode= grc=0 delpid=
  shift 4
  [ "$secs" != 0 ] && mode=${wc_mode:-long}
  rm -rf "$c"; mkdir -p "$c"
  modprobe sch_netem || return 1
  conf $work/$step-client.conf "use $fam client * $B:$port" 'use tcp client * *:*'
  local -a client=(-cp "$tc" org.sdp4j.rsocket.TwoHostWireCut $B "$port" "$c" $mode)
  timeout 600 "$java" "${jvm[@]}" "$@" -javaagent:"$agent"=conf=$work/$step-client.conf "${client[@]}" \
    > "$out/$step-client.log" 2>&1 &
  pid=$!
  for ((i = 0; i < 1800; i++)); do [ -e "$c/cut" ] && break; kill -0 $pid 2>/dev/null || break; sleep 0.1; done
  if [ -e "$c/cut" ]; then
    if [ "$mode" = gone ]; then
      # in the background: the kernel completes the removal only once every user of the device let go of it (rdma_cm
      # tells them with a DEVICE_REMOVAL event); the client must see its connection fail while that is pending
      echo "[a] $(date +%T.%N | cut -c1-12) deleting rxe0 under the open connection"
      (timeout 120 rdma link delete rxe0; echo "[a] $(date +%T.%N | cut -c1-12) rdma link delete rxe0: status $?") &
      delpid=$!
      for ((i = 0; i < 100; i++)); do kill -0 $delpid 2>/dev/null || break; sleep 0.1; done # gone, or 10 s
      # what the kernel shows meanwhile (for the transports' detection of a removed device)
      echo "[a] devices: $(ls /sys/class/infiniband/ 2>/dev/null | tr '\n' ' ')port state: $(timeout 5 cat \
        /sys/class/infiniband/rxe0/ports/1/state 2>&1); rdma link: $(timeout 5 rdma link show 2>&1 | tr '\n' ' ')"
    else
      tc qdisc replace dev eth0 root netem loss 100% && echo "[a] $(date +%T.%N | cut -c1-12) wire cut (eth0 egress)"
    fi
    touch "$c/cut-on"
  fi
  # a short cut ends when the client asks; a long one after its seconds (or when the client is done)
  for ((i = 0; i < 1800; i++)); do
    [ -e "$c/restore" ] && break; kill -0 $pid 2>/dev/null || break
    [ "$secs" != 0 ] && [ $i -ge $((secs * 10)) ] && break
    sleep 0.1
  done
  touch "$c/restoring" # before the wire is back: the echo may come back within milliseconds
  if [ "$mode" = gone ]; then
    wait $pid; grc=$? # the device comes back only after the client saw its connection fail (or gave up)
    wait $delpid
    rdma link add rxe0 type rxe netdev eth0 && echo "[a] $(date +%T.%N | cut -c1-12) rxe0 added again"
    rdma link show rxe0/1
  else
    tc qdisc del dev eth0 root 2>/dev/null; echo "[a] $(date +%T.%N | cut -c1-12) wire back"
  fi
  touch "$c/restored"
  local rc
  if [ "$mode" = gone ]; then rc=$grc; else wait $pid; rc=$?; fi
  cat "$out/$step-client.log"
  [ $rc = 0 ] || return $rc
  grep -q "client $B:$port .*family=$fam transport=$tr" "$out/$step-client.log" ||
    { echo "the client's decision log does not show family=$fam transport=$tr to $B:$port"; return 3; }
  detail=$(grep -o 'WIRE-CUT OK: .*' "$out/$step-client.log" | cut -c1-400)
}
expect_wire_cut_tcp="--tcp 7490"
serve_wire_cut_tcp() { wirecut_server 7490 tcp; }
client_wire_cut_tcp() { wirecut_client 7490 tcp tcp 0; }
stop_wire_cut_tcp() { wirecut_stop; }
expect_wire_cut_sdp="--rdma 7491"
serve_wire_cut_sdp() { wirecut_server 7491 sdp; }
client_wire_cut_sdp() { wirecut_client 7491 sdp rsocket 0; }
stop_wire_cut_sdp() { wirecut_stop; }
expect_wire_cut_ucx="--upgrade 7492"
serve_wire_cut_ucx() { wirecut_server 7492 ucx; }
client_wire_cut_ucx() { wirecut_client 7492 ucx ucx 0 "${ucx_jvm[@]}"; }
stop_wire_cut_ucx() { wirecut_stop; }
# pool-cut (issue 20): idle pooled JDBC connections (HikariCP, IBM JCC) to one Derby on b serving three ports, one
# per transport - tcp 50127, sdp 50128, ucx 50129 - across two cuts of the wire (org.sdp4j.e2e.apps.TwoHostPoolCut).
# A 2.5 s cut while they idle: each pool's same physical connection answers a checked query after it. A cut of
# SDP4J_2H_POOL_CUT s (25) with a borrow and query on each pool during it: none hangs past the wire's return, each
# pool evicts its connection (its 5 s validation fails) and a new one answers the checked query once the wire is
# back - on the same transport where the rules force it (tcp, sdp); for ucx on ucx, or on TCP when its own attempt
# during the cut failed or the negative cache remembers one that did (a ucx rule falls back as 'both' does).
expect_pool_cut="--tcp 50127 --rdma 50128 --upgrade 50129"
serve_pool_cut() {
  derby_server 50127,50128,50129 "use tcp server * $B:50127" "use sdp server * $B:50128" "use ucx server * $B:50129"
}
client_pool_cut() {
  local c=$work/pool-cut pid f n rc fam port tr last
  rm -rf "$c"; mkdir -p "$c"
  modprobe sch_netem || return 1
  conf $work/$step-client.conf "use tcp client * $B:50127" "use sdp client * $B:50128" "use ucx client * $B:50129" \
    'use tcp client * *:*'
  local url="jdbc:db2://$B:%s/\"testdb;create=true\""
  timeout 600 "$java" "${jvm[@]}" "${ucx_jvm[@]}" -javaagent:"$agent"=conf=$work/$step-client.conf \
    -cp "$repo/src/test/target/test-classes:$jdbc_cp:$vmlib/hikaricp.jar:$vmlib/slf4j-api.jar" \
    org.sdp4j.e2e.apps.TwoHostPoolCut "$c" "${SDP4J_2H_POOL_CUT:-25}" "tcp=$(printf "$url" 50127)" \
    "sdp=$(printf "$url" 50128)" "ucx=$(printf "$url" 50129)" "${jcc_props[@]}" blockingReadConnectionTimeout=10 \
    loginTimeout=20 > "$out/$step-client.log" 2>&1 &
  pid=$!
  # the client asks for each cut (cut.N) and its end (restore.N); the wire comes back whatever happens to the client
  while kill -0 $pid 2>/dev/null; do
    for f in "$c"/cut.* "$c"/restore.*; do
      [ -e "$f" ] || continue
      n=${f##*.}
      case "$f" in
        */cut.*) [ -e "$c/cut-on.$n" ] && continue
          tc qdisc replace dev eth0 root netem loss 100% && echo "[a] $(date +%T.%N | cut -c1-12) wire cut $n (eth0 egress)"
          touch "$c/cut-on.$n" ;;
        *) [ -e "$c/restored.$n" ] && continue
          tc qdisc del dev eth0 root 2>/dev/null; echo "[a] $(date +%T.%N | cut -c1-12) wire back $n"
          touch "$c/restored.$n" ;;
      esac
    done
    sleep 0.1
  done
  tc qdisc del dev eth0 root 2>/dev/null
  wait $pid; rc=$?
  cat "$out/$step-client.log"
  [ $rc = 0 ] || return $rc
  detail=$(grep -o 'WIRE-CUT OK: .*' "$out/$step-client.log" | cut -c1-600)
  for f in tcp:50127:tcp sdp:50128:rsocket ucx:50129:ucx; do
    IFS=: read -r fam port tr <<< "$f"
    grep -q "client $B:$port .*family=$fam transport=$tr" "$out/$step-client.log" ||
      { echo "the client's decision log does not show family=$fam transport=$tr to $B:$port"; return 3; }
    [ "$(grep "client $B:$port .*family=$fam transport=" "$out/$step-client.log" | grep -vc ' error=')" -ge 2 ] ||
      { echo "$fam: no second connection after the long cut"; return 3; }
    # the evicted connection's replacement
    last=$(grep "client $B:$port .*family=$fam transport=" "$out/$step-client.log" | grep -v ' error=' | tail -1)
    case "$fam:$last" in
      ucx:*"transport=ucx") ;;
      ucx:*"transport=tcp fallback=\"ucx "*) # its own attempt during the cut failed, or the negative cache
        put "$step.expect" "$expect_pool_cut --tcp 50129" ;; # remembered one: the capture has its TCP payload
      ucx:*) echo "the ucx replacement is neither on ucx nor on TCP by a ucx fallback: $last"; return 3 ;;
      *) [[ "$last" == *"transport=$tr" ]] || { echo "the $fam replacement is not on $tr: $last"; return 3; } ;;
    esac
    detail="$detail; $fam replacement: ${last#*family=}"
  done
}

# host-crash (issue 20; the last step of a list: b does not come back): b holds connections on tcp (7500), sdp (7501)
# and ucx (7502) without reading; a blocks a reader, a writer and a keep-alive reader on each
# (org.sdp4j.rsocket.TwoHostCrash), then asks the host to kill b's qemu (ctl/crash-b; the host answers b-crashed).
# Keep-alive is tuned on a for the step (5 s idle, 1 s interval, 3 probes: TCP's keepalive sysctls, which rsockets
# reads too). Each blocked call's outcome within SDP4J_2H_CRASH_CAP s (30) is in the verdict; a call that ends in
# anything but an IOException (an end of stream: an orderly close that was not) fails the step, and so does a
# keep-alive reader on tcp or ucx without its IOException within 15 s (ucx: the rendezvous TCP connection's).
expect_host_crash="--tcp 7500 --rdma 7501 --upgrade 7502"
serve_host_crash() {
  conf $work/$step-server.conf "use sdp server * $B:7501" "use ucx server * $B:7502" 'use tcp server * *:*'
  timeout 900 "$java" "${jvm[@]}" "${ucx_jvm[@]}" -javaagent:"$agent"=conf=$work/$step-server.conf -cp "$tc" \
    org.sdp4j.rsocket.TwoHostCrash server $B 7500 7501 7502 > "$out/$step-server.log" 2>&1 &
  srv=$!
  wait_for_line "$out/$step-server.log" listening 180 || { cat "$out/$step-server.log"; return 1; }
  # this guest dies in the step: its verdict is written now
  record "$step" 0 0 "holding connections on 7500 (tcp), 7501 (sdp), 7502 (ucx) until the host kills this guest"
}
client_host_crash() {
  local rc old
  old=$(sysctl -n net.ipv4.tcp_keepalive_time net.ipv4.tcp_keepalive_intvl net.ipv4.tcp_keepalive_probes | tr '\n' ' ')
  sysctl -qw net.ipv4.tcp_keepalive_time=5 net.ipv4.tcp_keepalive_intvl=1 net.ipv4.tcp_keepalive_probes=3
  conf $work/$step-client.conf "use sdp client * $B:7501" "use ucx client * $B:7502" 'use tcp client * *:*'
  # the bounds docs/reliability.md states for this tuning: keep-alive reports a dead host within 15 s on tcp and ucx
  timeout $((${SDP4J_2H_CRASH_CAP:-30} + 300)) "$java" "${jvm[@]}" "${ucx_jvm[@]}" \
    -Dcrash.bounds="tcp keepalive 15000;ucx keepalive 15000" -javaagent:"$agent"=conf=$work/$step-client.conf \
    -cp "$tc" org.sdp4j.rsocket.TwoHostCrash client $B $ctl "${SDP4J_2H_CRASH_CAP:-30}" tcp:7500 sdp:7501 ucx:7502 \
    > "$out/$step-client.log" 2>&1
  rc=$?
  read -r -a old <<< "$old"
  sysctl -qw net.ipv4.tcp_keepalive_time="${old[0]}" net.ipv4.tcp_keepalive_intvl="${old[1]}" \
    net.ipv4.tcp_keepalive_probes="${old[2]}"
  cat "$out/$step-client.log"
  [ $rc = 0 ] || return $rc
  for t in "client $B:7501 .*family=sdp transport=rsocket" "client $B:7502 .*family=ucx transport=ucx"; do
    grep -q "$t" "$out/$step-client.log" || { echo "the client's decision log does not show '$t'"; return 3; }
  done
  detail=$(sed -n 's/^HOST-CRASH \([a-z]* [a-z]*\): \(IOException after [0-9]* ms\|still blocked after [0-9]* s\).*/\1 \2/p' \
    "$out/$step-client.log" | tr '\n' ';' | cut -c1-600)
}

# device-gone-sdp, device-gone-ucx (issue 20; default list): a deletes its rxe0 under the open connection (and adds it
# back after): the client's reads must end in an IOException within 30 s and every later call fail; the JVM lives
expect_device_gone_sdp="--rdma 7496"
serve_device_gone_sdp() { wirecut_server 7496 sdp; }
client_device_gone_sdp() { wc_mode=gone wirecut_client 7496 sdp rsocket 60 && device_named; }
# the IOException must name the device (the issue: "fail with an IOException naming the device")
device_named() { [[ "$detail" == *"RDMA device rxe0 was removed"* ]] || { echo "the failure does not name rxe0"; return 3; }; }
stop_device_gone_sdp() { wirecut_stop; }
expect_device_gone_ucx="--upgrade 7497"
serve_device_gone_ucx() { wirecut_server 7497 ucx; }
client_device_gone_ucx() { wc_mode=gone wirecut_client 7497 ucx ucx 60 "${ucx_jvm[@]}" && device_named; }
stop_device_gone_ucx() { wirecut_stop; }
# wire-cut-long-*: the same with the wire cut for SDP4J_2H_LONG_CUT seconds (default 40): past RDMA's retries
cut_secs=${SDP4J_2H_LONG_CUT:-40}
# SDP4J_2H_UCX_RETRY=N (1-6; not by default): UCX's RC retry count in every JVM of both guests
# (UCX_RC_VERBS_RETRY_COUNT). rdma_rxe retries for ever at 7, UCX's default; below it an RC queue pair gives up, so
# wire-cut-long-ucx shows the transport giving up (docs/reliability.md)
if [ -n "${SDP4J_2H_UCX_RETRY:-}" ]; then
  [[ "$SDP4J_2H_UCX_RETRY" =~ ^[1-6]$ ]] || { echo "SDP4J_2H_UCX_RETRY must be 1-6, not $SDP4J_2H_UCX_RETRY"; exit 2; }
  export UCX_RC_VERBS_RETRY_COUNT=$SDP4J_2H_UCX_RETRY
fi
expect_wire_cut_long_tcp="--tcp 7493"
serve_wire_cut_long_tcp() { wirecut_server 7493 tcp; }
client_wire_cut_long_tcp() { wirecut_client 7493 tcp tcp "$cut_secs"; }
stop_wire_cut_long_tcp() { wirecut_stop; }
expect_wire_cut_long_sdp="--rdma 7494"
serve_wire_cut_long_sdp() { wirecut_server 7494 sdp; }
client_wire_cut_long_sdp() { wirecut_client 7494 sdp rsocket "$cut_secs"; }
stop_wire_cut_long_sdp() { wirecut_stop; }
expect_wire_cut_long_ucx="--upgrade 7495"
serve_wire_cut_long_ucx() { wirecut_server 7495 ucx; }
client_wire_cut_long_ucx() { wirecut_client 7495 ucx ucx "$cut_secs" "${ucx_jvm[@]}"; }
stop_wire_cut_long_ucx() { wirecut_stop; }

derby_server() { # PORT[,PORT...] SERVER-RULE...
  rm -f $work/derby-stop
  # The server's own readiness pings (NetworkServerControl.ping: client connections to its port) take the family
  # of the port's server rule. Left to the default 'both', a ping refused on rsockets before the listener was up
  # sent the next 60 s of pings to TCP (the negative cache), where an sdp-only listener refuses them: Derby was
  # "up in" 94-99 s, against 19 s for a TCP listener.
  local r pings=()
  for r in "${@:2}"; do pings+=("${r/ server / client }"); done
  conf $work/$step-server.conf "${@:2}" "${pings[@]}" 'use tcp server * *:*' 'use tcp client * *:*'
  timeout 900 "$java" "${jvm[@]}" -javaagent:"$agent"=conf=$work/$step-server.conf -cp "$jdbc_cp" \
    org.sdp4j.rsocket.TwoHostJdbc derby-server $B "$1" $work/derby-stop > "$out/$step-server.log" 2>&1 &
  srv=$!
  wait_for_line "$out/$step-server.log" 'DRDA server listening' 300
}
stop_server() { # a Derby server stops on its file; anything else on SIGTERM; both bounded
  touch $work/derby-stop
  local i
  for ((i = 0; i < 300; i++)); do kill -0 "$srv" 2>/dev/null || break; sleep 0.2; done
  kill "$srv" 2>/dev/null
  wait "$srv"
}
jcc_client() { # PORT CLIENT-RULE CONNECTIONS ROWS
  conf $work/$step-client.conf "$2" 'use tcp client * *:*'
  timeout 900 "$java" "${jvm[@]}" "${jextra[@]}" -javaagent:"$agent"=conf=$work/$step-client.conf -cp "$jdbc_cp" \
    org.sdp4j.rsocket.TwoHostJdbc client "jdbc:db2://$B:$1/\"testdb;create=true\"" "$4" "$3" "${jcc_props[@]}" \
    > "$out/$step-client.log" 2>&1
  local rc=$?
  cat "$out/$step-client.log"
  [ $rc = 0 ] && grep -q 'every row checked' "$out/$step-client.log" && grep -q DROPPED "$out/$step-client.log"
}

expect_jcc_sdp="--rdma 50123"
serve_jcc_sdp() { derby_server 50123 "use sdp server * $B:50123"; }
client_jcc_sdp() {
  jcc_client 50123 "use sdp client * $B:50123" 1 "$rows" || return 1
  grep -q "client $B:50123 .*family=sdp transport=rsocket" "$out/$step-client.log" ||
    { echo "the client's decision log does not show transport=rsocket"; return 3; }
}
check_jcc_sdp() {
  grep -q "server $B:50123 .*family=sdp transport=rsocket" "$out/$step-server.log" ||
    { echo "the server's decision log does not show transport=rsocket"; return 3; }
}

expect_jcc_both_tcp="--tcp 50124"
serve_jcc_both_tcp() { derby_server 50124 "use tcp server * $B:50124"; }
client_jcc_both_tcp() {
  jcc_client 50124 "use both client * $B:50124" 1 "$fallback_rows" || return 1
  grep -q "client $B:50124 .*family=both transport=tcp fallback=\"rsocket connect failed" "$out/$step-client.log" ||
    { echo "the client's decision log does not show the fallback from rsocket to tcp"; return 3; }
}
check_jcc_both_tcp() {
  grep -q "server $B:50124 .*family=tcp transport=tcp" "$out/$step-server.log" ||
    { echo "the server's decision log does not show a TCP-only listener"; return 3; }
}

expect_jcc_both_norxe="--tcp 50125"
serve_jcc_both_norxe() {
  # no RDMA device at all on b during the step (stop_jcc_both_norxe adds it back for the steps after)
  rdma link delete rxe0 || return 1
  ls /sys/class/infiniband/ 2>/dev/null | grep . && { echo "an RDMA device is still there"; return 1; }
  derby_server 50125 "use both server * $B:50125"
}
client_jcc_both_norxe() {
  local t0=$(date +%s%N) rc
  # the negative cache remembers a failed destination for sdp4j.both.retry (60 s by default); under TCG the first
  # connection's workload outlasts that, so the window is widened for this client
  jextra=(-Dsdp4j.both.retry=900000)
  jcc_client 50125 "use both client * $B:50125" 2 "$fallback_rows"; rc=$?
  jextra=()
  echo "client run: $(( ($(date +%s%N) - t0) / 1000000 )) ms"
  [ $rc = 0 ] || return 1
  local first second
  first=$(grep "client $B:50125 " "$out/$step-client.log" | grep 'family=both' | head -1)
  second=$(grep "client $B:50125 " "$out/$step-client.log" | grep 'family=both' | sed -n 2p)
  echo "first connection:  $first"; echo "second connection: $second"
  echo "$first" | grep -q 'transport=tcp fallback="rsocket connect failed' ||
    { echo "the first connection did not make an RDMA attempt and fall back"; return 3; }
  echo "$second" | grep -q 'transport=tcp fallback="rsocket to .* failed .* ago' ||
    { echo "the second connection did not go straight to TCP from the negative cache"; return 3; }
}
stop_jcc_both_norxe() {
  stop_server; local rc=$? i
  rdma link add rxe0 type rxe netdev eth0 || return 1
  for ((i = 0; i < 100; i++)); do grep -q ACTIVE $hw/../state 2>/dev/null && break; sleep 0.1; done
  echo "rxe0 added again: $(rdma link show rxe0/1)"
  return $rc
}
check_jcc_both_norxe() {
  grep -q "server $B:50125 .*family=both transport=tcp" "$out/$step-server.log" ||
    { echo "b's 'use both' listener did not degrade to TCP without a device"; return 3; }
}

# PostgreSQL from Debian on b under librspreload (rsockets under an unmodified native server)
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
pgdir=/tmp/sdp4j-pg
expect_pg_preload="--rdma 5432"
serve_pg_preload() {
  mkdir -p $pgdir && chown postgres:postgres $pgdir
  runuser -u postgres -- "$pgbin/initdb" -D $pgdir/data -A trust -U postgres -E UTF8 --no-sync --no-instructions \
    > "$out/pg-initdb.log" 2>&1 || { tail -20 "$out/pg-initdb.log"; return 1; }
  # only TCP goes through the preload (rsockets); the unix socket in $pgdir is the local admin path
  runuser -u postgres -- env LD_PRELOAD="$preload" timeout 900 "$pgbin/postgres" -D $pgdir/data -p 5432 -k $pgdir \
    -c listen_addresses=$B -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=10 \
    -c shared_buffers=16MB -c log_connections=on -c log_disconnections=on > "$out/$step-server.log" 2>&1 &
  srv=$!
  local i
  for ((i = 0; i < ${SDP4J_2H_PG_WAIT:-60}; i++)); do "$pgbin/pg_isready" -q -h $pgdir -p 5432 && break; sleep 1; done
  if ! "$pgbin/createdb" -h $pgdir -p 5432 -U postgres sdp4j; then
    pg_diagnose
    return 1
  fi
  echo listening
}
# Why PostgreSQL did not come up under the preload: its log, the kernel's word on rdma_cm use after fork, and where
# each postgres process waits (a child blocked forever shows up in its kernel stack and in a few seconds of strace).
pg_diagnose() {
  echo "---- PostgreSQL under librspreload did not become ready; its log:"
  tail -n 15 "$out/$step-server.log"
  echo "---- kernel messages about rdma_cm / uverbs:"
  dmesg | grep -E 'ucma|uverbs|changed security contexts' | tail -5
  echo "---- postgres processes (pid, state, kernel wait channel):"
  ps -o pid,ppid,stat,wchan:24,args -u postgres
  local p
  for p in $(pgrep -u postgres postgres | tail -n +2 | head -4); do
    echo "---- pid $p ($(tr '\0' ' ' < /proc/$p/cmdline | cut -c1-60)): kernel stack"
    head -n 6 /proc/$p/stack 2>/dev/null
    if command -v strace >/dev/null; then
      echo "---- pid $p: 3 s of strace"
      timeout 3 strace -p "$p" 2>&1 | head -n 8
    fi
  done
}
client_pg_preload() {
  conf $work/pg-client.conf "use sdp client * $B:5432" 'use tcp client * *:*'
  timeout 900 "$java" "${jvm[@]}" -javaagent:"$agent"=conf=$work/pg-client.conf -cp "$jdbc_cp" \
    org.sdp4j.rsocket.TwoHostJdbc client "jdbc:postgresql://$B:5432/sdp4j" "$rows" 2 user=postgres \
    connectTimeout=60 socketTimeout=300 > "$out/$step-client.log" 2>&1
  local rc=$?
  cat "$out/$step-client.log"
  [ $rc = 0 ] && grep -q 'every row checked' "$out/$step-client.log" || return 1
  grep -q "client $B:5432 .*family=sdp transport=rsocket" "$out/$step-client.log" ||
    { echo "the client's decision log does not show transport=rsocket"; return 3; }
}
check_pg_preload() { grep -c 'connection authorized' "$out/$step-server.log" | grep -qv '^0$' ||
  { echo "the server log shows no authorized connection"; return 3; }; }
# A postmaster whose children hang (see pg_diagnose) does not stop on pg_ctl: its whole tree is killed, bounded.
stop_pg() {
  runuser -u postgres -- "$pgbin/pg_ctl" stop -D $pgdir/data -m fast -w -t 20 >/dev/null 2>&1
  local i
  for ((i = 0; i < 50; i++)); do kill -0 "$srv" 2>/dev/null || break; sleep 0.2; done
  kill_tree "$srv"
  wait "$srv"
  return 0
}
kill_tree() { local c; for c in $(ps -o pid= --ppid "$1"); do kill_tree "$c"; done; kill -KILL "$1" 2>/dev/null; }

# MariaDB from Debian on b under librspreload, with libaccept4shim.so in front of it (native/vm-tests/accept4_shim.c):
# rspreload 44 has no accept4 and its rsocket() refuses SOCK_CLOEXEC in the type, both of which mariadbd uses; the
# shim maps them to accept/socket + fcntl. rspreload's preload_config limits it to mariadbd's stream sockets: its
# UDP socket (the SIOCGIFCONF probe at startup) would otherwise become a datagram rsocket whose close never returns.
# One process, a thread per connection, poll(): nothing forks, nothing changes credentials, nothing uses epoll on a
# socket. Run as the mysql user (no setuid in the process), in a tmpfs datadir, --skip-grant-tables (a test server).
mdbdir=/tmp/sdp4j-mariadb
shim=$repo/native/build/vm-tests/libaccept4shim.so
expect_mariadb_preload="--rdma 3306"
serve_mariadb_preload() {
  [ -x /usr/sbin/mariadbd ] && [ -f "$shim" ] || { echo "needs mariadb-server (native/install-deps.sh) and $shim"; return 1; }
  mkdir -p /etc/rdma/rsocket && echo 'mariadbd AF_INET SOCK_STREAM *' > /etc/rdma/rsocket/preload_config || return 1
  rm -rf $mdbdir && mkdir -p $mdbdir && chown mysql:mysql $mdbdir || return 1
  runuser -u mysql -- mariadb-install-db --no-defaults --datadir=$mdbdir/data --auth-root-authentication-method=normal \
    --skip-test-db --user=mysql > "$out/mariadb-install.log" 2>&1 || { tail -20 "$out/mariadb-install.log"; return 1; }
  # ld.so opens every LD_PRELOAD object as mysql: from a checkout mysql may not enter (CI clones into /root, mode
  # 0700) it skips the shim with a mere warning on stderr, and librspreload alone then lets the SOCK_CLOEXEC listener
  # fall back to kernel TCP. So the shim is copied to a root-owned directory mysql can read but not write.
  shimdir=$(mktemp -d /tmp/sdp4j-preload.XXXXXX) && chmod 0755 "$shimdir" && install -m 0644 "$shim" "$shimdir/" || return 1
  runuser -u mysql -- env LD_PRELOAD="$shimdir/${shim##*/} $preload" timeout 900 /usr/sbin/mariadbd --no-defaults \
    --datadir=$mdbdir/data --socket=$mdbdir/sock --pid-file=$mdbdir/pid --bind-address=$B --port=3306 \
    --skip-grant-tables --skip-name-resolve --thread-handling=one-thread-per-connection --innodb-use-native-aio=0 \
    --innodb-buffer-pool-size=32M --innodb-flush-log-at-trx-commit=0 --skip-log-bin \
    --log-error=$mdbdir/err.log --general-log=1 --general-log-file=$mdbdir/general.log > $mdbdir/stderr 2>&1 &
  srv=$!
  wait_for_line $mdbdir/err.log 'ready for connections' 300 || { tail -20 $mdbdir/err.log $mdbdir/stderr; return 1; }
  mariadb_listener || return 1
  echo listening
}
# Where mariadbd listens: librspreload's socket() silently makes a kernel socket when rsocket() fails (a fresh-clone
# run once had the client's rconnect refused although mariadbd was ready). The shim reports each TCP socket (an
# rsocket, or a kernel socket and rsocket()'s errno); the kernel's own view (ss, rdma_cm ids) must agree.
mariadb_listener() {
  local mpid kernel rdma
  mpid=$(cat $mdbdir/pid 2>/dev/null)
  echo "---- preloaded into mariadbd:"
  grep -o '/[^ ]*\(libaccept4shim\|librspreload\)\.so' /proc/$mpid/maps 2>/dev/null | sort -u
  if ! grep -q libaccept4shim.so /proc/$mpid/maps 2>/dev/null || ! grep -q librspreload.so /proc/$mpid/maps 2>/dev/null; then
    echo "mariadbd $mpid does not have both the shim and librspreload mapped; the dynamic loader said:"
    cat $mdbdir/stderr $mdbdir/err.log 2>/dev/null | grep 'ld.so'
    return 1
  fi
  echo "---- what rspreload made of mariadbd's TCP sockets (the shim):"
  cat $mdbdir/stderr $mdbdir/err.log 2>/dev/null | grep 'accept4shim:'
  echo "---- port 3306 on kernel TCP:"; kernel=$(ss -Htln 'sport = :3306' 2>&1); echo "${kernel:-none}"
  echo "---- RDMA CM ids listening on 3306:"; rdma=$(rdma resource show cm_id 2>&1 | grep 'state LISTEN' | grep ':3306 ')
  echo "${rdma:-none}"
  [ -n "$mpid" ] && echo "---- mariadbd $mpid descriptors: $(ls -l /proc/$mpid/fd 2>/dev/null | grep -c rdma_cm) on rdma_cm"
  if [ -n "$kernel" ] || [ -z "$rdma" ]; then
    echo "mariadbd's listener on 3306 is not an rsocket (the shim's lines above say what rspreload made of it and why)"
    return 1
  fi
}
client_mariadb_preload() {
  conf $work/mariadb-client.conf "use sdp client * $B:3306" 'use tcp client * *:*'
  timeout 900 "$java" "${jvm[@]}" -javaagent:"$agent"=conf=$work/mariadb-client.conf -cp "$jdbc_cp" \
    org.sdp4j.rsocket.TwoHostJdbc client "jdbc:mariadb://$B:3306/sdp4j" "$rows" 2 user=root \
    createDatabaseIfNotExist=true connectTimeout=60000 socketTimeout=300000 > "$out/$step-client.log" 2>&1
  local rc=$?
  cat "$out/$step-client.log"
  [ $rc = 0 ] && grep -q 'every row checked' "$out/$step-client.log" && grep -q DROPPED "$out/$step-client.log" ||
    return 1
  [ "$(grep -c "client $B:3306 .*family=sdp transport=rsocket" "$out/$step-client.log")" = 2 ] ||
    { echo "the client's decision log does not show two connections with transport=rsocket"; return 3; }
}
# mariadbd's general log names each connection's peer: both of a's connections must have reached it
check_mariadb_preload() {
  grep 'Connect' $mdbdir/general.log
  [ "$(grep -c "Connect.*@$A .*using TCP/IP" $mdbdir/general.log)" = 2 ] ||
    { echo "mariadbd's general log does not show two connections from $A"; return 3; }
}
# mariadb-factory: the same server on b; on a, MariaDB Connector/J through org.sdp4j.jdbc.SdpSocketFactory (issue
# 22): no agent and no flag, sdp4j-agent.jar on the class path, 'use sdp' in -Dsdp4j.jdbc.rules
expect_mariadb_factory="--rdma 3306"
serve_mariadb_factory() { serve_mariadb_preload; }
stop_mariadb_factory() { stop_mariadb; }
check_mariadb_factory() { check_mariadb_preload; }
client_mariadb_factory() {
  timeout 900 "$java" "${jvm[@]}" "-Dsdp4j.jdbc.rules=log min-level 7 destination stderr; use sdp client * $B:3306; use tcp client * *:*" \
    -cp "$tc:$agent:$vmlib/mariadb.jar" org.sdp4j.rsocket.TwoHostJdbc client "jdbc:mariadb://$B:3306/sdp4j" "$rows" 2 \
    user=root createDatabaseIfNotExist=true connectTimeout=60000 socketTimeout=300000 \
    socketFactory=org.sdp4j.jdbc.SdpSocketFactory > "$out/$step-client.log" 2>&1
  local rc=$?
  cat "$out/$step-client.log"
  [ $rc = 0 ] && grep -q 'every row checked' "$out/$step-client.log" && grep -q DROPPED "$out/$step-client.log" ||
    return 1
  [ "$(grep -c "client $B:3306 .*family=sdp transport=rsocket" "$out/$step-client.log")" = 2 ] ||
    { echo "the client's decision log does not show two connections with transport=rsocket"; return 3; }
  ! grep -q WARNING "$out/$step-client.log" || { echo "the JVM printed a warning"; return 3; }
}
# runuser may return before mariadbd has finished: mariadbd itself (its pid file) is waited for, bounded, then killed;
# a mariadbd left behind holds rxe0, and the last step's 'rdma link delete' then blocks for ever in the kernel.
# Under the preload SIGTERM never completes: mariadbd's main thread sits in accept4 -> rspreload accept -> raccept ->
# read() of the listener's accept queue (a blocking socketpair; gdb, SDP4J_2H_MDB_STACKS=1), and the shutdown waits for
# that thread, which nothing wakes (a kernel listener's blocked accept ends when the socket is shut down; rsockets'
# does not). So the wait is short.
stop_mariadb() {
  local mpid i
  mpid=$(cat $mdbdir/pid 2>/dev/null)
  kill "$srv" 2>/dev/null
  [ -n "$mpid" ] && kill "$mpid" 2>/dev/null
  for ((i = 0; i < 50; i++)); do
    kill -0 "$srv" 2>/dev/null || { [ -n "$mpid" ] && kill -0 "$mpid" 2>/dev/null; } || break
    sleep 0.2
  done
  kill_tree "$srv"
  if [ -n "$mpid" ] && kill -0 "$mpid" 2>/dev/null; then
    echo "mariadbd $mpid did not stop on SIGTERM within 10 s (see above): SIGKILL"
    # SDP4J_2H_MDB_STACKS=1: where its threads wait first (gdb is slow under TCG: not in the default run)
    if [ "${SDP4J_2H_MDB_STACKS:-0}" = 1 ]; then
      ps -L -o tid,stat,wchan:28,comm -p "$mpid"
      timeout 120 gdb -batch -nx -p "$mpid" -ex 'thread apply all bt 12' 2>&1 | grep -E '^(Thread|#)' | head -150
    fi
    kill -KILL "$mpid"
    for ((i = 0; i < 50; i++)); do kill -0 "$mpid" 2>/dev/null || break; sleep 0.2; done
  fi
  wait "$srv"
  cp $mdbdir/err.log "$out/$step-server.log"
  return 0
}

# the 'bench' step (JMH across the wire; not in the default list): benchmarks/two-hosts-bench.sh
. "$(dirname "$0")/bench.sh"
# the 'bench-rstream' step (sdp4j vs rstream across the wire; not in the default list): benchmarks/two-hosts-bench.sh
. "$(dirname "$0")/bench-rstream.sh"
# the 'bench-smc' step (smc, sdp and tcp across the wire on the 6.12 kernel): benchmarks/two-hosts-bench.sh --smc
. "$(dirname "$0")/bench-smc.sh"

fn() { echo "$1_${2//-/_}"; }
why() { # LOG: the first line that says what went wrong, for a failed step's verdict (CI shows little of the logs)
  grep -m1 -E 'Exception|Error|Assertion|failed|differs|timed out|abort' "$1" 2>/dev/null | tr -d '\r' | cut -c1-200
}
record() { # STEP STATUS SECONDS DETAIL
  printf '%s %s %s\n' "$2" "$3" "$4" > "$res/.$1.$role.tmp" && mv "$res/.$1.$role.tmp" "$res/$1.$role"
  log "$1: status $2 (${3}s) $4"
  [ "$2" = 0 ] || bad=$((bad + 1))
}
# smc-*: 'use smc' on both ends, the kernel's SMC-R under the JDK's own sockets (needs the 6.12 guest kernel:
# test.sh runs these steps in a second two-host run booted with it; on 6.1 SMC-R over rxe hangs, FACTS.md). Both
# guests load smc and share one User EID (smc-ueid.py, as smc-tools' `smcr ueid add`); the capture must hold
# RoCEv2 both ways and on the port only the CLC handshake's few hundred bytes of TCP (pcapcheck --smc).
smc_ueid=SDP4J-TWO-HOSTS
smc_setup() { # [noueid]: load SMC; this guest's UEID set (or, with noueid, none)
  modprobe smc && modprobe smc_diag || { echo "no smc module in $(uname -r)"; return 1; }
  python3 "$repo/native/vm-tests/two-hosts/smc-ueid.py" flush || return 1
  if [ "${1:-}" != noueid ]; then python3 "$repo/native/vm-tests/two-hosts/smc-ueid.py" add $smc_ueid || return 1; fi
  echo "SMC on $(uname -r): UEIDs [$(python3 "$repo/native/vm-tests/two-hosts/smc-ueid.py" show | tr '\n' ' ')]"
}
smc_outcome() { # PORT WANT COUNT: the client's log names WANT ("on SMC-R", "on TCP (SMC fell back") COUNT times
  local n
  n=$(grep -c "smc: connection to $B:$1 $2" "$out/$step-client.log")
  grep "smc: connection to $B:$1 " "$out/$step-client.log"
  [ "$n" = "$3" ] || { echo "$n of $3 connections to $B:$1 say '$2'"; return 3; }
  detail="$(grep -o "smc: connection to $B:$1 on .*" "$out/$step-client.log" | head -1)"
}
expect_smc_echo="--smc 7480"
serve_smc_echo() { smc_setup && echo_server net 7480 smc; }
client_smc_echo() {
  smc_setup || return 1
  local st
  st=$("$java" -jar "$agent" selftest 2>&1 | grep '^transport smc')
  echo "$st"
  [[ "$st" == *"available: IPPROTO_SMC; RDMA devices: rxe0; User EIDs: $smc_ueid" ]] ||
    { echo "selftest does not show SMC with rxe0 and the UEID"; return 3; }
  echo_client net 7480 smc smc && smc_outcome 7480 "on SMC-R" 2
}
check_smc_echo() { echo_server_check 7480 smc smc; }
expect_smc_echo_nio="--smc 7481"
serve_smc_echo_nio() { smc_setup && echo_server nio 7481 smc; }
client_smc_echo_nio() { smc_setup && echo_client nio 7481 smc smc && smc_outcome 7481 "on SMC-R" 2; }
# (every JVM here runs with -Djava.net.preferIPv4Stack=true: Linux's SMC-Rv2 takes AF_INET sockets only, and the
# JDK's dual-stack AF_INET6 sockets fell back with 0x03030000 in a fresh-clone run; docs/smc.md)
check_smc_echo_nio() { echo_server_check 7481 smc smc; }
expect_smc_jcc="--smc 50126"
serve_smc_jcc() { smc_setup && derby_server 50126 "use smc server * $B:50126"; }
client_smc_jcc() {
  smc_setup || return 1
  jcc_client 50126 "use smc client * $B:50126" 1 "$fallback_rows" || return 1
  grep -q "client $B:50126 .*family=smc transport=smc" "$out/$step-client.log" ||
    { echo "the client's decision log does not show transport=smc"; return 3; }
  smc_outcome 50126 "on SMC-R" 1
}
check_smc_jcc() {
  grep -q "server $B:50126 .*family=smc transport=smc" "$out/$step-server.log" ||
    { echo "the server's decision log does not show transport=smc"; return 3; }
}
# smc-native: PostgreSQL on b with every TCP socket made SMC by sdp4j's preload (native/vm-tests/smc_preload.c:
# socket() -> IPPROTO_SMC; kernel sockets survive PostgreSQL's fork per connection, which stopped it under
# librspreload), pgjdbc on a on 'use smc'
expect_smc_native="--smc 5433"
serve_smc_native() {
  smc_setup || return 1
  mkdir -p $pgdir && chown postgres:postgres $pgdir
  runuser -u postgres -- "$pgbin/initdb" -D $pgdir/data -A trust -U postgres -E UTF8 --no-sync --no-instructions \
    > "$out/pg-initdb.log" 2>&1 || { tail -20 "$out/pg-initdb.log"; return 1; }
  echo "host all all $A/32 trust" >> $pgdir/data/pg_hba.conf # the client guest (a test server, no password)
  # the loader opens LD_PRELOAD objects as postgres, which cannot enter a clone under /root (a fresh-clone run
  # started PostgreSQL on plain TCP so): a root-owned copy it can read, and a check of what the postmaster mapped
  install -m 0755 "$repo/native/build/vm-tests/libsdp4j-smcpreload.so" $pgdir/libsdp4j-smcpreload.so || return 1
  runuser -u postgres -- env LD_PRELOAD=$pgdir/libsdp4j-smcpreload.so timeout 900 \
    "$pgbin/postgres" -D $pgdir/data -p 5433 -k $pgdir -c listen_addresses=$B -c fsync=off -c synchronous_commit=off \
    -c full_page_writes=off -c max_connections=10 -c shared_buffers=16MB -c log_connections=on \
    > "$out/$step-server.log" 2>&1 &
  srv=$!
  local i
  for ((i = 0; i < ${SDP4J_2H_PG_WAIT:-60}; i++)); do "$pgbin/pg_isready" -q -h $pgdir -p 5433 && break; sleep 1; done
  "$pgbin/createdb" -h $pgdir -p 5433 -U postgres sdp4j || { tail -n 15 "$out/$step-server.log"; return 1; }
  local pm
  pm=$(head -1 $pgdir/data/postmaster.pid 2>/dev/null)
  grep -q libsdp4j-smcpreload "/proc/$pm/maps" 2>/dev/null ||
    { echo "the postmaster ($pm) has not mapped the SMC preload"; grep -i 'preload' "$out/$step-server.log"; return 1; }
  echo "the postmaster ($pm) runs with the SMC preload"
  echo listening
}
client_smc_native() {
  smc_setup || return 1
  conf $work/smc-native-client.conf "use smc client * $B:5433" 'use tcp client * *:*'
  timeout 900 "$java" "${jvm[@]}" -javaagent:"$agent"=conf=$work/smc-native-client.conf -cp "$jdbc_cp" \
    org.sdp4j.rsocket.TwoHostJdbc client "jdbc:postgresql://$B:5433/sdp4j" "$fallback_rows" 2 user=postgres \
    connectTimeout=60 socketTimeout=300 > "$out/$step-client.log" 2>&1
  local rc=$?
  cat "$out/$step-client.log"
  [ $rc = 0 ] && grep -q 'every row checked' "$out/$step-client.log" || return 1
  grep -q "client $B:5433 .*family=smc transport=smc" "$out/$step-client.log" ||
    { echo "the client's decision log does not show transport=smc"; return 3; }
  smc_outcome 5433 "on SMC-R" 2
}
check_smc_native() { grep -c 'connection authorized' "$out/$step-server.log" | grep -qv '^0$' ||
  { echo "the server log shows no authorized connection"; return 3; }; }
stop_smc_native() { stop_pg; }
# smc-fallback: b has no UEID; SMC-Rv2 cannot agree, so the protocol falls back to TCP on the same connection
expect_smc_fallback="--tcp 7482"
serve_smc_fallback() { smc_setup noueid && echo_server net 7482 smc; }
client_smc_fallback() { smc_setup && echo_client net 7482 smc smc && smc_outcome 7482 "on TCP (SMC fell back: 0x" 2; }
check_smc_fallback() { echo_server_check 7482 smc smc; }

bad=0

# ---------------------------------------------------------------- b: serve each step a asks for
run_b() {
  local step t0 c0 c1 rc d drc min
  for step in "${STEPS[@]}"; do
    await "$step.serve" 1200 || return 1
    log "$step: starting the server"
    t0=$(date +%s); c0=$(counters); srv=
    "$(fn serve "$step")" > "$out/$step-serve.out" 2>&1; rc=$?
    cat "$out/$step-serve.out"
    if [ $rc = 0 ]; then put "$step.ready" ok; else put "$step.ready" "failed $rc"; fi
    await "$step.client-done" 1200
    if declare -F "$(fn stop "$step")" >/dev/null; then "$(fn stop "$step")"; else
      case "$step" in pg-preload) stop_pg ;; mariadb-preload) stop_mariadb ;; *) [ -n "$srv" ] && stop_server ;; esac
    fi
    src=$?
    [ "$step" = wire ] && src=0
    cat "$out/$step-server.log" 2>/dev/null | tail -40
    [ $rc = 0 ] && rc=$src
    if [ $rc = 0 ] && declare -F "$(fn check "$step")" >/dev/null; then "$(fn check "$step")"; rc=$?; fi
    c1=$(counters)
    min=256; case "$step" in wire) min=4 ;; jcc-both-tcp|jcc-both-norxe|ucx-fallback|smc-fallback|wire-cut-*|device-gone-*|pool-cut|tcp-lossy) min=0 ;; esac
    d=$(delta "$c0" "$c1" $min); drc=$?
    [ -d $hw ] || { d="no RDMA device (rxe0 deleted)"; drc=0; }
    [ $rc = 0 ] && rc=$drc
    [ $rc = 0 ] || d="$d; server log: $(why "$out/$step-server.log")"
    record "$step" $rc $(( $(date +%s) - t0 )) "$d"
    put "$step.server-done" $rc
  done
  [ $bad = 0 ]
}

# ---------------------------------------------------------------- a: drive each step
run_a() {
  local step t0 c0 c1 rc d drc min e
  printf '%s\n' "${STEPS[@]}" > $sh/steps.planned
  for step in "${STEPS[@]}"; do
    log "$step"
    t0=$(date +%s)
    put "$step.cap-start" 1
    await "$step.cap-on" 120 || { record "$step" 90 0 "no capture"; put abort 1; return 1; }
    e=expect_${step//-/_}; put "$step.expect" "${!e}"
    c0=$(counters)
    put "$step.serve" 1
    rc=0
    await "$step.ready" 600 || rc=91
    if [ $rc = 0 ] && [ "$(cat "$ctl/$step.ready")" != ok ]; then echo "b could not start its server"; rc=92; fi
    detail=
    if [ $rc = 0 ]; then "$(fn client "$step")"; rc=$?; fi
    c1=$(counters)
    put "$step.client-done" $rc
    [ "$step" = host-crash ] || await "$step.server-done" 600 # a killed b says nothing more
    put "$step.cap-stop" 1
    await "$step.cap-off" 120
    min=256; case "$step" in wire) min=4 ;; jcc-both-tcp|jcc-both-norxe|ucx-fallback|smc-fallback|wire-cut-*|device-gone-*|pool-cut|tcp-lossy) min=0 ;; esac
    d=$(delta "$c0" "$c1" $min); drc=$?
    [ $rc = 0 ] && rc=$drc
    [ -n "$detail" ] && d="$d; $detail"
    [ $rc = 0 ] || d="$d; client log: $(why "$out/$step-client.log")"
    record "$step" $rc $(( $(date +%s) - t0 )) "$d"
  done
  [ $bad = 0 ]
}

log "guest $role ($me): $(rdma link show rxe0/1 2>&1)"
# SDP4J_2H_LOSS=PERCENT (not by default): this guest's NIC drops that share of the frames it sends (netem), as a
# loaded host's virtual wire does now and then: RC retransmits, and every stream must still arrive whole
if [ -n "${SDP4J_2H_LOSS:-}" ]; then
  [[ "$SDP4J_2H_LOSS" =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "SDP4J_2H_LOSS must be a percentage, not $SDP4J_2H_LOSS"; put abort 1; exit 2; }
  modprobe sch_netem && tc qdisc add dev eth0 root netem loss "$SDP4J_2H_LOSS%" || { put abort 1; exit 2; }
  log "eth0 drops $SDP4J_2H_LOSS% of the frames it sends: $(tc qdisc show dev eth0)"
fi
[ -f "$agent" ] && [ -f "$tc/org/sdp4j/rsocket/TwoHostEcho.class" ] && [ -f "$vmlib/pgjdbc.jar" ] ||
  { echo "missing the agent, the test classes or vm-lib: build on the host first (mvn package)"; put abort 1; exit 2; }
put "up.$role" 1
other=b; [ "$role" = b ] && other=a
await "up.$other" 600 || { put abort 1; exit 1; }
if [ "$role" = a ]; then run_a; else run_b; fi
rc=$?
put "end.$role" $rc
exit $rc
