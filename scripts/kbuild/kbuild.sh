#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run kbuild for an external module directory, W=1, and fail on any
# warning (compiler, modpost, sparse), since warnings left alone pile up.
#
#   scripts/kbuild/kbuild.sh KDIR M [make args...]
#
# WERROR=0 in the environment reports warnings without failing: the
# Makefile's default for a user's plain make (a newer compiler of a Debian
# point release may warn where this one did not), and DKMS's.
#
# A headers tree holding .slabtrace-suite (scripts/kernels/fetch-kernel.sh,
# scripts/check/compat.sh: a kernel newer than the host's Debian) is built in
# the build root of the suite it names, with that suite's compiler and C
# library (scripts/kernels/in-chroot.sh).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
kdir=$1
m=$2
shift 2
log=$m/.kbuild.log
mkdir -p "$m"
in=
if [ -f "$kdir/.slabtrace-suite" ]; then
	in="$top/scripts/kernels/in-chroot.sh $(cat "$kdir/.slabtrace-suite")"
	export SLABTRACE_CHROOT_BINDS="${SLABTRACE_CHROOT_BINDS:-} $(cd "$m" && pwd -P)"
fi
rc=0
$in make -C "$kdir" M="$m" W=1 "$@" > "$log" 2>&1 || rc=$?
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
	if [ "${WERROR:-1}" = 0 ]; then
		echo "kbuild: warnings in $m (not fatal; WERROR=1 makes them so):" >&2
		echo "$warn" >&2
		exit 0
	fi
	echo "kbuild: warnings in $m:" >&2
	echo "$warn" >&2
	exit 1
fi
exit 0
