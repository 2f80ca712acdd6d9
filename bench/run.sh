#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh - `make bench`: what numa_advise costs and what it gains, measured
# side by side in one run, in QEMU guests of the newest kernel here.
#
# usage: bench/run.sh [-k KVER] [-r ROUNDS] [-o DIR] [-p PARTS]
#   -r ROUNDS  rounds of alternation (default 15 for the scheduler path, and
#              ROUNDS/5 (min 1) for the placement runs)
#   -o DIR     results (default bench/results): results.md, results.json,
#              raw.txt (every DATA line) and the plots (PNG, gnuplot)
#   -p PARTS   only these parts, comma-separated: native, cost, place,
#              halves, scale, insn (default all); the tables of the others
#              are left out
#
# Guests (two at a time, single-threaded TCG each):
#   cost-4x2   guest-cost.sh sched scale memory   (4 nodes x 2 CPUs)
#   place-4x2  guest-place.sh numatest numamem    (4 nodes x 2 CPUs)
#   halves-8x1 guest-place.sh halves              (8 nodes x 1 CPU)
#   scale-2x2, scale-8x1  guest-cost.sh scale     (2 and 8 nodes)
#   insn-4x2   guest-insn.sh, under the insn_phases TCG plugin: the
#              instructions the module adds per context switch
# and first, natively on the host: its own pipe ping-pong, and the probe's
# work replayed by bench/probe_native.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
kver=
rounds=15
out=$top/bench/results
parts=native,cost,place,halves,scale,insn
while getopts "k:r:o:p:" opt; do
	case $opt in
	k) kver=$OPTARG ;;
	r) rounds=$OPTARG ;;
	o) out=$OPTARG ;;
	p) parts=$OPTARG ;;
	*) echo "usage: $0 [-k KVER] [-r ROUNDS] [-o DIR] [-p PARTS]" >&2; exit 2 ;;
	esac
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: -r wants a positive number" >&2; exit 2; }
bad_parts() {
	echo "run.sh: -p wants some of native,cost,place,halves,scale,insn, comma-separated, not '$parts'" >&2
	exit 2
}
[[ $parts =~ ^[a-z]+(,[a-z]+)*$ ]] || bad_parts
for p in ${parts//,/ }; do
	case $p in
	native | cost | place | halves | scale | insn) ;;
	*) bad_parts ;;
	esac
done
want() { [[ ,$parts, == *,$1,* ]]; }
[ -n "$kver" ] || kver=$(tests/guest/boot.sh -k list | tail -n 1)
B=${NA_BUILD:-$top/build}/bench
rm -rf "$B" && mkdir -p "$B" "$out"
prounds=$((rounds / 5 > 0 ? rounds / 5 : 1))

