#!/usr/bin/env bash
# The guest kernel for the two-host smc-* steps, installed and ready (idempotent): Debian's 6.12 from
# bookworm-backports, whose smc module does SMC-Rv2 over rdma_rxe between the two guests (6.1's hangs in
# smc_wr_drain_cq; issue 24, FACTS.md). Installs the package the backports meta-package names (only that package:
# the host's own kernel is left alone), builds its initramfs (setup.sh), and prints its version on stdout:
#   SDP4J_VM_KERNEL=$(native/vm/smc-kernel.sh) native/vm/two-hosts.sh ...
# SDP4J_SMC_KERNEL=VERSION takes an installed kernel instead. Run as root (apt-get).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kver=${SDP4J_SMC_KERNEL:-$(ls /lib/modules 2>/dev/null | grep '^6\.12\..*-amd64$' | sort -V | tail -1 || true)}
if [ -z "$kver" ] || [ ! -f "/boot/vmlinuz-$kver" ]; then
  [ "$(id -u)" = 0 ] || { echo "sdp4j vm: no 6.12 kernel installed; run $0 as root" >&2; exit 1; }
  export DEBIAN_FRONTEND=noninteractive
  grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/ || "$here/setup.sh" >&2
  pkg=$(apt-cache show linux-image-amd64/bookworm-backports 2>/dev/null \
        | sed -n 's/^Depends: \(linux-image-6\.12[^ ,]*\).*/\1/p' | head -1)
  if [ -z "$pkg" ]; then
    apt-get -o DPkg::Lock::Timeout=600 update -qq >&2
    pkg=$(apt-cache show linux-image-amd64/bookworm-backports | sed -n 's/^Depends: \(linux-image-6\.12[^ ,]*\).*/\1/p' | head -1)
  fi
  [ -n "$pkg" ] || { echo "sdp4j vm: bookworm-backports names no 6.12 kernel" >&2; exit 1; }
  echo "sdp4j vm: installing $pkg (bookworm-backports) for the smc steps" >&2
  apt-get -o DPkg::Lock::Timeout=600 -y -qq --no-install-recommends install "$pkg/bookworm-backports" >/dev/null
  kver=${pkg#linux-image-}
fi
for m in rdma_rxe smc smc_diag; do
  modinfo -k "$kver" -n "$m" >/dev/null || { echo "sdp4j vm: kernel $kver has no $m module" >&2; exit 1; }
done
SDP4J_VM_KERNEL=$kver "$here/setup.sh" >&2
echo "$kver"
