#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debug-kernel.sh - build (once) a debug kernel `make check-debug` boots
#
# usage: scripts/debug-kernel.sh [-f] [lockdep|kcsan]
#   -f       build again even if the cached tree is up to date
#   lockdep  (default) lockdep (PROVE_LOCKING), DEBUG_ATOMIC_SLEEP, generic
#            KASAN and kmemleak
#   kcsan    KCSAN, the data-race detector (it excludes KASAN: a kernel of
#            its own), with lockdep's cheaper half (DEBUG_ATOMIC_SLEEP)
#
# Builds a 6.1 kernel from Debian's linux-source-6.1 (/usr/src/
# linux-source-6.1.tar.xz) in a cache directory: NA_CACHE, default
# /var/cache/numa_advise/debug-kernel, a tree per flavour.  On success it
# prints the kernel tree's path (and nothing else on stdout): the tree
# holds arch/x86/boot/bzImage (booted by tests/guest/boot.sh -K), .config,
# include/config/kernel.release and what `make -C TREE M=... modules`
# needs (the module built there is instrumented as the kernel is).
#
# It boots as a bzImage, not through PVH as boot.sh boots the Debian
# kernels: with KASAN, the PVH entry code calls instrumented code
# (memcmp) before KASAN's shadow memory exists, and the guest resets at
# once.  The kernel unpacks itself in half a second under TCG.
#
# The tree is reused as long as the source tarball and the configuration
# below are unchanged; a change to either reconfigures and rebuilds (make
# rebuilds only what changed).  Everything the guest needs is built in, so
# the guest loads no module but numa_advise.  The configuration starts from
# x86_64_defconfig + kvm_guest.config and switches off what a QEMU guest
# with a 9p root never uses, to keep the build short on a small machine
# (14 minutes on 2 cores here).
set -euo pipefail

force=
while getopts "fh" opt; do
	case $opt in
	f) force=1 ;;
	h) sed -n '4,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "usage: debug-kernel.sh [-f] [lockdep|kcsan]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
flavour=${1:-lockdep}

src=/usr/src/linux-source-6.1.tar.xz
cache=${NA_CACHE:-/var/cache/numa_advise/debug-kernel}
# the lockdep kernel keeps the place it has always had
[[ $flavour == lockdep ]] || cache=$cache/$flavour
tree=$cache/linux-source-6.1

# The checkers of each flavour, and the options they need =y.
case $flavour in
lockdep)
	checkers='
CONFIG_PROVE_LOCKING=y
CONFIG_DEBUG_ATOMIC_SLEEP=y
CONFIG_KASAN=y
CONFIG_KASAN_GENERIC=y
CONFIG_KASAN_INLINE=y
CONFIG_DEBUG_KMEMLEAK=y
CONFIG_DEBUG_KMEMLEAK_MEM_POOL_SIZE=40000
CONFIG_DEBUG_KMEMLEAK_AUTO_SCAN=y
CONFIG_LOCALVERSION="-na-debug"'
	checkers_required=(PROVE_LOCKING DEBUG_ATOMIC_SLEEP KASAN KASAN_GENERIC DEBUG_KMEMLEAK)
	;;
kcsan)
	# Reports as the kernel's defaults make them: a race once seen is
	# reported at most every 3 s, and only when a value really changed.
	checkers='
CONFIG_KCSAN=y
CONFIG_KCSAN_REPORT_ONCE_IN_MS=3000
CONFIG_KCSAN_REPORT_VALUE_CHANGE_ONLY=y
CONFIG_KCSAN_VERBOSE=y
# CONFIG_KASAN is not set
CONFIG_DEBUG_ATOMIC_SLEEP=y
CONFIG_LOCALVERSION="-na-kcsan"'
	checkers_required=(KCSAN DEBUG_ATOMIC_SLEEP)
	;;
*) echo "debug-kernel.sh: no flavour '$flavour' (lockdep or kcsan)" >&2; exit 2 ;;
esac

# What the project needs on top of x86_64_defconfig + kvm_guest.config.
fragment='
# --- the debug options: what make check-debug is for
CONFIG_DEBUG_KERNEL=y'"$checkers"'
CONFIG_DEBUG_LIST=y
CONFIG_KALLSYMS=y
CONFIG_KALLSYMS_ALL=y
CONFIG_DEBUG_INFO_NONE=y
# CONFIG_LOCALVERSION_AUTO is not set
# CONFIG_WERROR is not set

