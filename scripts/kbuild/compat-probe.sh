#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Build-time feature tests of the kernel headers in $1 (the kernel's
# srctree): runs every scripts/kbuild/compat/API.sh, the probe of
# include/wrapper/API.h, and prints their -D flags on one line, for the
# wrappers; nothing else may read them.  Each probe greps the headers for
# the forms its wrapper knows (not the version number: Debian's kernels
# carry backports) and says which version changed what.
#
#   scripts/kbuild/compat-probe.sh SRCTREE    the flags (SRCTREE: the
#                                             kernel's srctree, or Debian's
#                                             arch headers)
#   scripts/kbuild/compat-probe.sh --missing SRCTREE
#                                             the APIs this slabtrace does
#                                             not know in that kernel, one a
#                                             line (none: it can be built)
#
# A probe that finds none of the forms it knows prints
# -DSLABTRACE_MISSING_NAME, which <wrapper/requirements.h> turns into one
# #error line naming the API; dkms.conf asks --missing first, to skip
# such a kernel with one line instead of failing the package operation.
missing=
if [ "${1:-}" = --missing ]; then
	missing=1
	shift
fi
src=${1:?usage: compat-probe.sh [--missing] SRCTREE}
# Debian's arch headers (/lib/modules/KVER/build, DKMS's kernel source
# dir) hold the generated files only, and include the common tree's
# Makefile, whose directory has the headers.
if [ ! -e "$src/include/linux/slab.h" ] && [ -e "$src/Makefile" ]; then
	common=$(sed -n 's|^include \(/.*\)/Makefile$|\1|p' "$src/Makefile" | head -n 1)
	[ -z "$common" ] || src=$common
fi
dir=$(dirname "$0")/compat
flags=
for p in "$dir"/*.sh; do
	flags="$flags$(sh "$p" "$src")"
done
if [ -n "$missing" ]; then
	for f in $flags; do
		case $f in
		-DSLABTRACE_MISSING_*) echo "${f#-DSLABTRACE_MISSING_}" ;;
		esac
	done | sort
	exit 0
fi
echo "$flags"
