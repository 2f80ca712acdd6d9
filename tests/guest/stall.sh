#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# stall.sh - one arm of the stalled-job repro, run INSIDE a guest by
# tests/repro-stall.sh (through tests/guest/boot.sh)
#
# usage: stall.sh BUILD_DIR MOD BALANCING THP TRIES START
#   MOD        none:     the module is never loaded
#              nosample: loaded (policy none), its memory sampling
#                        compiled out (numa_advise-nosample-KVER.ko)
#              sample:   loaded, policy none, sampling as shipped
#              home:     loaded, policy home, mode enforce
#              (loaded: interval_ms 200 and min_move_ms 1000, as the
#              suite's engine cases run it)
#   BALANCING  0 or 1: the kernel's NUMA balancing
#   THP        always or never: transparent huge pages
#   TRIES      how many times to start the swap case's six jobs
#   START      how a job's output file is found by its pid:
#              rename: as the suite's start_mt did until the stall was
#                      understood: the job's output goes to a mktemp
#                      file, renamed to /tmp/mt.PID once $! is known;
#              link:   the file keeps its name, /tmp/mt.PID links to it
#
# A try starts the jobs of the suite's case `swap` as it does: memtouch
# -m 4 pinned to node 1, 2 or 3 while it touches its memory, two a node,
# one after the other from a shell on node 0, each beside the busy ones
# before it.  A job not "ready" within STALL_S (20 s, the suite's wait) is
# a stall: its state, what it does and what the memory does are captured
# (capture below), and it is watched up to GIVE_UP_S (120 s) more to tell
# a slow job from a stuck one.  Unless its output was lost: a job whose
# stdout is not the file read for it (the shell opened the redirection
# only after the rename) is counted as "lost", not watched longer.  Then
# every job is killed and the next try starts.
#
# Prints one line per try and ends with
#   "stall-arm: S stalled of T tries (...)", the line repro-stall.sh reads.
set -u

B=${1:?usage: stall.sh BUILD_DIR MOD BALANCING THP TRIES START}
MOD=${2:?} BAL=${3:?} THP=${4:?} TRIES=${5:?} START=${6:?}
STALL_S=20
GIVE_UP_S=120
D=/sys/kernel/debug/numa_advise
P=/sys/module/numa_advise/parameters
T=/sys/kernel/tracing

cpus() { cat /sys/devices/system/node/node"$1"/cpulist; }
log() { echo "$*"; }

ready_in() { grep -q ready "/tmp/mt.$1" 2>/dev/null; }

# proc_line PID - the job's state, CPU ticks (user+system), RSS and the
# scheduler's run time, wait time and slices (schedstat)
proc_line() {
	local st rss sched
	st=$(awk '{ print "state " $3 " utime " $14 " stime " $15 " cpu " $39 }' \
		/proc/"$1"/stat 2>/dev/null) || { echo "exited"; return; }
	rss=$(awk '/^VmRSS/ { print $2 $3 }' /proc/"$1"/status)
	sched=$(cat /proc/"$1"/schedstat 2>/dev/null)
	echo "$st rss $rss schedstat $sched ctxt $(awk '/ctxt_switches/ { printf "%s ", $2 }' \
		/proc/"$1"/status)"
}

# zone_free - free pages per zone, "node N zone Z free F"
zone_free() {
	awk '/^Node/ { z = "node" $2 $4 } /^ +pages free/ { print z, $3 }' \
		/proc/zoneinfo
}

