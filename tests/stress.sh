#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# stress.sh - the long tier of the reliability tests: `make check-stress`
#
# usage: tests/stress.sh [-m MINUTES] [-k KVER]...
#   -m MINUTES  how long the churn storm runs in each guest (default 10);
#               the hostile writers get half of that
#   -k KVER     kernels to run on (default: every one boot.sh lists)
#
# The same cases as make check, turned up: on the host the tool gets 5,000
# random command lines under ASan and UBSan; in a 4x2 guest per kernel (the
# kernels side by side) na-fuzz makes 100,000 modelled writes and then runs
# two writers and a reader for MINUTES/2, ctl_fuzz runs the tool 400 times
# against the loaded module, the storm runs for MINUTES, the module is
# unloaded mid-placement, 100,000 tasks churn through the tables, and the
# cap and bad load parameters are tried; the kernel log must stay clean.
# Prints one line per case and "N passed, N failed, N skipped".
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
B=${NA_BUILD:-$top/build}
minutes=10
kvers=()
while getopts "m:k:" opt; do
	case $opt in
	m) minutes=$OPTARG ;;
	k) kvers+=("$OPTARG") ;;
	*) echo "usage: $0 [-m MINUTES] [-k KVER]..." >&2; exit 2 ;;
	esac
done
if ! [[ $minutes =~ ^[1-9][0-9]*$ ]]; then
	echo "stress.sh: -m wants a whole number of minutes" >&2
	exit 2
fi
[ ${#kvers[@]} -gt 0 ] || mapfile -t kvers < <(tests/guest/boot.sh -k list)

# the build stage makes the module, the helpers and the sanitizer build
kargs=()
for k in "${kvers[@]}"; do kargs+=(-k "$k"); done
mkdir -p "$B"
# shellcheck source=tests/lib/report.sh
. tests/lib/report.sh
report_header "stress.sh, $minutes minutes" "${kvers[@]}"
NA_CTL_FUZZ_RUNS=5000 tests/run.sh "${kargs[@]}" -s build >"$B/stress-build.log" 2>&1
tally <"$B/stress-build.log"

secs=$((minutes * 60))
knobs=(NA_FUZZ_WRITES=100000 "NA_FUZZ_SECS=$((secs / 2))" NA_CTL_FUZZ_RUNS=400 NA_REUSE_ROUNDS=50
	NA_RELOAD_CYCLES=100 NA_HB_GROUPS=4 NA_FAULT_SECS=120
	"NA_STORM_SECS=$secs")
cases=(load hostile_load hostile ctl_fuzz storm unload_mid_apply
	unload_mid_apply unload_mid_apply fault_reload fault_node_offline
	fault_hotplug_reload churn churn churn churn churn churn
	churn churn churn churn cap pid_reuse dmesg_clean)
for k in "${kvers[@]}"; do
	tests/guest/boot.sh -k "$k" -t 4x2 -T $((secs * 3 + 2700)) \
		-l "$B/stress-$k.console" tests/guest/suite.sh "$B" "${knobs[@]}" \
		"${cases[@]}" >"$B/stress-$k.log" 2>&1 &
done
wait

for k in "${kvers[@]}"; do
	tally <"$B/stress-$k.log"
	if ! grep -q '^suite: ' "$B/stress-$k.log"; then
		echo "FAIL $k/4x2 guest: no result: $(tail -n 1 "$B/stress-$k.log") (console: $B/stress-$k.console)"
		failed=$((failed + 1))
	fi
	tally < <(console_check "$k/4x2" "$B/stress-$k.console")
done
report_summary
[ "$failed" -eq 0 ]
