# Shared by native/vm/run-in-vm.sh (one guest) and native/vm/two-hosts.sh (two guests on one wire); sourced.
# Sets: vm_here, vm_build, vm_kver, vm_initrd. Functions: vm_check_setup, vm_refuse_tmp_cwd, vm_write_cmd,
# vm_qemu_args, vm_wait_init.
vm_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
vm_build=${SDP4J_VM_BUILD:-$vm_here/../build/vm}
vm_kver=${SDP4J_VM_KERNEL:-$(ls /lib/modules 2>/dev/null | grep '^6\.1\.' | sort -V | tail -1 || true)}
vm_initrd=$vm_build/initramfs-$vm_kver.cpio.gz

vm_check_setup() {
  if [ -z "$vm_kver" ] || [ ! -f "$vm_initrd" ] || ! command -v qemu-system-x86_64 >/dev/null; then
    echo "sdp4j vm: not set up (kernel '${vm_kver}', $vm_initrd): run native/vm/setup.sh first" >&2
    exit 2
  fi
}

# The guest mounts fresh tmpfs on /tmp, /run and /var/tmp: a working directory there does not exist inside.
vm_refuse_tmp_cwd() {
  case "$PWD/" in
    /tmp/*|/run/*|/var/tmp/*)
      echo "sdp4j vm: the current directory $PWD is under /tmp, /run or /var/tmp, which the guest replaces with" \
           "empty tmpfs; run from a checkout elsewhere (e.g. under /root or /work)" >&2
      exit 2 ;;
  esac
}

vm_quote() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }

# vm_write_cmd FILE COMMAND [ARGS...]: the script the guest's init runs chrooted in the shared root, in the current
# directory, with JAVA_HOME and SDP4J_* (except SDP4J_VM_*) passed through; output to /sdp4j-out/guest.log.
vm_write_cmd() {
  local file=$1 a name _
  shift
  {
    echo '#!/bin/sh'
    echo '# written by native/vm (vm-lib.sh); run by the VM init, chrooted into the shared host root'
    echo 'export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8'
    echo 'export SDP4J_OUT=/sdp4j-out SDP4J_IN_VM=1'
    [ -n "${JAVA_HOME:-}" ] && echo "export JAVA_HOME=$(vm_quote "$JAVA_HOME")"
    while IFS='=' read -r name _; do
      case "$name" in SDP4J_VM_*|SDP4J_OUT|SDP4J_IN_VM) ;; SDP4J_*) echo "export $name=$(vm_quote "${!name}")" ;; esac
    done < <(env | grep '^SDP4J_' || true)
    echo "cd $(vm_quote "$PWD") || exit 126"
    printf '{ '
    for a in "$@"; do printf '%s ' "$(vm_quote "$a")"; done
    echo '; echo $? > /sdp4j-out/cmd.status; } 2>&1 | tee /sdp4j-out/guest.log'
    echo 'exit "$(cat /sdp4j-out/cmd.status 2>/dev/null || echo 127)"'
  } > "$file"
}

# vm_qemu_args OUT SMP MEM APPEND: fills the array VM_QEMU with the qemu command line of one guest (TCG, host root
# read-only over virtio-9p, OUT read-write as sdp4jout, no NIC); the caller appends its own devices.
vm_qemu_args() {
  VM_QEMU=(qemu-system-x86_64
    -accel tcg,thread=multi,tb-size=512 -cpu max -machine q35 -smp "$2" -m "$3"
    -nic none -nographic -no-reboot -serial mon:stdio
    -kernel "/boot/vmlinuz-$vm_kver" -initrd "$vm_initrd"
    -append "console=ttyS0 quiet panic=-1 mitigations=off${4:+ $4}"
    -fsdev local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap
    -device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot
    -fsdev local,id=sdp4jout,path="$1",security_model=none
    -device virtio-9p-pci,fsdev=sdp4jout,mount_tag=sdp4jout)
}

# vm_wait_init CONSOLE PID SECONDS: 0 once the guest's init printed its first line, 1 when the qemu process PID
# ended or SECONDS passed first. Under TCG a guest now and then stalls in early boot (its timer interrupts stop:
# RCU stall warnings, never reaches init); the caller abandons that boot and retries.
vm_wait_init() {
  local i
  for ((i = 0; i < $3; i++)); do
    grep -q 'sdp4j-vm: ' "$1" 2>/dev/null && return 0
    kill -0 "$2" 2>/dev/null || return 1
    sleep 1
  done
  return 1
}
