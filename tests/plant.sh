#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# plant.sh - the test bed's own test: a fault of each kind is planted and
# the harness must show it, with one clear line, and turn the run red
# (tests/run.sh runs this as its stage "plant")
#
# usage: tests/plant.sh [KVER]   (default: the newest kernel boot.sh lists)
#
# The faults:
#   crash      a unit test killed part-way (where cmocka cannot catch it)
#   skip       a unit test that skips a case
#   build      a module that does not build, over the .ko of an earlier
#              build: run.sh must fail the build, leave no .ko and start
#              no guest for that kernel
#   warn       a WARN in the middle of a case (tests/patches/planted,
#              on a good write to reset): that case fails, the others pass,
#              and the host's scan of the console names the case; both
#              print the report's next lines, its RIP in the module
#   number     a refused write that changes a number (the same test build,
#              a module parameter out of range): the hostile case fails
# Prints "PASS host plant/<fault>" when the harness said what it must (its
# line quoted), "FAIL host plant/<fault>: ..." when not.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
B=${NA_BUILD:-$top/build}/plant
kver=${1:-$(tests/guest/boot.sh -k list | tail -n 1)}
rm -rf "$B" && mkdir -p "$B"
# the version as a regular expression (6.12.118+deb12-amd64 has a '+')
kre=$(sed 's/[.+]/\\&/g' <<<"$kver")
# shellcheck source=tests/lib/report.sh
. tests/lib/report.sh

# expect FAULT FILE - FILE (what the harness printed) has exactly the lines
# the fault must give: each "+REGEX" must match one line, and no line
# outside them may say FAIL
expect() {
	local fault=$1 file=$2 re n shown=
	shift 2
	for re in "$@"; do
		n=$(grep -cE "$re" "$file")
		if [ "$n" -ne 1 ]; then
			echo "FAIL host plant/$fault: $n lines match '$re' (output: $file)"
			return
		fi
		shown+="${shown:+ / }$(grep -m1 -E "$re" "$file" | cut -c1-140)"
	done
	n=$(grep -E '^FAIL ' "$file" | grep -cvE "$(IFS='|'; echo "$*")")
	if [ "$n" -ne 0 ]; then
		echo "FAIL host plant/$fault: $n other FAIL lines: $(grep -E '^FAIL ' "$file" |
			grep -vE "$(IFS='|'; echo "$*")" | head -n 1)"
		return
	fi
	echo "PASS host plant/$fault ($shown)"
}

# --- unit: a crash part-way, a skipped case -----------------------------------
for fault in crash skip; do
	bin=$B/plant_$fault
	if ! gcc -O2 -Wall -Wextra -Wno-unused-parameter -DPLANT_${fault^^} \
		-o "$bin" tests/plant/plant_unit.c -lcmocka 2>"$B/$fault.build"; then
		echo "FAIL host plant/$fault: does not build: $(head -n 1 "$B/$fault.build")"
		continue
	fi
	# (in a subshell that reports the kill quietly, as run.sh's does not)
	(CMOCKA_MESSAGE_OUTPUT=TAP "$bin" >"$bin.tap" 2>&1; echo $? >"$bin.rc") 2>/dev/null
	tap_cases "plant_$fault" "$(cat "$bin.rc")" <"$bin.tap" >"$B/$fault.out"
done
expect crash "$B/crash.out" '^FAIL host unit/plant_crash: 1 results for a plan of 3'
expect skip "$B/skip.out" '^SKIP host unit/plant_skip\.planted \('

# --- a module that does not build, over an earlier build's .ko ----------------
echo "an earlier build" >"$B/numa_advise-$kver.ko"
NA_BUILD=$B NA_PATCHES=broken tests/run.sh -k "$kver" -s guest >"$B/build.out" 2>&1
rc=$?
if [ -e "$B/numa_advise-$kver.ko" ]; then
	echo "FAIL host plant/build: the earlier .ko is still there"
elif [ -e "$B/guest-$kver-4x2.log" ]; then
	echo "FAIL host plant/build: a guest ran: $B/guest-$kver-4x2.log"
elif [ $rc -eq 0 ] || ! tail -n 1 "$B/build.out" | grep -q '^0 passed, 2 failed, 0 skipped$'; then
	echo "FAIL host plant/build: exit $rc, closing '$(tail -n 1 "$B/build.out")'"
else
	expect build "$B/build.out" "^FAIL $kre module-build: .*planted: a build that fails" \
		"^FAIL $kre/4x2 guest: not run: the module did not build"
fi

# --- a WARN mid-case and a refused write that changes a number -----------------
declare -A tree_of=()
# shellcheck source=tests/lib/build.sh
. tests/lib/build.sh
if ! build_module "$kver" numa_advise planted ||
	! make -s -C tests/helpers O="$B" >"$B/helpers.log" 2>&1; then
	echo "FAIL host plant/warn: the planted test build does not build"
	echo "FAIL host plant/number: the planted test build does not build"
	exit 0
fi
tests/guest/boot.sh -k "$kver" -t 4x2 -T 900 -l "$B/guest.console" \
	tests/guest/suite.sh "$B" NA_FUZZ_WRITES=300 NA_FUZZ_SECS=2 \
	load reset hostile tables dmesg_clean >"$B/guest.log" 2>&1
console_check "$kver/4x2" "$B/guest.console" >>"$B/guest.log"
grep -q '^suite: 3 passed, 2 failed, 0 skipped' "$B/guest.log" ||
	echo "FAIL host plant/guest: the suite closed '$(grep '^suite:' "$B/guest.log" ||
		tail -n 1 "$B/guest.log")', want 3 passed, 2 failed (log: $B/guest.log)"
# (WARN_ONCE prints its message first, then the report's "WARNING:" line
# naming where it was)
# and each brings where it was: the lines after it, the RIP among them
expect warn "$B/guest.log" "^FAIL $kre/4x2 reset: kernel report: .*WARNING: .*numa_advise" \
	"^FAIL $kre/4x2 console-log: kernel report in case reset: .*WARNING: .*numa_advise" \
	"^# reset: .* RIP: [0-9a-f]+:[a-z_]+.*\[numa_advise\]" \
	"^# console: .* RIP: [0-9a-f]+:[a-z_]+.*\[numa_advise\]" \
	"^FAIL $kre/4x2 hostile: "
expect number "$B/guest.log" "^FAIL $kre/4x2 hostile: .*na-fuzz rc 1: .*parameters/[a-z_]+ reads '[0-9]+" \
	"^FAIL $kre/4x2 reset: " "^FAIL $kre/4x2 console-log: "