# --- what the guest needs, all built in
CONFIG_PARAVIRT=y
CONFIG_SMP=y
CONFIG_NUMA=y
CONFIG_ACPI=y
CONFIG_ACPI_NUMA=y
CONFIG_X86_64_ACPI_NUMA=y
CONFIG_HOTPLUG_CPU=y
CONFIG_MIGRATION=y
CONFIG_NUMA_BALANCING=y
CONFIG_NUMA_BALANCING_DEFAULT_ENABLED=y
CONFIG_TRANSPARENT_HUGEPAGE=y
CONFIG_TRANSPARENT_HUGEPAGE_ALWAYS=y
CONFIG_PREEMPT_VOLUNTARY=y
CONFIG_HZ_250=y
CONFIG_PCI=y
CONFIG_VIRTIO=y
CONFIG_VIRTIO_PCI=y
CONFIG_NET=y
CONFIG_UNIX=y
CONFIG_NET_9P=y
CONFIG_NET_9P_VIRTIO=y
CONFIG_NETWORK_FILESYSTEMS=y
CONFIG_9P_FS=y
CONFIG_9P_FS_POSIX_ACL=y
CONFIG_BLK_DEV_INITRD=y
CONFIG_RD_GZIP=y
CONFIG_DEVTMPFS=y
CONFIG_TMPFS=y
CONFIG_PROC_FS=y
CONFIG_SYSFS=y
CONFIG_UNIX98_PTYS=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
CONFIG_MODULES=y
CONFIG_MODULE_UNLOAD=y
CONFIG_FTRACE=y
CONFIG_ENABLE_DEFAULT_TRACERS=y
CONFIG_DEBUG_FS=y
CONFIG_CGROUPS=y
CONFIG_CPUSETS=y
CONFIG_MEMCG=y
CONFIG_NAMESPACES=y
CONFIG_SCHED_DEBUG=y
CONFIG_SCHEDSTATS=y

# --- off: hardware and subsystems a QEMU guest on a 9p root never uses
# CONFIG_DRM is not set
# CONFIG_AGP is not set
# CONFIG_SOUND is not set
# CONFIG_USB_SUPPORT is not set
# CONFIG_HID is not set
# CONFIG_INPUT_JOYSTICK is not set
# CONFIG_INPUT_TABLET is not set
# CONFIG_INPUT_TOUCHSCREEN is not set
# CONFIG_INPUT_MISC is not set
# CONFIG_WIRELESS is not set
# CONFIG_WLAN is not set
# CONFIG_CFG80211 is not set
# CONFIG_MAC80211 is not set
# CONFIG_RFKILL is not set
# CONFIG_ETHERNET is not set
# CONFIG_VIRTIO_NET is not set
# CONFIG_NETCONSOLE is not set
# CONFIG_NETFILTER is not set
# CONFIG_NET_SCHED is not set
# CONFIG_IPV6 is not set
# CONFIG_IP_PNP is not set
# CONFIG_IP_MROUTE is not set
# CONFIG_IP_ADVANCED_ROUTER is not set
# CONFIG_XFRM_USER is not set
# CONFIG_NETLABEL is not set
# CONFIG_PCCARD is not set
# CONFIG_ATA is not set
# CONFIG_SCSI is not set
# CONFIG_MD is not set
# CONFIG_BLK_DEV_LOOP is not set
# CONFIG_VIRTIO_BLK is not set
# CONFIG_VIRTIO_INPUT is not set
# CONFIG_I2C is not set
# CONFIG_MACINTOSH_DRIVERS is not set
# CONFIG_AMD_IOMMU is not set
# CONFIG_INTEL_IOMMU is not set
# CONFIG_EXT4_FS is not set
# CONFIG_ISO9660_FS is not set
# CONFIG_MSDOS_FS is not set
# CONFIG_VFAT_FS is not set
# CONFIG_NFS_FS is not set
# CONFIG_QUOTA is not set
# CONFIG_AUTOFS4_FS is not set
# CONFIG_AUTOFS_FS is not set
# CONFIG_SECURITY_SELINUX is not set
# CONFIG_AUDIT is not set
# CONFIG_EFI is not set
# CONFIG_HIBERNATION is not set
# CONFIG_KEXEC is not set
# CONFIG_CRASH_DUMP is not set
# CONFIG_BLK_DEV_IO_TRACE is not set
# CONFIG_X86_CHECK_BIOS_CORRUPTION is not set
'

# Options that must come out =y: the build fails loudly otherwise.
required=(
	"${checkers_required[@]}"
	DEBUG_LIST KALLSYMS
	NUMA ACPI ACPI_NUMA X86_64_ACPI_NUMA HOTPLUG_CPU MIGRATION
	NUMA_BALANCING NUMA_BALANCING_DEFAULT_ENABLED PCI VIRTIO VIRTIO_PCI NET
	NET_9P NET_9P_VIRTIO 9P_FS BLK_DEV_INITRD RD_GZIP DEVTMPFS TMPFS PROC_FS
	SYSFS UNIX98_PTYS SERIAL_8250 SERIAL_8250_CONSOLE MODULES MODULE_UNLOAD
	TRACEPOINTS FTRACE TRACING EVENT_TRACING DEBUG_FS CGROUPS CPUSETS
	SCHED_DEBUG SCHEDSTATS
)

