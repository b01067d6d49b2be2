#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# scripts/kernels/debug-kernel.sh stops before building when a line of its
# fragment does not make it into the .config (here: a symbol whose
# dependency the fragment leaves off, and one that does not exist),
# names the lines, and leaves nothing a later run would take for a
# built kernel; the shared source tree is not written to.  In a
# cache of its own.  The last line is "debug-kernel: N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
shared=$("$top/scripts/kernels/linux-source.sh") || exit 1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/slabtrace-dk.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
npass=0
nfail=0
ok() {
	if "$@"; then
		npass=$((npass + 1))
	else
		nfail=$((nfail + 1))
		echo "FAIL: debug-kernel: $what"
	fi
}

# KASAN_VMALLOC depends on KASAN, which is left off.
printf '%s\n' CONFIG_64BIT=y CONFIG_KASAN_VMALLOC=y CONFIG_NO_SUCH_OPTION=y > "$tmp/frag"
before=$(stat -c %Y "$shared/drivers/misc/Kconfig" "$shared/Makefile")
rc=0
SLABTRACE_CACHE=$tmp/cache SLABTRACE_DEBUG_CONFIG=$tmp/frag \
	"$top/scripts/kernels/debug-kernel.sh" > "$tmp/out" 2> "$tmp/err" || rc=$?
what="a fragment with lines the .config lacks: the script fails"
ok test "$rc" -ne 0
what="it says so, naming them"
ok grep -q '^debug-kernel: not in the .config' "$tmp/err"
what="KASAN_VMALLOC is named"
ok grep -qx '  CONFIG_KASAN_VMALLOC=y' "$tmp/err"
what="NO_SUCH_OPTION is named"
ok grep -qx '  CONFIG_NO_SUCH_OPTION=y' "$tmp/err"
what="CONFIG_64BIT, which made it, is not"
ok sh -c "! grep -q 64BIT '$tmp/err'"
what="no directory is printed"
ok test ! -s "$tmp/out"
dir=$(ls -d "$tmp"/cache/kernels/6.12-debug-*/ 2>/dev/null | head -n 1)
what="the kernel's directory is named after the source package's version"
ok sh -c "echo '$dir' | grep -qF -- '-$(dpkg-query -W -f='${Version}' linux-source-6.12)-'"
what="no .done, no .config: the next run configures again"
ok test ! -e "$dir/.done" -a ! -e "$dir/obj/.config"
what="the shared tree's files are as they were"
ok test "$before" = "$(stat -c %Y "$shared/drivers/misc/Kconfig" "$shared/Makefile")"

echo "debug-kernel: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
