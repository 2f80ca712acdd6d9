#!/bin/bash
# boot.sh - run one script inside a QEMU guest with an emulated NUMA topology.
#
# The host kernel cannot load modules, so every test that loads numa_advise.ko
# runs in a guest booting one of the Debian kernels installed under /boot (or,
# with -K, a kernel built in a source tree: the debug kernel).  The
# guest boots a tiny busybox initramfs (built from tests/guest/init.sh and
# cached per kernel), mounts the host's root read-only over 9p, chroots into it
# and runs SCRIPT there, in the directory boot.sh was started from.
#
# Output channels: the guest's console (ttyS0: kernel messages, init messages
# and a copy of the script's output) goes to LOGFILE; the script's output alone
# goes out through a second serial port (ttyS1), which boot.sh prints live on
# its stdout.  Kernel messages never reach ttyS1, so no filtering of kernel
# noise is needed.  On ttyS1, init also prints "NA-GUEST-START-<nonce>" just
# before the script and "NA-GUEST-EXIT-<nonce> <rc>" after it, then powers
# off; boot.sh exits with <rc>.  The nonce is new for every run, so nothing
# the script prints can pass for a marker.
#
# Multi-threaded TCG (QEMU 7.2) sometimes breaks a guest while the kernel
# patches its own code (static keys, e.g. when a tracepoint is switched on or
# off): 6.12 dies with "Oops: int3", 6.1 has hung.  It happens at boot (about
# one 6.12 8x2 boot in seven) and later: toggling the sched_switch event 100
# times crashed or hung half of the guests tried, 4x2 and 8x2, 6.1 and 6.12.
# Single-threaded TCG never showed it in the same tests, so it is the
# default: the module switches tracepoints on at every load, and a test must
# not fail for QEMU's sake.  Before the script starts nothing has run, so boot.sh boots again
# (up to NA_BOOT_TRIES times) after a crash or a hang there; once the script
# has started, a crash is reported, never retried.

set -euo pipefail

