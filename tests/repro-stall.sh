#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# repro-stall.sh - the stalled-job repro (make repro-stall; not part of
# make check): the suite's case `swap` once saw memtouch jobs spin in the
# kernel and never become ready.  Each arm boots a guest that starts the
# case's six jobs TRIES times (tests/guest/stall.sh) under one set of
# conditions; the arms differ in one condition each, to tell whose the
# stall is: the module's (never loaded / loaded without its memory
# sampling / with it / placing), the kernel's NUMA balancing, the guest's
# (memory per node, init_on_alloc, THP) or the host's (two guests sharing
# its two cores, or one alone).
#
# usage: tests/repro-stall.sh [-k KVER] [-n TRIES] [-a ARM]... [-j GUESTS]
#   -k KVER   the kernel (default: the newest with headers and an image)
#   -n TRIES  tries per arm (default 50)
#   -a ARM    run only these arms (default all; see ARMS below)
#   -j N      guests at once (default 2, as make check runs them); the
#             arm "alone" always runs by itself
#
# Prints a line per arm, "ARM: S/T stalled, X stuck (...)", and writes the
# same table to build/repro-stall/KVER/summary.txt; each arm's full output,
# with the captures of every stall, is in ARM.log beside it (the guest's
# console in ARM.log.console).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
B=${NA_BUILD:-$top/build}
kver=
tries=50
arms_wanted=()
par=2
while getopts "k:n:a:j:" opt; do
	case $opt in
	k) kver=$OPTARG ;;
	n) tries=$OPTARG ;;
	a) arms_wanted+=("$OPTARG") ;;
	j) par=$OPTARG ;;
	*) echo "usage: $0 [-k KVER] [-n TRIES] [-a ARM]... [-j GUESTS]" >&2; exit 2 ;;
	esac
done
[[ $tries =~ ^[1-9][0-9]*$ ]] || { echo "repro-stall.sh: -n wants a count" >&2; exit 2; }
[[ $par =~ ^[1-9]$ ]] || { echo "repro-stall.sh: -j wants 1-9" >&2; exit 2; }
[ -n "$kver" ] || kver=$(tests/guest/boot.sh -k list | tail -n 1)
[ -n "$kver" ] || { echo "repro-stall.sh: no kernel (run scripts/install-deps.sh)" >&2; exit 2; }

# ARM: boot.sh options | stall.sh MOD BALANCING THP START.  The first two
# start the jobs as the suite did when the stall was seen (START rename),
# with and without the module; the rest as it does now (link).  Of those,
# the first eight cross the module's part with NUMA balancing; the last
# four change one thing of "sample-bal0", the conditions the suite's
# `swap` ran under.
ARMS=(
	"rename-none-bal0||none 0 always rename"
	"rename-sample-bal0||sample 0 always rename"
	"none-bal0||none 0 always link"
	"none-bal1||none 1 always link"
	"nosample-bal0||nosample 0 always link"
	"nosample-bal1||nosample 1 always link"
	"sample-bal0||sample 0 always link"
	"sample-bal1||sample 1 always link"
	"home-bal0||home 0 always link"
	"home-bal1||home 1 always link"
	"alone||sample 0 always link"
	"mem256|-m 256|sample 0 always link"
	"init_on_alloc0|append=init_on_alloc=0|sample 0 always link"
	"thp-never||sample 0 never link"
)

declare -A tree_of=()
# shellcheck source=tests/lib/build.sh
. tests/lib/build.sh
mkdir -p "$B"
make -s -C tests/helpers O="$B" >"$B/helpers.log" 2>&1 ||
	{ echo "repro-stall.sh: helpers do not build: $(grep -m1 -i error "$B/helpers.log")" >&2; exit 1; }
build_module "$kver" numa_advise &&
	build_module "$kver" numa_advise-nosample no-mem-sample ||
	{ echo "repro-stall.sh: the module does not build for $kver" >&2; exit 1; }

out=$B/repro-stall/$kver
mkdir -p "$out"
echo "# repro-stall: $kver, $tries tries per arm, commit $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD 2>/dev/null || echo +changes)"

run_arm() { # NAME BOOT_OPTS STALL_ARGS
	local name=$1 opts=$2 args=$3 boot=() append=
	case $opts in
	append=*) append=${opts#append=} ;;
	?*) read -ra boot <<<"$opts" ;;
	esac
	# shellcheck disable=SC2086 # $args: MOD BALANCING THP START
	NA_GUEST_APPEND=$append tests/guest/boot.sh -k "$kver" -t 4x2 "${boot[@]}" \
		-T $((tries * 200 + 600)) -l "$out/$name.log.console" \
		tests/guest/stall.sh "$B" ${args% *} "$tries" ${args##* } >"$out/$name.log" 2>&1
}

selected=()
for a in "${ARMS[@]}"; do
	name=${a%%|*}
	if [ ${#arms_wanted[@]} -eq 0 ] || [[ " ${arms_wanted[*]} " == *" $name "* ]]; then
		selected+=("$a")
	fi
done
[ ${#selected[@]} -gt 0 ] || { echo "repro-stall.sh: no such arm: ${arms_wanted[*]}" >&2; exit 2; }

for a in "${selected[@]}"; do
	IFS='|' read -r name opts args <<<"$a"
	limit=$par
	[ "$name" = alone ] && limit=1
	while [ "$(jobs -rp | wc -l)" -ge "$limit" ]; do
		wait -n
	done
	echo "# $(date +%T) arm $name started"
	run_arm "$name" "$opts" "$args" &
	[ "$name" = alone ] && wait
done
wait

{
	echo "# repro-stall: $kver, commit $(git rev-parse --short HEAD 2>/dev/null), $(date -u +%F)"
	for a in "${selected[@]}"; do
		name=${a%%|*}
		r=$(sed -n 's/^stall-arm: //p' "$out/$name.log")
		echo "$name: ${r:-no result: $(tail -n 1 "$out/$name.log")}"
	done
} | tee "$out/summary.txt"
