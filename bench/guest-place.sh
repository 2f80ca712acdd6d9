#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest-place.sh - what placement gains, run INSIDE a guest by bench/run.sh
#
# usage: guest-place.sh BUILD_DIR ROUNDS PART...
#   numatest  numa_test after the 2003 seed: JOBS numa_job processes with
#             hackbench running beside them, under each configuration
#             (CONFIGS below), ROUNDS rounds, the order rotated each round
#   numamem   perf bench numa mem's convergence test under each
#             configuration but home-jobs (no numa_job runs), once a round
#   halves    the 2014 seed's case (8 nodes): two jobs each with half the
#             machine's CPUs in threads, under distance + enforce and under
#             the stock scheduler; ROUNDS*5 runs of each
#
# The module is the instrument in every configuration: loaded with policy
# none it only observes (the time each task ran on each node), so stock,
# AutoNUMA and numad are measured the same way as its own policies.
# Prints "DATA <part> ..." lines (bench/report.py reads them) and "# ...".
set -u

B=${1:?usage: guest-place.sh BUILD_DIR ROUNDS PART...}
ROUNDS=${2:?usage: guest-place.sh BUILD_DIR ROUNDS PART...}
shift 2
. "$(dirname "$0")/guest-lib.sh"
CPUS=$(nproc --all)

# home-jobs: home with the module's scope narrowed to the jobs, as an
# operator who knows which processes matter would run it; hackbench is
# then left to the scheduler instead of holding room it placed first.
CONFIGS=(stock autonuma numad home home-jobs distance home+autonuma)
JOBS=${NA_BENCH_JOBS:-8}
JOB="$B/numa_job -m 16 -n 8 -w"
DISTURB="hackbench -g 1 -f 4 -l 100000"
NUMAMEM="perf bench numa mem -p $NODES -t 1 -P 16 -s 20 -c -m"

numad_stop() {
	pkill -x numad && sleep 0.5
	rm -f /var/run/numad.pid
}

# config NAME - set NUMA balancing, numad and the module for NAME
config() {
	unload
	numad_stop
	case $1 in
	*autonuma) sysctl -qw kernel.numa_balancing=1 ;;
	*) sysctl -qw kernel.numa_balancing=0 ;;
	esac
	case $1 in
	home*) insmod "$KO" policy=home mode=enforce interval_ms=500 ;;
	distance) insmod "$KO" policy=distance mode=enforce interval_ms=500 ;;
	*) insmod "$KO" policy=none ;;
	esac
	if [ "$1" = home-jobs ]; then
		echo "include comm numa_job" >$D/scope
	fi
	if [ "$1" = numad ]; then
		numad -i 5 -l 3 >/dev/null 2>&1
	fi
}

vmstat_sum() { # KEY... - their sum in /proc/vmstat
	awk -v keys=" $* " 'index(keys, " " $1 " ") { s += $2 } END { print s + 0 }' /proc/vmstat
}

# task_row PID - "runtime_ns home_by_time xnode node_pct..." from the module
task_row() {
	awk -v p="$1" -v n="$NODES" '
		NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		$1 == p {
			best = 0
			for (i = 0; i < n; i++) {
				v = $h["node" i "_ns"]
				if (v > $h["node" best "_ns"]) best = i
			}
			printf "%s %d %s", $h["runtime_ns"], best, $h["xnode_migrations"]
			for (i = 0; i < n; i++)
				printf " %.1f", $h["runtime_ns"] ? 100 * $h["node" i "_ns"] / $h["runtime_ns"] : 0
			print ""
		}' $D/tasks
}

