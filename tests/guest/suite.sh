#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# suite.sh - integration tests, run INSIDE a guest by tests/guest/boot.sh
#
# usage: suite.sh BUILD_DIR [NAME=VALUE...] [CASE...]
#   BUILD_DIR holds numa_advise-$NA_KVER.ko, numa_advise-missing-tp-$NA_KVER.ko,
#   the helpers (tests/helpers) and numa-advise-ctl; CASE names which cases
#   to run (default: all, in order).  NAME=VALUE sets a knob of the cases
#   (the guest sees none of the host's environment): NA_FUZZ_SEED,
#   NA_FUZZ_WRITES, NA_FUZZ_SECS (hostile, and the seed of ctl_fuzz),
#   NA_CTL_FUZZ_RUNS (ctl_fuzz), NA_STORM_SECS (storm), NA_REUSE_ROUNDS
#   (pid_reuse), NA_RELOAD_CYCLES (fault_reload), NA_FAULT_SECS
#   (fault_hotplug_reload); make check-stress
#   turns them up.  NA_TIME_SCALE multiplies every wait for something to
#   happen (run.sh sets it for the debug kernel, several times slower).
#
# Prints one line per case, "PASS <kernel>/<topology> <case>" or
# "FAIL <kernel>/<topology> <case>: <why>", and exits non-zero if any failed.
set -u

B=${1:?usage: suite.sh BUILD_DIR [NAME=VALUE...] [CASE...]}
shift
while [[ ${1:-} =~ ^NA_[A-Z_]+=[0-9]+$ ]]; do
	export "${1?}"
	shift
done
KO=$B/numa_advise-$NA_KVER.ko
KO_MISSING_TP=$B/numa_advise-missing-tp-$NA_KVER.ko
D=/sys/kernel/debug/numa_advise
WHERE="$NA_KVER/$NA_TOPO"
# shellcheck source=tests/guest/kreports.sh
. "$(dirname "$0")/kreports.sh"
passed=0
failed=0
skipped=0

# --- reading the module's tables --------------------------------------------

# tcol FILE KEYCOL KEY COL - COL of the row whose KEYCOL is KEY
tcol() {
	awk -v kc="$2" -v k="$3" -v c="$4" '
		NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		$h[kc] == k { print $h[c]; exit }' "$1"
}
status() { tcol $D/status key "$1" value; }
task() { tcol $D/tasks pid "$1" "$2"; }
node_col() { tcol $D/nodes node "$1" "$2"; }
cpus() { cat /sys/devices/system/node/node"$1"/cpulist; }
nodes() { ls -d /sys/devices/system/node/node[0-9]* | wc -l; }
now_ns() { date +%s%N; }
# fcmp EXPR - awk arithmetic truth, for the fractions below
fcmp() { awk "BEGIN { exit !($1) }"; }

# --- reporting --------------------------------------------------------------

case_errors=()
# check DESCRIPTION COMMAND... - record a failed expectation of this case
check() {
	local what=$1
	shift
	"$@" || case_errors+=("$what")
}

# skip_case WHY - this case cannot run here: it prints SKIP with WHY
skip_reason=
skip_case() { skip_reason=$1; }