# capture PID - what a job that is not ready is doing: /proc twice 3 s
# apart, the vmstat counters that moved meanwhile and free memory per
# zone, its page faults for 1 s (address, error code), 0.5 s of its
# function graph, and the kernel's backtraces (sysrq l: every CPU; t:
# every task, of which the jobs' are kept)
capture() {
	local pid=$1 lines
	log "capture $pid: mask $(taskset -pc "$pid" 2>/dev/null | sed 's/.*: //')"
	log "capture $pid: stdout $(readlink /proc/"$pid"/fd/1), holds '$(tr '\n' ' ' <"/tmp/mt.$pid")'; $(grep -l . /tmp/mt.* 2>/dev/null | tr '\n' ' ')"
	log "capture $pid: wchan $(cat /proc/"$pid"/wchan 2>/dev/null) stack $(tr '\n' '|' </proc/"$pid"/stack 2>/dev/null)"
	log "capture $pid: t0 $(proc_line "$pid")"
	cp /proc/vmstat /tmp/vm0
	zone_free >/tmp/z0
	sleep 3
	log "capture $pid: t3 $(proc_line "$pid")"
	log "capture $pid: vmstat moved in 3 s: $(awk 'NR == FNR { v[$1] = $2; next }
		$2 != v[$1] { printf "%s +%d ", $1, $2 - v[$1] }' /tmp/vm0 /proc/vmstat)"
	log "capture $pid: zone free then/now: $(zone_free | paste -d' ' /tmp/z0 - |
		awk '{ printf "%s %s->%s ", $1, $2, $4 }')"

	# its page faults for 1 s, in an instance of its own
	if mkdir $T/instances/stall 2>/dev/null; then
		echo "$pid" >$T/instances/stall/set_event_pid
		echo 1 >$T/instances/stall/events/exceptions/page_fault_user/enable
		sleep 1
		echo 0 >$T/instances/stall/tracing_on
		log "capture $pid: faults in 1 s: $(grep -c page_fault_user $T/instances/stall/trace)," \
			"top addresses: $(grep -o 'address=[^ ]* ip=[^ ]* error_code=[^ ]*' \
			$T/instances/stall/trace | sort | uniq -c | sort -rn | head -n 4 | tr -s ' \n' ' |')"
		echo 0 >$T/instances/stall/events/exceptions/page_fault_user/enable
		rmdir $T/instances/stall
	fi

	# what it runs in the kernel: 0.5 s of function graph
	echo "$pid" >$T/set_ftrace_pid
	echo 12 >$T/max_graph_depth
	if echo function_graph >$T/current_tracer 2>/dev/null; then
		echo >$T/trace
		echo 1 >$T/tracing_on
		sleep 0.5
		echo 0 >$T/tracing_on
		echo nop >$T/current_tracer
		grep -v '^#' $T/trace | head -n 150 | sed "s/^/capture $pid: graph /"
		echo >$T/trace
		echo 1 >$T/tracing_on
	fi
	echo >$T/set_ftrace_pid

	lines=$(dmesg | wc -l)
	echo l >/proc/sysrq-trigger
	echo t >/proc/sysrq-trigger
	sleep 2
	# sysrq l: every CPU's backtrace; of t's task list only the jobs'
	dmesg | tail -n +$((lines + 1)) | awk -v pid="$pid" '
		/sysrq: Show Blocked|sysrq: Show State/ { inl = 0 }
		/sysrq: Show backtrace of all active CPUs/ { inl = 1 }
		/ task:/ { intask = ($0 ~ /task:memtouch/) }
		inl || intask' | head -n 200 | sed "s/^/capture $pid: sysrq /"
}

stop_jobs() {
	local p
	for p in "${jobs_pids[@]}"; do
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
		rm -f "$(readlink -f "/tmp/mt.$p")" "/tmp/mt.$p"
	done
	jobs_pids=()
	rm -f /tmp/mt.*
}

# --- the arm's setup ----------------------------------------------------------

taskset -pc "$(cpus 0)" $$ >/dev/null
echo "$BAL" >/proc/sys/kernel/numa_balancing ||
	{ echo "stall-arm: cannot set numa_balancing $BAL"; exit 1; }
echo "$THP" >/sys/kernel/mm/transparent_hugepage/enabled ||
	{ echo "stall-arm: cannot set THP $THP"; exit 1; }
