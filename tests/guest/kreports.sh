# SPDX-License-Identifier: GPL-2.0
#
# kreports.sh - what in the guest kernel's own reports counts as a failure
# (sourced by suite.sh, runs in the guest)

# The kernel log's lines that mean something went wrong: warnings, oopses,
# the sleep-in-atomic check, stalls and lockups.
KREPORT_PATTERN='WARNING:|BUG:|Oops|general protection|sleeping function called from invalid context|Call Trace|RCU stall|soft lockup|hard LOCKUP'

# kernel_reports_start - forget what the kernel reported before the cases
kernel_reports_start() {
	dmesg -C 2>/dev/null
}

# kernel_reports - print the first few reports since kernel_reports_start,
# nothing if there were none
kernel_reports() {
	dmesg | grep -E "$KREPORT_PATTERN" | head -n 3
}