part_numatest() {
	local r i c j pids out hb f0 m0 t0 line
	echo "DATA cmd numatest $JOBS x $JOB, with $DISTURB in a loop"
	for ((r = 0; r < ROUNDS; r++)); do
		for ((i = 0; i < ${#CONFIGS[@]}; i++)); do
			c=${CONFIGS[(i + r) % ${#CONFIGS[@]}]}
			config "$c"
			(while :; do $DISTURB >/dev/null 2>&1; done) &
			hb=$!
			f0=$(vmstat_sum numa_hint_faults)
			m0=$(vmstat_sum numa_pages_migrated)
			t0=$SECONDS
			pids=()
			out=/tmp/numatest.$c
			rm -f "$out".*
			for ((j = 1; j <= JOBS; j++)); do
				$JOB >"$out.$j" &
				pids+=($!)
			done
			# every job has printed its line: it is done and waits
			for ((j = 1; j <= JOBS; j++)); do
				while ! grep -q '^pid=' "$out.$j" 2>/dev/null; do
					sleep 0.5
				done
			done
			kill "$hb"
			pkill -x hackbench
			wait "$hb" 2>/dev/null
			echo "DATA numatest-run $c $r $((SECONDS - t0)) $(($(vmstat_sum numa_hint_faults) - f0)) $(($(vmstat_sum numa_pages_migrated) - m0))"
			for ((j = 1; j <= JOBS; j++)); do
				line=$(cat "$out.$j")
				echo "DATA numatest-job $c $r $j $(sed 's/[a-z_]*=//g' <<<"$line") $(task_row "${pids[j - 1]}")"
			done
			kill "${pids[@]}"
			wait "${pids[@]}" 2>/dev/null
		done
	done
	unload
	numad_stop
}

part_numamem() {
	local r i c secs
	echo "DATA cmd numamem $NUMAMEM"
	for ((r = 0; r < ROUNDS; r++)); do
		for ((i = 0; i < ${#CONFIGS[@]}; i++)); do
			c=${CONFIGS[(i + r) % ${#CONFIGS[@]}]}
			[ "$c" = home-jobs ] && continue
			config "$c"
			# printed only when the processes converged
			secs=$($NUMAMEM 2>&1 | awk -F, '/NUMA-convergence-latency/ { print $2 + 0; exit }')
			echo "DATA numamem $c $r ${secs:-nan}"
		done
	done
	unload
	numad_stop
}

# node_of CPU, from sysfs once: job_nodes runs while every CPU is busy,
# when each command started costs seconds under TCG, so it uses builtins
declare -A NODE_OF
for c in /sys/devices/system/cpu/cpu[0-9]*; do
	for n in "$c"/node[0-9]*; do
		NODE_OF[${c##*cpu}]=${n##*node}
	done
done

# job_nodes PID - the nodes its workers are running on now: every thread
# but the last (the highest thread id), numa_job's sampler
job_nodes() {
	local t max=0 stat out=
	local -A on=()
	for t in /proc/"$1"/task/*; do
		t=${t##*/}
		((t > max)) && max=$t
	done
	for t in /proc/"$1"/task/*; do
		((${t##*/} == max)) && continue
		read -ra stat <"$t/stat"
		on[${NODE_OF[${stat[38]}]}]=1
	done
	for t in $(printf '%s\n' "${!on[@]}" | sort -n); do
		out+=${out:+,}$t
	done
	echo "$out"
}

# Where two jobs of half the machine's CPUs each are after HALVES_S seconds:
# long enough for the engine to have placed them (interval_ms=500).
HALVES_S=20

part_halves() {
	local runs=$((ROUNDS * 5)) r c a b
	local job="$B/numa_job -m 16 -t $((CPUS / 2)) -n 100000"
	echo "DATA cmd halves two x $job, their threads' nodes after $HALVES_S s"
	for ((r = 0; r < runs; r++)); do
		for c in distance stock; do
			config "$c"
			$job >/dev/null &
			a=$!
			$job >/dev/null &
			b=$!
			sleep $HALVES_S
			echo "DATA halves $c $r $(job_nodes $a) $(job_nodes $b)"
			kill $a $b
			wait $a $b 2>/dev/null
		done
	done
	unload
}

for p in "$@"; do
	"part_$p"
done
echo "guest-place: done"
