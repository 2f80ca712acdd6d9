#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# install-deps.sh - install what a fresh Debian 12 machine lacks to build,
# test and demo numa_advise (only the packages that are missing).
#
# usage: install-deps.sh [bench|debug]
#   bench: also what `make bench` runs
#   debug: also what scripts/debug-kernel.sh needs to build the debug kernel
#          (`make check-debug`)
set -euo pipefail

pkgs=(
	make gcc libc6-dev pkg-config
	# tests/patches/: the test builds' planted faults
	patch
	# the two Debian kernels the module is built for and booted in guests
	linux-headers-amd64 linux-image-amd64
	linux-headers-6.12-amd64 linux-image-6.12-amd64
	# the guests: QEMU (TCG), a busybox initramfs, kmod for insmod
	qemu-system-x86 busybox-static cpio xz-utils kmod
	# what the tests and the demo run inside the guests
	numactl stress-ng rt-tests procps util-linux
	# unit tests, and checkpatch.pl (shipped in the kernel source)
	libcmocka-dev linux-source-6.1
	# numa-advise-ctl: its trace command streams the module's events
	libtracefs-dev libtraceevent-dev
	# installing it: DKMS, and the Debian package (built, checked, installed)
	dkms dh-dkms debhelper lintian
)
if [ "${1:-}" = bench ]; then
	# the benchmarks: perf bench, the peer daemon, the plots
	pkgs+=(linux-perf numad gnuplot-nox python3)
fi
if [ "${1:-}" = debug ]; then
	# building a kernel from linux-source-6.1 (in the list above)
	pkgs+=(bc flex bison libelf-dev libssl-dev)
fi

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps.sh: missing packages, run as root: apt-get install ${missing[*]}" >&2
	exit 1
fi
echo "install-deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -q --no-install-recommends "${missing[@]}"
