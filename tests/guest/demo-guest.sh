#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo-guest.sh - the demo's guest half (run by tests/guest/boot.sh)
#
# Loads numa_advise, runs a mixed workload for a few seconds and prints the
# module's tables:
#   pinned-n1   a CPU burner pinned to node 1 all along
#   moved-n2-n3 a CPU burner on node 2, moved to node 3 half-way
#   stress-ng   two CPU workers the scheduler places freely
#   hackbench   message passing between many short runs (context switches)
set -euo pipefail
B=${1:?usage: demo-guest.sh BUILD_DIR}
D=/sys/kernel/debug/numa_advise
cpus() { cat /sys/devices/system/node/node"$1"/cpulist; }

echo "== topology"
numactl -H | grep -E '^(available|node [0-9]+ cpus|node +[0-9]+ +[0-9])'
insmod "$B/numa_advise-$NA_KVER.ko"
echo "== loaded: $(dmesg | grep -o 'numa_advise: version.*' | tail -n 1)"

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
awk 'NR == 1 { for (i = 5; i <= NF - 2; i++) { n[i] = $i; sub(/_ns$/, "", n[i]) }
	       printf "%-8s %-14s", "pid", "comm"
	       for (i = 5; i <= NF - 2; i++) printf " %7s", n[i]
	       printf " %9s %6s\n", "runtime_s", "xnode"; next }
     $3 ~ /^(pinned-n1|moved-n2-n3|stress-ng.*)$/ && $4 > 0 {
	       printf "%-8s %-14s", $1, $3
	       for (i = 5; i <= NF - 2; i++) printf " %7.1f", 100 * $i / $4
	       printf " %9.2f %6d\n", $4 / 1e9, $NF }' /tmp/tasks
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
echo
echo "== unloaded; $(dmesg | grep -cE 'WARNING:|BUG:|Oops') kernel warnings"
