#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh - every test of the project: `make check` runs this
#
# usage: tests/run.sh [-k KVER]... [-K TREE]... [-s STAGE]...
#   -k KVER   test against this kernel (default: every kernel with headers
#             and an image here, see tests/guest/boot.sh -k list)
#   -K TREE   test against the kernel built in source tree TREE (the module
#             built with make -C TREE, guests booted with boot.sh -K TREE,
#             with the longer timeouts of a debug kernel: NA_TREE_TIMEOUT
#             for a guest run, default 7200 s, NA_BOOT_TIMEOUT default
#             600 s); e.g. the debug kernel, see make check-debug.  Only
#             -K: no other kernel; never in the install stage
#   -s STAGE  run only these stages: unit, build, guest, topo8, plant,
#             install
#             (default all; install puts the module into this machine's
#             DKMS and module tree, and takes it out again: root only)
# A Debian kernel's guest run may take NA_GUEST_TIMEOUT seconds (default
# 1500), its boot NA_BOOT_TIMEOUT (default 90).  NA_PATCHES: names of
# tests/patches/ to build the module with (tests/plant.sh plants its
# faults so); NA_KCFLAGS: more KCFLAGS for it.
#
# Prints one line per case - "PASS <where> <case>", "FAIL <where> <case>:
# <why>" or "SKIP <where> <case> (<why>)" - and closes with "N passed,
# N failed, N skipped" (tests/lib/report.sh).  Exits 1 if any failed.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
B=${NA_BUILD:-$top/build}
kvers=()
stages=()
# kernel version -> its source tree, for the -K kernels
declare -A tree_of=()
while getopts "k:K:s:" opt; do
	case $opt in
	k) kvers+=("$OPTARG") ;;
	K)
		if ! [ -s "$OPTARG/include/config/kernel.release" ]; then
			echo "run.sh: $OPTARG is not a built kernel tree" >&2
			exit 2
		fi
		read -r kv <"$OPTARG/include/config/kernel.release"
		tree_of[$kv]=$(cd "$OPTARG" && pwd)
		kvers+=("$kv")
		;;
	s) stages+=("$OPTARG") ;;
	*) echo "usage: $0 [-k KVER]... [-K TREE]... [-s unit|build|guest|topo8|plant|install]..." >&2; exit 2 ;;
	esac
