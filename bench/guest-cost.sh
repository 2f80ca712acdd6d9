#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest-cost.sh - what the module costs, run INSIDE a guest by bench/run.sh
#
# usage: guest-cost.sh BUILD_DIR ROUNDS PART...
#   sched     perf bench sched pipe (pinned to one CPU), perf bench sched
#             messaging and hackbench, with the module absent, loaded with
#             policy none, and with distance + enforce; ROUNDS rounds, the
#             order of the three rotated every round
#   scale     the module's own cost per probe call (its overhead table)
#             with 100, 1000 and 10000 live tasks, ROUNDS/5 rounds (min 1)
#   memory    bytes per tracked task and in all, at three caps
#
# Prints one "DATA <part> ..." line per measurement (bench/report.py reads
# them) and "# ..." lines for people.
set -u

B=${1:?usage: guest-cost.sh BUILD_DIR ROUNDS PART...}
ROUNDS=${2:?usage: guest-cost.sh BUILD_DIR ROUNDS PART...}
shift 2
. "$(dirname "$0")/guest-lib.sh"
# the benchmark CPU: the first of node 1 (node 0 on one node)
BENCH_CPU=$(cut -d- -f1 <"/sys/devices/system/node/node$((NODES > 1))/cpulist" | cut -d, -f1)

# The same commands are printed by bench/run.sh beside each figure.
PIPE="taskset -c $BENCH_CPU perf bench sched pipe -l 20000"
MESSAGING="perf bench sched messaging -g 2 -l 40"
HACKBENCH="hackbench -g 2 -l 40"


# config NAME - absent, none or enforce
config() {
	unload
	case $1 in
	absent) ;;
	none) insmod "$KO" policy=none ;;
	enforce) insmod "$KO" policy=distance mode=enforce ;;
	esac
}

# value BENCH - run it, print its figure (usecs/op or seconds)
value() {
	case $1 in
	pipe) $PIPE 2>&1 | awk '/usecs\/op/ { print $1; exit }' ;;
	messaging) $MESSAGING 2>&1 | awk '/Total time/ { print $3; exit }' ;;
	hackbench) $HACKBENCH 2>&1 | awk '/^Time:/ { print $2; exit }' ;;
	esac
}

part_sched() {
	local configs=(absent none enforce) r i c b v
	echo "DATA cmd pipe $PIPE"
	echo "DATA cmd messaging $MESSAGING"
	echo "DATA cmd hackbench $HACKBENCH"
	for ((r = 0; r < ROUNDS; r++)); do
		for ((i = 0; i < 3; i++)); do
			c=${configs[(i + r) % 3]}
			config "$c"
			for b in pipe messaging hackbench; do
				v=$(value $b)
				echo "DATA sched $b $c $r ${v:-nan}"
			done
		done
	done
	unload
}

# overhead_row PROBE - "calls mean_ns p50_ns p99_ns" from the overhead table
overhead_row() {
	awk -v p="$1" '$1 == p { print $2, $3, $4, $5 }' $D/overhead
}

part_scale() {
	local rounds=$((ROUNDS / 5)) r i n pid live
	local counts=(100 1000 10000)
	((rounds > 0)) || rounds=1
	echo "DATA cmd scale-$NODES $PIPE"
	# the default allows ~8 threads per MiB of memory: not 10000 here
	sysctl -qw kernel.threads-max=65536
	insmod "$KO" policy=none max_tasks=16384 || return
	for ((r = 0; r < rounds; r++)); do
		for ((i = 0; i < 3; i++)); do
			n=${counts[(i + r) % 3]}
			coproc IDLE { exec "$B/idle_tasks" "$n"; }
			pid=$IDLE_PID
			if ! read -r _ <&"${IDLE[0]}"; then
				echo "# scale: idle_tasks $n did not start"
				continue
			fi
			echo 1 >$D/reset
			$PIPE >/dev/null 2>&1
			live=$(awk '$1 == "tracked" { print $2 }' $D/status)
			echo "DATA scale $NODES $n $r switch $(overhead_row sched_switch) $live"
			echo "DATA scale $NODES $n $r migrate $(overhead_row sched_migrate_task) $live"
			kill "$pid"
			wait "$pid" 2>/dev/null
		done
	done
	unload
}

part_memory() {
	local cap
	for cap in 1024 8192 65536; do
		insmod "$KO" max_tasks=$cap || continue
		echo "DATA memory $cap $(awk '$1 == "slot_bytes" { s = $2 } $1 == "memory_bytes" { m = $2 } END { print s, m }' $D/status)"
		unload
	done
}

taskset -pc "$(cat /sys/devices/system/node/node0/cpulist)" $$ >/dev/null
for p in "$@"; do
	"part_$p"
done
echo "guest-cost: done"
