# SPDX-License-Identifier: GPL-2.0
#
# kreports.sh - what in the guest kernel's own reports counts as a failure
# (sourced by suite.sh, runs in the guest)
#
# On every kernel: the kernel log's warnings, oopses, stalls and lockups.
# On the debug kernel (scripts/debug-kernel.sh, make check-debug) also what
# its checkers find: lockdep, KASAN, the atomic-sleep check and DEBUG_LIST
# write their reports into the log too, and lockdep switches itself off
# after its first one (so a report at boot means it checked nothing after);
# kmemleak's suspected leaks only show in /sys/kernel/debug/kmemleak, after
# a scan, and count when numa_advise allocated them (boot and 9p leave
# leaks of their own, which are not ours to fail on).
#
# suite.sh calls, in this order:
#   kernel_reports_start           before the cases
#   kernel_reports_module_loaded   at the end, while the module is still
#                                  loaded (optional: a leak's backtrace then
#                                  names the module's functions; after
#                                  rmmod they are bare addresses)
#   kernel_reports                 after unloading the module: prints the
#                                  reports, nothing if there were none

# The kernel log's lines that mean something went wrong: warnings (lockdep's
# reports all begin with WARNING: - circular or recursive locking,
# inconsistent lock state, suspicious RCU usage, a lock held returning to
# user space, bad unlock balance, ...), bugs (KASAN's "BUG: KASAN:", the
# atomic-sleep check's "BUG: sleeping function called from invalid
# context", "BUG: scheduling while atomic"), oopses, list corruption, a lock
# lockdep cannot know (uninitialized), RCU stalls, lockups and hung tasks.
KREPORT_PATTERN='WARNING:|BUG:|Oops|general protection|sleeping function called from invalid context|Call Trace|RCU stall|detected stalls? on CPU|soft lockup|hard LOCKUP|blocked for more than [0-9]+ seconds|UBSAN:|list_(add|del) corruption|INFO: trying to register non-static key'

KMEMLEAK=/sys/kernel/debug/kmemleak
# lockdep's state when the cases began (see kreport_lockdep)
KREPORT_LOCKDEP_START=
# leaks of the module found while it was loaded (kernel_reports_module_loaded)
KREPORT_LEAKS=

# kreport_lockdep - 1 while lockdep checks, 0 once it switched itself off
# (after a report, an oops or a taint that makes it unreliable); nothing on
# a kernel without lockdep
kreport_lockdep() {
	sed -n 's/^ *debug_locks: *//p' /proc/lockdep_stats 2>/dev/null
}

# kreport_kmemleak_scan - have kmemleak scan twice, 6 s apart: an object
# younger than 5 s is not reported yet, and one found unreferenced only
# because its pointer was in flight is referenced again at the second scan
# (the file lists only objects still unreferenced).  Says so if kmemleak
# is off (it switches itself off when its pool runs out).
kreport_kmemleak_scan() {
	if ! { echo scan >"$KMEMLEAK"; } 2>/dev/null; then
		echo "kmemleak: cannot scan: kmemleak is off (see the console log)"
		return 1
	fi
	sleep 6
	echo scan >"$KMEMLEAK" 2>/dev/null
}

# kreport_module_leaks - one line per suspected leak that numa_advise
# allocated: a frame of its backtrace is in the module, or in code no
# longer loaded (a bare address: the only module unloaded in the guest is
# numa_advise, the 9p chain is built in).  The others go to stderr, which
# suite.sh's log keeps, as a count and the first of them.
kreport_module_leaks() {
	awk -v others=/dev/stderr '
	function flush() {
		if (obj == "")
			return
		if (where != "")
			print "kmemleak: " obj " " comm " allocated at " where
		else if (++nothers <= 3)
			print "kreports: not counted, not from numa_advise: " obj " " comm " at " first > others
		obj = ""
	}
	/^unreferenced object/ {
		flush()
		obj = $0; sub(/:$/, "", obj); where = ""; first = ""; comm = ""
		next
	}
	/^ *comm "/ { comm = $1 " " $2; sub(/,$/, "", comm); next }
	/^ *\[<[0-9a-f]+>\] / {
		frame = $0; sub(/^ *\[<[0-9a-f]+>\] /, "", frame)
		if (first == "" && frame !~ /^(kmem|__kmem|kmalloc|__kmalloc|kzalloc|kvmalloc|__vmalloc|vmalloc|slab_|__slab|kmemleak|alloc_|__alloc)/)
			first = frame
		if (where == "" && (frame ~ /\[numa_advise\]$/ || frame ~ /^0x[0-9a-f]+$/))
			where = frame ~ /^0x/ ? frame " (code unloaded since)" : frame
		next
	}
	END {
		flush()
		if (nothers)
			print "kreports: " nothers " suspected leak(s) not from numa_advise, not counted" > others
	}' "$KMEMLEAK"
}

