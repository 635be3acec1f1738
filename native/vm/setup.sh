#!/usr/bin/env bash
# Everything the soft-RoCE VM needs, idempotent (quiet and quick when it is all there):
#   - QEMU 10 from bookworm-backports (bookworm's QEMU 7.2 crashes JIT-heavy JVMs under multi-threaded TCG;
#     see shared/design/FACTS.md); the suite is added to apt's sources first
#   - Debian's 6.1 kernel (linux-image-amd64: rdma_rxe, rdma_ucm, ib_uverbs as modules), busybox-static, kmod
#   - rdma-core's user space: rdma-core ibverbs-providers ibverbs-utils rdmacm-utils perftest librdmacm-dev
#   - a small initramfs (static busybox + the modules to mount the host root over virtio-9p with an overlay),
#     cached under native/build/vm/ and rebuilt when its inputs change
# Prints the kernel and initramfs it will use. Run as root (apt-get).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${SDP4J_VM_BUILD:-$here/../build/vm}
export DEBIAN_FRONTEND=noninteractive
APT=(apt-get -o DPkg::Lock::Timeout=600 -y -qq --no-install-recommends)

pkgs=(linux-image-amd64 busybox-static kmod rdma-core ibverbs-providers ibverbs-utils rdmacm-utils perftest
      librdmacm-dev iproute2 cpio gzip)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
qemu_major() { qemu-system-x86_64 --version 2>/dev/null | sed -n 's/^QEMU emulator version \([0-9]*\).*/\1/p'; }
need_qemu=0
[ "$(qemu_major || true)" -ge 10 ] 2>/dev/null || need_qemu=1

if [ ${#missing[@]} -gt 0 ] || [ $need_qemu = 1 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "sdp4j vm: missing ${missing[*]} $(if [ $need_qemu = 1 ]; then echo 'qemu>=10'; fi); run $0 as root" >&2
    exit 1
  fi
  src=/etc/apt/sources.list.d/sdp4j-bookworm-backports.sources
  if [ $need_qemu = 1 ] && ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    echo "sdp4j vm: adding bookworm-backports to apt's sources ($src)" >&2
    cat > "$src" <<'EOF'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  fi
  echo "sdp4j vm: installing ${missing[*]} $(if [ $need_qemu = 1 ]; then echo 'qemu-system-x86 (bookworm-backports)'; fi)" >&2
  apt-get -o DPkg::Lock::Timeout=600 update -qq
  if [ ${#missing[@]} -gt 0 ]; then
    "${APT[@]}" install "${missing[@]}" >/dev/null
  fi
  if [ $need_qemu = 1 ]; then
    "${APT[@]}" install -t bookworm-backports qemu-system-x86 >/dev/null
  fi
  [ "$(qemu_major || true)" -ge 10 ] 2>/dev/null || { echo "sdp4j vm: qemu >= 10 still missing" >&2; exit 1; }
fi

# The guest kernel: the newest 6.1 (6.12 has rxe too but ~3x the latencies; FACTS.md).
kver=${SDP4J_VM_KERNEL:-$(ls /lib/modules 2>/dev/null | grep '^6\.1\.' | sort -V | tail -1 || true)}
[ -n "$kver" ] && [ -f "/boot/vmlinuz-$kver" ] || { echo "sdp4j vm: no 6.1 kernel in /boot" >&2; exit 1; }
for m in rdma_rxe rdma_ucm ib_uverbs; do
  modinfo -k "$kver" -n "$m" >/dev/null || { echo "sdp4j vm: kernel $kver has no $m module" >&2; exit 1; }
done

# The initramfs: busybox, the modules for virtio-pci + 9p + overlay (with their dependencies), and init.
mkdir -p "$build"
initrd=$build/initramfs-$kver.cpio.gz
stamp=$(cat "$here/init" "$0" | sha256sum | cut -c1-16)-$kver
if [ ! -f "$initrd" ] || [ "$(cat "$initrd.stamp" 2>/dev/null)" != "$stamp" ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  mkdir -p "$work"/{bin,sbin,dev,proc,sys,newroot,lower,upper,out,lib/modules}
  cp /bin/busybox "$work/bin/busybox"
  ln -s busybox "$work/bin/sh" # init installs the other applets
  : > "$work/modules.list"
  for m in virtio_pci 9pnet_virtio 9p overlay; do
    modprobe -S "$kver" --show-depends "$m" | awk '$1 == "insmod" {print $2}' >> "$work/modules.list"
  done
  n=0
  while read -r ko; do
    n=$((n + 1))
    base=$(printf '%02d-%s' "$n" "$(basename "$ko")")
    case "$ko" in
      *.ko.xz) xz -dc "$ko" > "$work/lib/modules/${base%.xz}" ;;
      *.ko.zst) zstd -qdc "$ko" > "$work/lib/modules/${base%.zst}" ;;
      *) cp "$ko" "$work/lib/modules/$base" ;;
    esac
  done < <(awk '!seen[$0]++' "$work/modules.list")
  rm "$work/modules.list"
  install -m 0755 "$here/init" "$work/init"
  # Kernel-initiated module loads (rdma_rxe asks for crc32) call /sbin/modprobe in the initramfs until the
  # guest switches /proc/sys/kernel/modprobe: run the shared root's modprobe there.
  cat > "$work/sbin/modprobe" <<'EOF'
#!/bin/sh
exec /bin/chroot /newroot /sbin/modprobe "$@"
EOF
  chmod 0755 "$work/sbin/modprobe"
  (cd "$work" && find . | cpio -o -H newc --quiet | gzip -1) > "$initrd.tmp"
  mv "$initrd.tmp" "$initrd"
  echo "$stamp" > "$initrd.stamp"
  echo "sdp4j vm: built $initrd ($(du -h "$initrd" | cut -f1), $n modules)" >&2
fi
echo "sdp4j vm: ready: qemu $(qemu-system-x86_64 --version | head -1 | awk '{print $4}'), kernel $kver, $initrd" >&2