usage() {
	cat <<'EOF'
usage: boot.sh {-k KVER | -K TREE} [-t TOPO] [-m MEM_PER_NODE_MB] [-T TIMEOUT_S]
               [-l LOGFILE] SCRIPT [ARGS...]
       boot.sh -k list

Boot /boot/vmlinuz-KVER (or TREE's bzImage) under QEMU (TCG) with an emulated
NUMA topology and run SCRIPT ARGS... inside it, chrooted into the host's root
(read-only over 9p), in the current directory.  SCRIPT sees NA_KVER and
NA_TOPO in its environment; /tmp /var/tmp /run /var/log are fresh tmpfs in
the guest.

  -k KVER   kernel version (needs /boot/vmlinuz-KVER and /lib/modules/KVER);
            "-k list" prints the usable versions, one per line
  -K TREE   a kernel built in the source tree TREE instead (its
            arch/x86/boot/bzImage and .config; the version is TREE's
            kernel.release): virtio_pci, 9pnet_virtio and 9p must be built
            in, e.g. the debug kernel of scripts/debug-kernel.sh
  -t TOPO   4x2 (default): 4 nodes x 2 CPUs, distances in a line
                           (neighbours 20, then 30, 40)
            8x2:           8 nodes x 2 CPUs, nodes 0-3 and 4-7 at 16 from
                           each other, 32 across the two groups
            8x1:           the same with 1 CPU a node: half the emulation
            2x2:           2 nodes x 2 CPUs at distance 20
            1x2:           1 node x 2 CPUs (no NUMA)
  -m MB     memory per node (default 128 for 4x2, 64 for 8x2 and 8x1,
            256 for 2x2 and 1x2)
  -T SECS   timeout for one guest run, boot included (default 600)
  -l FILE   guest console log (default: a new file under ${TMPDIR:-/tmp})

Exit status: SCRIPT's exit status; 124 if the guest timed out; 125 if the
guest ended without reporting one (panic, crash, init failure); 2 for usage
errors.

Environment:
  NA_BUILD          cache directory (default <repo>/build); boot.sh uses
                    NA_BUILD/guest for the initramfs, the uncompressed kernel
                    and per-run files
  NA_BOOT_TRIES     boots to attempt when the guest dies or hangs before the
                    script starts (default 3)
  NA_BOOT_TIMEOUT   seconds a boot may take to reach the script (default 90)
  NA_GUEST_APPEND   extra kernel command line parameters
  NA_QEMU_ARGS      extra QEMU arguments (split at spaces)
  NA_TCG_THREAD     "single" (default) or "multi": multi-threaded TCG gives
                    CPU-bound work twice the throughput, but shows the
                    code-patching crashes described at the top of boot.sh

SCRIPT's stdout and stderr both come out on boot.sh's stdout, without
carriage returns; boot.sh's own messages go to stderr.
EOF
}

# usage_error - complain about the command line and exit 2.
usage_error() {
	echo "boot.sh: $*" >&2
	echo "Try 'boot.sh -h'." >&2
	exit 2
}

# fail - report a problem with the host setup and exit 2.
fail() {
	echo "boot.sh: $*" >&2
	exit 2
}

# list_kernels - versions with both a kernel image and a build directory.
list_kernels() {
	local build version

	for build in /lib/modules/*/build; do
		version=${build#/lib/modules/}
		version=${version%/build}
		if [[ -d $build && -f /boot/vmlinuz-$version ]]; then
			echo "$version"
		fi
	done | sort -V
}

# shell_quote - print $1 single-quoted for any POSIX shell (busybox sh too).
shell_quote() {
	local sq="'"

	printf "'%s'" "${1//$sq/$sq\\$sq$sq}"
}

# distance - SLIT distance between nodes $1 and $2 (with $1 < $2) in $topo.
distance() {
	local i=$1 j=$2

	case $topo in
	4x2 | 2x2) echo $((10 + 10 * (j - i))) ;;
	8x2 | 8x1) if ((i / 4 == j / 4)); then echo 16; else echo 32; fi ;;
	esac
}

# module_load_order - print the 9p chain of modules for $kver in load order,
# as paths relative to /lib/modules/$kver.  Dependencies come from
# modules.dep (which lists them so that loading in reverse works); modules
# built into the kernel are not in it and are skipped.  On 6.1 this gives
# virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci
# 9pnet 9pnet_virtio netfs fscache 9p; on 6.12 (virtio built in, fscache
# merged into netfs) netfs 9pnet 9pnet_virtio 9p.
module_load_order() {
	local moddir=/lib/modules/$kver root line i m
	local -a deps chain
	local -A seen=()

	for root in virtio_pci 9pnet_virtio 9p; do
		if grep -Eq "/$root\.ko$" "$modules_builtin"; then
			continue
		fi
		[[ -z $tree ]] || fail "$tree: $root is not built in"
		line=$(grep -E "^[^:]*/$root\.ko(\.[a-z]+)?:" "$moddir/modules.dep") ||
			fail "$kver has neither a module nor a built-in $root"
		# "path: dep1 dep2 ...": load dep2 before dep1, the module last.
		read -ra deps <<<"${line#*:}"
		chain=()
		for ((i = ${#deps[@]} - 1; i >= 0; i--)); do
			chain+=("${deps[i]}")
		done
		chain+=("${line%%:*}")
		for m in "${chain[@]}"; do
			if [[ -z ${seen[$m]:-} ]]; then
				seen[$m]=1
				echo "$m"
			fi
		done
	done
}

# build_initramfs - write the guest initramfs for $kver to $1: busybox, the
# init script and the (decompressed) 9p module chain.  /bin/busybox must be
# the static one (package busybox-static).
build_initramfs() {
	local out=$1 root m name applet

	[[ -x /bin/busybox ]] || fail "no /bin/busybox (install busybox-static)"
	root=$(mktemp -d "$builddir/initramfs-$kver.XXXXXX")
	mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,etc,lib/modules,host}
	cp /bin/busybox "$root/bin/busybox"
	for applet in $("$root/bin/busybox" --list-full); do
		[[ -e $root/$applet ]] || ln -s /bin/busybox "$root/$applet"
	done
	install -m 0755 "$here/init.sh" "$root/init"

	: >"$root/etc/na-modules"
	for m in $(module_load_order); do
		name=$(basename "$m")
		name=${name%.ko*}.ko
		case $m in
		*.ko) cp "/lib/modules/$kver/$m" "$root/lib/modules/$name" ;;
		*.ko.xz) xz -dc "/lib/modules/$kver/$m" >"$root/lib/modules/$name" ;;
		*.ko.zst) zstd -qdc "/lib/modules/$kver/$m" >"$root/lib/modules/$name" ;;
		*.ko.gz) gzip -dc "/lib/modules/$kver/$m" >"$root/lib/modules/$name" ;;
		*) fail "unexpected module file $m" ;;
		esac
		echo "$name" >>"$root/etc/na-modules"
	done

	# Write under a temporary name and rename, so that guests booting in
	# parallel never see a half-written archive.
	(cd "$root" && find . -print0 | cpio --null -o -H newc -R 0:0 --quiet) |
		gzip -1 >"$out.tmp.$$"
	mv "$out.tmp.$$" "$out"
	rm -rf "$root"
}