# kreport_lines [case [ALSO]] - of a kernel log on stdin, the lines that report
# something (KREPORT_PATTERN).  A KCSAN report (on the KCSAN kernel, make
# check-debug) counts only when it involves numa_advise: a frame of the
# module ("[numa_advise]") in the stack of one of the racing accesses; the
# kernel's own races are not ours to fail on.  A stack taken in an
# interrupt goes on below the interrupt's entry (asm_sysvec_..., asm_common_
# interrupt) into whatever the interrupt stopped, which is not the access:
# 6.1's own race on nohz.idle_cpus_mask, read by the tick, once stopped the
# engine thread and so named it.  With
# "case", each line comes after the case it came in (the suite's marker
# "na-suite: case NAME begins") and a tab.  With ALSO, an extended regular
# expression, the lines that match it are kept too.
kreport_lines() {
	awk -v pat="$KREPORT_PATTERN${2:+|$2}" -v tag="${1:-}" '
	function out(l) { print (tag == "" ? "" : (c == "" ? "before the cases" : "in case " c) "\t") l }
	/na-suite: case [^ ]+ begins/ {
		c = $0; sub(/.*na-suite: case /, "", c); sub(/ begins.*/, "", c)
	}
	/BUG: KCSAN:/ { kcsan = 1; hdr = $0; ours = 0; stopped = 0; next }
	kcsan && /================/ { if (ours) out(hdr); kcsan = 0; next }
	kcsan && / on cpu [0-9]+:/ { stopped = 0; next }	# an access, its stack next
	kcsan && /asm_(sysvec_|common_interrupt|spurious_interrupt)/ { stopped = 1; next }
	kcsan { if (/\[numa_advise\]/ && !stopped) ours = 1; next }
	$0 ~ pat { out($0) }
	END { if (kcsan && ours) out(hdr) }'
}

# kreport_context WHO LINE - of a kernel log on stdin, the 30 lines from
# the first that holds LINE, as "# WHO: " lines: a report's header alone
# does not say where the kernel was (the task, its RIP and the first
# frames of the call trace come in the lines after it)
kreport_context() {
	grep -a -F -m 1 -A 29 -- "$2" | sed "s/^/# $1: /"
}

# kreport_log_since [MARKER] - the kernel log's reports after the last
# line with MARKER (all of them without one, or when the marker has
# rotated out of the log)
kreport_log_since() {
	dmesg | awk -v m="${1:-}" 'm != "" && index($0, m) { n = NR } { l[NR] = $0 }
		END { for (i = n + 1; i <= NR; i++) print l[i] }' | kreport_lines
}

# kernel_reports_start - forget what the kernel reported before the cases
# (boot's own leaks included), noting whether lockdep is still on
kernel_reports_start() {
	dmesg -C 2>/dev/null
	KREPORT_LOCKDEP_START=$(kreport_lockdep)
	KREPORT_LEAKS=
	if [ -w "$KMEMLEAK" ]; then
		# no scans of its own: one takes a CPU for minutes under TCG and
		# KASAN, which the cases that measure busy time would see;
		# kernel_reports scans when the cases are done
		echo scan=off >"$KMEMLEAK" 2>/dev/null
		echo clear >"$KMEMLEAK" 2>/dev/null
	fi
}

# kernel_reports_module_loaded - look for the module's leaks while it is
# still loaded, so that a report names its functions; kernel_reports
# prints them
kernel_reports_module_loaded() {
	[ -w "$KMEMLEAK" ] && grep -q '^numa_advise ' /proc/modules || return 0
	KREPORT_LEAKS=$(kreport_kmemleak_scan && kreport_module_leaks)
}

# kernel_reports [MARKER] - print the reports since kernel_reports_start,
# or in the log's lines after the last one with MARKER (a few of each
# kind), nothing if there were none
kernel_reports() {
	{
		kreport_log_since "${1:-}" | head -n 3
		case $KREPORT_LOCKDEP_START$(kreport_lockdep) in
		0*) echo "lockdep: off before the cases began (a report at boot, see the console log): nothing was checked" ;;
		10) echo "lockdep: switched itself off during the cases (debug_locks 0)" ;;
		esac
		if [ -w "$KMEMLEAK" ]; then
			{
				[ -z "$KREPORT_LEAKS" ] || echo "$KREPORT_LEAKS"
				kreport_kmemleak_scan && kreport_module_leaks
			} | awk '!seen[$4]++' | head -n 3
		fi
	}
}
