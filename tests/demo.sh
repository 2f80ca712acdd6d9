#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh - build, boot a 4-node guest, load numa_advise, run a mixed
# workload and show what the module saw; then boot an 8-node guest and
# place two half-machine jobs with numa-advise-ctl.
#   usage: tests/demo.sh [KVER]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
kver=${1:-$(tests/guest/boot.sh -k list | tail -n 1)}
[ -n "$kver" ] || { echo "demo.sh: no kernel to boot (make deps)" >&2; exit 1; }

echo "== building numa_advise for $kver"
tests/run.sh -k "$kver" -s build | grep -v '^[0-9]* passed' || true
[ -f "build/numa_advise-$kver.ko" ] || { echo "demo.sh: build failed" >&2; exit 1; }
echo "== booting $kver with 4 NUMA nodes x 2 CPUs (QEMU, TCG)"
tests/guest/boot.sh -k "$kver" -t 4x2 -l build/demo-console.log \
	tests/guest/demo-guest.sh build observe
echo
echo "== booting $kver with 8 NUMA nodes x 1 CPU, two groups of four (16 apart"
echo "   inside a group, 32 across): the 2014 seed's machine"
exec tests/guest/boot.sh -k "$kver" -t 8x1 -l build/demo-console-8.log \
	tests/guest/demo-guest.sh build place
