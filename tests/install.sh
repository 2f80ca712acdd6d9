#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# install.sh - the two ways a sysadmin installs numa_advise, run for real on
# this host (as root) and checked in guests that boot its kernels:
#
#   make install      DKMS registration and builds, the tool under /usr/local
#   the .deb          `make deb`, then apt install ./numa-advise-dkms_*.deb
#
# Guests see the host's root, so they find the DKMS-built module in the
# host's /lib/modules and run `modprobe numa_advise policy=home` (suite.sh,
# case modprobe).  After each way is undone (make uninstall, apt purge) no
# file it made may be left: the file lists of the trees it touches are
# compared with a snapshot taken before.
#
# usage: tests/install.sh BUILD_DIR KVER...
# Prints one line per case, "PASS ..." or "FAIL ...: why".  tests/run.sh
# runs it as its "install" stage.
set -uo pipefail

B=${1:?usage: install.sh BUILD_DIR KVER...}
shift
kvers=("$@")
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
L=$B/install
V=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)
CONF=/etc/modprobe.d/numa_advise.conf
# The trees an install may write to.  DKMS's signing key, made at its first
# build for every module it will ever sign, is DKMS's and stays.
ROOTS=(/usr /etc /lib/modules /var/lib/dkms /opt)

# shellcheck source=tests/lib/report.sh
. tests/lib/report.sh
pass() { echo "PASS host $1"; }
fail() { echo "FAIL host $1: $2"; }

snapshot() {
	find "${ROOTS[@]}" -xdev 2>/dev/null | grep -v '^/var/lib/dkms/mok\.' | sort
}

# leftovers - what differs from before the install: "+file" for one left
# behind, "-file" for one taken away
leftovers() {
	snapshot | diff "$L/before.list" - | sed -n 's/^> /+/p; s/^< /-/p' |
		head -n 5 | tr '\n' ' '
}

# dkms_state KVER - "installed", "built" or "added" (registered, not built
# for KVER), or nothing when not registered at all
dkms_state() {
	dkms status -m numa_advise -v "$V" -k "$1" 2>/dev/null |
		sed -n 's/.*: \([a-z]*\).*/\1/p'
}

# all_installed CASE - every kernel has the module installed by DKMS
all_installed() {
	local k s
	for k in "${kvers[@]}"; do
		s=$(dkms_state "$k")
		if [ "$s" != installed ]; then
			fail "$1" "dkms status for $k: '${s:-none}'"
			return 1
		fi
		if ! grep -q '^updates/dkms/numa_advise\.ko' "/lib/modules/$k/modules.dep"; then
			fail "$1" "not in /lib/modules/$k/modules.dep"
			return 1
		fi
	done
}

# guests HOW - boot every kernel (in parallel) and run the modprobe case; its
# lines come out named after HOW
guests() {
	local how=$1 k
	echo "options numa_advise interval_ms=250 margin_pm=50" >"$CONF"
	for k in "${kvers[@]}"; do
		tests/guest/boot.sh -k "$k" -t 4x2 -l "$L/guest-$how-$k.console" \
			tests/guest/suite.sh "$B" modprobe >"$L/guest-$how-$k.log" 2>&1 &
	done
	wait
	rm -f "$CONF"
	for k in "${kvers[@]}"; do
		sed -n "s/^\(PASS\|FAIL\|SKIP\) \([^ ]*\) modprobe/\1 \2 modprobe-$how/p" \
			"$L/guest-$how-$k.log"
		grep -q '^suite: ' "$L/guest-$how-$k.log" ||
			echo "FAIL $k/4x2 modprobe-$how: no result from the guest: $(tail -n 1 "$L/guest-$how-$k.log")"
		console_check "$k/4x2 modprobe-$how" "$L/guest-$how-$k.console"
	done
}