done
[ ${#kvers[@]} -gt 0 ] || mapfile -t kvers < <(tests/guest/boot.sh -k list)
[ ${#stages[@]} -gt 0 ] || stages=(unit build guest topo8 plant install)
if [ ${#kvers[@]} -eq 0 ]; then
	echo "run.sh: no kernel with headers and an image in /boot (run .ci/run or tests/deps.sh)" >&2
	exit 2
fi

# the newest Debian kernel (not built from a tree): the one-kernel runs'
newest=
for k in "${kvers[@]}"; do
	[ -n "${tree_of[$k]:-}" ] || newest=$k
done

# shellcheck source=tests/lib/report.sh
. tests/lib/report.sh
pass() { echo "PASS $*"; passed=$((passed + 1)); }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }
skip() { echo "SKIP $*"; skipped=$((skipped + 1)); }
want() { [[ " ${stages[*]} " == *" $1 "* ]]; }

mkdir -p "$B"
report_header "run.sh ${stages[*]}" "${kvers[@]}"

# --- user-space unit tests (TAP from cmocka) ---------------------------------
if want unit; then
	mkdir -p "$B/unit"
	if ! make -s -C tests/unit O="$B/unit" all >"$B/unit/build.log" 2>&1; then
		fail "host unit-build: $(grep -m1 -i error "$B/unit/build.log")"
	else
		for t in test_hist test_index test_policy test_ctl; do
			CMOCKA_MESSAGE_OUTPUT=TAP "$B/unit/$t" >"$B/unit/$t.tap" 2>&1
			tally < <(tap_cases "${t#test_}" $? <"$B/unit/$t.tap")
		done
	fi
	# the guests' report filter, on logs of real reports
	tests/kreports-test.sh >"$B/unit/kreports.log" 2>&1
	tally <"$B/unit/kreports.log"
	grep -qE '^(PASS|FAIL)' "$B/unit/kreports.log" ||
		fail "host kreports: no result: $(tail -n 1 "$B/unit/kreports.log")"
fi

# --- builds: helpers, and the module per kernel at W=1 ------------------------
# shellcheck source=tests/lib/build.sh
. tests/lib/build.sh

if want build; then
	if scripts/checkpatch.sh >"$B/checkpatch.log" 2>&1; then
		pass "host checkpatch"
	else
		fail "host checkpatch: $(grep -m1 -E '^(ERROR|WARNING)|checkpatch.sh:' "$B/checkpatch.log")"
	fi
fi

# kernels the module did not build for: no guest runs old code for them
declare -A unbuilt=()
if want build || want guest || want topo8 || want install; then
	make -s -C tests/helpers O="$B" >"$B/helpers.log" 2>&1 ||
		fail "host helpers-build: $(grep -m1 -i error "$B/helpers.log")"
	# the benchmarks' programs (make bench runs them) build warning-free
	if want build; then
		mkdir -p "$B/bench-build"
		if make -s -C bench O="$B/bench-build" >"$B/bench-build.log" 2>&1 &&
			! grep -qi warning "$B/bench-build.log"; then
			pass "host bench-build"
		else
			fail "host bench-build: $(grep -m1 -iE 'error|warning' "$B/bench-build.log")"
		fi
	fi
	if make -s -C tools O="$B" >"$B/tool.log" 2>&1; then
		want build && pass "host numa-advise-ctl-build"
	else
		fail "host numa-advise-ctl-build: $(grep -m1 -iE 'error|needs' "$B/tool.log")"
	fi
	for k in "${kvers[@]}"; do
		# shellcheck disable=SC2086 # NA_PATCHES: names, space-separated
		if ! build_module "$k" numa_advise ${NA_PATCHES:-}; then
			unbuilt[$k]=1
			fail "$k module-build: $(grep -m1 -i error "$B/numa_advise-$k/build.log")"
		elif grep -qi 'warning:' "$B/numa_advise-$k/build.log"; then
			fail "$k module-build: W=1 $(grep -m1 -i 'warning:' "$B/numa_advise-$k/build.log")"
		else
			want build && pass "$k module-build-W=1"
		fi
		build_module "$k" numa_advise-missing-tp missing-tp ||
			fail "$k module-build: test variant without a tracepoint"
		# a kernel with kmemleak (the debug kernel) shows its leaks caught
		if [ -n "${tree_of[$k]:-}" ] &&
			grep -q '^CONFIG_DEBUG_KMEMLEAK=y' "${tree_of[$k]}/.config"; then
			build_module "$k" numa_advise-leak leak ||
				fail "$k module-build: test variant that leaks"
		else
			rm -f "$B/numa_advise-leak-$k.ko"
		fi
	done
fi

# make install honours DESTDIR and PREFIX; what it installs works there: the
# tool runs, the man page formats without a warning, the completion completes.
if want build; then
	dest=$B/destdir
	rm -rf "$dest"
	if ! make -s -C tools O="$B" install DESTDIR="$dest" PREFIX=/usr >"$B/install.log" 2>&1; then
		fail "host tool-install: $(head -n 1 "$B/install.log")"
	elif [ "$("$dest/usr/sbin/numa-advise-ctl" --version)" != "numa-advise-ctl $(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)" ]; then
		fail "host tool-install: --version says '$("$dest/usr/sbin/numa-advise-ctl" --version)'"
	elif [ -n "$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$dest/usr/share/man/man8/numa-advise-ctl.8" 2>&1 >/dev/null)" ]; then
		fail "host tool-install: man page: $(man --warnings -l "$dest/usr/share/man/man8/numa-advise-ctl.8" 2>&1 >/dev/null | head -n 1)"
	elif [ "$(bash -c 'source "$1"; COMP_WORDS=(numa-advise-ctl policy d); COMP_CWORD=2; _numa_advise_ctl; echo "${COMPREPLY[*]}"' _ "$dest/usr/share/bash-completion/completions/numa-advise-ctl")" != distance ]; then
		fail "host tool-install: bash completion of 'policy d'"
	elif ! make -s -C tools uninstall DESTDIR="$dest" PREFIX=/usr ||
		[ -n "$(find "$dest" -type f)" ]; then
		fail "host tool-install: uninstall left $(find "$dest" -type f | head -n 1)"
	else
		pass "host tool-install"
	fi
fi

# The tool fed random arguments, built with AddressSanitizer and UBSan: no
# crash, no sanitizer report, only the exit statuses it documents.  (The
# guest case ctl_fuzz does the same against the loaded module.)
if want build; then
	san="-fsanitize=address,undefined -fno-omit-frame-pointer"
	mkdir -p "$B/asan"
	if ! make -s -C tools O="$B/asan" CPPFLAGS="$san" LDFLAGS="${san% *}" \
		>"$B/asan/build.log" 2>&1; then
		fail "host ctl-fuzz: sanitizer build: $(grep -m1 -iE 'error' "$B/asan/build.log")"
	elif tests/ctl-fuzz.sh -n "${NA_CTL_FUZZ_RUNS:-500}" "$B/asan/numa-advise-ctl" \
		>"$B/asan/fuzz.log" 2>&1; then
		pass "host ctl-fuzz ($(tail -n 1 "$B/asan/fuzz.log" | sed 's/^ctl-fuzz: //'))"
	else
		fail "host ctl-fuzz: $(head -n 1 "$B/asan/fuzz.log")"
	fi
fi

# --- guests: the integration suite per kernel, the 8-node layout once ---------

# Each guest runs single-threaded TCG (see boot.sh), so as many guests run
# at once as there are host CPUs; their results are read in order after.
runs=()
if want guest; then
	for k in "${kvers[@]}"; do
		runs+=("$k 4x2")
	done
fi
if want topo8; then
	# The 8-node layout (two groups of four close nodes) on the newest
	# kernel; the 2014 seed's case on it, with one CPU a node (half the
	# emulation), on every kernel.  A tree's kernel (the debug kernel,
	# several times slower) gets only the latter.
	if [ -n "$newest" ]; then
		runs+=("$newest 8x2 load tables migrations dmesg_clean")
	else
		skip "${kvers[*]} 8x2 (the 8x2 layout runs on a Debian kernel only: too slow on a debug kernel)"
	fi
	for k in "${kvers[@]}"; do
		runs+=("$k 8x1 load distance dmesg_clean")
	done
	# and the tool on a machine with a single node
	if [ -n "$newest" ]; then
		runs+=("$newest 1x2 load ctl_one_node dmesg_clean")
	else
		skip "${kvers[*]} 1x2 (the one-node layout runs on a Debian kernel only)"
	fi
fi

guest_log() { echo "$B/guest-$1-$2.log"; }
slots=$(nproc)
started=()
for r in "${runs[@]}"; do
	read -r kver topo cases <<<"$r"
	if [ -n "${unbuilt[$kver]:-}" ]; then
		fail "$kver/$topo guest: not run: the module did not build for $kver"
		continue
	fi
	started+=("$r")
	while [ "$(jobs -rp | wc -l)" -ge "$slots" ]; do
		wait -n
	done
	log=$(guest_log "$kver" "$topo")
	# A tree's kernel (the debug kernel) boots and runs several times slower.
	if [ -n "${tree_of[$kver]:-}" ]; then
		kernel=(-K "${tree_of[$kver]}" -T "${NA_TREE_TIMEOUT:-7200}")
		boot_timeout=${NA_BOOT_TIMEOUT:-600}
		knobs=(NA_TIME_SCALE=4 NA_RELOAD_CYCLES=100 NA_HB_GROUPS=4 NA_FAULT_SECS=120
			NA_REUSE_ROUNDS=10)
	else
		# the 4x2 suite takes about 9 minutes (its cases 503-523 s in a
		# clean-clone run), more on a loaded machine
		kernel=(-k "$kver" -T "${NA_GUEST_TIMEOUT:-1500}")
		boot_timeout=${NA_BOOT_TIMEOUT:-90}
		knobs=()
	fi
	# shellcheck disable=SC2086 # $cases: a list of case names
	NA_BOOT_TIMEOUT=$boot_timeout tests/guest/boot.sh "${kernel[@]}" -t "$topo" -l "$log.console" \
		tests/guest/suite.sh "$B" "${knobs[@]}" $cases >"$log" 2>&1 &
done
wait
for r in "${started[@]}"; do
	read -r kver topo _ <<<"$r"
	log=$(guest_log "$kver" "$topo")
	tally <"$log"
	grep -q '^suite: ' "$log" ||
		fail "$kver/$topo guest: no result from the guest: $(tail -n 1 "$log") (console: $log.console)"
	tally < <(console_check "$kver/$topo" "$log.console")
done

# --- the test bed's own test: planted faults must show (tests/plant.sh) -------
if want plant; then
	if [ -n "$newest" ]; then
		tally < <(tests/plant.sh "$newest" 2>&1)
	else
		skip "host plant (planted faults run on a Debian kernel only)"
	fi
fi

# --- installed: make install (DKMS) and the .deb, modprobe in guests ---------
# After the other guests: it rewrites this machine's modules.dep, which a
# guest reads when its initramfs is first built.
if want install; then
	installed=()
	for k in "${kvers[@]}"; do
		if [ -n "${tree_of[$k]:-}" ]; then
			skip "$k install (a kernel built from source is not installed into this machine)"
		else
			installed+=("$k")
		fi
	done
	[ ${#installed[@]} -eq 0 ] || tally < <(tests/install.sh "$B" "${installed[@]}" 2>&1)
fi

report_summary
[ "$failed" -eq 0 ]