# extract_vmlinux - write the uncompressed kernel inside /boot/vmlinuz-$kver
# to $1.  QEMU boots such an ELF image through its PVH entry point, which
# skips the in-guest decompression: that takes seconds under TCG (3.3 s for
# the xz-compressed 6.1 kernel).  Returns non-zero if that is not possible.
extract_vmlinux() {
	local out=$1 bz=/boot/vmlinuz-$kver magic offset tool notes

	for magic in '\xFD7zXZ\x00:xz -dc' '\x28\xB5\x2F\xFD:zstd -qdc' \
		'\x1F\x8B\x08:gzip -dc'; do
		offset=$(LC_ALL=C grep -aboP -m1 "${magic%%:*}" "$bz" | cut -d: -f1) ||
			continue
		offset=${offset%%$'\n'*}
		tool=${magic#*:}
		# The compressed kernel is followed by other data, so the tool
		# complains at the end: judge by what it produced instead.
		tail -c +$((offset + 1)) "$bz" | $tool >"$out.tmp.$$" 2>/dev/null || true
		# PVH boot needs the XEN_ELFNOTE_PHYS32_ENTRY note (type 0x12).
		notes=$(readelf -n "$out.tmp.$$" 2>/dev/null) || true
		if [[ $notes == *"(0x00000012)"* ]]; then
			mv "$out.tmp.$$" "$out"
			return 0
		fi
	done
	rm -f "$out.tmp.$$"
	return 1
}

# failure_reason - one phrase saying why the guest in $logfile ended
# without an exit status (qemu's own exit status is $1).
failure_reason() {
	local qemu_rc=$1 why

	why=$(grep -a -m1 -o -E 'na-init: error:.*|Kernel panic - not syncing:.*' "$logfile" || true)
	[[ -n $why ]] || why=$(grep -a -m1 -o -E '(BUG|Oops):.*' "$logfile" || true)
	if [[ -n $why ]]; then
		echo "ended without an exit status: $why"
	elif ((qemu_rc != 0)); then
		echo "ended without an exit status: qemu exited with status $qemu_rc"
	else
		echo "powered off or rebooted without an exit status"
	fi
}

# cleanup - on exit, stop a guest still running and remove per-run files.
cleanup() {
	if [[ -n ${qemu_pid:-} ]]; then
		kill "$qemu_pid" 2>/dev/null || true
	fi
	if [[ -n ${rundir:-} ]]; then
		rm -rf "$rundir"
	fi
}

# run_guest - boot the guest once, printing the script's output as it comes.
# Sets started (the script began), guest_rc (its exit status, if reported),
# stalled (the boot took longer than $boot_timeout) and qemu_rc.
run_guest() {
	local fifo=$rundir/output line status start_marker exit_marker fd

	start_marker="NA-GUEST-START-$nonce"
	exit_marker="NA-GUEST-EXIT-$nonce "
	started=
	guest_rc=
	stalled=
	rm -f "$fifo"
	mkfifo "$fifo"
	# qemu writes ttyS1 to its stdout (chardev path /dev/stdout): the FIFO.
	# Its "terminating on signal" notice when we stop it is noise: drop it.
	timeout -k 10 "$timeout" "${qemu[@]}" </dev/null >"$fifo" \
		2> >(grep -v --line-buffered '^qemu-system-x86_64: terminating on signal' >&2) &
	qemu_pid=$!
	exec {fd}<"$fifo"

	while :; do
		if [[ -z $started ]]; then
			# Until the script starts, wait at most until the boot deadline.
			status=0
			IFS= read -r -t $((boot_deadline > SECONDS ? boot_deadline - SECONDS : 1)) \
				-u "$fd" line || status=$?
			if ((status > 128)); then
				stalled=1
				kill "$qemu_pid" 2>/dev/null || true
				break
			fi
		else
			status=0
			IFS= read -r -u "$fd" line || status=$?
		fi
		if ((status != 0)) && [[ -z $line ]]; then
			break	# end of output: qemu exited
		fi
		line=${line//$'\r'/}
		if [[ -z $started && $line == "$start_marker" ]]; then
			started=1
		elif [[ $line == *"$exit_marker"* ]]; then
			# A last output line without a newline ends up in front.
			[[ -z ${line%%"$exit_marker"*} ]] || printf '%s\n' "${line%%"$exit_marker"*}"
			guest_rc=${line##*"$exit_marker"}
		else
			printf '%s\n' "$line"
		fi
	done

	exec {fd}<&-
	qemu_rc=0
	wait "$qemu_pid" || qemu_rc=$?
	qemu_pid=
	sed -i 's/\r$//' "$logfile"
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
self="$here/$(basename "${BASH_SOURCE[0]}")"

kver=
tree=
topo=4x2
mem=
timeout=600
logfile=
while getopts ":k:K:t:m:T:l:h" opt; do
	case $opt in
	k) kver=$OPTARG ;;
	K) tree=$OPTARG ;;
	t) topo=$OPTARG ;;
	m) mem=$OPTARG ;;
	T) timeout=$OPTARG ;;
	l) logfile=$OPTARG ;;
	h) usage; exit 0 ;;
	:) usage_error "option -$OPTARG needs a value" ;;
	*) usage_error "unknown option -$OPTARG" ;;
	esac
