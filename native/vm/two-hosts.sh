#!/usr/bin/env bash
# Two soft-RoCE guests on one virtual wire, and the two-host suite between them:
#   native/vm/two-hosts.sh [-t SECONDS]
# Boots guest a (10.9.9.1) and guest b (10.9.9.2), each qemu TCG with -smp 1 -m 2048 (the host has 2 cores), the
# host root read-only over virtio-9p as run-in-vm.sh does (native/vm/vm-lib.sh), and one virtio NIC each. The two
# NICs are joined by a qemu 'dgram' netdev over two Unix datagram sockets: an Ethernet wire that exists only between
# the two qemu processes (no host interface, bridge or tap). The init puts rxe0 on that NIC (sdp4j.nic= on the
# kernel command line). Both guests run native/vm-tests/two-hosts/guest.sh (b serves, a drives) and coordinate
# through a third 9p share (OUT/shared). For each step the host adds a filter-dump on a's netdev over QMP
# (native/vm/capture.py) and removes it after, so OUT/STEP.pcap holds exactly that step's frames; then it checks
# each capture (native/vm/pcapcheck.py: RoCEv2 both ways and no TCP payload on the database port for RDMA steps,
# TCP payload for the fallback steps) and writes OUT/summary.txt.
# Exit status 0 only when every planned step passed on both guests and in its capture. Last line: the OUT directory.
# Needs native/vm/setup.sh and the host build (mvn package). Overall timeout -t or SDP4J_VM_TIMEOUT (default 1500 s).
# SDP4J_2H_STEPS="wire echo-net ..." runs a subset; SDP4J_2H_ROWS sets the JDBC row count (default 4000),
# SDP4J_2H_FALLBACK_ROWS that of the two fallback steps (default 1000).
set -euo pipefail
. "$(cd "$(dirname "$0")" && pwd)/vm-lib.sh"
timeout=${SDP4J_VM_TIMEOUT:-1500}
while [ $# -gt 0 ]; do
  case "$1" in
    -t) timeout=$2; shift 2 ;;
    *) echo "usage: $0 [-t SECONDS]" >&2; exit 2 ;;
  esac
done
vm_check_setup
vm_refuse_tmp_cwd
repo=$(cd "$vm_here/../.." && pwd)

out=${SDP4J_VM_OUT:-$vm_build/two-hosts-$(date +%Y%m%d-%H%M%S)-$$}
mkdir -p "$out"
{ ls -1d "$vm_build"/two-hosts-* 2>/dev/null || true; } | sort | head -n -5 | while read -r old; do rm -rf -- "$old"; done
out=$(cd "$out" && pwd)
sock=$(mktemp -d /tmp/sdp4j-2h.XXXXXX) # Unix socket paths must stay short (108 bytes)
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf -- "$sock"
}
trap cleanup EXIT

guest_script=$repo/native/vm-tests/two-hosts/guest.sh
for g in a b; do
  mkdir -p "$out/$g"
  vm_write_cmd "$out/$g/cmd.sh" "$guest_script" "$g"
done

exec 9> "$vm_build/vm.lock"
if ! flock -n 9; then
  echo "sdp4j two-hosts: another VM of this checkout is running (lock $vm_build/vm.lock); waiting" >&2
  flock 9
fi

