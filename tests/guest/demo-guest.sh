#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo-guest.sh - the demo's guest half (run by tests/guest/boot.sh)
#
# usage: demo-guest.sh BUILD_DIR observe|place
#
# observe (on 4 nodes) loads numa_advise, runs a mixed workload for a few
# seconds and prints the module's tables:
#   pinned-n1   a CPU burner pinned to node 1 all along
#   moved-n2-n3 a CPU burner on node 2, moved to node 3 half-way
#   stress-ng   two CPU workers the scheduler places freely
#   hackbench   message passing between many short runs (context switches)
# place (on 8 nodes in two groups, the 2014 seed's machine) is a placement
# session: two jobs each wide enough for half the machine, the `distance`
# policy, advice, enforcement, and the masks put back at unload.
set -euo pipefail
B=${1:?usage: demo-guest.sh BUILD_DIR observe|place}
part=${2:?usage: demo-guest.sh BUILD_DIR observe|place}
D=/sys/kernel/debug/numa_advise
cpus() { cat /sys/devices/system/node/node"$1"/cpulist; }

echo "== topology"
numactl -H | grep -E '^(available|node [0-9]+ cpus|node +[0-9]+ +[0-9])'
insmod "$B/numa_advise-$NA_KVER.ko"
echo "== loaded: $(dmesg | grep -o 'numa_advise: version.*' | tail -n 1)"

observe() {

# Named copies of the burner, so its rows are easy to spot in `tasks`.
cp "$B/spin" /tmp/pinned-n1
cp "$B/spin" /tmp/moved-n2-n3
taskset -c "$(cpus 1)" /tmp/pinned-n1 &
p1=$!
taskset -c "$(cpus 2)" /tmp/moved-n2-n3 &
p2=$!
stress-ng --cpu 2 --timeout 6s --quiet --temp-path /tmp &
hackbench -g 2 -f 5 -l 100000000 >/dev/null 2>&1 &
hb=$!
echo "== workload running for 6 s"
sleep 3
taskset -pc "$(cpus 3)" "$p2" >/dev/null
sleep 3

# One snapshot for both views.
cp $D/tasks /tmp/tasks
echo
echo "== $D/tasks (the workload's rows, 3 of hackbench's 20; times in ns)"
awk 'NR == 1 || $3 ~ /^(pinned-n1|moved-n2-n3|stress-ng.*)$/ ||
     ($3 == "hackbench" && hb++ < 3)' /tmp/tasks | column -t
echo
echo "== the same as % of each task's runtime per node"
awk 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /^node[0-9]+_ns$/) {
			n[++k] = i; h[k] = $i; sub(/_ns$/, "", h[k]) }
		     else if ($i == "xnode_migrations") x = i
	       printf "%-8s %-14s", "pid", "comm"
	       for (j = 1; j <= k; j++) printf " %7s", h[j]
	       printf " %9s %6s\n", "runtime_s", "xnode"; next }
     $3 ~ /^(pinned-n1|moved-n2-n3|stress-ng.*)$/ && $4 > 0 {
	       printf "%-8s %-14s", $1, $3
	       for (j = 1; j <= k; j++) printf " %7.1f", 100 * $n[j] / $4
	       printf " %9.2f %6d\n", $4 / 1e9, $x }' /tmp/tasks
echo
echo "== $D/nodes"
column -t $D/nodes
echo
echo "== $D/overhead (the probes' own cost)"
column -t $D/overhead
echo
echo "== $D/status"
column -t $D/status
kill "$p1" "$p2" "$hb"
wait 2>/dev/null || true
rmmod numa_advise
}

# --- placement ---------------------------------------------------------------
# Shown as a session: each command as typed at a root prompt, then what it
# printed.
run() {
	echo "# $*"
	eval "$@"
}
masks() { # the CPU masks of every thread of each job, one line per job
	local p
	for p in "$job1" "$job2"; do
		echo "job $p: $(cat /proc/"$p"/task/*/status |
			awk '/^Cpus_allowed_list/ { print $2 }' | sort | uniq -c |
			awk '{ printf "%s%d threads on CPUs %s", s, $1, $2; s = ", " }')"
	done
}
place() {
# The demo's own shell and trace keep to node 0, as housekeeping would: on
# nodes of one CPU any third busy task overloads one.
taskset -pc "$(cpus 0)" $$ >/dev/null
half=$(($(nproc --all) / 2))
echo 0 >/proc/sys/kernel/numa_balancing
cp "$B/memtouch" /tmp/job
/tmp/job -a "$(cpus 0)-$(($(nproc --all) - 1))" -t "$half" -m 8 >/dev/null &
job1=$!
/tmp/job -a "$(cpus 0)-$(($(nproc --all) - 1))" -t "$half" -m 8 >/dev/null &
job2=$!
sleep 2
PATH=$B:$PATH	# numa-advise-ctl, as installed
echo
echo "== placement: two jobs of $half busy threads each, half the machine"
echo "   each, driven with numa-advise-ctl"
run numa-advise-ctl set interval_ms 250
run masks
run numa-advise-ctl scope include comm job
run "numa-advise-ctl trace >/tmp/trace.out &"
trace=$!
until ls /sys/kernel/tracing/instances | grep -q numa_advise_ctl; do sleep 0.2; done
run numa-advise-ctl policy distance
sleep 2
run numa-advise-ctl advice --comm job
run numa-advise-ctl mode enforce
sleep 3
run numa-advise-ctl advice --comm job
run numa-advise-ctl tasks --process --comm job
run masks
run "numa-advise-ctl status | grep -E '^(policy|mode|placed|moves|restores|refused)'"
run rmmod numa_advise
run masks
run kill -TERM '$trace'   \# the trace, started above
wait "$trace" 2>/dev/null || true
run "grep ' place ' /tmp/trace.out"
run "grep -c ' advice ' /tmp/trace.out; grep -c ' node_class ' /tmp/trace.out"
run ls /sys/kernel/tracing/instances/
kill "$job1" "$job2"
wait 2>/dev/null || true
}

case $part in
observe) observe ;;
place) place ;;
*) echo "demo-guest.sh: observe or place, not '$part'" >&2; exit 2 ;;
esac
echo
echo "== unloaded; $(dmesg | grep -cE 'WARNING:|BUG:|Oops') kernel warnings"