done
shift $((OPTIND - 1))

if [[ $kver == list ]]; then
	list_kernels
	exit 0
fi
if [[ -n $tree ]]; then
	# A kernel in a source tree: its image, config and built-in list.
	[[ -z $kver ]] || usage_error "-k and -K exclude each other"
	[[ -d $tree ]] || fail "no kernel tree $tree"
	tree=$(cd "$tree" && pwd)
	image=$tree/arch/x86/boot/bzImage
	[[ -s $image && -s $tree/.config && -s $tree/include/config/kernel.release ]] ||
		fail "$tree has no built kernel (arch/x86/boot/bzImage, .config, include/config/kernel.release)"
	read -r kver <"$tree/include/config/kernel.release"
	kconfig=$tree/.config
	modules_builtin=$tree/modules.builtin
else
	[[ -n $kver ]] || usage_error "-k KVER or -K TREE is required (boot.sh -k list shows the versions)"
	[[ -f /boot/vmlinuz-$kver ]] || fail "no /boot/vmlinuz-$kver"
	[[ -d /lib/modules/$kver/kernel ]] || fail "no /lib/modules/$kver"
	image=/boot/vmlinuz-$kver
	kconfig=/boot/config-$kver
	modules_builtin=/lib/modules/$kver/modules.builtin
fi

cpus_per_node=2
case $topo in
4x2) nodes=4 default_mem=128 ;;
8x2) nodes=8 default_mem=64 ;;
8x1) nodes=8 default_mem=64 cpus_per_node=1 ;;
2x2) nodes=2 default_mem=256 ;;
1x2) nodes=1 default_mem=256 ;;
*) usage_error "unknown topology '$topo' (4x2, 8x2, 8x1, 2x2 or 1x2)" ;;
esac
tcg_thread=${NA_TCG_THREAD:-single}
[[ $tcg_thread == multi || $tcg_thread == single ]] ||
	usage_error "NA_TCG_THREAD must be multi or single"
mem=${mem:-$default_mem}
if ! [[ $mem =~ ^[0-9]+$ ]] || ((mem < 32)); then
	usage_error "-m wants megabytes per node (at least 32)"
fi
if ! [[ $timeout =~ ^[1-9][0-9]*$ ]]; then
	usage_error "-T wants a number of seconds"
fi

