#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest-insn.sh - instructions the module adds to the scheduler path, run
# INSIDE a guest by bench/run.sh, booted nokaslr (so addresses hold from
# one boot to the next)
#
# usage: guest-insn.sh BUILD_DIR symbols
#        guest-insn.sh BUILD_DIR count ROUNDS MARKER_ADDR [BASE CONFIG...]
#   symbols  print "SYM name address" of the phase marker (the sethostname
#            syscall) and of __schedule, for the plugin's command line
#   count    under the insn_phases plugin: ROUNDS rounds of the pipe,
#            messaging and hackbench benchmarks in each CONFIG (default:
#            absent, empty, none, lean, enforce): the module absent, its
#            build with empty probes (the tracepoints' own calls), loaded
#            with policy none, the same in lean mode (no switch probe), and
#            with distance + enforce; nopsi is the module
#            absent too, in a guest booted psi=0.  Each at two lengths;
#            each benchmark run is one phase, ended by `hostname`.  Prints
#            "DATA insn-phase N BENCH LOOPS CONFIG ROUND", N counted from
#            BASE (default 0), to match the plugin's lines.
set -u

B=${1:?usage: guest-insn.sh BUILD_DIR symbols|count ...}
. "$(dirname "$0")/guest-lib.sh"

sym() { awk -v s="$1" '$3 == s { print "0x" $1; exit }' /proc/kallsyms; }

if [ "$2" = symbols ]; then
	echo "SYM marker $(sym __x64_sys_sethostname)"
	echo "SYM count $(sym __schedule)"
	exit 0
fi
ROUNDS=$3
BASE=${5:-0}
configs=("${@:6}")
[ ${#configs[@]} -gt 0 ] || configs=(absent empty none lean enforce)
KO_EMPTY=$B/numa_advise-empty-$NA_KVER.ko
if [ "$(sym __x64_sys_sethostname)" != "$4" ]; then
	echo "guest-insn: the marker moved: $(sym __x64_sys_sethostname), not $4"
	exit 1
fi

phase=0
mark() { hostname "na-phase-$phase"; phase=$((phase + 1)); }
CPU=$(cut -d- -f1 </sys/devices/system/node/node1/cpulist)
# Each at two lengths: the difference between them is the work per loop,
# without the fixed cost of starting (exec, page faults, 9p reads).
# pipe is the worst case, all switching; messaging and hackbench (as in
# guest-cost.sh) do some work between switches, as real programs do.
PIPE="taskset -c $CPU perf bench sched pipe -l"
MESSAGING="perf bench sched messaging -g 2 -l"
HACKBENCH="hackbench -g 2 -l"
BENCHES=(pipe messaging hackbench)
declare -A LOOPS=([pipe]="10000 30000" [messaging]="20 60" [hackbench]="20 60")
run() { # BENCH LOOPS
	case $1 in
	pipe) $PIPE "$2" >/dev/null 2>&1 ;;
	messaging) $MESSAGING "$2" >/dev/null 2>&1 ;;
	hackbench) $HACKBENCH "$2" >/dev/null 2>&1 ;;
	esac
}
echo "DATA cmd insn-pipe $PIPE N"
echo "DATA cmd insn-messaging $MESSAGING N"
echo "DATA cmd insn-hackbench $HACKBENCH N"
# warm: the first run of each reads its binary and libraries over 9p
for b in "${BENCHES[@]}"; do
	run "$b" "${LOOPS[$b]%% *}"
done

nc=${#configs[@]}
for ((r = 0; r < ROUNDS; r++)); do
	for ((i = 0; i < nc; i++)); do
		c=${configs[(i + r) % nc]}
		unload
		case $c in
		empty) insmod "$KO_EMPTY" ;;
		none) insmod "$KO" policy=none ;;
		lean) insmod "$KO" policy=none lean=1 ;;
		enforce) insmod "$KO" policy=distance mode=enforce ;;
		esac
		for b in "${BENCHES[@]}"; do
			for n in ${LOOPS[$b]}; do
				mark	# ends the setup's phase
				run $b "$n"
				echo "DATA insn-phase $((BASE + phase)) $b $n $c $r"
				mark	# ends the benchmark's phase
			done
		done
	done
done
unload
echo "guest-insn: done"