case $MOD in
none) ;;
nosample | sample | home)
	ko=$B/numa_advise-$NA_KVER.ko
	[ "$MOD" = nosample ] && ko=$B/numa_advise-nosample-$NA_KVER.ko
	insmod "$ko" || { echo "stall-arm: insmod $ko failed"; exit 1; }
	echo 200 >$P/interval_ms
	echo 1000 >$P/min_move_ms
	if [ "$MOD" = home ]; then
		echo home >$D/policy
		echo enforce >$D/mode
	fi
	;;
*) echo "stall-arm: unknown MOD $MOD"; exit 2 ;;
esac
log "arm: start $START mod $MOD balancing $(cat /proc/sys/kernel/numa_balancing)" \
	"thp '$(cat /sys/kernel/mm/transparent_hugepage/enabled)'" \
	"cmdline: $(tr ' ' '\n' </proc/cmdline | grep -E 'init_on_alloc' | tr '\n' ' ')" \
	"mem per node: $(awk '/MemTotal/ { printf "%s ", $4 }' /sys/devices/system/node/node*/meminfo) kB"

stalls=0 lost=0 stuck=0 slowest=0 started=0
jobs_pids=()
for ((try = 1; try <= TRIES; try++)); do
	times=()
	for n in 1 1 2 2 3 3; do
		out=$(mktemp /tmp/mt.XXXXXX)
		t0=$(date +%s%N)
		"$B/memtouch" -m 4 -a "$(cpus $n)" >"$out" &
		pid=$!
		jobs_pids+=("$pid")
		if [ "$START" = rename ]; then
			mv "$out" "/tmp/mt.$pid"
		else
			ln -s "$out" "/tmp/mt.$pid"
		fi
		started=$((started + 1))
		end=$((SECONDS + STALL_S))
		until ready_in "$pid" || [ $SECONDS -ge $end ]; do
			sleep 0.2
		done
		if ! ready_in "$pid"; then
			stalls=$((stalls + 1))
			log "try $try: STALL job ${#jobs_pids[@]} (node $n, pid $pid) not ready in $STALL_S s"
			fd1=$(readlink /proc/"$pid"/fd/1)
			if [ "$(readlink -f "/tmp/mt.$pid")" != "$fd1" ]; then
				lost=$((lost + 1))
				log "try $try: job $pid lost its output: stdout $fd1 holds '$(tr '\n' ' ' <"$fd1")'," \
					"/tmp/mt.$pid holds '$(tr '\n' ' ' <"/tmp/mt.$pid")'; $(proc_line "$pid")"
				break
			fi
			capture "$pid"
			end=$((SECONDS + GIVE_UP_S))
			until ready_in "$pid" || [ $SECONDS -ge $end ]; do
				sleep 0.5
			done
			if ready_in "$pid"; then
				log "try $try: job $pid ready after $(( ($(date +%s%N) - t0) / 1000000 )) ms"
			else
				stuck=$((stuck + 1))
				log "try $try: job $pid still not ready after $((STALL_S + GIVE_UP_S)) s: $(proc_line "$pid")"
			fi
			break
		fi
		ms=$(( ($(date +%s%N) - t0) / 1000000 ))
		times+=("$ms")
		[ "$ms" -gt "$slowest" ] && slowest=$ms
	done
	log "try $try: ready in ms: ${times[*]}"
	stop_jobs
done

if [ "$MOD" != none ]; then
	rmmod numa_advise || log "rmmod failed"
fi
bad=$(dmesg | grep -E 'WARNING:|BUG:|Oops|RCU stall|soft lockup|blocked for more than' |
	grep -v sysrq | head -n 3 | tr '\n' '|')
echo "stall-arm: $stalls stalled of $TRIES tries ($started jobs started; of the" \
	"stalls $lost lost their output, $stuck stuck past $((STALL_S + GIVE_UP_S)) s, slowest ready $slowest ms)${bad:+ kernel: $bad}"
