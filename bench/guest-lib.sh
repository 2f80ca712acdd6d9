# SPDX-License-Identifier: GPL-2.0
# guest-lib.sh - sourced by bench/guest-*.sh once $B (the build directory)
# is set: where the module and its files are, and loading it.
KO=$B/numa_advise-$NA_KVER.ko
D=/sys/kernel/debug/numa_advise
NODES=$(ls -d /sys/devices/system/node/node[0-9]* | wc -l)

unload() { grep -q '^numa_advise ' /proc/modules && rmmod numa_advise; }