# log - progress on stderr (stdout carries only the tree's path)
log() {
	echo "debug-kernel.sh: $*" >&2
}

# die - report why there is no debug kernel and exit 1
die() {
	log "$*"
	exit 1
}

# unpack - extract the source tarball into $tree (replacing an older one)
unpack() {
	local tmp

	log "unpacking $src into $cache"
	rm -rf "$tree" "$cache/unpack."*
	tmp=$(mktemp -d "$cache/unpack.XXXXXX")
	tar -xJf "$src" -C "$tmp"
	[[ -f $tmp/linux-source-6.1/Makefile ]] ||
		die "$src has no linux-source-6.1/ directory"
	mv "$tmp/linux-source-6.1" "$tree"
	rmdir "$tmp"
}

# configure - write .config from the defconfig, kvm_guest.config and the
# fragment, then check that every required option is =y
configure() {
	local opt bad=() want

	printf '%s\n' "$fragment" >"$cache/na-debug.config"
	make -C "$tree" -s x86_64_defconfig >&2
	(cd "$tree" && scripts/kconfig/merge_config.sh -m .config \
		kernel/configs/kvm_guest.config "$cache/na-debug.config") \
		>"$cache/merge.log" 2>&1 || { cat "$cache/merge.log" >&2; die "merge_config.sh failed"; }
	make -C "$tree" -s olddefconfig >&2
	for opt in "${required[@]}"; do
		grep -qx "CONFIG_$opt=y" "$tree/.config" || bad+=("CONFIG_$opt=$("$tree/scripts/config" --file "$tree/.config" --state "$opt")")
	done
	# and nothing the fragment switches off came back on
	while read -r opt; do
		grep -q "^$opt=" "$tree/.config" && bad+=("$opt=$("$tree/scripts/config" --file "$tree/.config" --state "${opt#CONFIG_}")")
	done < <(sed -n 's/^# \(CONFIG_[A-Z0-9_]*\) is not set$/\1/p' "$cache/na-debug.config")
	want=$(sed -n 's/^\(CONFIG_LOCALVERSION=.*\)/\1/p' "$cache/na-debug.config")
	grep -qx "$want" "$tree/.config" || bad+=("$(grep '^CONFIG_LOCALVERSION=' "$tree/.config")")
	((${#bad[@]} == 0)) || die "the configuration came out wrong: ${bad[*]}"
}

[[ -f $src ]] || die "no $src (apt-get install linux-source-6.1, or scripts/install-deps.sh debug)"
for tool in gcc make flex bison bc; do
	command -v "$tool" >/dev/null || die "no $tool (scripts/install-deps.sh debug installs it)"
done
[[ -f /usr/include/libelf.h ]] || die "no libelf.h (apt-get install libelf-dev)"

mkdir -p "$cache"
# One build at a time per cache: a second caller waits, then reuses it.
exec {lockfd}>"$cache/.lock"
flock "$lockfd"

src_id="$(stat -c '%s %Y' "$src") $src"
want_id=$(printf '%s\n%s\n' "$src_id" "$fragment" | sha256sum | cut -d' ' -f1)
if [[ -z $force && -s $tree/arch/x86/boot/bzImage && -s $tree/include/config/kernel.release &&
	"$(cat "$cache/built" 2>/dev/null)" == "$want_id" ]]; then
	echo "$tree"
	exit 0
fi

if [[ "$(cat "$cache/unpacked" 2>/dev/null)" != "$src_id" || ! -f $tree/Makefile ]]; then
	rm -f "$cache/unpacked" "$cache/built"
	unpack
	echo "$src_id" >"$cache/unpacked"
fi
rm -f "$cache/built"
configure

log "building $(make -C "$tree" -s kernelrelease) in $tree (log: $cache/build.log)"
start=$SECONDS
# nice: guests that run at the same time keep their timing
if ! nice -n 19 make -C "$tree" -j"$(nproc)" all >"$cache/build.log" 2>&1; then
	grep -E -m5 'error|Error' "$cache/build.log" >&2 || tail -n 20 "$cache/build.log" >&2
	die "the build failed (log: $cache/build.log)"
fi
[[ -s $tree/arch/x86/boot/bzImage && -s $tree/Module.symvers ]] ||
	die "the build left no bzImage or Module.symvers"
log "built in $(((SECONDS - start) / 60)) min $(((SECONDS - start) % 60)) s"
echo "$want_id" >"$cache/built"
echo "$tree"