# kill_strays - end every process a case left behind: the suite's own
# descendants (jobs, burners, bystanders, loops) whatever the case did
kill_strays() {
	local pids p
	pids=$(ps -e -o pid=,ppid= | awk -v root=$$ '
		{ parent[$1] = $2 }
		END {
			for (p in parent)
				for (q = parent[p]; q > 1; q = parent[q])
					if (q == root) { print p; break }
		}')
	for p in $pids; do
		[ "$p" = "$BASHPID" ] || kill -KILL "$p" 2>/dev/null
	done
	wait 2>/dev/null
	mt_pids=()
	rm -f /tmp/mt.*
}

# The state every case starts from: that of the module just loaded (its
# parameters as at the first load, policy none, mode advise, no scope),
# the kernel's NUMA balancing as booted, every CPU online and nothing
# running that a case started.  Taken once (known_state_init); restored
# before each case (known_state), reloading the module when a setting will
# not go back or it was left unloaded; the cases that load it themselves
# (load, and modprobe from the DKMS tree) get it unloaded.
BOOT_BALANCING=$(cat /proc/sys/kernel/numa_balancing 2>/dev/null)
PARAMS0=()
known_state_init() {
	local f
	loaded && rmmod numa_advise
	insmod "$KO" 2>/dev/null || return 1
	for f in /sys/module/numa_advise/parameters/*; do
		PARAMS0+=("$f=$(cat "$f")")
	done
	rmmod numa_advise
}

# known_state CASE - bring the guest to that state; a failure is the case's
known_state() {
	local kv c
	kill_strays
	for c in /sys/devices/system/cpu/cpu[0-9]*/online; do
		[ "$(cat "$c")" = 1 ] || echo 1 >"$c" 2>/dev/null ||
			case_errors+=("setup: ${c%/online} will not come online")
	done
	[ -z "$BOOT_BALANCING" ] ||
		echo "$BOOT_BALANCING" >/proc/sys/kernel/numa_balancing
	if [ "$1" = load ] || [ "$1" = modprobe ]; then
		loaded && ! rmmod numa_advise 2>/dev/null &&
			case_errors+=("setup: the module will not unload")
		return
	fi
	if loaded; then
		{ echo none >$D/policy && echo advise >$D/mode &&
			echo clear >$D/scope; } 2>/dev/null || rmmod numa_advise
	fi
	if loaded; then
		for kv in "${PARAMS0[@]}"; do
			[ "$(cat "${kv%%=*}")" = "${kv#*=}" ] ||
				echo "${kv#*=}" >"${kv%%=*}" 2>/dev/null || break
		done
		for kv in "${PARAMS0[@]}"; do
			[ "$(cat "${kv%%=*}")" = "${kv#*=}" ] || { rmmod numa_advise; break; }
		done
	fi
	loaded || insmod "$KO" 2>/tmp/insmod.err ||
		case_errors+=("setup: insmod: $(cat /tmp/insmod.err)")
}

# case_reports CASE - the kernel's reports since CASE began (the marker
# run_case wrote to the kernel log; all of the log if it has rotated out)
case_reports() {
	kreport_log_since "na-suite: case $1 begins" | head -n 2 | tr '\n' '|'
}

run_case() {
	local name=$1 t0=$SECONDS bad context=
	case_errors=()
	skip_reason=
	if ! declare -F "case_$name" >/dev/null; then
		echo "FAIL $WHERE $name: no such case"
		failed=$((failed + 1))
		return
	fi
	echo "na-suite: case $name begins" >/dev/kmsg
	known_state "$name"
	[ ${#case_errors[@]} -gt 0 ] || "case_$name"
	echo "na-suite: case $name ends" >/dev/kmsg
	bad=$(case_reports "$name")
	if [ -n "$bad" ]; then
		case_errors+=("kernel report: $bad")
		context=$(dmesg | kreport_context "$name" "${bad%%|*}")
	fi
	if [ -n "$skip_reason" ] && [ ${#case_errors[@]} -eq 0 ]; then
		echo "SKIP $WHERE $name ($skip_reason)"
		skipped=$((skipped + 1))
	elif [ ${#case_errors[@]} -eq 0 ]; then
		echo "PASS $WHERE $name ($((SECONDS - t0)) s)"
		passed=$((passed + 1))
	else
		local IFS=';'
		echo "FAIL $WHERE $name: ${case_errors[*]} ($((SECONDS - t0)) s)"
		[ -z "$context" ] || echo "$context"
		failed=$((failed + 1))
	fi
}

load() {
	insmod "$KO" "$@" 2>/tmp/insmod.err ||
		{ case_errors+=("insmod $*: $(cat /tmp/insmod.err)"); return 1; }
}

unload() {
	rmmod numa_advise 2>/tmp/rmmod.err ||
		{ case_errors+=("rmmod: $(cat /tmp/rmmod.err)"); return 1; }
}

loaded() { grep -q '^numa_advise ' /proc/modules; }

# start_spin CPULIST - a CPU burner pinned there; its pid in $spin_pid
start_spin() {
	# pinned before the exec, by a taskset this subshell waits for: run as
	# `taskset -c CPUS spin`, the task would run taskset's own start
	# unpinned, a good part of a second under a loaded TCG
	(taskset -pc "$1" $BASHPID >/dev/null && exec "$B/spin") &
	spin_pid=$!
}

stop_spin() {
	kill -KILL "$spin_pid" 2>/dev/null
	wait "$spin_pid" 2>/dev/null
}

# --- cases --------------------------------------------------------------------

case_load() {
	load || return
	local f
	for f in tasks nodes overhead status reset advice policy mode scope; do
		check "no $D/$f" test -e "$D/$f"
	done
	check "version in status" test "$(status version)" = \
		"$(modinfo -F version "$KO")"
	check "status nodes $(status nodes) != $(nodes)" \
		test "$(status nodes)" = "$(nodes)"
	check "debugfs files not root-only" \
		test -z "$(find $D -type f -perm /0077)"
	sleep 1
	check "no task tracked after 1 s" test "$(status tracked)" -gt 0
}

# The tables' shape follows the topology: one node column / row per node.
case_tables() {
	local n=$(nodes) i hdr t0 rows t1
	hdr=$(head -1 $D/tasks)
	check "tasks header: $hdr" test "$(echo "$hdr" | wc -w)" -eq $((n + 8))
	for ((i = 0; i < n; i++)); do
		check "tasks header lacks node${i}_ns" grep -qw "node${i}_ns" <<<"$hdr"
		check "nodes: node $i cpus $(node_col $i cpus) != $(cpus $i)" \
			test "$(node_col $i cpus)" = "$(cpus $i)"
	done
	check "nodes has $(($(wc -l <$D/nodes) - 1)) rows, want $n" \
		test "$(wc -l <$D/nodes)" -eq $((n + 1))
	check "overhead header" test "$(head -1 $D/overhead)" = \
		"probe calls mean_ns p50_ns p99_ns max_ns timed"
	# Tasks come and go while the table is read (this shell's own among
	# them): the rows are held to the fewer of the counts either side.
	# A lost page of the table would be tens of rows.
	t0=$(status tracked)
	rows=$(($(wc -l <$D/tasks) - 1))
	t1=$(status tracked)
	check "tasks has $rows rows, tracked $t0 before and $t1 after" \
		test "$rows" -ge "$(((t0 < t1 ? t0 : t1) - 5))"
}

# share PID NODE - fraction of PID's runtime spent on NODE
share() {
	awk -v n="$(task "$1" "node${2}_ns")" -v r="$(task "$1" runtime_ns)" \
		'BEGIN { printf "%.3f", (r > 0 ? n / r : 0) }'
}

# A task pinned to node 2 runs there; repinned to node 0 for as long, its
# time splits in half.  (Its start, as taskset, runs unpinned: on the
# debug kernel that takes a tenth of 3 s, so it runs NA_TIME_SCALE times
# longer there.)
case_residency() {
	local s2 s0 rt secs=$((3 * ${NA_TIME_SCALE:-1}))
	start_spin "$(cpus 2)"
	sleep $secs
	kill -STOP "$spin_pid"
	sleep 0.2
	s2=$(share "$spin_pid" 2)
	rt=$(task "$spin_pid" runtime_ns)
	check "pinned to node 2: share $s2 < 0.95" fcmp "$s2 >= 0.95"
	check "pinned 3 s: runtime ${rt}ns" fcmp "${rt:-0} >= 2.5e9"
	taskset -pc "$(cpus 0)" "$spin_pid" >/dev/null
	kill -CONT "$spin_pid"
	sleep $secs
	kill -STOP "$spin_pid"
	sleep 0.2
	s0=$(share "$spin_pid" 0)
	s2=$(share "$spin_pid" 2)
	check "repinned: node0 share $s0 not ~0.5" fcmp "$s0 > 0.35 && $s0 < 0.65"
	check "repinned: node2 share $s2 not ~0.5" fcmp "$s2 > 0.35 && $s2 < 0.65"
	check "repinned: node0+node2 $s0+$s2 < 0.95" fcmp "$s0 + $s2 >= 0.95"
	stop_spin
}

# K moves between nodes with taskset are K cross-node migrations, exactly.
case_migrations() {
	local k=6 i x0 m0 x1 m1
	start_spin "$(cpus 0)"
	sleep 0.5
	x0=$(task "$spin_pid" xnode_migrations)
	m0=$(task "$spin_pid" migrations)
	for ((i = 1; i <= k; i++)); do
		taskset -pc "$(cpus $((i % $(nodes))))" "$spin_pid" >/dev/null
		sleep 0.3
	done
	x1=$(task "$spin_pid" xnode_migrations)
	m1=$(task "$spin_pid" migrations)
	check "xnode_migrations $x0 -> $x1, want +$k" test $((x1 - x0)) -eq $k
	check "migrations $m0 -> $m1, want >= +$k" test $((m1 - m0)) -ge $k
	stop_spin
}

# lean_run MODE - a burner 1.5 s on node 0, then as long on node 2: its
# runtime is the kernel's within 1% and splits in half
lean_run() {
	local s0 s2 rt k secs=$(awk -v s="${NA_TIME_SCALE:-1}" 'BEGIN { print 1.5 * s }')
	start_spin "$(cpus 0)"
	sleep "$secs"
	taskset -pc "$(cpus 2)" "$spin_pid" >/dev/null
	sleep "$secs"
	kill -STOP "$spin_pid"
	sleep 0.2
	read -r k _ </proc/$spin_pid/schedstat
	rt=$(task "$spin_pid" runtime_ns)
	s0=$(share "$spin_pid" 0)
	s2=$(share "$spin_pid" 2)
	check "lean $1: runtime ${rt}ns vs the kernel's ${k}ns" \
		fcmp "${rt:-0} >= 0.99 * $k && ${rt:-0} <= 1.01 * $k"
	check "lean $1: node0 share $s0 not ~0.5" fcmp "$s0 > 0.35 && $s0 < 0.65"
	check "lean $1: node2 share $s2 not ~0.5" fcmp "$s2 > 0.35 && $s2 < 0.65"
	check "lean $1: node0+node2 $s0+$s2 < 0.99" fcmp "$s0 + $s2 >= 0.99"
	stop_spin
}

# Lean mode takes the probe out of the context switch and keeps residency
# exact: the same run gives the same split in both modes.  Only the CPUs'
# waiting time and switch counts stop ("-"), and they count again after.
case_lean() {
	local sw0 sw1 out
	out=$("$B/na-write" $P/lean 2)
	check "lean 2: $out" test "$out" = EINVAL
	check "lean 2 changed it" test "$(cat $P/lean)" = 0
	echo 1 >$P/lean
	check "status lean $(status lean)" test "$(status lean)" = 1
	check "nodes: switches $(node_col 0 switches) in lean mode" \
		test "$(node_col 0 switches)" = -
	lean_run 1
	echo 0 >$P/lean
	check "status lean $(status lean) after 0" test "$(status lean)" = 0
	sw0=$(node_col 0 switches)
	taskset -c "$(cpus 0)" sleep 0.3
	sw1=$(node_col 0 switches)
	check "node 0 switches $sw0 -> $sw1 after lean mode" test "$sw1" -gt "$sw0"
	lean_run 0
}

# A CPU burner on one CPU of node 3 for 3 s: node 3 is busy that long, its
# busy+idle covers its 2 CPUs, an untouched node stays mostly idle, and the
# burner's own row (still running: charged for the run in progress) agrees.
case_node_busy() {
	local n=3 quiet=1 t0 t1 t0b t1b b0 i0 q0 b1 i1 q1 x0 x1 el lo hi own k0 k1 rows
	local cpu=$(cpus $n | cut -d- -f1 | cut -d, -f1)
	local ncpu=$(taskset -c "$(cpus $n)" nproc)
	start_spin "$cpu"
	sleep 0.5
	# Snapshot the tables right beside the clock reads; parse afterwards.
	# The burner's row is read with builtins next to the kernel's own
	# count of its runtime (schedstat): a program started in between can
	# take a tenth of a second on a loaded machine.
	# The clock is read before and after each snapshot: a loaded host
	# can hold the copy up for most of a second, and the time the tables
	# cover lies between the shortest and the longest span these give.
	t0=$(now_ns) && cp $D/nodes /tmp/nodes0 && mapfile rows <$D/tasks &&
		read -r k0 _ </proc/$spin_pid/schedstat && t0b=$(now_ns) &&
		printf %s "${rows[@]}" >/tmp/tasks0
	sleep 3
	t1=$(now_ns) && cp $D/nodes /tmp/nodes1 && mapfile rows <$D/tasks &&
		read -r k1 _ </proc/$spin_pid/schedstat && t1b=$(now_ns) &&
		printf %s "${rows[@]}" >/tmp/tasks1
	stop_spin
	b0=$(tcol /tmp/nodes0 node $n busy_ns) i0=$(tcol /tmp/nodes0 node $n idle_ns)
	b1=$(tcol /tmp/nodes1 node $n busy_ns) i1=$(tcol /tmp/nodes1 node $n idle_ns)
	q0=$(tcol /tmp/nodes0 node $quiet busy_ns) q1=$(tcol /tmp/nodes1 node $quiet busy_ns)
	x0=$(tcol /tmp/tasks0 pid "$spin_pid" "node${n}_ns")
	x1=$(tcol /tmp/tasks1 pid "$spin_pid" "node${n}_ns")
	el=$((t1 - t0)) lo=$((t1 - t0b)) hi=$((t1b - t0))
	own=$((x1 - x0))
	check "node$n busy +$((b1 - b0)) vs ${lo}..${hi}ns elapsed" \
		fcmp "$((b1 - b0)) > 0.9 * $lo && $((b1 - b0)) < 1.1 * $hi"
	check "node$n busy+idle +$((b1 - b0 + i1 - i0)) vs $ncpu x ${lo}..${hi}ns" \
		fcmp "$((b1 - b0 + i1 - i0)) > 0.9 * $ncpu * $lo && $((b1 - b0 + i1 - i0)) < 1.1 * $ncpu * $hi"
	check "node$quiet busy +$((q1 - q0)) while idle" fcmp "$((q1 - q0)) < 0.25 * $el"
	check "burner's node$n time +${own}ns vs the kernel's +$((k1 - k0))ns" \
		fcmp "$own > 0.9 * $((k1 - k0)) && $own < 1.1 * $((k1 - k0)) && $own > 0.5 * $el"
}

# The probes account for themselves, and the numbers are consistent.
case_overhead() {
	local p calls mean p50 p99 max timed every ncpu=$(nproc --all)
	for p in sched_switch sched_migrate_task sched_process_free; do
		read -r calls mean p50 p99 max timed <<<"$(awk -v p=$p \
			'$1 == p { print $2, $3, $4, $5, $6, $7 }' $D/overhead)"
		check "$p: no calls" test "${calls:-0}" -gt 0
		# each CPU times its 1st, 17th, 33rd ... call; a context switch
		# one in 256, counted from load, not from the last reset
		every=16
		[ $p = sched_switch ] && every=256
		check "$p: $timed of $calls calls timed, not one in $every a CPU" \
			test "$((${timed:-0} * every))" -ge "$((${calls:-1} - every * ncpu))" -a \
			"${timed:-0}" -lt "$((${calls:-0} / every + ncpu + 1))"
		check "$p: not p50 $p50 <= p99 $p99 <= max $max" \
			test "${p50:-1}" -le "${p99:-0}" -a "${p99:-1}" -le "${max:-0}"
		check "$p: mean $mean > max $max" test "${mean:-1}" -le "${max:-0}"
		check "$p: p50 0" test "${p50:-0}" -gt 0
	done
}

# Bad writes to reset are refused with EINVAL and change nothing; "1" resets.
case_reset() {
	local gen bad out sw0 sw1 t0 t1 tot
	gen=$(status reset_generation)
	sw0=$(node_col 0 switches)
	for bad in 0 2 11 abc '1 ' ' 1' '1\n\n' '\n' '+1' 0x1 -1; do
		out=$("$B/na-write" $D/reset "$bad")
		check "reset '$bad': $out" test "$out" = EINVAL
	done
	out=$("$B/na-write" $D/reset "$(printf '1%.0s' {1..4096})")
	check "reset 4 KiB: $out" test "$out" = EINVAL
	out=$("$B/na-write" $D/reset 1 1)
	check "reset at offset 1: $out" test "$out" = EINVAL
	check "reset_generation changed by bad writes" \
		test "$(status reset_generation)" = "$gen"
	sw1=$(node_col 0 switches)
	check "node 0 switches dropped $sw0 -> $sw1 without a reset" \
		test "$sw1" -ge "$sw0"
	t0=$(now_ns)
	out=$("$B/na-write" $D/reset '1\n')
	check "reset '1\\n': $out" test "$out" = "ok 2"
	check "reset_generation not bumped" \
		test "$(status reset_generation)" = $((gen + 1))
	sw1=$(node_col 0 switches)
	check "node 0 switches $sw0 -> $sw1 after reset" test "$sw1" -lt "$sw0"
	check "sched_switch calls not reset" \
		test "$(awk '$1 == "sched_switch" { print $2 }' $D/overhead)" -lt "$sw0"
	# Runs under way at the reset count from the reset, not from their start.
	cp $D/nodes /tmp/nodes.r
	t1=$(now_ns)
	tot=$(awk 'NR > 1 { s += $3 + $4 } END { printf "%.0f", s }' /tmp/nodes.r)
	check "busy+idle $tot ns over all CPUs, $((t1 - t0)) ns after a reset" \
		fcmp "$tot <= 1.05 * $(nproc --all) * $((t1 - t0))"

	# A task's time before the reset is not counted after it, though the
	# task never left its node (no charge since it started): a burner
	# that ran, is stopped, and is reset shows no runtime; one still
	# running shows what it ran since (a CPU each: at most that long).
	local stopped running rt_s rt_r since
	start_spin 1
	stopped=$spin_pid
	start_spin 2
	running=$spin_pid
	sleep $((2 * ${NA_TIME_SCALE:-1}))
	kill -STOP "$stopped"
	sleep 0.5
	t0=$(now_ns)
	"$B/na-write" $D/reset 1 >/dev/null
	sleep $((2 * ${NA_TIME_SCALE:-1}))
	rt_s=$(task "$stopped" runtime_ns)
	rt_r=$(task "$running" runtime_ns)
	since=$(($(now_ns) - t0))
	check "stopped before the reset, ${rt_s:-no row} ns after it" \
		test "${rt_s:-1}" -eq 0
	check "running across the reset: ${rt_r:-no row} ns of $since ns since" \
		fcmp "${rt_r:-0} >= 0.5 * $since && ${rt_r:-0} <= 1.01 * $since"
	kill -KILL "$stopped" "$running"
	wait "$stopped" "$running" 2>/dev/null
}

# A CPU taken offline is neither busy nor idle while it is down, and counts
# again when it is back.
case_hotplug() {
	local n=3 cpu t0 t1 b0 i0 b1 i1 el sw0
	cpu=$(cpus $n | tr -s ',-' '  ' | awk '{ print $NF }')
	[ -w /sys/devices/system/cpu/cpu$cpu/online ] ||
		{ case_errors+=("cpu$cpu cannot go offline"); return; }
	t0=$(now_ns) && cp $D/nodes /tmp/nodes0
	echo 0 >/sys/devices/system/cpu/cpu$cpu/online
	sleep 2
	echo 1 >/sys/devices/system/cpu/cpu$cpu/online
	sleep 1
	t1=$(now_ns) && cp $D/nodes /tmp/nodes1
	b0=$(tcol /tmp/nodes0 node $n busy_ns) i0=$(tcol /tmp/nodes0 node $n idle_ns)
	b1=$(tcol /tmp/nodes1 node $n busy_ns) i1=$(tcol /tmp/nodes1 node $n idle_ns)
	el=$((t1 - t0))
	# 2 CPUs for $el, less the ~2 s one of them was down.
	check "node$n busy+idle +$((b1 - b0 + i1 - i0)) ns with cpu$cpu down 2 s of ${el} ns" \
		fcmp "$((b1 - b0 + i1 - i0)) < 2 * $el - 1.5e9 && $((b1 - b0 + i1 - i0)) > $el"
	check "cpu$cpu not back online" \
		test "$(cat /sys/devices/system/cpu/cpu$cpu/online)" = 1
	sw0=$(tcol /tmp/nodes1 node $n switches)
	taskset -c "$cpu" true
	check "no switches counted on node$n after cpu$cpu came back" \
		test "$(node_col $n switches)" -gt "$sw0"
}

# 10,000 tasks come and go: every one is freed, no row of one stays, and
# the count of tracked tasks comes back to where it was: up by the test's
# own short-lived programs only, never by one of churn's, and never by an
# old task (every task running at load has its slot from then); and it
# agrees with the table's rows.
case_churn() {
	local base after f0 f1 rows r pid comm old=() others=0 ours=() before=" " t_old
	sleep 1
	# a task started a second or more before the first look: it had a row
	t_old=$(awk '{ print int($1 * 100) - 100 }' /proc/uptime)
	mapfile -t rows <$D/tasks
	base=$((${#rows[@]} - 1))
	for r in "${rows[@]:1}"; do
		before+="${r%% *} "
	done
	f0=$(awk '$1 == "sched_process_free" { print $2 }' $D/overhead)
	"$B/churn" 10000 >/dev/null
	check "churn failed" test $? -eq 0
	stale_rows # (it waits for the frees, which come from RCU callbacks)
	settle_tracked
	after=$tracked
	for r in "${rows[@]:1}"; do
		read -r pid _ comm _ <<<"$r"
		if [[ $before == *" $pid "* ]]; then
			continue
		elif [ "$comm" = churn ]; then
			ours+=("$pid")
		elif [ -e "/proc/$pid" ] && [ "$(cat /proc/"$pid"/stat 2>/dev/null |
			awk '{ print $22 }')" -lt "$t_old" ]; then
			old+=("$pid($comm)")	# it had no row, though it ran then
		else
			others=$((others + 1))
		fi
	done
	f1=$(awk '$1 == "sched_process_free" { print $2 }' $D/overhead)
	check "tracked $base -> $after after 10000 tasks, rows of tasks gone: ${stale[*]:0:5}" \
		test ${#stale[@]} -eq 0
	check "rows of churn's tasks left: ${ours[*]:0:5}" test ${#ours[@]} -eq 0
	check "old tasks without a row before: ${old[*]:0:5}" test ${#old[@]} -eq 0
	check "tracked $base -> $after: more than the $others programs of the test" \
		test "$after" -le $((base + others + 2))
	check "tracked $after, the table has $((${#rows[@]} - 1)) rows" \
		test $((after - (${#rows[@]} - 1))) -le 2 -a $(((${#rows[@]} - 1) - after)) -le 2
	check "only $((f1 - f0)) frees seen" test $((f1 - f0)) -ge 10000
	check "dropped $(status dropped)" test "$(status dropped)" -eq 0
}

# At the cap: tracking stops at max_tasks, and every refusal is counted in
# dropped.  A task refused keeps nothing in the module (each of its events
# asks again), so once the tasks exit the count falls back and new tasks
# get slots.  The cap is 10 above the tasks alive at the start, all of
# which the default cap tracks.
case_cap() {
	local base cap sleepers=30 d0 d1 i pids=() news=() norow=()
	base=$(status tracked)
	cap=$((base + 10))
	unload || return
	load max_tasks=$cap || return
	sleep 1
	d0=$(status dropped)
	check "tracked $(status tracked) over the cap $cap" test "$(status tracked)" -le $cap
	for ((i = 0; i < sleepers; i++)); do
		sleep 60 &
		pids+=($!)
	done
	sleep 1
	d1=$(status dropped)
	# 10 of them, and a few more if some other task exited, had room
	check "dropped $d0 -> $d1 with $sleepers more tasks and room for 10" \
		test $((d1 - d0)) -ge $((sleepers / 2))
	check "tracked $(status tracked) over the cap $cap" test "$(status tracked)" -le $cap
	check "tasks rows $(($(wc -l <$D/tasks) - 1)) over the cap $cap" \
		test "$(wc -l <$D/tasks)" -le $((cap + 1))
	kill "${pids[@]}"
	wait "${pids[@]}" 2>/dev/null
	# their slots are free once their free events came (RCU callbacks)
	check "tracked $(status tracked), not back to $base after they exited" \
		wait_for 10 eval 'test "$(status tracked)" -le $((base + 5))'
	for ((i = 0; i < 5; i++)); do
		sleep 60 &
		news+=($!)
	done
	sleep 1
	for i in "${news[@]}"; do
		[ -n "$(task "$i" pid)" ] || norow+=("$i")
	done
	check "tasks started after the others exited have no row: ${norow[*]}" \
		test ${#norow[@]} -eq 0
	kill "${news[@]}"
	wait "${news[@]}" 2>/dev/null
	unload
	load
}

# Bad parameters and a missing tracepoint refuse the load with one clear
# line and leave nothing behind.
case_refuse_load() {
	local v before
	unload || return
	for v in 0 15 1048577 abc -1 ''; do
		if insmod "$KO" max_tasks="$v" 2>/dev/null; then
			case_errors+=("max_tasks='$v' accepted")
			rmmod numa_advise
		fi
	done
	check "max_tasks: no clear message" \
		eval "dmesg | grep -q 'max_tasks must be a number from 16 to 1048576'"
	for v in policy=bogus policy= mode=force interval_ms=5 gain_pm=10001 \
		margin_pm=x imbalance_pct=99 min_move_ms=-1; do
		if insmod "$KO" "$v" 2>/dev/null; then
			case_errors+=("$v accepted")
			rmmod numa_advise
		fi
	done
	check "policy: no clear message" \
		eval "dmesg | grep -q 'policy must be one of: none, home, distance'"
	check "interval_ms: no clear message" \
		eval "dmesg | grep -q 'interval_ms must be a number from 10 to 60000'"
	# Good settings at load are the settings.
	if load policy=home mode=enforce interval_ms=300; then
		check "loaded with policy $(status policy) mode $(status mode) interval $(status interval_ms)" \
			test "$(status policy)/$(status mode)/$(status interval_ms)" = home/enforce/300
		unload
	fi
	before=$(dmesg | wc -l)
	if insmod "$KO_MISSING_TP" 2>/dev/null; then
		case_errors+=("loaded without its tracepoint")
		rmmod numa_advise
	fi
	check "missing tracepoint: log says $(dmesg | tail -n +$((before + 1)))" \
		test "$(dmesg | tail -n +$((before + 1)) | grep -c 'numa_advise: kernel has no tracepoint numa_advise_test_missing; not loading')" -eq 1
	check "left loaded" eval '! loaded'
	check "left $D behind" test ! -e $D
	load
}

# Every module parameter fed bad values at load: out of range, not a
# number, overflowing, 5000 digits, format strings, bytes outside ASCII,
# no value at all, a good value then a bad one.  Each load is refused with
# a line naming the parameter, and leaves nothing behind.
case_hostile_load() {
	local p name lo hi v before long tries=0 vals
	unload || return
	long=$(printf '9%.0s' {1..5000})
	for p in max_tasks:16:1048576 interval_ms:10:60000 min_move_ms:0:3600000 \
		gain_pm:0:10000 margin_pm:0:500 imbalance_pct:100:200 lean:0:1 \
		policy mode; do
		IFS=: read -r name lo hi <<<"$p"
		vals=('' -1 abc 0x 1e3 99999999999999999999 4294967296 "$long" \
			'%s%n' $'\xff\xfe' 1,2 "'7'")
		if [ -n "$hi" ]; then
			vals+=($((hi + 1)))
			[ "$lo" -eq 0 ] || vals+=($((lo - 1)))
		else
			vals+=(Home 'home,' advise_ distance2 enforce_ none,none)
		fi
		for v in "${vals[@]}"; do
			[ "$name/$v" = "mode/'7'" ] && continue
			tries=$((tries + 1))
			before=$(dmesg | wc -l)
			if insmod "$KO" "$name=$v" 2>/dev/null; then
				case_errors+=("$name='${v:0:20}' accepted")
				rmmod numa_advise
			elif ! dmesg | tail -n +$((before + 1)) | grep -q "numa_advise: $name must be"; then
				case_errors+=("$name='${v:0:20}': log says '$(dmesg | tail -n +$((before + 1)) | head -n 1)'")
			fi
		done
	done
	for v in interval_ms 'policy=home policy=bogus' 'interval_ms=100 interval_ms=5'; do
		tries=$((tries + 1))
		# shellcheck disable=SC2086 # $v: one or two parameters
		if insmod "$KO" $v 2>/dev/null; then
			case_errors+=("'$v' accepted")
			rmmod numa_advise
		fi
	done
	echo "# hostile_load: $tries bad loads"
	check "left loaded" eval '! loaded'
	check "left $D behind" test ! -e $D
	load
}

# Load and unload 20 times while hackbench switches tasks at full speed.
case_reload_under_load() {
	local i hb sw minsw
	unload || return
	# A light load keeps every round short under emulation, and still
	# switches tasks on several CPUs thousands of times a second.
	hackbench -g 1 -f 2 -l 100000000 >/dev/null 2>&1 &
	hb=$!
	sleep 1
	for ((i = 0; i < 20; i++)); do
		load || break
		sleep 0.2
		cat $D/tasks $D/overhead >/dev/null ||
			case_errors+=("reading tables, round $i")
		sw=$(awk 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "switches") c = i }
			NR > 1 { s += $c } END { print s }' $D/nodes)
		[ "$i" -gt 0 ] && [ "$sw" -ge "$minsw" ] || minsw=$sw
		unload || break
		check "round $i: $D left behind" test ! -e $D
	done
	# The probes were busy while they were being removed.
	check "only $minsw switches seen in a round" test "${minsw:-0}" -ge 100
	echo "# reload_under_load: at least $minsw switches per round"
	check "hackbench died" kill -0 $hb
	kill $hb
	wait $hb 2>/dev/null
	load
}

# --- placement ------------------------------------------------------------------

P=/sys/module/numa_advise/parameters
# (in bash alone: the placement cases poll these, and under emulation every
# program started costs a good part of a second)
allowed() {
	local k v
	while read -r k v; do
		[ "$k" = Cpus_allowed_list: ] && { echo "$v"; return; }
	done <"/proc/$1/status" 2>/dev/null
}
all_cpus() { echo "0-$(($(nproc --all) - 1))"; }
# expand LIST - a sorted CPU or node list ("0-2,5") as "0 1 2 5"
expand() {
	local IFS=, part i out=()
	for part in $1; do
		[[ $part =~ ^[0-9]+(-[0-9]+)?$ ]] || continue
		for ((i = ${part%-*}; i <= ${part#*-}; i++)); do
			out+=("$i")
		done
	done
	echo "${out[@]}"
}
# same_list A B - the same CPUs, however written
same_list() { test "$(expand "$1")" = "$(expand "$2")"; }
mask_is() { same_list "$(allowed "$1")" "$2"; }
# threads_mask_is PID LIST - every thread of PID has that mask
threads_mask_is() {
	local t
	for t in /proc/"$1"/task/*; do
		same_list "$(allowed "$1/task/${t##*/}")" "$2" || return 1
	done
}
advice() { tcol $D/advice pid "$1" "$2"; }
advice_row() { awk -v p="$1" 'NR == 1 || $1 == p' $D/advice | tr '\n' '|'; }
advice_rows() { awk -v p=" $* " 'NR == 1 || index(p, " " $1 " ")' $D/advice | tr '\n' '|'; }
# cpus_of_nodes N... - the CPU list of those nodes
cpus_of_nodes() {
	local n l=
	for n; do l+=$(cpus "$n"),; done
	echo "${l%,}"
}
# last_cpu PID - the CPU it ran on last (field 39 of stat; comm has no spaces)
last_cpu() { awk '{ print $39 }' /proc/"$1"/stat; }
# mask_avoids PID LIST - PID may run anywhere, or on no CPU in LIST
mask_avoids() {
	local c mine
	mask_is "$1" "$(all_cpus)" && return 0
	mine=$(expand "$(allowed "$1")")
	for c in $(expand "$2"); do
		grep -qw "$c" <<<"$mine" && return 1
	done
	return 0
}
# log_since LINES - the kernel log's lines after the first LINES that are
# the module's or a report (not, say, "hrtimer: interrupt took ...", which
# a loaded host causes)
log_since() {
	dmesg | tail -n +$(($1 + 1)) | kreport_lines "" numa_advise
}

# wait_for SECONDS COMMAND... - poll until COMMAND succeeds, for SECONDS
# times NA_TIME_SCALE (default 1; run.sh gives the debug kernel more)
wait_for() {
	local end=$((SECONDS + $1 * ${NA_TIME_SCALE:-1}))
	shift
	until "$@"; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.3
	done
}

# engine_setup - fast rounds, the kernel's own NUMA balancing out of the way
engine_setup() {
	[ -w /proc/sys/kernel/numa_balancing ] &&
		echo 0 >/proc/sys/kernel/numa_balancing
	echo 200 >$P/interval_ms
	echo 1000 >$P/min_move_ms
}

engine_reset() {
	echo none >$D/policy
	echo advise >$D/mode
	echo clear >$D/scope
	echo 1000 >$P/interval_ms
	echo 5000 >$P/min_move_ms
}

# start_mt [PROGRAM] ARGS... - a memtouch job, placed as ARGS say; its pid
# in $mt_pid, its output in /tmp/mt.$mt_pid, every pid in mt_pids.
# The output file keeps the name the job opens and /tmp/mt.PID links to
# it: renamed once $! was known, it was sometimes renamed before the
# forked shell had opened it, which then made a new file under the old
# name, and the job's "ready" went there (the "stalled job" of issue 17:
# tests/repro-stall.sh, README "The stalled job").
mt_pids=()
start_mt() {
	local prog=$B/memtouch out
	[ "${1#/}" != "$1" ] && { prog=$1; shift; }
	out=$(mktemp /tmp/mt.XXXXXX)
	"$prog" "$@" >"$out" &
	mt_pid=$!
	mt_pids+=($!)
	ln -sf "$out" /tmp/mt.$mt_pid
	wait_for 20 grep -q ready /tmp/mt.$mt_pid ||
		{ case_errors+=("memtouch $* not ready: $(mt_state $mt_pid)"); return 1; }
}

# mt_state PID - where a job that is not ready (or any process that is
# late) got to: its state, what it
# waits in, the CPU time it had, how much it has touched, and the memory
# free on each node
mt_state() {
	local st k v n free=
	st=$(awk '{ print "state " $3 ", cpu " $14 "+" $15 " ticks, on cpu " $39 }' \
		/proc/"$1"/stat 2>/dev/null) || { echo "exited"; return; }
	while read -r k v; do
		[ "$k" = VmRSS: ] && st+=", rss ${v// /}"
	done <"/proc/$1/status"
	st+=", wchan $(cat /proc/"$1"/wchan 2>/dev/null), mask $(allowed "$1")"
	st+=", stack $(head -n 4 /proc/"$1"/stack 2>/dev/null | awk '{ printf "%s ", $2 }')"
	for n in /sys/devices/system/node/node[0-9]*; do
		free+=" $(awk '/MemFree/ { print $4 }' "$n"/meminfo)"
	done
	echo "$st, free kB per node:$free"
}

stop_mt() {
	local p c
	for p in "${mt_pids[@]}"; do
		c=$(awk '/^(grand)?child/ { print $2 }' /tmp/mt.$p 2>/dev/null)
		kill -KILL "$p" $c 2>/dev/null
		wait "$p" 2>/dev/null
		rm -f "$(readlink /tmp/mt.$p)" /tmp/mt.$p
	done
	mt_pids=()
}

# Bad names, numbers and rules, through debugfs and module parameters, are
# refused with EINVAL, change nothing and log nothing.
case_settings() {
	local f bad out lines
	lines=$(dmesg | wc -l)
	for f in policy mode; do
		for bad in foo Home 'home ' ' home' 'home\n\n' '\n' '' enforce none2 \
			advise_ "$(printf 'x%.0s' {1..100})"; do
			[ "$f/$bad" = mode/enforce ] && continue
			out=$("$B/na-write" $D/$f "$bad")
			check "$f '$bad': $out" test "$out" = EINVAL
		done
		# a seq_file: the VFS refuses a write at an offset itself
		out=$("$B/na-write" $D/$f none 1)
		check "$f at offset 1: $out" test "$out" = ESPIPE
	done
	check "policy changed to $(status policy)" test "$(status policy)" = none
	check "mode changed to $(status mode)" test "$(status mode)" = advise
	out=$("$B/na-write" $D/policy 'distance\n')
	check "policy 'distance\\n': $out" test "$out" = "ok 9"
	check "policy reads $(cat $D/policy)" test "$(cat $D/policy)" = distance
	check "policy parameter reads $(cat $P/policy)" test "$(cat $P/policy)" = distance
	echo none >$D/policy

	for bad in include 'include pid' 'include pid 0' 'include pid -3' \
		'include pid 12x' 'include pid 1 2' 'include  pid 1' \
		'include comm 0123456789abcdef' 'include cgroup rel' \
		'exclude user 1' 'clear all' 'include comm a\nb'; do
		out=$("$B/na-write" $D/scope "$bad")
		check "scope '$bad': $out" test "$out" = EINVAL
	done
	check "bad rules changed the scope: $(cat $D/scope)" test -z "$(cat $D/scope)"
	out=$("$B/na-write" $D/scope 'exclude comm sshd\n')
	check "scope 'exclude comm sshd': $out" test "$out" = "ok 18"
	echo 'include cgroup /' >$D/scope
	check "scope reads back $(cat $D/scope | tr '\n' '|')" \
		test "$(cat $D/scope | tr '\n' '|')" = "exclude comm sshd|include cgroup /|"
	echo clear >$D/scope
	check "scope not cleared" test -z "$(cat $D/scope)"

	for bad in 0 9 60001 abc -1 '' 1e3 ' 100'; do
		echo "$bad" >$P/interval_ms 2>/dev/null &&
			case_errors+=("interval_ms '$bad' accepted")
	done
	check "interval_ms changed to $(cat $P/interval_ms)" test "$(cat $P/interval_ms)" = 1000
	for bad in bogus '' 'home home' 11; do
		echo "$bad" >$P/policy 2>/dev/null &&
			case_errors+=("policy parameter '$bad' accepted")
		echo "$bad" >$P/mode 2>/dev/null &&
			case_errors+=("mode parameter '$bad' accepted")
	done
	check "policy parameter changed to $(cat $P/policy)" test "$(cat $P/policy)" = none
	check "refused writes logged: $(log_since "$lines" | head -2)" \
		test -z "$(log_since "$lines")"
	echo 250 >$P/interval_ms
	check "status interval_ms $(status interval_ms)" test "$(status interval_ms)" = 250
	echo 1000 >$P/interval_ms
}

# A memory-bound job whose pages are on node 1, moved to node 3 and let go:
# advice sends it home to node 1 and advise mode moves nothing; enforce
# pins it there and it runs there; advise again gives its mask back.
case_home() {
	local pid moves
	engine_setup
	start_mt -a "$(cpus 1)" -b "$(cpus 3)" || return
	pid=$mt_pid
	moves=$(status moves)
	echo home >$D/policy
	wait_for 15 eval 'test "$(advice $pid target)" = 1 -a "$(advice $pid mem)" = 1' ||
		case_errors+=("advice for a job with its memory on node 1: $(advice_row $pid)")
	check "advise mode changed the mask to $(allowed $pid)" mask_is $pid "$(all_cpus)"
	check "advise mode moved $(($(status moves) - moves)) tasks" \
		test "$(status moves)" -eq "$moves"
	echo enforce >$D/mode
	wait_for 15 mask_is $pid "$(cpus 1)" ||
		case_errors+=("enforce: mask $(allowed $pid), want $(cpus 1): $(advice_row $pid)")
	sleep 1
	check "enforce: runs on cpu $(last_cpu $pid), not on node 1" \
		eval 'expand "$(cpus 1)" | grep -qw "$(last_cpu $pid)"'
	check "tasks: home $(task $pid home) mem $(task $pid mem)" test "$(task $pid mem)" = 1
	echo advise >$D/mode
	check "advise again: mask $(allowed $pid)" mask_is $pid "$(all_cpus)"
	stop_mt
	engine_reset
}

# two_a_node PID... - the first two narrowed to node 1, the next two to
# node 2, and so on
two_a_node() {
	local i
	for ((i = 0; i < $#; i++)); do
		mask_is "${@:i + 1:1}" "$(cpus $((i / 2 + 1)))" || return 1
	done
}

# mem_is_node PID... - the module sees the memory of the Ith PID on node
# I / 2 + 1, as two_a_node has them
mem_is_node() {
	local i
	for ((i = 0; i < $#; i++)); do
		[ "$(advice "${@:i + 1:1}" mem)" = $((i / 2 + 1)) ] || return 1
	done
}

# Six memory-bound jobs, two a node on nodes 1-3 (node 0 runs this
# script), each placed on its memory's node.  Then the pages of a job on
# node 2 and of one on node 3 are moved to the other's node
# (migratepages): each belongs where the other runs, and both nodes are
# full.  Neither can move alone (placed tasks keep their room): they trade
# places (`swaps`), and then stay: no trade back, no move.
case_swap() {
	local n p pids=() a b s0 m0
	engine_setup
	# Pinned until the module has seen each one's memory, then free: left
	# free from the start, the first ones ran on node 0's idle CPUs while
	# the others started (slowly, on the KCSAN kernel), and one was placed
	# there by that history before its memory was known.
	for n in 1 2 3; do
		start_mt -m 4 -p -a "$(cpus $n)" || return
		pids+=("$mt_pid")
		start_mt -m 4 -p -a "$(cpus $n)" || return
		pids+=("$mt_pid")
	done
	echo home >$D/policy
	wait_for 30 mem_is_node "${pids[@]}" ||
		{ case_errors+=("memory not seen: $(advice_rows "${pids[@]}")"); stop_mt; engine_reset; return; }
	for p in "${pids[@]}"; do
		taskset -pc "$(all_cpus)" "$p" >/dev/null
	done
	echo enforce >$D/mode
	wait_for 30 two_a_node "${pids[@]}" ||
		{ case_errors+=("not placed two a node by memory: $(advice_rows "${pids[@]}")"); stop_mt; engine_reset; return; }
	a=${pids[2]} b=${pids[4]}
	s0=$(status swaps)
	# Everyone held while the pages move, and until the loads that the
	# moves slowed have come back: room that shows only meanwhile would
	# let one of the two move alone.  Stopped meanwhile: pages a job
	# keeps writing move very slowly here.
	echo 600000 >$P/min_move_ms
	kill -STOP "$a" "$b"
	migratepages "$a" 2 3 && migratepages "$b" 3 2 ||
		case_errors+=("migratepages failed")
	kill -CONT "$a" "$b"
	wait_for 20 eval 'test "$(advice $a mem)/$(advice $b mem)" = 3/2' ||
		case_errors+=("memory nodes not seen: $(advice_rows "$a" "$b")")
	sleep 3
	echo 1000 >$P/min_move_ms
	wait_for 30 eval 'mask_is $a "$(cpus 3)" && mask_is $b "$(cpus 2)"' ||
		case_errors+=("not traded: $a mask $(allowed $a), $b mask $(allowed $b): $(advice_rows "${pids[@]}")")
	check "swaps $(status swaps), was $s0" test "$(status swaps)" -gt "$s0"
	# five holds (min_move_ms 1000) and 25 rounds later, nothing moved
	s0=$(status swaps) m0=$(status moves)
	sleep 5
	check "swaps then $(status swaps), was $s0" test "$(status swaps)" = "$s0"
	check "moves then $(status moves), was $m0" test "$(status moves)" = "$m0"
	check "masks then: $a $(allowed $a), $b $(allowed $b)" \
		eval 'mask_is $a "$(cpus 3)" && mask_is $b "$(cpus 2)"'
	stop_mt
	engine_reset
}

# With node 2 saturated (four burners on its two CPUs) it is overloaded,
# and nothing is advised into it, not even a job whose memory is there.
case_classify() {
	local pid i bad seen spins=()
	engine_setup
	start_mt -a "$(cpus 2)" -b "$(cpus 3)" || return
	pid=$mt_pid
	for i in 1 2 3 4; do
		taskset -c "$(cpus 2)" "$B/spin" &
		spins+=($!)
	done
	echo home >$D/policy
	wait_for 20 eval 'test "$(node_col 2 class)" = overloaded' ||
		case_errors+=("node 2 not overloaded: $(tr '\n' '|' <$D/nodes)")
	wait_for 15 eval 'test "$(advice $pid mem)" = 2' ||
		case_errors+=("memory node: $(advice_row $pid)")
	echo enforce >$D/mode
	seen=
	for i in 1 2 3 4 5 6 7 8; do
		[ "$(advice $pid reason)" = best-node-overloaded ] && seen=1
		# rows advised onto node 2 from elsewhere
		bad=$(awk 'function has(l, n,   a, r, i, j, b) {
				r = split(l, a, ",")
				for (i = 1; i <= r; i++) {
					split(a[i], b, "-")
					if (n >= b[1] && n <= (b[2] == "" ? b[1] : b[2])) return 1
				}
				return 0
			}
			NR > 1 && has($6, 2) && !has($5, 2)' $D/advice)
		check "advised into overloaded node 2: $bad" test -z "$bad"
		sleep 0.5
	done
	# Held for min_move_ms after a move, it shows why it stays meanwhile.
	check "never kept from node 2 as overloaded: $(advice_row $pid)" \
		test -n "$seen"

	# Pinned to where it runs (its home, node 3) is fine; into node 2 is not.
	check "moved into node 2: mask $(allowed $pid)" mask_avoids $pid "$(cpus 2)"
	kill -KILL "${spins[@]}"
	wait "${spins[@]}" 2>/dev/null
	stop_mt
	engine_reset
}

# settings_now - every setting, on one line
settings_now() {
	local f
	for f in policy mode interval_ms min_move_ms gain_pm margin_pm imbalance_pct lean; do
		printf '%s=%s ' $f "$(cat $P/$f)"
	done
	echo "scope=$(tr '\n' '|' <$D/scope)"
}

# Hostile writes to every setting, debugfs files and parameters alike (see
# tests/helpers/na-fuzz.c): each is taken or refused as a model of the
# module says, first one writer at a time, then two writers and a reader at
# once, while the engine places two jobs as the writes switch policy and
# mode.  Afterwards the module runs, every setting is as it was, every mask
# is back and the kernel said nothing.  NA_FUZZ_SEED repeats a run.
case_hostile() {
	local seed=${NA_FUZZ_SEED:-$(date +%s)} writes=${NA_FUZZ_WRITES:-3000}
	local secs=${NA_FUZZ_SECS:-10} before lines rc
	engine_setup
	before=$(settings_now)
	masks_snapshot /tmp/masks0
	start_mt -a "$(cpus 1)" -b "$(cpus 3)" || return
	start_mt -t 2 -a "$(cpus 2)" || return
	lines=$(dmesg | wc -l)
	"$B/na-fuzz" -s "$seed" -n "$writes" -j 2 -r 1 -t "$secs" >/tmp/fuzz.out 2>&1
	rc=$?
	echo "# hostile: $B/na-fuzz -s $seed -n $writes -j 2 -r 1 -t $secs:" \
		"$(grep -E '^na-fuzz: (one writer|writer|reader)' /tmp/fuzz.out |
			sed 's/^na-fuzz: //' | paste -s -d ';' | sed 's/;/; /g')"
	check "na-fuzz rc $rc: $(grep -vE '^na-fuzz: (seed|one writer|writer|reader|ok|FAILED)' \
		/tmp/fuzz.out | head -3 | tr '\n' '|')" test $rc -eq 0
	check "module gone" loaded
	check "status unreadable" test -n "$(status tracked)"
	check "settings were: $before; now: $(settings_now)" \
		test "$(settings_now)" = "$before"
	stop_mt
	engine_reset
	masks_snapshot /tmp/masks1
	check "masks changed: $(join /tmp/masks0 /tmp/masks1 | awk '$2 != $3' | head -3 | tr '\n' '|')" \
		test -z "$(join /tmp/masks0 /tmp/masks1 | awk '$2 != $3')"
	check "kernel log: $(log_since "$lines" | head -2 | tr '\n' '|')" \
		test -z "$(log_since "$lines")"
}

# user_task PROC_TASK_DIR - not a kernel thread (PF_KTHREAD in the flags,
# the ninth field of stat).  The module never touches kernel threads, and
# the kernel moves some itself: a workqueue rescuer (mm_percpu_wq) binds
# itself to each CPU it rescues work on.
user_task() {
	local stat f
	read -r stat <"$1/stat" 2>/dev/null || return 1
	read -r -a f <<<"${stat##*) }"
	((!(f[6] & 0x00200000)))
}

# masks_snapshot FILE - "pid mask" of every user task there is
masks_snapshot() {
	local t
	for t in /proc/[0-9]*/task/[0-9]*; do
		user_task "$t" && echo "${t##*/} $(allowed "${t#/proc/}")"
	done | grep -v ' $' | sort >"$1"
}

# every_mask_full PID... - every thread of each has all CPUs again
every_mask_full() {
	local p
	for p; do
		threads_mask_is "$p" "$(all_cpus)" || return 1
	done
}

# Every mask the engine narrowed is put back by policy none, by advise mode
# and by rmmod, a child forked by a placed task included; no other task's
# mask ever changes.
case_restore() {
	local a b child grandchild c i bystanders=() pins=()
	engine_setup
	# tasks the engine has no reason to touch, some pinned by their user
	for c in "$(all_cpus)" 0 "$(cpus 1)" "$(cpus 2),7"; do
		taskset -c "$c" sleep 600 &
		bystanders+=($!)
		pins+=("$c")
	done
	# each has its own mask, not yet the shell's (node 0) it forked with
	for i in "${!bystanders[@]}"; do
		wait_for 10 mask_is "${bystanders[i]}" "${pins[i]}" ||
			case_errors+=("bystander ${bystanders[i]}: mask $(allowed "${bystanders[i]}"), want ${pins[i]}")
	done
	masks_snapshot /tmp/masks0
	start_mt -a "$(cpus 1)" -b "$(cpus 3)" || { kill "${bystanders[@]}"; return; }
	a=$mt_pid
	start_mt -t 2 -a "$(cpus 2)" || { kill "${bystanders[@]}"; return; }
	b=$mt_pid
	echo home >$D/policy
	echo enforce >$D/mode
	wait_for 20 mask_is $a "$(cpus 1)" ||
		case_errors+=("not placed: $(advice_row $a)")
	# placed: now it forks a child, which at once forks a grandchild
	kill -USR1 $a
	wait_for 20 grep -q '^grandchild' /tmp/mt.$a ||
		case_errors+=("no child forked")
	child=$(awk '/^child/ { print $2 }' /tmp/mt.$a)
	grandchild=$(awk '/^grandchild/ { print $2 }' /tmp/mt.$a)
	wait_for 20 eval 'test "$(status placed)" -ge 4' ||
		case_errors+=("placed $(status placed), want >= 4 (with the child and grandchild)")
	check "child of a placed task: mask $(allowed $child), parent's $(allowed $a): $(advice_row $child)" \
		mask_is "$child" "$(allowed $a)"
	check "grandchild: mask $(allowed $grandchild), parent's $(allowed $a): $(advice_row $grandchild)" \
		mask_is "$grandchild" "$(allowed $a)"

	echo none >$D/policy
	check "policy none: masks $(allowed $a) $(allowed $b) $(allowed $child) $(allowed $grandchild)" \
		every_mask_full $a $b $child $grandchild
	check "policy none: placed $(status placed)" test "$(status placed)" -eq 0
	echo home >$D/policy
	wait_for 20 eval '! every_mask_full $a $b' ||
		case_errors+=("not placed again")
	echo advise >$D/mode
	check "advise: masks $(allowed $a) $(allowed $b)" every_mask_full $a $b
	echo enforce >$D/mode
	wait_for 20 eval '! every_mask_full $a $b' ||
		case_errors+=("not placed a third time")
	unload
	check "rmmod: masks $(allowed $a) $(allowed $b) $(allowed $child)" \
		every_mask_full $a $b $child
	stop_mt
	masks_snapshot /tmp/masks1
	kill "${bystanders[@]}"
	wait "${bystanders[@]}" 2>/dev/null
	check "only $(wc -l </tmp/masks0) tasks' masks seen" \
		test "$(wc -l </tmp/masks0)" -ge 6
	check "masks changed: $(join /tmp/masks0 /tmp/masks1 | awk '$2 != $3' | head -3 | tr '\n' '|')" \
		test -z "$(join /tmp/masks0 /tmp/masks1 | awk '$2 != $3')"
	load
}

# live_tasks - how many tasks (threads) there are
live_tasks() {
	local t n=0
	for t in /proc/[0-9]*/task/[0-9]*; do
		n=$((n + 1))
	done
	echo $n
}

# stale_rows - set $stale to the pids of the tasks table whose task has
# been gone for good.  A reaped task leaves /proc at once but is freed
# (sched_process_free) only after an RCU grace period, which under TCG, and
# on the debug kernel after a storm of exits, can take seconds; and every
# program the test itself runs is in the table and gone soon after.  So the
# rows whose task is gone now are noted, and those still there after a
# second are looked at again, for up to 30 s.  Builtins only: a program
# run here would be one more such row.
stale=()
stale_rows() {
	local rows r i gone=()
	mapfile -t rows <$D/tasks
	for r in "${rows[@]:1}"; do
		[ -e "/proc/${r%% *}" ] || gone+=("${r%% *}")
	done
	for ((i = 0; i < 30 * ${NA_TIME_SCALE:-1} && ${#gone[@]}; i++)); do
		sleep 1
		mapfile -t rows <$D/tasks
		stale=()
		for r in "${rows[@]:1}"; do
			[[ " ${gone[*]} " == *" ${r%% *} "* ]] && stale+=("${r%% *}")
		done
		gone=("${stale[@]}")
	done
	stale=("${gone[@]}")
}

# settle_tracked - wait until the slots the module holds are the rows of
# `tasks`, give or take 2 (a program of the test's own), for up to 30 s:
# a task gone from /proc stops having a row at once, but keeps its slot
# until its free event, which comes from an RCU callback and, after 10,000
# exits on the debug kernel, seconds late (KCSAN: 18 slots of 108 still
# held after stale_rows).  A slot never freed still fails the checks after
# it.  No program but sleep.  Sets tracked and rows (the table, header
# first).
tracked='' rows=()
settle_tracked() {
	local i k v
	for ((i = 0; i <= 30 * ${NA_TIME_SCALE:-1}; i++)); do
		((i == 0)) || sleep 1
		while read -r k v; do
			[ "$k" = tracked ] && tracked=$v
		done <$D/status
		mapfile -t rows <$D/tasks
		if ((tracked - (${#rows[@]} - 1) <= 2)); then
			((i == 0)) || echo "# ${FUNCNAME[1]#case_}: the last frees came $i s late"
			return
		fi
	done
}

# While every kind of churn runs at once for NA_STORM_SECS (default 15):
# fork and exec storms, thread groups made and unmade, threads changing
# their own affinity, two CPUs going offline and online, the policy and
# mode switched every second, and two jobs the engine places.  Afterwards
# the jobs' masks are back, the threads' masks are what they last chose,
# no other mask changed, the module tracks no task that is gone and the
# kernel reported nothing.
case_storm() {
	local secs=${NA_STORM_SECS:-15} end i c word tid list bad="" loops=()
	local sp hp=/sys/devices/system/cpu
	engine_setup
	echo 50 >$P/interval_ms
	echo 0 >$P/min_move_ms
	sleep 1
	masks_snapshot /tmp/masks0
	start_mt -m 4 -t 2 -a "$(cpus 1)" || return
	start_mt -m 4 -a "$(cpus 2)" -b "$(cpus 3)" || return
	taskset -c "$(all_cpus)" "$B/selfpin" 4 "$secs" >/tmp/selfpin.out &
	sp=$!
	end=$((SECONDS + secs))
	: >/tmp/storm.count
	(while [ $SECONDS -lt $end ]; do
		"$B/churn" 500 >/dev/null && echo tasks 500
	done >>/tmp/storm.count) &
	loops+=($!)
	(while [ $SECONDS -lt $end ]; do
		"$B/churn" -x 20 >/dev/null && echo execs 10
	done >>/tmp/storm.count) &
	loops+=($!)
	(while [ $SECONDS -lt $end ]; do
		for c in 3 5; do echo 0 >$hp/cpu$c/online; done
		sleep 0.5
		for c in 3 5; do echo 1 >$hp/cpu$c/online; done
		sleep 0.5
		echo hotplug 2
	done >>/tmp/storm.count) &
	loops+=($!)
	for ((i = 0; SECONDS < end; i++)); do
		case $((i % 4)) in
		0) echo home >$D/policy; echo enforce >$D/mode ;;
		1) echo distance >$D/policy ;;
		2) echo advise >$D/mode ;;
		3) echo enforce >$D/mode ;;
		esac
		sleep 1
	done
	wait "${loops[@]}"
	for c in 3 5; do
		check "cpu$c left offline" grep -q 1 $hp/cpu$c/online
	done
	wait_for 60 grep -q '^done' /tmp/selfpin.out ||
		case_errors+=("selfpin did not finish: $(tr '\n' '|' </tmp/selfpin.out)")
	echo advise >$D/mode
	check "advise: job masks $(allowed "${mt_pids[0]}") $(allowed "${mt_pids[1]}")" \
		every_mask_full "${mt_pids[@]}"
	stop_mt
	sleep 2
	# (the idle tasks, one a CPU, are tracked and not in /proc)
	check "tracked $(status tracked), more than the $(live_tasks) tasks there are" \
		test "$(status tracked)" -le $(($(live_tasks) + $(nproc --all)))
	stale_rows
	check "rows of tasks gone: ${stale[*]:0:5}" test ${#stale[@]} -eq 0
	check "dropped $(status dropped)" test "$(status dropped)" -eq 0
	echo "# storm: ${secs} s; $(awk '{ n[$1] += $2 } END {
		printf "%d tasks (%d of them exec), %d CPU offline/online cycles",
			n["tasks"] + n["execs"] * 2, n["execs"], n["hotplug"] }' /tmp/storm.count);" \
		"moves $(status moves), restores $(status restores)," \
		"overridden $(status overridden), apply_errors $(status apply_errors)"
	unload
	while read -r word tid list; do
		[ "$word" = final ] || continue
		same_list "$(allowed "$sp/task/$tid")" "$list" ||
			bad+="$tid $(allowed "$sp/task/$tid") not $list;"
	done </tmp/selfpin.out
	check "threads' own masks lost: $bad" test -z "$bad"
	check "selfpin printed no mask" grep -q '^final' /tmp/selfpin.out
	kill "$sp"
	wait "$sp" 2>/dev/null
	masks_snapshot /tmp/masks1
	check "masks changed: $(join /tmp/masks0 /tmp/masks1 | awk '$2 != $3' | head -3 | tr '\n' '|')" \
		test -z "$(join /tmp/masks0 /tmp/masks1 | awk '$2 != $3')"
	# with the module unloaded, so kmemleak can name its leaks; only what
	# came after this case began (an earlier case's report is that case's)
	bad=$(kernel_reports "na-suite: case storm begins" | tr '\n' '|')
	check "kernel: $bad" test -z "$bad"
	load
	engine_reset
}

# The module unloaded while its engine places jobs, at a different moment
# each time: no mask is ever left narrowed.
case_unload_mid_apply() {
	local i n placed=0 p
	engine_setup
	unload || return
	for n in 1 2 3; do
		# a job that is not ready must not leave the later cases with
		# no module
		start_mt -m 4 -a "$(cpus $n)" || { stop_mt; load; return; }
	done
	for ((i = 0; i < 5; i++)); do
		load policy=home mode=enforce interval_ms=10 min_move_ms=0 || break
		sleep "0.$((RANDOM % 10))"
		p=$(status placed)
		[ "${p:-0}" -gt 0 ] && placed=$((placed + 1))
		unload || break
		for p in "${mt_pids[@]}"; do
			threads_mask_is "$p" "$(all_cpus)" ||
				case_errors+=("round $i: $p left with $(allowed "$p")")
		done
	done
	echo "# unload_mid_apply: $placed of $i rounds unloaded with tasks placed"
	check "no round unloaded with a task placed" test $placed -gt 0
	stop_mt
	load
}

# --- faults at scale (make check runs them small; make check-stress and
# make check-debug at the sizes the knobs give) ---------------------------

# start_hb GROUPS - hackbench with GROUPS groups of 20 senders and 20
# receivers on every CPU (not only the suite's own node 0), its pid in
# $hb; at nice 19, so that the suite's shell still gets a CPU among them
start_hb() {
	local i p
	taskset -c "$(all_cpus)" nice -n 19 hackbench -g "$1" -l 100000000 >/dev/null 2>&1 &
	hb=$!
	# Returns once taskset has set the mask and hackbench runs in its
	# place: a case that takes CPUs offline must not do so before, as
	# 6.1 gives sched_setaffinity() only the CPUs online at the time.
	for ((i = 0; i < 100; i++)); do
		[ "$(cat /proc/$hb/comm 2>/dev/null)" = hackbench ] && break
		sleep 0.05
	done
	[ $i -lt 100 ] || { case_errors+=("hackbench did not start"); return; }
	# and once all its processes are there (40 a group and itself), the
	# status files of their threads, for hb_narrowed
	hb_files=()
	for ((i = 0; i < 120; i++)); do
		[ "$(pgrep -c -x hackbench)" -gt $((40 * $1)) ] && break
		sleep 0.5
	done
	for p in $(pgrep -x hackbench); do
		hb_files+=(/proc/"$p"/task/*/status)
	done
	[ ${#hb_files[@]} -gt $((40 * $1)) ] ||
		case_errors+=("hackbench -g $1: ${#hb_files[@]} threads")
}

# hb_narrowed - the hackbench threads that do not have all CPUs: "status
# file, mask", the first three, from the files start_hb listed.  One awk:
# on a debug kernel under hackbench -g 4 an exec costs a second or more,
# and finding the 160 processes again (pgrep) three times that
# (fault_reload asks after each of its 100 unloads).
hb_files=()
hb_narrowed() {
	awk -v all="$(all_cpus)" '$1 == "Cpus_allowed_list:" && $2 != all { print FILENAME, $2 }' \
		"${hb_files[@]}" 2>/dev/null | head -n 3 | tr '\n' ' '
}

# NA_RELOAD_CYCLES loads and unloads (default 10; 100 in check-stress and
# check-debug) under hackbench -g NA_HB_GROUPS (default 1; 4 there), each
# load placing at once (home, enforce, a round every 10 ms): every unload
# puts every mask back, and hackbench runs on throughout.
case_fault_reload() {
	local cycles=${NA_RELOAD_CYCLES:-10} i hb bad placed=0 p ms
	unload || return
	start_hb "${NA_HB_GROUPS:-1}"
	sleep 2
	for ((i = 1; i <= cycles; i++)); do
		load policy=home mode=enforce interval_ms=10 min_move_ms=0 || break
		# 0.1 to 0.5 s, NA_TIME_SCALE times that on a slower kernel,
		# so that some cycles unload with tasks placed
		ms=$(((RANDOM % 5 + 1) * 100 * ${NA_TIME_SCALE:-1}))
		sleep "$((ms / 1000)).$(printf %03d $((ms % 1000)))"
		p=$(status placed)
		[ "${p:-0}" -gt 0 ] && placed=$((placed + 1))
		unload || break
		bad=$(hb_narrowed)
		[ -z "$bad" ] || { case_errors+=("cycle $i: hackbench $bad left narrowed"); break; }
		kill -0 $hb 2>/dev/null || { case_errors+=("cycle $i: hackbench died"); break; }
	done
	echo "# fault_reload: $((i - 1)) of $cycles cycles, $placed unloaded with tasks placed"
	check "$((i - 1)) of $cycles cycles" test $((i - 1)) -eq "$cycles"
	kill $hb
	wait $hb 2>/dev/null
}

# Jobs placed on node 3, and node 3's CPUs taken offline under them and
# brought back: the jobs run on throughout (the kernel moves them off),
# and on policy none every mask comes back whole.
case_fault_node_offline() {
	local n=3 c cl pids=() t0=() t1 p i hp=/sys/devices/system/cpu
	engine_setup
	cl=$(expand "$(cpus $n)")	# (offline CPUs leave the node's list)
	start_mt -m 4 -a "$(cpus $n)" || return
	pids+=("$mt_pid")
	start_mt -m 4 -a "$(cpus $n)" || return
	pids+=("$mt_pid")
	echo home >$D/policy
	echo enforce >$D/mode
	wait_for 30 eval 'mask_is ${pids[0]} "$(cpus $n)" && mask_is ${pids[1]} "$(cpus $n)"' ||
		{ case_errors+=("not placed on node $n: $(advice_rows "${pids[@]}")"); return; }
	for p in "${pids[@]}"; do
		t0+=("$(awk '{ print $14 + $15 }' /proc/"$p"/stat)")
	done
	for c in $cl; do
		echo 0 >$hp/cpu$c/online || case_errors+=("cpu$c did not go offline")
	done
	sleep 3
	for ((i = 0; i < ${#pids[@]}; i++)); do
		p=${pids[i]}
		t1=$(awk '{ print $14 + $15 }' /proc/"$p"/stat 2>/dev/null)
		check "job $p with node $n offline: cpu ticks ${t0[i]} -> ${t1:-gone}" \
			test "${t1:-0}" -gt "${t0[i]}"
	done
	for c in $cl; do
		echo 1 >$hp/cpu$c/online || case_errors+=("cpu$c did not come back")
	done
	sleep 1
	echo none >$D/policy
	wait_for 10 every_mask_full "${pids[@]}" ||
		case_errors+=("masks after policy none: $(for p in "${pids[@]}"; do
			printf '%s %s ' "$p" "$(allowed "$p")"; done)")
	stop_mt
	engine_reset
}

# insmod and rmmod in a loop (placing, as above) while another loop takes
# CPUs of nodes 1 and 2 offline and brings them back, for NA_FAULT_SECS
# (default 20; 120 in check-stress and check-debug), and on until there
# were 3 loads and 3 offlines at least: a loaded host can make a load take
# seconds.
case_fault_hotplug_reload() {
	local secs=${NA_FAULT_SECS:-20} end limit loads=0 toggles hp=/sys/devices/system/cpu c
	local hb toggler
	unload || return
	start_hb 1
	end=$((SECONDS + secs)) limit=$((SECONDS + 5 * secs))
	rm -f /tmp/toggles /tmp/toggle.stop
	(
		n=0
		while [ ! -e /tmp/toggle.stop ]; do
			for c in 3 5; do
				echo 0 >$hp/cpu$c/online && n=$((n + 1))
				echo $n >/tmp/toggles
				sleep 0.$((RANDOM % 5))
				echo 1 >$hp/cpu$c/online
			done
		done
	) &
	toggler=$!
	while [ $SECONDS -lt $limit ]; do
		toggles=$(cat /tmp/toggles 2>/dev/null)
		[ $SECONDS -ge $end ] && [ $loads -ge 3 ] && [ "${toggles:-0}" -ge 3 ] && break
		load policy=home mode=enforce interval_ms=10 min_move_ms=0 || break
		sleep 0.$((RANDOM % 5))
		unload || break
		loads=$((loads + 1))
	done
	touch /tmp/toggle.stop
	wait $toggler
	toggles=$(cat /tmp/toggles 2>/dev/null)
	for c in 3 5; do
		check "cpu$c left offline" grep -q 1 $hp/cpu$c/online
	done
	check "hackbench left narrowed: $(hb_narrowed)" test -z "$(hb_narrowed)"
	echo "# fault_hotplug_reload: $loads loads, ${toggles:-?} CPU offlines in $((SECONDS - end + secs)) s"
	check "only $loads loads and ${toggles:-no} offlines" \
		test "$loads" -ge 3 -a "${toggles:-0}" -ge 3
	kill $hb
	wait $hb 2>/dev/null
}

# A task placed on a node while one of its CPUs was offline gets that CPU
# once it is back: the second CPU of every node goes offline, the job is
# placed on one CPU of some node, and when the CPUs come back its mask is
# the node's two.  (The job starts before they go: 6.1 gives a mask set
# while a CPU is offline only the CPUs online, and the engine leaves such
# a task be.)
case_hotplug_widen() {
	local hp=/sys/devices/system/cpu n c off=() m node
	engine_setup
	start_mt -m 4 -a "$(cpus 1)" || return
	for ((n = 0; n < $(nodes); n++)); do
		c=$(cpus "$n" | tr -s ',-' '  ' | awk '{ print $NF }')
		[ "$c" != "$(cpus "$n")" ] || continue
		echo 0 >$hp/cpu"$c"/online && off+=("$c")
	done
	echo home >$D/policy
	echo enforce >$D/mode
	wait_for 30 eval '[ "$(expand "$(allowed $mt_pid)" | wc -w)" = 1 ]' ||
		case_errors+=("not placed on one CPU: $(allowed $mt_pid); $(advice_row $mt_pid)")
	m=$(allowed $mt_pid)
	node=$(cd $hp/cpu"$m" 2>/dev/null && echo node[0-9]*)
	for c in "${off[@]}"; do
		echo 1 >$hp/cpu"$c"/online
	done
	if [ -d "/sys/devices/system/node/$node" ]; then
		wait_for 10 mask_is $mt_pid "$(cpus "${node#node}")" ||
			case_errors+=("placed on cpu $m of $node, still $(allowed $mt_pid) with its CPUs back ($(cpus "${node#node}"))")
	fi
	stop_mt
	engine_reset
}

# A task placed on node 1, then gone, and a new task given its id: the
# newcomer starts with its own mask and a record of its own, never the old
# task's history.  The newcomer is in scope and busy (a memtouch job with
# its memory and its first run on node 2): placed from the old task's
# history it would go to node 1 at once; on its own it may go to node 2,
# and only once it has run a round.  NA_REUSE_ROUNDS rounds (default 3;
# make check-stress 50), every other one reusing the id of a thread of the
# old job rather than of its main thread.  (The program that forks until
# the id comes round is kept out of the scope: the engine would place it
# for its burst of work, which is not what this case is about.)
case_pid_reuse() {
	local rounds=${NA_REUSE_ROUNDS:-3} pid_max i old job old_rt rt own t end
	local placed_own=0 n2 seen
	engine_setup
	read -r pid_max </proc/sys/kernel/pid_max
	echo 1000 >/proc/sys/kernel/pid_max
	echo 'exclude comm reuse' >$D/scope
	echo home >$D/policy
	echo enforce >$D/mode
	n2=$(cpus 2)
	for ((i = 1; i <= rounds; i++)); do
		# above the pids the kernel never hands out again
		# (RESERVED_PIDS); a kernel without CHECKPOINT_RESTORE (the
		# debug kernel) has no ns_last_pid, and the pids come round
		# from where they are
		[ ! -w /proc/sys/kernel/ns_last_pid ] ||
			echo 500 >/proc/sys/kernel/ns_last_pid
		start_mt -m 4 -t 2 -a "$(cpus 1)" -b "$(cpus 3)" || break
		job=$mt_pid old=$job
		if ((i % 2 == 0)); then
			for t in /proc/$job/task/*; do
				[ "${t##*/}" = "$job" ] || old=${t##*/}
			done
		fi
		wait_for 20 mask_is $old "$(cpus 1)" ||
			{ case_errors+=("round $i: $old not placed: $(advice_row $job)"); break; }
		sleep 1
		old_rt=$(task $old runtime_ns)
		stop_mt
		: >/tmp/reuse.out
		taskset -c "$(all_cpus)" "$B/reuse" $old "$B/memtouch" -m 1 -a "$n2" \
			>/tmp/reuse.out &
		wait_for 60 grep -q ready /tmp/reuse.out ||
			{ case_errors+=("round $i: id $old not reused: $(cat /tmp/reuse.out)"); break; }
		# its row counts its own run time alone: no more than the
		# kernel's count for it, read after the row
		rt=$(task $old runtime_ns)
		read -r own _ </proc/$old/schedstat
		check "round $i: id $old reused: runtime ${rt:-none} ns in its row, its own ${own} ns, the old task's $old_rt" \
			test -n "$rt" -a "${rt:-0}" -le $((own + 50000000)) -a "${old_rt:-0}" -gt 500000000
		# 3 s, 15 rounds: never narrowed to node 1; to node 2 at most
		seen=
		end=$((SECONDS + 3))
		while [ $SECONDS -lt $end ]; do
			mask_is $old "$(all_cpus)" || mask_is $old "$n2" ||
				{ seen="$(allowed $old): $(advice_row $old)"; break; }
			sleep 0.2
		done
		mask_is $old "$n2" && placed_own=$((placed_own + 1))
		check "round $i: the newcomer $old narrowed to $seen" test -z "$seen"
		kill $old
		wait
	done
	echo "# pid_reuse: $((i - 1)) of $rounds rounds, the newcomer placed by its own history in $placed_own;" \
		"last: $(head -n 1 /tmp/reuse.out)"
	check "$((i - 1)) of $rounds rounds ran" test $((i - 1)) -eq "$rounds"
	echo "$pid_max" >/proc/sys/kernel/pid_max
	engine_reset
}

# A task its user pinned with taskset, one whose comm is excluded and one in
# an excluded cgroup are never moved, while an identical job beside them
# is; a task excluded by pid once placed gets its mask back.
case_pinned() {
	local pinned excl ctl cg cgdir=/sys/fs/cgroup/na-excluded
	engine_setup
	cp "$B/memtouch" /tmp/memexcl
	start_mt -a "$(cpus 1)" -b "$(cpus 3)" -p || return
	pinned=$mt_pid
	start_mt /tmp/memexcl -a "$(cpus 1)" -b "$(cpus 3)" || return
	excl=$mt_pid
	start_mt -a "$(cpus 1)" -b "$(cpus 3)" || return
	cg=$mt_pid
	[ -e /sys/fs/cgroup/cgroup.procs ] ||
		mount -t cgroup2 none /sys/fs/cgroup ||
		case_errors+=("cannot mount cgroup2")
	mkdir -p $cgdir && echo $cg >$cgdir/cgroup.procs ||
		case_errors+=("cannot move $cg into $cgdir")
	start_mt -a "$(cpus 1)" -b "$(cpus 3)" || return
	ctl=$mt_pid
	echo 'exclude comm memexcl' >$D/scope
	echo 'exclude cgroup /na-excluded' >$D/scope
	echo home >$D/policy
	echo enforce >$D/mode
	wait_for 20 mask_is $ctl "$(cpus 1)" ||
		case_errors+=("control job not placed: $(advice_row $ctl)")
	sleep 1
	check "pinned job moved: $(allowed $pinned)" mask_is $pinned "$(cpus 3)"
	check "pinned job's reason: $(advice_row $pinned)" \
		test "$(advice $pinned reason)" = pinned
	check "excluded job moved: $(allowed $excl)" mask_is $excl "$(all_cpus)"
	check "excluded job's reason: $(advice_row $excl)" \
		test "$(advice $excl reason)" = excluded
	check "job in an excluded cgroup moved: $(allowed $cg)" \
		mask_is $cg "$(all_cpus)"
	check "cgroup-excluded job's reason: $(advice_row $cg)" \
		test "$(advice $cg reason)" = excluded
	echo "exclude pid $ctl" >$D/scope
	wait_for 10 mask_is $ctl "$(all_cpus)" ||
		case_errors+=("excluded by pid, mask not back: $(allowed $ctl)")
	stop_mt
	rmdir $cgdir
	engine_reset
}

# The 2014 seed's case: on two groups of four close nodes, two processes
# each wide enough for half the machine end on one group each.
case_distance() {
	local a b g0 g1 moves rc half=$(($(nproc --all) / 2))
	[ "$(nodes)" -eq 8 ] || { case_errors+=("needs an 8-node topology"); return; }
	g0=$(cpus_of_nodes 0 1 2 3)
	g1=$(cpus_of_nodes 4 5 6 7)
	engine_setup
	start_mt -t $half -m 2 || return
	a=$mt_pid
	start_mt -t $half -m 2 || return
	b=$mt_pid
	echo distance >$D/policy
	echo enforce >$D/mode
	wait_for 180 eval '(threads_mask_is $a "$g0" && threads_mask_is $b "$g1") ||
			  (threads_mask_is $a "$g1" && threads_mask_is $b "$g0")' ||
		case_errors+=("not one group each: $(allowed $a) / $(allowed $b); $(advice_row $a)")
	moves=$(status moves)
	sleep 3
	check "moved again after settling: moves $moves -> $(status moves)" \
		test "$(status moves)" -eq "$moves"
	# and the tool sees them there, on eight nodes
	rc=$(ctl_rc tasks --process --comm memtouch --json)
	check "tasks --process on 8 nodes: rc $rc, $(pyjson 'len(j)' /tmp/ctl.out) rows, $(pyjson 'len(j[0]["percent"])' /tmp/ctl.out) nodes" \
		test "$rc/$(pyjson 'len(j)' /tmp/ctl.out)/$(pyjson 'len(j[0]["percent"])' /tmp/ctl.out)" = 0/2/8
	echo "# distance: $a on $(allowed $a), $b on $(allowed $b)"
	echo "# distance: $(tr '\n' '|' <$D/nodes)"
	echo "# distance: $(advice_row $a) $(advice_row $b)"
	stop_mt
	engine_reset
}

# --- numa-advise-ctl ----------------------------------------------------------

CTL=$B/numa-advise-ctl
# ctl_rc ARGS... - the tool's exit status, its output in /tmp/ctl.out/.err
ctl_rc() {
	"$CTL" "$@" >/tmp/ctl.out 2>/tmp/ctl.err
	echo $?
}
# pyjson EXPR FILE - evaluate EXPR on the JSON in FILE (as j)
pyjson() { python3 -c "import json, sys; j = json.load(open('$2')); print($1)"; }

# Every command against the live module; --json read back and checked
# against debugfs; bad names refused with their list and exit 2; a trace
# catches a placement and leaves no instance behind; errors when the
# module is absent or the caller not root.
case_ctl() {
	local rc mt tr inst n t0=$SECONDS phases=
	# where the time went (CI's host once took three times this machine's)
	ctl_phase() { phases+=" $1 $((SECONDS - t0)) s"; t0=$SECONDS; }
	unload || return
	rc=$(ctl_rc status)
	check "status without the module: rc $rc, $(cat /tmp/ctl.out)" \
		test "$rc" = 4 -a "$(cat /tmp/ctl.out)" = "loaded: no"
	rc=$(ctl_rc policy home)
	check "policy without the module: rc $rc: $(cat /tmp/ctl.err)" \
		eval 'test "$rc" = 4 && grep -q "not loaded" /tmp/ctl.err'
	load || return
	rc=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$CTL" status 2>/tmp/ctl.err >/dev/null; echo $?)
	check "status as nobody: rc $rc: $(cat /tmp/ctl.err)" \
		eval 'test "$rc" = 3 && grep -q root /tmp/ctl.err'

	rc=$(unshare -m sh -c "umount -l /sys/kernel/debug && $CTL advice" 2>/tmp/ctl.err >/dev/null; echo $?)
	check "advice without debugfs: rc $rc: $(cat /tmp/ctl.err)" \
		eval 'test "$rc" = 5 && grep -q "debugfs is not mounted" /tmp/ctl.err'
	# (debugfs too: tracefs is automounted in it)
	rc=$(timeout 60 unshare -m sh -c "umount -l /sys/kernel/tracing; umount -l /sys/kernel/debug; $CTL trace --duration 5" 2>/tmp/ctl.err >/dev/null; echo $?)
	check "trace without tracefs: rc $rc: $(cat /tmp/ctl.err)" \
		eval 'test "$rc" = 6 && grep -q "tracefs is not mounted" /tmp/ctl.err'

	rc=$(ctl_rc status --json)
	check "status --json rc $rc" test "$rc" = 0
	for k in version max_tasks policy mode nodes; do
		check "status --json $k: $(pyjson "j['$k']" /tmp/ctl.out) vs $(status $k)" \
			test "$(pyjson "j['$k']" /tmp/ctl.out)" = "$(status $k)"
	done
	check "status --json: no overhead rows" \
		test "$(pyjson "len(j['overhead'])" /tmp/ctl.out)" -ge 3

	rc=$(ctl_rc policy bogus)
	check "policy bogus: rc $rc: $(cat /tmp/ctl.err)" \
		eval 'test "$rc" = 2 && grep -q "none, home, distance" /tmp/ctl.err'
	rc=$(ctl_rc mode sometimes)
	check "mode sometimes: rc $rc" test "$rc" = 2
	rc=$(ctl_rc set interval_ms 5)
	check "set interval_ms 5: rc $rc" test "$rc" = 2
	rc=$(ctl_rc set nosuch 5)
	check "set nosuch: rc $rc: $(cat /tmp/ctl.err)" \
		eval 'test "$rc" = 2 && grep -q interval_ms /tmp/ctl.err'
	check "refused settings changed something: $(status policy) $(status mode) $(status interval_ms)" \
		test "$(status policy)/$(status mode)/$(status interval_ms)" = none/advise/1000
	"$CTL" set interval_ms 200 && "$CTL" set min_move_ms 1000
	check "set interval_ms 200: $(status interval_ms)" test "$(status interval_ms)" = 200
	"$CTL" scope exclude comm sshd
	check "scope rule: $(cat $D/scope)" test "$(cat $D/scope)" = "exclude comm sshd"
	check "scope show: $("$CTL" scope)" test "$("$CTL" scope)" = "exclude comm sshd"
	"$CTL" scope clear
	rc=$(ctl_rc scope include user 3)
	check "scope include user: rc $rc" test "$rc" = 2

	rc=$(ctl_rc nodes --json)
	check "nodes --json rc $rc" test "$rc" = 0
	check "nodes --json has $(pyjson 'len(j)' /tmp/ctl.out) nodes, want $(nodes)" \
		test "$(pyjson 'len(j)' /tmp/ctl.out)" = "$(nodes)"
	for ((n = 0; n < $(nodes); n++)); do
		check "nodes --json node $n cpus" \
			test "$(pyjson "j[$n]['cpus']" /tmp/ctl.out)" = "$(cpus $n)"
		check "nodes --json node $n distances" \
			test "$(pyjson "' '.join(map(str, j[$n]['distance']))" /tmp/ctl.out)" = \
			"$(cat /sys/devices/system/node/node$n/distance)"
	done

	ctl_phase refusals-and-json
	echo 0 >/proc/sys/kernel/numa_balancing
	start_mt -a "$(cpus 1)" -b "$(cpus 3)" || return
	mt=$mt_pid
	# (a limit only if the case hangs: SIGINT ends it below)
	"$CTL" trace --duration 900 >/tmp/trace.out 2>/tmp/trace.err &
	tr=$!
	# the instance appears before its events are switched on: wait for
	# them (a second idle; CI's slower host has taken over a minute)
	wait_for 180 eval 'grep -qs 1 /sys/kernel/tracing/instances/numa_advise_ctl*/events/numa_advise/numa_advise_advice/enable' ||
		case_errors+=("trace made no instance with its events on in 180 s: $(mt_state $tr): $(cat /tmp/trace.err)")
	inst=$(ls /sys/kernel/tracing/instances | grep numa_advise_ctl)
	ctl_phase trace-start
	"$CTL" policy home
	wait_for 15 eval 'test "$(advice $mt target)" = 1' ||
		case_errors+=("no advice: $(advice_row $mt)")
	rc=$(ctl_rc advice --comm memtouch --json)
	check "advice --json target: $(pyjson "j[0]['target']" /tmp/ctl.out) vs $(advice $mt target)" \
		test "$(pyjson "[r['target'] for r in j if r['pid'] == $mt][0]" /tmp/ctl.out)" = 1
	rc=$(ctl_rc tasks --comm memtouch --json)
	check "tasks --json: mem $(pyjson "j[0]['mem']" /tmp/ctl.out) (the module's), want 1" \
		test "$(pyjson "j[0]['mem']" /tmp/ctl.out)" = 1
	check "tasks --json: percentages add to $(pyjson "round(sum(j[0]['percent']))" /tmp/ctl.out)" \
		test "$(pyjson "round(sum(j[0]['percent']))" /tmp/ctl.out)" = 100
	check "tasks --json: runtime vs debugfs" \
		test "$(pyjson "j[0]['runtime_ns'] > 0" /tmp/ctl.out)" = True
	"$CTL" mode enforce
	wait_for 15 mask_is $mt "$(cpus 1)" ||
		case_errors+=("not placed: $(advice_row $mt)")
	# the tool reads the buffers ten times a second; a busy guest is slower
	wait_for 30 grep -q "^[0-9.]* place pid=$mt " /tmp/trace.out
	check "trace ended before SIGINT" kill -INT $tr
	wait $tr
	rc=$?
	check "trace rc $rc after SIGINT: $(cat /tmp/trace.err)" test "$rc" = 0
	check "trace saw no placement of $mt: $(head -5 /tmp/trace.out | tr '\n' '|')" \
		grep -q "^[0-9.]* place pid=$mt .* to=1 " /tmp/trace.out
	check "trace saw no advice for $mt" grep -q "^[0-9.]* advice pid=$mt " /tmp/trace.out
	check "tracefs instance $inst left behind" \
		test ! -e "/sys/kernel/tracing/instances/$inst"
	ctl_phase advice-place-trace
	rc=$(ctl_rc stats --prometheus)
	check "stats --prometheus rc $rc" test "$rc" = 0
	check "prometheus: tracked" grep -q '^numa_advise_tracked_tasks [0-9]' /tmp/ctl.out
	check "prometheus: $(grep -c '^numa_advise_node_busy_seconds_total' /tmp/ctl.out) node rows" \
		test "$(grep -c '^numa_advise_node_busy_seconds_total{node=' /tmp/ctl.out)" = "$(nodes)"
	check "prometheus: placed" grep -q '^numa_advise_placed_tasks [1-9]' /tmp/ctl.out
	rc=$(ctl_rc top --iterations 1)
	check "top rc $rc" eval 'test "$rc" = 0 && grep -q memtouch /tmp/ctl.out'
	rc=$(ctl_rc status)
	check "status: $(grep -E '^(policy|mode)' /tmp/ctl.out | tr '\n' ' ')" \
		eval 'grep -q "^policy: home" /tmp/ctl.out && grep -q "^cost sched_switch" /tmp/ctl.out'

	ctl_phase prometheus-top-status
	# apply: the advice once, from user space, in advise mode
	"$CTL" mode advise
	check "advise mode kept the mask: $(allowed $mt)" mask_is $mt "$(all_cpus)"
	sleep 1	# a round in advise mode
	rc=$(ctl_rc apply --memory --comm memtouch)
	check "apply rc $rc: $(cat /tmp/ctl.out /tmp/ctl.err)" test "$rc" = 0
	check "apply: mask $(allowed $mt), want $(cpus 1)" mask_is $mt "$(cpus 1)"
	check "apply --memory: $(cat /tmp/ctl.out)" \
		grep -q "^pid $mt (memtouch): memory to nodes 1$" /tmp/ctl.out
	check "apply --memory: mem $("$CTL" tasks --comm memtouch --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["mem"])')" \
		test "$("$CTL" tasks --comm memtouch --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["mem"])')" = 1
	stop_mt
	engine_reset
	ctl_phase apply

	# SIGTERM ends it just as cleanly, once it has its handler: it makes
	# its instance after that (a second idle; CI's slower host once took
	# over 90 s with a job running, hence here, after the job)
	"$CTL" trace >/dev/null 2>/tmp/trace.err &
	tr=$!
	wait_for 180 eval 'ls /sys/kernel/tracing/instances | grep -q numa_advise_ctl' ||
		case_errors+=("trace made no instance in 180 s: $(mt_state $tr): $(cat /tmp/trace.err)")
	kill -TERM $tr
	wait $tr
	rc=$?
	check "trace rc $rc after SIGTERM" test "$rc" = 0
	check "instance left after SIGTERM: $(ls /sys/kernel/tracing/instances)" \
		test -z "$(ls /sys/kernel/tracing/instances)"
	ctl_phase sigterm
	echo "# ctl: phases:$phases"
}

# numa-advise-ctl fed random arguments against the loaded module (see
# tests/ctl-fuzz.sh): no crash, only the exit statuses it documents, and no
# setting changed by a run that failed.
case_ctl_fuzz() {
	local seed=${NA_FUZZ_SEED:-$(date +%s)} runs=${NA_CTL_FUZZ_RUNS:-40} rc
	echo clear >$D/scope
	"$(dirname "$0")/../ctl-fuzz.sh" -l -s "$seed" -n "$runs" "$CTL" \
		>/tmp/ctl-fuzz.log 2>&1
	rc=$?
	echo "# ctl_fuzz: $(tail -n 1 /tmp/ctl-fuzz.log)"
	check "$(grep -v '^ctl-fuzz: seed' /tmp/ctl-fuzz.log | head -n 3 | tr '\n' '|')" \
		test $rc -eq 0
	engine_reset
}

# as_nobody COMMAND... - run it as user and group nobody, no other groups
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

# Only root reads what the module knows about tasks: every debugfs file and
# the module's trace events refuse anyone else, none of them shows a kernel
# address even to root, the parameters everyone may read hold settings
# alone, and the tool run by another user changes nothing and says why.
case_security() {
	local f rc v policy
	check "debugfs files not root-only: $(find $D -type f -perm /0077 | tr '\n' ' ')" \
		test -z "$(find $D -type f -perm /0077)"
	for f in $D/* /sys/kernel/tracing/events/numa_advise/*/format \
		/sys/kernel/tracing/trace; do
		as_nobody cat "$f" >/dev/null 2>&1 &&
			case_errors+=("nobody can read $f")
		as_nobody sh -c "echo 1 >$f" 2>/dev/null &&
			case_errors+=("nobody can write $f")
	done
	echo 1 >/sys/kernel/tracing/events/numa_advise/enable
	echo distance >$D/policy
	sleep 2
	echo none >$D/policy
	echo 0 >/sys/kernel/tracing/events/numa_advise/enable
	# a kernel address: 0xffff... or 16 hex digits starting with ffff
	for f in $D/tasks $D/nodes $D/overhead $D/status $D/advice $D/policy \
		$D/mode $D/scope /sys/kernel/tracing/trace; do
		grep -qiE '(0x)?ffff[0-9a-f]{12}' "$f" &&
			case_errors+=("$f shows a kernel address: $(grep -m1 -oiE '(0x)?ffff[0-9a-f]{12}' "$f")")
	done
	for f in $P/*; do
		v=$(as_nobody cat "$f")
		[[ $v =~ ^[0-9]+$|^(none|home|distance|advise|enforce)$ ]] ||
			case_errors+=("parameter ${f##*/} reads '$v'")
		as_nobody sh -c "echo 100 >$f" 2>/dev/null &&
			case_errors+=("nobody can write parameter ${f##*/}")
	done
	policy=$(cat $D/policy)
	for v in "policy home" "mode enforce" "set interval_ms 100" \
		"scope include pid 1" "apply"; do
		# shellcheck disable=SC2086 # $v: a command and its arguments
		rc=$(as_nobody "$CTL" $v 2>/tmp/ctl.err >/dev/null; echo $?)
		check "'$v' as nobody: rc $rc: $(cat /tmp/ctl.err)" \
			eval 'test "$rc" = 3 && grep -q "must be run as root" /tmp/ctl.err'
	done
	check "settings changed by nobody: policy $(cat $D/policy), mode $(cat $D/mode), interval $(cat $P/interval_ms), scope $(cat $D/scope)" \
		test "$(cat $D/policy)/$(cat $D/mode)/$(cat $P/interval_ms)/$(cat $D/scope)" = "$policy/advise/1000/"
}

# On one node: the tables still come, with a word that there is one node.
case_ctl_one_node() {
	local rc
	rc=$(ctl_rc tasks)
	check "tasks rc $rc: $(head -2 /tmp/ctl.out)" \
		eval 'test "$rc" = 0 && grep -q "one NUMA node" /tmp/ctl.out && grep -q "^[0-9]" /tmp/ctl.out'
	rc=$(ctl_rc nodes)
	check "nodes rc $rc: $(cat /tmp/ctl.out)" \
		eval 'test "$rc" = 0 && grep -q "one NUMA node" /tmp/ctl.out && grep -q "^0 " /tmp/ctl.out'
	rc=$(ctl_rc advice)
	check "advice rc $rc" test "$rc" = 0
}

# --- installed: DKMS or the Debian package (tests/install.sh) --------------

# The module as a sysadmin meets it after `make install` or the .deb: found
# by modprobe in this kernel's tree, parameters from the command line and
# from /etc/modprobe.d (written by tests/install.sh), described by modinfo,
# reported by the installed tool, and removed cleanly by modprobe -r.
case_modprobe() {
	local conf=/etc/modprobe.d/numa_advise.conf ctl want_ms file rc p
	ctl=$(command -v numa-advise-ctl) ||
		{ case_errors+=("numa-advise-ctl is not installed"); return; }
	check "tool from the build tree, not installed: $ctl" \
		test "${ctl#"$B"}" = "$ctl"
	want_ms=$(sed -n 's/^options numa_advise.*interval_ms=\([0-9]*\).*/\1/p' $conf)
	[ -n "$want_ms" ] ||
		{ case_errors+=("no interval_ms in $conf"); return; }

	file=$(modinfo -F filename numa_advise 2>&1)
	check "modinfo filename $file" eval \
		'case $file in /lib/modules/$NA_KVER/updates/dkms/numa_advise.ko*) ;; *) false ;; esac'
	check "modinfo version $(modinfo -F version numa_advise) vs $("$ctl" --version)" \
		test "numa-advise-ctl $(modinfo -F version numa_advise)" = "$("$ctl" --version)"
	for p in policy mode interval_ms max_tasks min_move_ms gain_pm margin_pm imbalance_pct lean; do
		check "modinfo: no description of $p" \
			eval "modinfo -F parm numa_advise | grep -Eq '^$p:[A-Za-z]'"
	done

	dmesg -C
	modprobe numa_advise policy=bogus 2>/tmp/modprobe.err
	rc=$?
	check "policy=bogus: rc $rc, loaded" eval 'test $rc != 0 && ! loaded'
	check "policy=bogus: no reason in the kernel log" \
		eval 'dmesg | grep -q "numa_advise: policy must be one of"'

	modprobe numa_advise policy=home 2>/tmp/modprobe.err ||
		{ case_errors+=("modprobe policy=home: $(cat /tmp/modprobe.err)"); return; }
	"$ctl" status --json >/tmp/ctl.out 2>/tmp/ctl.err
	rc=$?
	check "status rc $rc: $(cat /tmp/ctl.err)" test $rc = 0
	check "tool reports policy $(pyjson "j['policy']" /tmp/ctl.out)" \
		test "$(pyjson "j['policy']" /tmp/ctl.out)" = home
	check "tool reports interval_ms $(pyjson "j['interval_ms']" /tmp/ctl.out), $conf says $want_ms" \
		test "$(pyjson "j['interval_ms']" /tmp/ctl.out)" = "$want_ms"
	check "tool reports mode $(pyjson "j['mode']" /tmp/ctl.out)" \
		test "$(pyjson "j['mode']" /tmp/ctl.out)" = advise
	sleep 1
	check "no task tracked" test "$(status tracked)" -gt 0

	modprobe -r numa_advise 2>/tmp/modprobe.err
	rc=$?
	check "modprobe -r: rc $rc: $(cat /tmp/modprobe.err)" test $rc = 0
	check "still loaded after modprobe -r" eval '! loaded'
	check "$D left behind" test ! -e $D
	"$ctl" status >/dev/null 2>&1
	rc=$?
	check "tool after modprobe -r: rc $rc, not 4" test $rc = 4
	p=$(dmesg | grep -E 'WARNING:|BUG:|Oops|Call Trace' | head -n 1)
	check "kernel log: $p" test -z "$p"
}

# On a kernel with kmemleak (make check-debug): the check dmesg_clean makes
# does catch the module's leaks.  A test build that leaks a kmalloc at load
# is loaded, unloaded (its leak's backtrace now a bare address) and loaded
# again (named); both leaks must be counted as the module's, and are then
# cleared from kmemleak's list so that dmesg_clean sees only real ones.
case_kmemleak_caught() {
	local leaks planted='na_test_leak\+|code unloaded since'
	[ -w "$KMEMLEAK" ] || { skip_case "no kmemleak in this kernel: make check-debug runs it"; return; }
	[ -e "$KO_LEAK" ] || { case_errors+=("no leaking test build $KO_LEAK"); return; }
	unload || return
	insmod "$KO_LEAK" && rmmod numa_advise && insmod "$KO_LEAK" ||
		{ case_errors+=("the leaking test build did not load"); return; }
	leaks=$(kreport_kmemleak_scan && kreport_module_leaks 2>/dev/null)
	rmmod numa_advise
	echo clear >"$KMEMLEAK"
	check "leaks counted as the module's: $(echo "$leaks" | grep -cE "$planted"), want 2: $(echo "$leaks" | tr '\n' '|')" \
		test "$(echo "$leaks" | grep -cE "$planted")" = 2
	check "no leak named na_test_leak: $(echo "$leaks" | tr '\n' '|')" \
		eval 'echo "$leaks" | grep -q "allocated at na_test_leak+0x[0-9a-f]*/0x[0-9a-f]* \[numa_advise\]"'
	load
}

# Nothing in the kernel log went wrong at any point.
case_dmesg_clean() {
	local bad
	# a leak's backtrace names the module's functions only while it is loaded
	! loaded || kernel_reports_module_loaded
	unload
	# (each case's own reports failed that case: here the unload's, and
	# what only a kmemleak scan or lockdep's state shows)
	bad=$(kernel_reports "na-suite: case dmesg_clean begins")
	check "kernel log: $bad" test -z "$bad"
	check "module still loaded" eval '! loaded'
}

# Loads while tasks are forked all the time (churn in the background):
# the load's walk over the task list must neither wait on the children
# whose fork came after its probe was attached (each load finishes without
# the "not woken" warning) nor miss a task that was running before the
# load began (each such task still alive has its row).
case_load_while_forking() {
	local i ch t0 rows r pid missing=() line f comm
	unload || return
	"$B/churn" 100000000 >/dev/null 2>&1 &
	ch=$!
	sleep 1
	for ((i = 0; i < 5; i++)); do
		dmesg -C
		t0=$(awk '{ print int($1 * 100) }' /proc/uptime)
		load || break
		line=$(dmesg | grep -m1 'tracked from their next migration')
		check "load $i: $line" test -z "$line"
		rows=" "
		while read -r pid _; do rows+="$pid "; done <$D/tasks
		for r in /proc/[0-9]*; do
			pid=${r#/proc/}
			[[ $rows == *" $pid "* ]] && continue
			# started a tick or more before the load, and still there
			read -r line <"$r/stat" 2>/dev/null || continue
			comm=${line#*(}
			comm=${comm%)*}
			read -r -a f <<<"${line##*) }"	# field 3 on
			[ "${f[19]}" -lt $((t0 - 1)) ] && [ -e "$r" ] &&
				missing+=("$pid($comm)")
		done
		unload || break
	done
	check "$i of 5 loads" test "$i" -eq 5
	check "running before a load, no row after it: ${missing[*]:0:5}" \
		test ${#missing[@]} -eq 0
	check "churn died" kill -0 $ch
	kill $ch
	wait $ch 2>/dev/null
	load
}

# distance needs 8 nodes: tests/run.sh asks for it on the 8x2 topology.
# kmemleak_caught skips itself on a kernel without kmemleak.
ALL=(load tables residency migrations lean node_busy overhead reset hotplug churn cap
	refuse_load hostile_load reload_under_load load_while_forking settings hostile home classify
	restore storm unload_mid_apply fault_reload fault_node_offline
	fault_hotplug_reload hotplug_widen pid_reuse pinned ctl ctl_fuzz security swap
	kmemleak_caught dmesg_clean)
# (the leaking test build is built only for a kernel with kmemleak)
KO_LEAK=$B/numa_advise-leak-$NA_KVER.ko

# Keep the test's own shell off the nodes the cases measure.
taskset -pc "$(cpus 0)" $$ >/dev/null
known_state_init || echo "# suite: the module does not load: $(insmod "$KO" 2>&1)"
kernel_reports_start
for c in "${@:-${ALL[@]}}"; do
	run_case "$c"
done
kill_strays
loaded && rmmod numa_advise
echo "suite: $passed passed, $failed failed, $skipped skipped ($WHERE)"
[ "$failed" -eq 0 ]
