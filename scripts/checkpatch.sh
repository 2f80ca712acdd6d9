#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch.sh - the kernel's style checker over the module's sources
#
# checkpatch.pl comes from Debian's linux-source-6.1 (installed by
# install-deps.sh); the three files it needs are extracted once into
# $NA_BUILD/checkpatch.  Prints checkpatch's findings; exits non-zero on
# any error or warning.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
B=${NA_BUILD:-$top/build}/checkpatch
cp=$B/scripts/checkpatch.pl

if [ ! -x "$cp" ]; then
	src=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)
	[ -n "$src" ] || { echo "checkpatch.sh: no /usr/src/linux-source-*.tar.xz (apt-get install linux-source-6.1)" >&2; exit 2; }
	mkdir -p "$B"
	tar -xJf "$src" -C "$B" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch'
fi
cd "$top"
# An out-of-tree module builds for several kernels: version checks are how
# it follows an API that changed (get_user_pages_remote() in 6.5).
# The name lists of na_names.h are X-macros, as include/trace/events/
# has them: a list is no parenthesised value, and an item that defines
# something ends in a semicolon.  The files that define or expand them are
# checked for everything else.
xmacro=(module/na_names.h module/na_trace.h module/numa_advise.h module/na_main.c)
rest=()
for f in module/*.[ch]; do
	[[ " ${xmacro[*]} " == *" $f "* ]] || rest+=("$f")
done
rc=0
"$cp" --no-tree --quiet --show-types --ignore LINUX_VERSION_CODE \
	-f "${rest[@]}" || rc=1
"$cp" --no-tree --quiet --show-types --ignore LINUX_VERSION_CODE \
	--ignore COMPLEX_MACRO,TRAILING_SEMICOLON -f "${xmacro[@]}" || rc=1
exit $rc
