# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# build.sh - building the module for a test run (sourced by tests/run.sh
# and tests/repro-stall.sh)
#
# Needs: B (the build directory) and tree_of (kernel version -> source
# tree, for kernels built from source; empty for Debian's).

# build_module KVER NAME [PATCH...] - build the module for KVER at W=1 into
# $B/NAME-KVER/ and copy it to $B/NAME-KVER.ko; each PATCH (a name in
# tests/patches/, without .patch) is applied to the copy first: the test
# builds' faults live there, not in the module's source.  NA_KCFLAGS
# passes more KCFLAGS.  The .ko of an earlier run goes first: a build
# that fails leaves none, so no guest can load old code.
build_module() {
	local kver=$1 name=$2 dir="$B/$2-$1" p
	shift 2
	rm -f "$B/$name-$kver.ko"
	# the module reads its version from ../dkms.conf, as in the DKMS tree
	rm -rf "$dir" && mkdir -p "$dir/module" && cp dkms.conf "$dir/" &&
		cp module/Kbuild module/*.[ch] "$dir/module/" || return 1
	for p in "$@"; do
		patch -s -p1 -d "$dir" <"tests/patches/$p.patch" >"$dir/build.log" 2>&1 || {
			echo "error: tests/patches/$p.patch does not apply" >>"$dir/build.log"
			return 1
		}
	done
	make -C "${tree_of[$kver]:-/lib/modules/$kver/build}" M="$dir/module" W=1 \
		KCFLAGS="${NA_KCFLAGS:-}" modules >>"$dir/build.log" 2>&1 || return 1
	cp "$dir/module/numa_advise.ko" "$B/$name-$kver.ko"
}
