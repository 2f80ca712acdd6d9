#!/bin/sh
# init.sh - /init of the numa_advise test guest (runs under busybox sh).
#
# boot.sh packs this file as /init into a small initramfs together with a
# static busybox and the 9p module chain of the guest kernel.  It:
#   1. loads the 9p modules and mounts the host's root (read-only, over 9p);
#   2. reads the run file named by the kernel parameter na_run= (a host path;
#      the host root is visible in the guest at the same paths);
#   3. runs the test script chrooted into the host root, with its output
#      copied both to /dev/ttyS1 (the clean channel boot.sh prints live) and
#      to /dev/console (ttyS0, the guest log);
#   4. prints "NA-GUEST-EXIT-<nonce> <rc>" on both and powers off.
# It also prints "NA-GUEST-START-<nonce>" on ttyS1 just before the script:
# boot.sh boots again if the guest dies before that, never after.
#
# The kernel turns unknown key=value boot parameters into environment
# variables of /init: na_run arrives that way.

PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH

# Guest view of the host root.
H=/host
# Serial port reserved for the script's output; the kernel never prints there.
OUT=/dev/ttyS1

log() {
	echo "na-init: $*" >/dev/console
}

# uptime_s - seconds since boot, for timing notes in the log.
uptime_s() {
	read -r up _ </proc/uptime
	echo "${up}s"
}

# die - report why the guest cannot run the script, then power off.  boot.sh
# sees no exit marker and reports the failure (exit status 125).
die() {
	log "error: $*"
	echo "na-init: error: $*" >"$OUT" 2>/dev/null
	poweroff -f
	sleep 10	# poweroff -f does not return; keep init alive just in case
}

mount -t proc proc /proc || die "cannot mount /proc"
mount -t sysfs sysfs /sys || die "cannot mount /sys"
mount -t devtmpfs devtmpfs /dev || die "cannot mount /dev"

# No echo and no "\n" -> "\r\n" translation on the output channel.
stty -F "$OUT" raw -echo 2>/dev/null || log "warning: cannot set $OUT raw"

# Load the 9p chain in dependency order (boot.sh wrote the list; built-in
# modules are not in it).
while read -r ko; do
	insmod "/lib/modules/$ko" || die "insmod $ko failed"
	log "loaded $ko (uptime $(uptime_s))"
done </etc/na-modules

mkdir -p "$H"
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000,cache=loose \
	hostroot "$H" || die "cannot mount the host root over 9p"
# A second view of the host root ($HV, a plain bind: the mounts made on $H
# below do not show in it), so that host directories the chroot covers with
# tmpfs (a checkout under /tmp, say) can be bound back into it.
HV=/hostview
mkdir -p "$HV"
mount -o bind "$H" "$HV" || die "cannot bind the host root to $HV"

# The run file sets NA_KVER, NA_TOPO, NA_CWD, NA_NONCE and the positional
# parameters (script and its arguments), all single-quoted by boot.sh.
[ -n "$na_run" ] || die "no na_run= on the kernel command line"
[ -r "$H$na_run" ] || die "run file $na_run not visible over 9p"
# shellcheck source=/dev/null
. "$H$na_run" || die "cannot read run file $na_run"

# The chroot gets fresh kernel filesystems, and tmpfs wherever programs
# expect to write (the host root itself is read-only).
mount -t proc proc "$H/proc" || die "cannot mount $H/proc"
mount -t sysfs sysfs "$H/sys" || die "cannot mount $H/sys"
mount -t devtmpfs devtmpfs "$H/dev" || die "cannot mount $H/dev"
mkdir -p "$H/dev/pts" "$H/dev/shm"
mount -t devpts devpts "$H/dev/pts" || die "cannot mount $H/dev/pts"
mount -t tmpfs -o mode=1777 tmpfs "$H/dev/shm" || die "cannot mount $H/dev/shm"
mount -t debugfs debugfs "$H/sys/kernel/debug" || die "cannot mount debugfs"
mount -t tracefs tracefs "$H/sys/kernel/tracing" || die "cannot mount tracefs"
for d in tmp var/tmp; do
	mount -t tmpfs -o mode=1777 tmpfs "$H/$d" || die "cannot mount $H/$d"
done
for d in run var/log; do
	mount -t tmpfs -o mode=0755 tmpfs "$H/$d" || die "cannot mount $H/$d"
done
# The working directory and the script's directory stay the host's even
# below one of those tmpfs.
for keep in "$NA_CWD" "${1%/*}"; do
	case $keep in
	/tmp/* | /var/tmp/* | /run/* | /var/log/*)
		grep -q " $H$keep " /proc/mounts && continue
		mkdir -p "$H$keep" && mount -o bind "$HV$keep" "$H$keep" ||
			die "cannot bind $keep into the chroot"
		log "bound host $keep into the chroot"
		;;
	esac
done

# The script writes into a FIFO read by tee, so that its output goes to both
# serial ports while init still gets the script's own exit status.
mkfifo /out.fifo || die "cannot create /out.fifo"
log "running $1 in $NA_CWD (uptime $(uptime_s))"
# From here on boot.sh will not boot again if the guest dies.
echo "NA-GUEST-START-$NA_NONCE" >"$OUT"
tee "$OUT" </out.fifo >/dev/console &
teepid=$!

# shellcheck disable=SC2016 # $1 and $@ belong to the inner shell
env -i \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	HOME=/root USER=root LOGNAME=root TERM=dumb \
	NA_KVER="$NA_KVER" NA_TOPO="$NA_TOPO" \
	chroot "$H" /bin/sh -c 'cd -- "$1" || exit 126; shift; exec "$@"' \
	na-run "$NA_CWD" "$@" </dev/null >/out.fifo 2>&1
rc=$?

# Anything the script left running still holds the FIFO open and would keep
# tee waiting forever: kill it (kernel threads ignore the signal).
for p in /proc/[0-9]*; do
	p=${p#/proc/}
	[ "$p" = 1 ] || [ "$p" = "$teepid" ] || kill -KILL "$p" 2>/dev/null
done
wait "$teepid"

log "script exited with $rc (uptime $(uptime_s))"
echo "NA-GUEST-EXIT-$NA_NONCE $rc" >"$OUT"
echo "NA-GUEST-EXIT-$NA_NONCE $rc" >/dev/console
poweroff -f
sleep 10