(($# >= 1)) || usage_error "no SCRIPT given"
script=$1
shift
script=$(realpath -s -- "$script")
[[ -f $script && -x $script ]] || fail "$script is not an executable file"

# The guest mounts fresh filesystems over these host directories; init
# binds the working directory and the script's directory back from the host
# when they are below /tmp, /var/tmp, /run or /var/log, but not below these.
for what in "current directory:$PWD" "script:$script"; do
	real=$(realpath "${what#*:}")
	for hidden in /proc /sys /dev; do
		if [[ $real == "$hidden"/* || $real == "$hidden" ]]; then
			fail "${what%%:*} ${what#*:} is under $hidden, which the guest covers with its own mount"
		fi
	done
done

if ! repo=$(git -C "$here" rev-parse --show-toplevel 2>/dev/null); then
	repo=$(cd "$here/../.." && pwd)
fi
builddir=${NA_BUILD:-$repo/build}/guest
mkdir -p "$builddir"
builddir=$(cd "$builddir" && pwd)

# The initramfs depends only on the kernel version: cache it.  (A tree's
# kernel has the 9p chain built in: its initramfs holds no module.)
initramfs=$builddir/initramfs-$kver.cpio.gz
if [[ -n $tree ]]; then
	moddeps=$modules_builtin
else
	moddeps=/lib/modules/$kver/modules.dep
fi
if [[ ! -s $initramfs || $self -nt $initramfs || $here/init.sh -nt $initramfs ||
	$moddeps -nt $initramfs ]]; then
	build_initramfs "$initramfs"
fi

# Likewise the uncompressed kernel; fall back to the bzImage if there is none.
# A tree's kernel boots as its bzImage: the debug kernel's PVH entry cannot
# run before KASAN is set up (see scripts/debug-kernel.sh).
kernel=$builddir/vmlinux-$kver
if [[ -n $tree ]]; then
	kernel=$image
elif [[ ! -s $kernel || /boot/vmlinuz-$kver -nt $kernel ]] &&
	! extract_vmlinux "$kernel"; then
	echo "boot.sh: cannot extract a PVH-bootable vmlinux from /boot/vmlinuz-$kver; booting it as is (slower)" >&2
	kernel=/boot/vmlinuz-$kver
fi

if [[ -z $logfile ]]; then
	logfile=$(mktemp --suffix=.log "${TMPDIR:-/tmp}/na-guest.$kver.$topo.XXXXXX")
fi
: >"$logfile" || fail "cannot write $logfile"

# The run file tells init what to run.  The guest reads it over 9p at the
# same path, so nothing about the script, its arguments or the directory
# has to survive kernel command line parsing.
rundir=$(mktemp -d "$builddir/run.XXXXXX")
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
runfile=$rundir/run
if [[ $runfile == *[\"$'\n']* ]]; then
	fail "build directory path $runfile cannot go on a kernel command line"
fi
read -r nonce </proc/sys/kernel/random/uuid
{
	echo "NA_KVER=$(shell_quote "$kver")"
	echo "NA_TOPO=$(shell_quote "$topo")"
	echo "NA_CWD=$(shell_quote "$PWD")"
	echo "NA_NONCE=$(shell_quote "$nonce")"
	printf 'set --'
	for arg in "$script" "$@"; do
		printf ' %s' "$(shell_quote "$arg")"
	done
	echo
} >"$runfile"

# Kernel command line.  The console only feeds the log file, so it gets the
# full boot log (no "quiet": printing it costs nothing measurable, and it
# shows where a hung boot stopped).  Crypto self-tests cost ~1 s on 6.1.
#
# Under TCG the guest's TSC is the host's TSC, hence constant and in step on
# all vCPUs, but the kernel cannot know that for a CPU without invariant TSC
# (which TCG does not offer): it would fall back to the HPET, whose every
# read takes QEMU's global lock, and calibrate the delay loop on every vCPU
# (up to a second each).  tsc=reliable and a preset lpj (TSC cycles per
# jiffy, from the host's clock rate) avoid both: an 8x2 guest then reaches
# its script in ~5 s instead of ~15 s.
append="console=ttyS0 loglevel=7 panic=-1 tsc=reliable cryptomgr.notests"
# Emulated CPUs on a loaded host stall for seconds between time slices (a
# 6.1 guest once reported a 21 s RCU stall inside clear_page with two
# guests sharing two cores, and on CI's slower host a 65 s soft lockup of
# kcompactd0, whose vCPU shares one host thread with seven others): give
# the stall detector a minute and the soft-lockup detector its longest,
# 120 s (2 * watchdog_thresh), so they still catch a real hang, which the
# case's own time limits catch too, without crying at emulation.
append+=" rcupdate.rcu_cpu_stall_timeout=60 watchdog_thresh=60"
host_mhz=$(awk -F: '/^cpu MHz/ { print int($2); exit }' /proc/cpuinfo)
guest_hz=$(sed -n 's/^CONFIG_HZ=//p' "$kconfig" 2>/dev/null)
if [[ -n $host_mhz && -n $guest_hz ]]; then
	append+=" lpj=$((host_mhz * 1000000 / guest_hz))"
fi
append+=" ${NA_GUEST_APPEND:-} na_run=\"$runfile\""

# Machine: one socket of $cpus_per_node cores per node, one RAM backend per
# node, and the SLIT distances (QEMU mirrors each pair).
ncpus=$((nodes * cpus_per_node))
qemu=(
	qemu-system-x86_64
	-accel "tcg,thread=$tcg_thread" -cpu max -machine pc
	-smp "$ncpus,sockets=$nodes,cores=$cpus_per_node,threads=1"
	-m "$((nodes * mem))M"
)
for ((n = 0; n < nodes; n++)); do
	first=$((n * cpus_per_node))
	qemu+=(
		-object "memory-backend-ram,id=mem$n,size=${mem}M"
		-numa "node,nodeid=$n,cpus=$first-$((first + cpus_per_node - 1)),memdev=mem$n"
	)
done
for ((i = 0; i < nodes; i++)); do
	for ((j = i + 1; j < nodes; j++)); do
		qemu+=(-numa "dist,src=$i,dst=$j,val=$(distance "$i" "$j")")
	done
done
# Devices: nothing but two serial ports and the 9p share.  ttyS0 (console)
# goes to the log file, ttyS1 (script output) to our stdout pipe.
# qboot (shipped with QEMU) is a minimal firmware: it reaches the kernel
# about half a second sooner than SeaBIOS under TCG.
if [[ -f /usr/share/qemu/qboot.rom ]]; then
	qemu+=(-bios qboot.rom)
fi
# shellcheck disable=SC2054 # the commas belong to qemu's option syntax
qemu+=(
	-nodefaults -no-reboot -display none -nic none
	-chardev "file,id=console,path=${logfile//,/,,}"
	-serial chardev:console
	-chardev file,id=output,path=/dev/stdout
	-serial chardev:output
	-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap
	-kernel "$kernel"
	-initrd "$initramfs"
	-append "$append"
)
# e.g. a TCG plugin (bench/run.sh counts instructions with one)
if [[ -n ${NA_QEMU_ARGS:-} ]]; then
	read -ra extra <<<"$NA_QEMU_ARGS"
	qemu+=("${extra[@]}")
fi

boot_tries=${NA_BOOT_TRIES:-3}
boot_timeout=${NA_BOOT_TIMEOUT:-90}
((boot_timeout < timeout)) || boot_timeout=$timeout
for ((try = 1; ; try++)); do
	boot_deadline=$((SECONDS + boot_timeout))
	run_guest
	if [[ $guest_rc =~ ^[0-9]+$ ]]; then
		exit "$guest_rc"
	fi
	timed_out=
	if [[ -n $stalled ]]; then
		timed_out=1
		why="did not reach the script within ${boot_timeout}s"
	elif ((qemu_rc == 124 || qemu_rc == 137)); then
		timed_out=1
		why="timed out after ${timeout}s"
		[[ -n $started ]] || why+=" before the script started"
	else
		why=$(failure_reason "$qemu_rc")
	fi
	# Retry only boots that died or hung in the kernel: an init error would
	# just happen again, and a script that has started must not run twice.
	if [[ -n $started ]] || grep -q -a 'na-init: error:' "$logfile" ||
		((try >= boot_tries)); then
		echo "boot.sh: guest ($kver, $topo) $why; log: $logfile" >&2
		[[ -z $timed_out ]] || exit 124
		exit 125
	fi
	mv "$logfile" "$logfile.boot$try"
	echo "boot.sh: guest ($kver, $topo) $why; booting again (log: $logfile.boot$try)" >&2
done
