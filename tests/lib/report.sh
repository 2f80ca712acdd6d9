# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# report.sh - counting and checking results on the host (sourced by
# tests/run.sh, tests/stress.sh and tests/install.sh)
#
# Every case prints one line: "PASS <where> <case>", "FAIL <where> <case>:
# <why>" or "SKIP <where> <case> (<why>)"; a run closes with
# "N passed, N failed, N skipped" (report_summary).

# shellcheck source=tests/guest/kreports.sh
. "$(dirname "${BASH_SOURCE[0]}")/../guest/kreports.sh"

passed=0
failed=0
skipped=0

# tally - echo and count the PASS/FAIL/SKIP lines of a sub-run on stdin
tally() {
	local line
	while IFS= read -r line; do
		case $line in
		PASS\ *) echo "$line"; passed=$((passed + 1)) ;;
		FAIL\ *) echo "$line"; failed=$((failed + 1)) ;;
		SKIP\ *) echo "$line"; skipped=$((skipped + 1)) ;;
		\#\ *) echo "$line" ;;
		esac
	done
}

# report_header NAME KVER... - the run's first line: what ran, on which
# commit (with "+changes" for a work tree that differs from it) and which
# kernels, so that a figure quoted from the output says what it measured
report_header() {
	local name=$1 rev
	shift
	rev=$(git rev-parse --short HEAD 2>/dev/null || echo "no git")
	git diff --quiet HEAD 2>/dev/null || rev="$rev+changes"
	echo "# $name: commit $rev, $(date -u '+%F %T') UTC, kernels: $*"
}

report_summary() {
	echo "$passed passed, $failed failed, $skipped skipped"
}

# tap_cases NAME RC - the TAP a cmocka binary NAME printed (stdin), with
# its exit status RC, as case lines: one per test, then one for the binary
# if its run is not whole: no plan, fewer or more results than the plan
# (it died part-way), or an exit status that disagrees with the results.
# A failure's line carries its first diagnostic ("# ..." after it).
tap_cases() {
	awk -v name="$1" -v rc="$2" '
	function flush() {
		if (pending != "")
			print pending (why != "" ? ": " why : "")
		pending = ""; why = ""
	}
	/^1\.\.[0-9]+$/ { plan = substr($0, 4) + 0; planned = 1; next }
	/^ok [0-9]+ - / {
		flush(); ran++
		sub(/^ok [0-9]+ - /, ""); print "PASS host unit/" name "." $0
		next
	}
	/^not ok [0-9]+ # SKIP/ {
		flush(); ran++
		sub(/^not ok [0-9]+ # SKIP */, "")
		print "SKIP host unit/" name "." $0 " (skipped by the test, see its output)"
		next
	}
	/^not ok [0-9]+ - / {
		flush(); ran++; failures++
		sub(/^not ok [0-9]+ - /, ""); pending = "FAIL host unit/" name "." $0
		next
	}
	/^# / && pending != "" && why == "" { why = substr($0, 3); next }
	END {
		flush()
		if (!planned)
			print "FAIL host unit/" name ": no TAP plan (exit status " rc ", " ran + 0 " results)"
		else if (ran != plan)
			print "FAIL host unit/" name ": " ran + 0 " results for a plan of " plan " (exit status " rc ")"
		else if ((rc != 0) != (failures > 0))
			print "FAIL host unit/" name ": exit status " rc " with " failures + 0 " failures"
	}'
}

# console_check WHERE LOG - the guest's whole console LOG (the host's copy:
# every kernel message, even one the guest's log ring lost or printed as
# it died) holds no kernel report; one names the case it came in (the
# suite marks each case's start in the kernel log).  Prints the case line.
console_check() {
	local where=$1 log=$2 first
	[ -s "$log" ] || { echo "FAIL $where console-log: no console log $log"; return; }
	# (kernel lines only: the console also has a copy of the suite's output)
	first=$(sed 's/\r$//' "$log" | grep -a '^\[ *[0-9]*\.[0-9]*\]' | kreport_lines case |
		head -n 1)
	if [ -n "$first" ]; then
		echo "FAIL $where console-log: kernel report ${first/$'\t'/: } (console: $log)"
		# the log may not outlive the run (CI keeps only the output)
		sed 's/\r$//' "$log" | kreport_context console "${first#*$'\t'}"
	else
		echo "PASS $where console-log"
	fi
}
