#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ctl-fuzz.sh - numa-advise-ctl fed random arguments
#
# usage: ctl-fuzz.sh [-s SEED] [-n RUNS] [-l] CTL
#   CTL   the numa-advise-ctl to run (a sanitizer build on the host)
#   -l    the module is loaded here (a guest), with no scope rules: also
#         check that a run that failed changed no setting
#
# Each run is 0 to 5 arguments drawn from the tool's own words, numbers that
# parsers get wrong, random text and one very long string, under a 5 s
# timeout.  A run fails if the tool dies on a signal or a sanitizer report,
# exits with a status its --help does not list (0-6), hangs (trace and top
# excepted: they run until stopped), prints more than one line on stderr
# for a bad argument, or (with -l) changes a setting it did not report done.
#
# Prints one line per failed run, then "ctl-fuzz: seed S, N runs, exit
# statuses: ..., N failed"; exits 1 if any run failed.
set -uo pipefail

seed=$(date +%s)
runs=300
live=
while getopts "s:n:l" opt; do
	case $opt in
	s) seed=$OPTARG ;;
	n) runs=$OPTARG ;;
	l) live=1 ;;
	*) echo "usage: $0 [-s SEED] [-n RUNS] [-l] CTL" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
ctl=${1:?usage: $0 [-s SEED] [-n RUNS] [-l] CTL}
[[ $seed =~ ^[0-9]+$ && $runs =~ ^[0-9]+$ ]] || { echo "$0: SEED and RUNS are numbers" >&2; exit 2; }
RANDOM=$seed

# a sanitizer report is a failure of its own, never a listed exit status
export ASAN_OPTIONS=exitcode=99:detect_leaks=1
export UBSAN_OPTIONS=halt_on_error=1:exitcode=98:print_stacktrace=1

D=/sys/kernel/debug/numa_advise
P=/sys/module/numa_advise/parameters
commands=(status policy mode set scope tasks nodes advice apply trace top stats)
words=("${commands[@]}" help bogus "" --json --help -h --version --process
	--node --comm --sort --top --duration --iterations --memory --prometheus
	--debugfs --debugfs=/ --node=1 --top=0 --sort= --duration=0 -- - -x
	none home distance advise enforce interval_ms min_move_ms gain_pm
	margin_pm imbalance_pct max_tasks include exclude pid comm cgroup clear
	show / /system.slice 0 1 -1 2 250 4294967296 99999999999999999999 abc 0x10
	010 1e3 " 5" "home " runtime migrations $'a\nb' %s%n%p)

# junk - a random printable string, or a byte from outside ASCII
junk() {
	local n=$((RANDOM % 20 + 1)) s= i
	for ((i = 0; i < n; i++)); do
		s+=$(printf "\\x$(printf %x $((RANDOM % 95 + 32)))")
	done
	((RANDOM % 4)) || s+=$'\xff\xfe'
	printf '%s' "$s"
}

# make_args - random arguments, into args[]
long=$(printf 'x%.0s' {1..5000})
make_args() {
	local n=$((RANDOM % 6)) i r
	args=()
	for ((i = 0; i < n; i++)); do
		r=$((RANDOM % 20))
		if ((i == 0 && r < 16)); then
			args+=("${commands[RANDOM % ${#commands[@]}]}")
		elif ((r < 15)); then
			args+=("${words[RANDOM % ${#words[@]}]}")
		elif ((r < 19)); then
			args+=("$(junk)")
		else
			args+=("$long")
		fi
	done
}

# settings - every setting the tool can change, read with builtins only
settings() {
	local f v out=
	for f in $P/policy $P/mode $P/interval_ms $P/min_move_ms $P/gain_pm \
		$P/margin_pm $P/imbalance_pct; do
		read -r v <"$f"
		out+="${f##*/}=$v "
	done
	out+="scope="
	while read -r v; do out+="$v|"; done <$D/scope
	echo "$out"
}

# describe - the arguments of a run, quoted, for a failure line
describe() {
	local a out=
	for a in "${args[@]}"; do
		a=${a:0:40}
		out+=" $(printf '%q' "$a")"
	done
	echo "$ctl$out"
}

failed=0
declare -A seen=()
for ((run = 0; run < runs; run++)); do
	make_args
	[ -n "$live" ] && before=$(settings)
	# trace and top run until stopped: 5 s of them, then SIGINT, and 30 s
	# to stop before SIGKILL (exit status 137, a failure: on the debug
	# kernel a refresh of top, under way when SIGINT comes, takes seconds).
	# Anything else must end by itself; 60 s, not 5, before calling it
	# hung, since on a loaded machine (guests on every CPU) a short run can
	# wait seconds for a CPU.
	case ${args[0]:-} in
	trace | top) limit=5 ;;
	*) limit=60 ;;
	esac
	timeout -s INT -k 30 $limit "$ctl" "${args[@]}" >/tmp/ctl-fuzz.out 2>/tmp/ctl-fuzz.err </dev/null
	rc=$?
	seen[$rc]=$((${seen[$rc]:-0} + 1))
	why=
	if ((rc == 124)); then
		((limit == 5)) || why="hung for $limit s"
	elif ((rc > 6)); then
		why="exit status $rc: $(grep -m1 -E 'ERROR|runtime error|Sanitizer' /tmp/ctl-fuzz.err)"
	elif ((rc == 2)) && [ "$(wc -l </tmp/ctl-fuzz.err)" -ne 1 ]; then
		why="bad argument, but $(wc -l </tmp/ctl-fuzz.err) lines on stderr"
	fi
	if [ -z "$why" ] && [ -n "$live" ] && ((rc != 0)) &&
		[ "$(settings)" != "$before" ]; then
		why="exit status $rc, yet settings changed: $before -> $(settings)"
	fi
	if [ -n "$why" ]; then
		failed=$((failed + 1))
		echo "ctl-fuzz: $(describe): $why"
	fi
	# a run that changed something: put it back for the next one (the
	# scope starts empty, see -l)
	if [ -n "$live" ] && [ "$(settings)" != "$before" ]; then
		echo advise >$P/mode
		echo clear >$D/scope
		for kv in ${before%scope=*}; do
			echo "${kv#*=}" >"$P/${kv%%=*}"
		done
	fi
done
statuses=
for rc in $(printf '%s\n' "${!seen[@]}" | sort -n); do
	statuses+=" $rc:${seen[$rc]}"
done
echo "ctl-fuzz: seed $seed, $runs runs, exit statuses$statuses, $failed failed"
[ "$failed" -eq 0 ]