echo "== building (kernel $kver)"
mkdir -p "$B/src/module"
cp dkms.conf "$B/src/" && cp module/Kbuild module/*.[ch] "$B/src/module/"
make -s -C "/lib/modules/$kver/build" M="$B/src/module" modules >"$B/build.log" 2>&1
cp "$B/src/module/numa_advise.ko" "$B/numa_advise-$kver.ko"
# the same with probes that do nothing: what the tracepoints' calls cost
rm -rf "$B/empty" && cp -r "$B/src" "$B/empty"
patch -s -p1 -d "$B/empty" <tests/patches/empty-probes.patch
make -s -C "/lib/modules/$kver/build" M="$B/empty/module" modules >>"$B/build.log" 2>&1
cp "$B/empty/module/numa_advise.ko" "$B/numa_advise-empty-$kver.ko"
make -s -C bench O="$B" >>"$B/build.log" 2>&1

# guest NAME TOPO MB SCRIPT ARGS... - one guest, its output in $B/NAME.log
guest() {
	local name=$1 topo=$2 mb=$3
	shift 3
	tests/guest/boot.sh -k "$kver" -t "$topo" -m "$mb" -T 2400 \
		-l "$B/$name.console" "$@" >"$B/$name.log" 2>&1 ||
		echo "run.sh: guest $name failed ($?): $(tail -n 1 "$B/$name.log")" >&2
}

# insn_guest - boot once (nokaslr) for the addresses the plugin needs,
# then twice under the plugin, which counts every instruction the guest
# runs, phase by phase: with PSI as the kernel boots it (on, in Debian's
# kernels) for the module's configurations, and booted psi=0 with the
# module absent (nopsi), for what the kernel's own PSI accounting costs.
# The second guest's phases are numbered from 1000000.
insn_guest() {
	local marker count
	NA_GUEST_APPEND=nokaslr guest insn-syms 4x2 128 bench/guest-insn.sh "$B" symbols
	marker=$(awk '$1 == "SYM" && $2 == "marker" { print $3 }' "$B/insn-syms.log")
	count=$(awk '$1 == "SYM" && $2 == "count" { print $3 }' "$B/insn-syms.log")
	if [ -z "$marker" ] || [ -z "$count" ]; then
		echo "run.sh: no addresses for the instruction count: $(tail -n 1 "$B/insn-syms.log")" >&2
		return
	fi
	NA_GUEST_APPEND=nokaslr \
	NA_QEMU_ARGS="-plugin $B/insn_phases.so,out=$B/insn.txt,marker=$marker,count=$count" \
		guest insn-4x2 4x2 128 bench/guest-insn.sh "$B" count "$prounds" "$marker"
	NA_GUEST_APPEND="nokaslr psi=0" \
	NA_QEMU_ARGS="-plugin $B/insn_phases.so,out=$B/insn-nopsi.txt,marker=$marker,count=$count" \
		guest insn-nopsi-4x2 4x2 128 bench/guest-insn.sh "$B" count "$prounds" \
		"$marker" 1000000 nopsi
}

# On the host, before any guest takes its CPUs: the host's own context
# switch (pinned pipe ping-pong) and the probe's work replayed natively.
if want native; then
	echo "== native: perf bench sched pipe and bench/probe_native"
	{
		echo "DATA cmd native-pipe taskset -c 0 perf bench sched pipe -l 200000"
		echo "DATA cmd native-probe probe_native N 2000000 5"
		for r in 1 2 3 4 5; do
			echo "DATA native-pipe $r $(taskset -c 0 perf bench sched pipe -l 200000 2>&1 |
				awk '/usecs\/op/ { print $1 }')"
		done
		for n in 100 1000 10000 100000; do
			taskset -c 0 "$B/probe_native" "$n" 2000000 5
		done
	} >"$B/native.log"
fi

# Two guests at a time, one a core.
t0=$SECONDS
echo "== guests: cost-4x2 and place-4x2"
want cost && guest cost-4x2 4x2 256 bench/guest-cost.sh "$B" "$rounds" sched scale memory &
want place && guest place-4x2 4x2 256 bench/guest-place.sh "$B" "$prounds" numatest numamem &
wait
echo "== guests: halves-8x1 and scale-2x2 ($((SECONDS - t0)) s so far)"
want halves && guest halves-8x1 8x1 128 bench/guest-place.sh "$B" 2 halves &	# 10 runs
want scale && guest scale-2x2 2x2 512 bench/guest-cost.sh "$B" "$rounds" scale &
wait
echo "== guests: scale-8x1 and insn-4x2 ($((SECONDS - t0)) s so far)"
want scale && guest scale-8x1 8x1 128 bench/guest-cost.sh "$B" "$rounds" scale &
want insn && insn_guest &
wait
echo "== guests done in $((SECONDS - t0)) s"

cat "$B"/*.log | grep '^DATA ' >"$out/raw.txt" || true
# the plugin's lines as DATA lines, each guest's phases numbered as its
# guest-insn.sh numbered them
insn_data() { # FILE BASE
	awk -v base="$2" '$1 == "phase" {
		for (i = 3; i <= 8; i++) sub(/^[a-z]*=/, "", $i)
		print "DATA insn-count", base + $2, $3, $4, $5, $6, $7 }' "$1" 2>/dev/null
}
insn_data "$B/insn.txt" 0 >>"$out/raw.txt" || true
insn_data "$B/insn-nopsi.txt" 1000000 >>"$out/raw.txt" || true
[ "$parts" = native,cost,place,halves,scale,insn ] && parts=
# the commit measured, "+changes" for a tree that differs from it
commit=$(git rev-parse --short HEAD 2>/dev/null || echo "no git")
git diff --quiet HEAD 2>/dev/null || commit="$commit+changes"
bench/report.py --kernel "$kver" --rounds "$rounds" --seconds "$SECONDS" --parts "$parts" \
	--commit "$commit" "$out"
