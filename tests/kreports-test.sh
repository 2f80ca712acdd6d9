#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kreports-test.sh - what the guest's report filter (tests/guest/kreports.sh)
# counts, on kernel logs taken from real runs and cut down: a KCSAN report
# counts when the module is in the stack of a racing access, not when an
# interrupt that raced stopped the module's code, nor when only the task's
# name is the module's.  One line per case, as tests/run.sh tallies them.
set -uo pipefail
# shellcheck source=tests/guest/kreports.sh
. "$(dirname "$0")/guest/kreports.sh"

# case NAME WANT - the log on stdin must give WANT report lines
case_() {
	local got
	got=$(kreport_lines "" | wc -l)
	if [ "$got" -eq "$2" ]; then
		echo "PASS host kreports.$1"
	else
		echo "FAIL host kreports.$1: $got report lines, want $2"
	fi
}

# 6.1 KCSAN, check-debug of 83ce864: the module's call of get_cpu_idle_time_us
case_ kcsan_module_access 1 <<'EOF'
[  227.849139] BUG: KCSAN: data-race in get_cpu_idle_time_us / tick_irq_enter
[  227.849300] 
[  227.849400] write to 0xffff88800781d3a8 of 8 bytes by interrupt on cpu 2:
[  227.849500]  tick_irq_enter+0x6a/0x150
[  227.849600]  irq_enter_rcu+0x5a/0x70
[  227.849700]  sysvec_apic_timer_interrupt+0x4e/0x90
[  227.849800]  asm_sysvec_apic_timer_interrupt+0x16/0x20
[  227.849900]  default_idle+0xb/0x10
[  227.850000] 
[  227.850100] read to 0xffff88800781d3a8 of 8 bytes by task 4242 on cpu 0:
[  227.850200]  get_cpu_idle_time_us+0x1a3/0x1d0
[  227.850300]  na_cpu_clock_sample+0x4c/0x120 [numa_advise]
[  227.850400]  na_cpu_totals+0x31/0x90 [numa_advise]
[  227.850500]  vfs_read+0x10b/0x560
[  227.850600] 
[  227.850700] Reported by Kernel Concurrency Sanitizer on:
[  227.850800] CPU: 0 PID: 4242 Comm: cat Tainted: G           O       6.1.192-na-kcsan #1
[  227.850900] ==================================================================
EOF

# check-debug of d6607da: 6.1's own race on nohz.idle_cpus_mask, read by the
# tick while it had stopped the engine thread
case_ kcsan_module_interrupted 0 <<'EOF'
[ 1105.181009] BUG: KCSAN: data-race in _find_next_and_bit+0x40/0x100
[ 1105.181248] 
[ 1105.181314] race at unknown origin, with read to 0xffffffffb8da2940 of 8 bytes by interrupt on cpu 0:
[ 1105.181558]  _find_next_and_bit+0x40/0x100
[ 1105.181730]  trigger_load_balance+0x11c/0x340
[ 1105.181891]  update_process_times+0xad/0xd0
[ 1105.182869]  sysvec_apic_timer_interrupt+0x66/0x90
[ 1105.183032]  asm_sysvec_apic_timer_interrupt+0x16/0x20
[ 1105.183200]  kcsan_setup_watchpoint+0x287/0x440
[ 1105.183362]  na_engine_fn+0x2b6/0x31d0 [numa_advise]
[ 1105.184094]  kthread+0x17b/0x1b0
[ 1105.188609]  ret_from_fork+0x22/0x30
[ 1105.188794] 
[ 1105.188861] value changed: 0x00000000000000c0 -> 0x00000000000000ca
[ 1105.189034] 
[ 1105.189096] Reported by Kernel Concurrency Sanitizer on:
[ 1105.189248] CPU: 0 PID: 15116 Comm: numa_advise Tainted: G           O       6.1.192-na-kcsan #1
[ 1105.189545] ==================================================================
EOF

# the same race with the interrupt stopping user space: nothing of ours
case_ kcsan_kernel_only 0 <<'EOF'
[  620.742290] BUG: KCSAN: data-race in _find_next_and_bit+0x40/0x100
[  620.743139] race at unknown origin, with read to 0xffffffffb8da2940 of 8 bytes by interrupt on cpu 4:
[  620.743661]  _find_next_and_bit+0x40/0x100
[  620.744064]  trigger_load_balance+0x11c/0x340
[  620.749952]  asm_sysvec_apic_timer_interrupt+0x16/0x20
[  620.750041] 
[  620.750380] Reported by Kernel Concurrency Sanitizer on:
[  620.750708] CPU: 4 PID: 15305 Comm: memtouch Tainted: G           O       6.1.192-na-kcsan #1
[  620.750900] ==================================================================
EOF

# an interrupted first stack does not hide the module in the second
case_ kcsan_module_in_second_stack 1 <<'EOF'
[  300.000000] BUG: KCSAN: data-race in na_probe_migrate / some_kernel_fn
[  300.000100] write to 0xffff888007a38780 of 8 bytes by interrupt on cpu 1:
[  300.000200]  some_kernel_fn+0x10/0x20
[  300.000300]  asm_sysvec_apic_timer_interrupt+0x16/0x20
[  300.000400]  default_idle+0xb/0x10
[  300.000500] 
[  300.000600] read to 0xffff888007a38780 of 8 bytes by task 12 on cpu 3:
[  300.000700]  na_probe_migrate+0x40/0x200 [numa_advise]
[  300.000800]  set_task_cpu+0xd0/0x1f0
[  300.000900] 
[  300.001000] Reported by Kernel Concurrency Sanitizer on:
[  300.001100] ==================================================================
EOF

# warnings and stalls count wherever they are
case_ warning_counts 1 <<'EOF'
[   10.000000] WARNING: CPU: 1 PID: 77 at kernel/sched/core.c:1234 foo+0x1/0x2
EOF
