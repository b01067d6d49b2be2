#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run kbuild for an external module directory and fail on any warning
# (compiler, modpost, sparse), since W=1 warnings left alone pile up.
#
#   scripts/kbuild.sh KDIR M [make args...]
#
# WERROR=0 in the environment reports warnings without failing.
set -eu
kdir=$1
m=$2
shift 2
log=$m/.kbuild.log
mkdir -p "$m"
rc=0
make -C "$kdir" M="$m" W=1 "$@" > "$log" 2>&1 || rc=$?
grep -v -e '^make\[[0-9]*\]: \(Entering\|Leaving\)' \
	-e '^make: \(Entering\|Leaving\)' "$log" || true
if [ "$rc" -ne 0 ]; then
	echo "kbuild: make failed ($rc) for $m" >&2
	exit "$rc"
fi
# "Skipping BTF generation ... unavailability of vmlinux" is the headers
# package having no vmlinux, not a problem in our code.
warn=$(grep -Ei 'warning|error' "$log" | grep -v 'Skipping BTF generation' || true)
if [ -n "$warn" ]; then
	echo "kbuild: warnings in $m:" >&2
	echo "$warn" >&2
	[ "${WERROR:-1}" = 0 ] || exit 1
fi
exit 0