# boot_pair: starts both guests, the capture helper and the console tails; 0 once both reached init
boot_pair() {
  local g ip mac self peer
  rm -rf "$out/shared" "$sock"/*
  mkdir -p "$out/shared/ctl" "$out/shared/results"
  rm -f "$out"/*.pcap
  pids=()
  for g in b a; do
    rm -f "$out/$g/status" "$out/$g/cmd.status" "$out/$g/guest.log"
    : > "$out/$g/console.log"
    if [ $g = a ]; then ip=10.9.9.1 mac=52:54:00:09:09:01 self=a peer=b; else ip=10.9.9.2 mac=52:54:00:09:09:02 self=b peer=a; fi
    vm_qemu_args "$out/$g" 1 2048 "sdp4j.nic=$ip/24"
    VM_QEMU+=(-netdev "dgram,id=wire,local.type=unix,local.path=$sock/$self.sock,remote.type=unix,remote.path=$sock/$peer.sock"
      -device "virtio-net-pci,netdev=wire,mac=$mac,romfile="
      -fsdev "local,id=shared,path=$out/shared,security_model=none"
      -device virtio-9p-pci,fsdev=shared,mount_tag=sdp4jshared)
    [ $g = a ] && VM_QEMU+=(-qmp "unix:$sock/a.qmp,server=on,wait=off")
    timeout -k 10 "$timeout" "${VM_QEMU[@]}" < /dev/null > "$out/$g/console.log" 2>&1 &
    pids+=($!)
    eval "qpid_$g=$!"
  done
  python3 "$vm_here/capture.py" "$sock/a.qmp" wire "$out/shared/ctl" "$out" > "$out/capture.log" 2>&1 &
  pids+=($!)
  for g in a b; do
    tail -n +1 -F "$out/$g/console.log" 2>/dev/null | sed -u "s/^/[$g] /" &
    pids+=($!)
  done
  vm_wait_init "$out/a/console.log" "$qpid_a" "$boot_timeout" && vm_wait_init "$out/b/console.log" "$qpid_b" "$boot_timeout"
}

boot_timeout=${SDP4J_VM_BOOT_TIMEOUT:-180}
attempts=${SDP4J_VM_BOOT_ATTEMPTS:-3}
start=$(date +%s)
for attempt in $(seq 1 "$attempts"); do
  echo "sdp4j two-hosts: booting a and b, kernel $vm_kver (attempt $attempt/$attempts, timeout ${timeout}s, output in $out)" >&2
  if boot_pair; then break; fi
  echo "sdp4j two-hosts: a guest did not reach init within ${boot_timeout}s" >&2
  [ "$attempt" -lt "$attempts" ] || break
  cleanup_pids=("${pids[@]}"); for p in "${cleanup_pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
done
# the host-crash step: b's qemu killed when guest a asks (ctl/crash-b), answered with ctl/b-crashed
(
  while [ ! -e "$out/shared/ctl/end" ] && kill -0 "$qpid_a" 2>/dev/null; do
    if [ -e "$out/shared/ctl/crash-b" ]; then
      pkill -KILL -P "$qpid_b" && date +%s.%N > "$out/shared/ctl/b-crashed" && echo "sdp4j two-hosts: b's qemu killed (host-crash)"
      break
    fi
    sleep 0.05
  done
) &
set +e
wait "$qpid_a"; qrc_a=$?
wait "$qpid_b"; qrc_b=$?
touch "$out/shared/ctl/end"
sleep 0.5
set -e
secs=$(( $(date +%s) - start ))

# ---- verdicts: both guests' results per step, and the step's capture ----
summary=()
passed=0 failed=0
planned=$(cat "$out/shared/steps.planned" 2>/dev/null || true)
[ -n "$planned" ] || { summary+=("FAIL  no steps ran (guest a did not start the suite)"); failed=1; }
for step in $planned; do
  [[ "$step" =~ ^[a-z0-9-]+$ ]] || { summary+=("FAIL  bad step name from the guest"); failed=$((failed + 1)); continue; }
  ra=$(head -c 300 "$out/shared/results/$step.a" 2>/dev/null || echo "missing")
  rb=$(head -c 300 "$out/shared/results/$step.b" 2>/dev/null || echo "missing")
  ok=1
  [ "${ra%% *}" = 0 ] || ok=0
  [ "${rb%% *}" = 0 ] || ok=0
  expect=$(head -c 100 "$out/shared/ctl/$step.expect" 2>/dev/null || true)
  if [[ "$expect" =~ ^(--roce\ |--(rdma|tcp|min|upgrade|smc)\ [0-9]{1,5}\ ?)+$ ]] && [ -s "$out/$step.pcap" ]; then
    # shellcheck disable=SC2086 # the expectation is a checked word list
    pc=$(python3 "$vm_here/pcapcheck.py" "$out/$step.pcap" --a 10.9.9.1 --b 10.9.9.2 $expect 2>&1) || ok=0
  else
    pc="no capture ($out/$step.pcap) or no expectation ('$expect')"; ok=0
  fi
  pc=$(echo "$pc" | sed "s|$out/||" | tr '\n' ' ')
  line="$step: a: status ${ra}; b: status ${rb}; capture ($expect): $pc"
  if [ $ok = 1 ]; then passed=$((passed + 1)); summary+=("PASS  $line"); else failed=$((failed + 1)); summary+=("FAIL  $line"); fi
done
{
  printf '%s\n' "${summary[@]}"
  echo "guest a: status $(cat "$out/a/status" 2>/dev/null || echo none) (qemu $qrc_a); guest b: status $(cat "$out/b/status" 2>/dev/null || echo none) (qemu $qrc_b); ${secs}s boot to power-off"
  echo "$passed passed, $failed failed"
} > "$out/summary.txt"
for g in a b; do
  [ $g = b ] && [ -e "$out/shared/ctl/b-crashed" ] && continue # killed by design: it powers off no more
  [ "$(cat "$out/$g/status" 2>/dev/null)" = 0 ] || failed=$((failed + 1))
done
echo
cat "$out/summary.txt"
if [ "$failed" != 0 ]; then
  for g in a b; do
    echo "---- guest $g log (tail, $out/$g/guest.log) ----"
    if [ -s "$out/$g/guest.log" ]; then tail -n 60 "$out/$g/guest.log"; else tail -n 30 "$out/$g/console.log"; fi
  done
fi
echo "sdp4j two-hosts: $([ "$failed" = 0 ] && echo PASSED || echo FAILED) in ${secs}s; out directory:"
echo "$out"
[ "$failed" = 0 ]
