#!/usr/bin/env bash
# Runs one command inside the soft-RoCE VM and exits with its status:
#   native/vm/run-in-vm.sh [-t SECONDS] -- COMMAND [ARGS...]
# The VM (qemu TCG, Debian's 6.1 kernel) sees the host root read-only over virtio-9p with a tmpfs overlay, so the
# command runs prebuilt files from this very checkout, in the current directory, with JAVA_HOME and SDP4J_* passed
# through. Its guest has rxe0 (rdma_rxe) up on a dummy interface with 10.9.9.1/24. The command's output shows live
# and lands in $SDP4J_OUT (in the guest: /sdp4j-out; on the host: native/build/vm/run-*/, or SDP4J_VM_OUT), with
# the VM console in console.log. Overall timeout: -t, or SDP4J_VM_TIMEOUT, default 600 s.
# Needs native/vm/setup.sh first. One VM at a time (a lock), 2 vCPUs, 4 GiB.
set -euo pipefail
. "$(cd "$(dirname "$0")" && pwd)/vm-lib.sh"
build=$vm_build
timeout=${SDP4J_VM_TIMEOUT:-600}
while [ $# -gt 0 ]; do
  case "$1" in
    -t) timeout=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "usage: $0 [-t SECONDS] -- COMMAND [ARGS...]" >&2; exit 2 ;;
  esac
done
[ $# -gt 0 ] || { echo "usage: $0 [-t SECONDS] -- COMMAND [ARGS...]" >&2; exit 2; }

vm_check_setup
kver=$vm_kver
vm_refuse_tmp_cwd

out=${SDP4J_VM_OUT:-$build/run-$(date +%Y%m%d-%H%M%S)-$$}
mkdir -p "$out"
# keep the 10 newest run directories
{ ls -1d "$build"/run-* 2>/dev/null || true; } | sort | head -n -10 | while read -r old; do rm -rf -- "$old"; done
out=$(cd "$out" && pwd)
rm -f "$out/status" "$out/cmd.status" "$out/guest.log" "$out/console.log"

vm_write_cmd "$out/cmd.sh" "$@"

exec 9> "$build/vm.lock"
if ! flock -n 9; then
  echo "sdp4j vm: another VM is running (lock $build/vm.lock); waiting" >&2
  flock 9
fi

# A boot that stalls (vm-lib.sh: vm_wait_init) is abandoned and retried after SDP4J_VM_BOOT_TIMEOUT seconds.
boot_timeout=${SDP4J_VM_BOOT_TIMEOUT:-180}
attempts=${SDP4J_VM_BOOT_ATTEMPTS:-3}
start=$(date +%s)
qrc=
for attempt in $(seq 1 "$attempts"); do
  rm -f "$out/status" "$out/cmd.status" "$out/guest.log"
  : > "$out/console.log"
  echo "sdp4j vm: booting kernel $kver (attempt $attempt/$attempts, timeout ${timeout}s, output in $out)" >&2
  vm_qemu_args "$out" 2 4096 ""
  timeout -k 10 "$timeout" "${VM_QEMU[@]}" \
    < /dev/null > "$out/console.log" 2>&1 &
  qpid=$!
  tail -n +1 -f --pid=$qpid "$out/console.log" &
  tpid=$!
  booted=0
  vm_wait_init "$out/console.log" $qpid "$boot_timeout" && booted=1
  if [ $booted = 0 ] && kill -0 $qpid 2>/dev/null && [ "$attempt" -lt "$attempts" ]; then
    echo "sdp4j vm: the guest did not reach init within ${boot_timeout}s; restarting it" >&2
    kill $qpid 2>/dev/null || true
    wait $qpid 2>/dev/null || true
    wait $tpid 2>/dev/null || true
    continue
  fi
  set +e
  wait $qpid
  qrc=$?
  wait $tpid 2>/dev/null
  set -e
  break
done
secs=$(( $(date +%s) - start ))

status=$(cat "$out/status" 2>/dev/null || true)
if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
  echo "sdp4j vm: TIMED OUT after ${timeout}s" >&2
  status=${status:-124}
elif [ -z "$status" ]; then
  echo "sdp4j vm: no status from the guest (qemu exit $qrc): the VM died before the command finished" >&2
  status=125
fi
if [ "$status" != 0 ]; then
  echo "sdp4j vm: FAILED with status $status after ${secs}s; guest log ($out/guest.log):" >&2
  if [ -s "$out/guest.log" ]; then tail -n 200 "$out/guest.log" >&2; else tail -n 60 "$out/console.log" >&2; fi
else
  echo "sdp4j vm: command succeeded in ${secs}s (boot + run + power-off); logs in $out" >&2
fi
exit "$status"
