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
here=$(cd "$(dirname "$0")" && pwd)
build=${SDP4J_VM_BUILD:-$here/../build/vm}
timeout=${SDP4J_VM_TIMEOUT:-600}
while [ $# -gt 0 ]; do
  case "$1" in
    -t) timeout=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "usage: $0 [-t SECONDS] -- COMMAND [ARGS...]" >&2; exit 2 ;;
  esac
done
[ $# -gt 0 ] || { echo "usage: $0 [-t SECONDS] -- COMMAND [ARGS...]" >&2; exit 2; }

kver=${SDP4J_VM_KERNEL:-$(ls /lib/modules 2>/dev/null | grep '^6\.1\.' | sort -V | tail -1 || true)}
initrd=$build/initramfs-$kver.cpio.gz
if [ -z "$kver" ] || [ ! -f "$initrd" ] || ! command -v qemu-system-x86_64 >/dev/null; then
  echo "sdp4j vm: not set up (kernel '${kver}', $initrd): run native/vm/setup.sh first" >&2
  exit 2
fi

# The guest mounts fresh tmpfs on /tmp, /run and /var/tmp: a working directory there does not exist inside.
case "$PWD/" in
  /tmp/*|/run/*|/var/tmp/*)
    echo "sdp4j vm: the current directory $PWD is under /tmp, /run or /var/tmp, which the guest replaces with" \
         "empty tmpfs; run from a checkout elsewhere (e.g. under /root or /work)" >&2
    exit 2 ;;
esac

out=${SDP4J_VM_OUT:-$build/run-$(date +%Y%m%d-%H%M%S)-$$}
mkdir -p "$out"
# keep the 10 newest run directories
{ ls -1d "$build"/run-* 2>/dev/null || true; } | sort | head -n -10 | while read -r old; do rm -rf -- "$old"; done
out=$(cd "$out" && pwd)
rm -f "$out/status" "$out/cmd.status" "$out/guest.log" "$out/console.log"

q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
{
  echo '#!/bin/sh'
  echo '# written by native/vm/run-in-vm.sh; run by the VM init, chrooted into the shared host root'
  echo 'export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8'
  echo 'export SDP4J_OUT=/sdp4j-out SDP4J_IN_VM=1'
  [ -n "${JAVA_HOME:-}" ] && echo "export JAVA_HOME=$(q "$JAVA_HOME")"
  while IFS='=' read -r name _; do
    case "$name" in SDP4J_VM_*|SDP4J_OUT|SDP4J_IN_VM) ;; SDP4J_*) echo "export $name=$(q "${!name}")" ;; esac
  done < <(env | grep '^SDP4J_' || true)
  echo "cd $(q "$PWD") || exit 126"
  printf '{ '
  for a in "$@"; do printf '%s ' "$(q "$a")"; done
  echo '; echo $? > /sdp4j-out/cmd.status; } 2>&1 | tee /sdp4j-out/guest.log'
  echo 'exit "$(cat /sdp4j-out/cmd.status 2>/dev/null || echo 127)"'
} > "$out/cmd.sh"

exec 9> "$build/vm.lock"
if ! flock -n 9; then
  echo "sdp4j vm: another VM is running (lock $build/vm.lock); waiting" >&2
  flock 9
fi

# Under TCG a guest now and then stalls in early boot (its timer interrupts stop: RCU stall warnings, never reaches
# init); that boot is abandoned and retried after SDP4J_VM_BOOT_TIMEOUT seconds without init's first message.
boot_timeout=${SDP4J_VM_BOOT_TIMEOUT:-180}
attempts=${SDP4J_VM_BOOT_ATTEMPTS:-3}
start=$(date +%s)
qrc=
for attempt in $(seq 1 "$attempts"); do
  rm -f "$out/status" "$out/cmd.status" "$out/guest.log"
  : > "$out/console.log"
  echo "sdp4j vm: booting kernel $kver (attempt $attempt/$attempts, timeout ${timeout}s, output in $out)" >&2
  timeout -k 10 "$timeout" qemu-system-x86_64 \
    -accel tcg,thread=multi,tb-size=512 -cpu max -machine q35 -smp 2 -m 4096 \
    -nic none -nographic -no-reboot -serial mon:stdio \
    -kernel "/boot/vmlinuz-$kver" -initrd "$initrd" \
    -append "console=ttyS0 quiet panic=-1 mitigations=off" \
    -fsdev local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap \
    -device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot \
    -fsdev local,id=sdp4jout,path="$out",security_model=none \
    -device virtio-9p-pci,fsdev=sdp4jout,mount_tag=sdp4jout \
    < /dev/null > "$out/console.log" 2>&1 &
  qpid=$!
  tail -n +1 -f --pid=$qpid "$out/console.log" &
  tpid=$!
  booted=0
  for ((i = 0; i < boot_timeout; i++)); do
    if grep -q 'sdp4j-vm: ' "$out/console.log"; then booted=1; break; fi
    kill -0 $qpid 2>/dev/null || break
    sleep 1
  done
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
