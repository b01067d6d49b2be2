#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run a command in the build root of a Debian suite
# (scripts/kernels/suite-chroot.sh makes it the first time), in the current directory, with /proc mounted
# (objtool reads /proc/self) and the cache and this checkout bound at their
# own paths, so that paths mean the same inside and out.  The mounts live
# in a mount namespace of the command's own: nothing stays mounted after
# it, whatever way it ends, and runs in parallel do not meet.
#
#   scripts/kernels/in-chroot.sh SUITE COMMAND [ARG...]
#
# SLABTRACE_CHROOT_BINDS: more directories to bind (blank-separated).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
suite=${1:?usage: in-chroot.sh SUITE COMMAND [ARG...]}
shift
cache=${SLABTRACE_CACHE:-$HOME/.cache/slabtrace}
root=$("$top/scripts/kernels/suite-chroot.sh" "$suite")
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
mkdir -p "$cache"
binds="$cache $top ${SLABTRACE_CHROOT_BINDS:-}"
# shellcheck disable=SC2016
exec $sudo unshare --mount --propagation private sh -c '
	root=$1 binds=$2 dir=$3
	shift 3
	mount -t proc proc "$root/proc" || exit 1
	for d in $binds; do
		mkdir -p "$root$d" && mount --bind "$d" "$root$d" || exit 1
	done
	# A TMPDIR of the host may not exist in the root: its /tmp does.
	exec env -u TMPDIR chroot "$root" sh -c "cd \"\$0\" 2> /dev/null || cd /; exec \"\$@\"" "$dir" "$@"
' in-chroot "$root" "$binds" "$PWD" "$@"