# undone CASE COMMAND... - COMMAND takes an install out: it must succeed
# and leave the machine's files as they were before
undone() {
	local name=$1
	shift
	if ! "$@" >"$L/$name.log" 2>&1; then
		fail "$name" "$(grep -m1 -iE '^E:|error' "$L/$name.log")"
	elif [ -n "$(leftovers)" ]; then
		fail "$name" "not as before: $(leftovers)"
	elif grep -qs numa_advise /lib/modules/*/modules.dep; then
		fail "$name" "numa_advise still in modules.dep"
	else
		pass "$name"
	fi
}

# The host must have none of it: a real install here is not ours to remove.
if [ "$(id -u)" -ne 0 ]; then
	fail install "needs root (it installs into this machine)"
	exit 1
fi
if dkms status -m numa_advise 2>/dev/null | grep -q . || [ -e "$CONF" ] ||
	compgen -G "/usr/src/numa_advise-*" >/dev/null ||
	dpkg -s numa-advise-dkms >/dev/null 2>&1; then
	fail install "numa_advise is already installed on this machine; not touching it"
	exit 1
fi
rm -rf "$L" && mkdir -p "$L"
# A Debian system has /usr/local/share/man (base-files makes it, and make
# uninstall leaves it); a trimmed image may lack it: make it first, as
# base-files would, so that it is part of the machine as it was (and
# removed again at the end).
made_man=
[ -d /usr/local/share/man ] || { mkdir -p /usr/local/share/man && made_man=1; }
snapshot >"$L/before.list"

# Whatever happens, leave the machine as it was.
cleanup() {
	rm -f "$CONF"
	dpkg -s numa-advise-dkms >/dev/null 2>&1 &&
		apt-get purge -y -q numa-advise-dkms >>"$L/cleanup.log" 2>&1
	make -s uninstall >>"$L/cleanup.log" 2>&1
	[ -z "$made_man" ] || rmdir /usr/local/share/man
}
trap cleanup EXIT

# --- make install: DKMS by hand and by its hooks ----------------------------

if make install KVERS="${kvers[*]}" >"$L/make-install.log" 2>&1; then
	all_installed make-install && pass make-install
else
	fail make-install "$(grep -m1 -iE 'error|needs' "$L/make-install.log")"
fi

# The dkms verbs a sysadmin would type, one kernel at a time.
k=${kvers[0]}
if ! dkms remove -m numa_advise -v "$V" -k "$k" >"$L/dkms.log" 2>&1 ||
	[ "$(dkms_state "$k")" != added ]; then
	fail dkms-verbs "remove -k $k left '$(dkms_state "$k")'"
elif ! dkms build -m numa_advise -v "$V" -k "$k" >>"$L/dkms.log" 2>&1 ||
	[ "$(dkms_state "$k")" != built ]; then
	fail dkms-verbs "build -k $k: '$(dkms_state "$k")': $(grep -m1 -i error "$L/dkms.log")"
elif ! dkms install -m numa_advise -v "$V" -k "$k" >>"$L/dkms.log" 2>&1 ||
	[ "$(dkms_state "$k")" != installed ]; then
	fail dkms-verbs "install -k $k: '$(dkms_state "$k")'"
else
	pass "dkms-verbs ($k)"
fi

# AUTOINSTALL: the hook a kernel package runs when it is installed builds
# the module for that kernel.  (The module stays registered while it is
# installed for another kernel.)
k=${kvers[-1]}
dkms remove -m numa_advise -v "$V" -k "$k" >>"$L/dkms.log" 2>&1
if [ "${#kvers[@]}" -lt 2 ]; then
	fail dkms-autoinstall "needs two kernels"
elif [ "$(dkms_state "$k")" != added ]; then
	fail dkms-autoinstall "remove -k $k left '$(dkms_state "$k")'"
elif ! /etc/kernel/postinst.d/dkms "$k" >"$L/autoinstall.log" 2>&1 ||
	[ "$(dkms_state "$k")" != installed ]; then
	fail dkms-autoinstall "after the kernel's postinst hook: '$(dkms_state "$k")'"
else
	pass "dkms-autoinstall ($k)"
fi

guests dkms

undone make-uninstall make uninstall

# --- the Debian package -----------------------------------------------------

deb=$B/deb/numa-advise-dkms_${V}_$(dpkg --print-architecture).deb
if ! make deb >"$L/deb-build.log" 2>&1 || [ ! -f "$deb" ]; then
	fail deb-build "$(grep -m1 -iE 'error' "$L/deb-build.log")"
else
	contents=$(dpkg-deb -c "$deb" | awk '{ print $6 }')
	missing=
	# the tool, and every file the module builds from (DKMS builds it there)
	for f in usr/sbin/numa-advise-ctl usr/share/man/man8/numa-advise-ctl.8.gz \
		usr/share/bash-completion/completions/numa-advise-ctl \
		"usr/src/numa_advise-$V/dkms.conf" \
		$(printf "usr/src/numa_advise-$V/%s " module/Kbuild module/*.[ch]); do
		grep -qx "\./$f" <<<"$contents" || missing+=" $f"
	done
	# lintian refuses to run as root; it reads a copy as nobody
	cp "$deb" "$L/" && chmod a+r "$L/${deb##*/}" && chmod a+x "$L"
	tags=$(cd / && setpriv --reuid=65534 --regid=65534 --clear-groups \
		env HOME=/tmp lintian --pedantic -I "$L/${deb##*/}" 2>&1 |
		grep -v 'not recommended')
	if [ -n "$missing" ]; then
		fail deb-build "the package lacks$missing"
	elif ! dpkg-deb -f "$deb" Depends | grep -q 'dkms'; then
		fail deb-build "does not depend on dkms: $(dpkg-deb -f "$deb" Depends)"
	elif [ -n "$tags" ]; then
		fail deb-build "lintian: $(head -n 3 <<<"$tags" | tr '\n' ' ')"
	else
		pass "deb-build (lintian --pedantic clean)"
	fi

	if ! apt-get install -y -q "$deb" >"$L/deb-install.log" 2>&1; then
		fail deb-install "$(grep -m1 -iE '^E:|error' "$L/deb-install.log")"
	elif all_installed deb-install; then
		if [ "$(command -v numa-advise-ctl)" != /usr/sbin/numa-advise-ctl ]; then
			fail deb-install "numa-advise-ctl at '$(command -v numa-advise-ctl)'"
		else
			pass deb-install
		fi
	fi
	guests deb
	undone deb-purge apt-get purge -y -q numa-advise-dkms
fi
