#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Build the debug kernel, KVER 6.12-debug, into the cache once and print
# its directory, laid out as scripts/kernels/fetch-kernel.sh lays out a Debian
# kernel (vmlinuz, modules/, build -> the tree to build modules against,
# abi).  scripts/kernels/fetch-kernel.sh 6.12-debug runs this script.
#
#   scripts/kernels/debug-kernel.sh
#
# Debian's kernels have no lockdep, no DEBUG_ATOMIC_SLEEP and no KASAN: a
# sleeping lock taken in a tracepoint hook shows on them only when the
# lock is contended, a use-after-free only if it crashes.  This kernel is
# Debian's linux-source-6.12 (scripts/kernels/linux-source.sh extracts it) built
# with "make allnoconfig KCONFIG_ALLCONFIG=scripts/kernels/debug-kernel.config":
# PREEMPT_RT, PROVE_LOCKING, DEBUG_ATOMIC_SLEEP, PROVE_RCU, KASAN,
# DEBUG_OBJECTS, DEBUG_LIST, and little else than what the VM suites use.
# A line of the fragment that does not make it into the .config (a
# dependency missing, a name changed) stops the build.
#
# The result is $SLABTRACE_CACHE/kernels/6.12-debug-VERSION-HASH, VERSION
# the linux-source-6.12 package's and HASH the fragment's: a new source
# package or an edited fragment builds a new kernel, and worktrees with
# the same fragment share one.  A lock per directory (its name + .lock)
# makes a second build wait for the first and use its result.  The
# source is a snapshot of the extracted tree, hard links (cp -al) taken
# under the KUnit runner's lock, without the runner's overlay (its links
# in drivers/misc): the shared tree is never written to, and the build
# does not see a checkout the runner links there later.  Objects go to
# obj/ beside it (O=); an interrupted build resumes where it stopped.
# The log is build.log, the seconds the build took build-seconds.
#
# SLABTRACE_DEBUG_CONFIG names another fragment (the tests use it).
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${SLABTRACE_CACHE:-$HOME/.cache/slabtrace}
frag=${SLABTRACE_DEBUG_CONFIG:-$top/scripts/kernels/debug-kernel.config}
shared=$("$top/scripts/kernels/linux-source.sh")
ver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
hash=$(sed -e '/^#/d' -e '/^$/d' "$frag" | sort | sha256sum | cut -c1-12)
dir=$cache/kernels/6.12-debug-$ver-$hash

if [ -f "$dir/.done" ]; then
	echo "$dir"
	exit 0
fi
mkdir -p "$cache/kernels"
exec 9> "$dir.lock"
flock 9
if [ -f "$dir/.done" ]; then
	echo "$dir"
	exit 0
fi

mkdir -p "$dir"
src=$dir/src
if [ ! -f "$src/.snapshot" ]; then
	rm -rf "$src"
	# Copy while no KUnit run edits the overlay.
	(flock 8 && cp -al "$shared" "$src") 8> "$cache/kunit.lock"
	rm -rf "$src/drivers/misc/slabtrace"
	# sed -i writes new files: the shared tree's links stay as they are.
	sed -i '/slabtrace/d' "$src/drivers/misc/Kconfig" "$src/drivers/misc/Makefile"
	touch "$src/.snapshot"
fi

obj=$dir/obj
log=$dir/build.log
kmake() {
	make -C "$src" O="$obj" ARCH=x86_64 "$@" >> "$log" 2>&1 || {
		tail -n 30 "$log" >&2
		echo "debug-kernel: make $* failed; the log is $log" >&2
		exit 1
	}
}
start=$(date +%s)
if [ ! -f "$obj/.config" ]; then
	: > "$log"
	kmake KCONFIG_ALLCONFIG="$frag" allnoconfig
	missing=$(sed -e '/^#/d' -e '/^$/d' "$frag" | while read -r line; do
		grep -qxF "$line" "$obj/.config" || echo "  $line"
	done)
	if [ -n "$missing" ]; then
		rm -f "$obj/.config"
		echo "debug-kernel: not in the .config (a dependency missing?):" >&2
		echo "$missing" >&2
		exit 1
	fi
fi
echo "debug-kernel: building Debian's linux-source-6.12 $ver with" \
	"scripts/kernels/debug-kernel.config in $dir (about 10 minutes on two cores; log: build.log)" >&2
kmake -j"$(nproc)" bzImage modules
rm -rf "$dir/root"
kmake INSTALL_MOD_PATH="$dir/root" modules_install
abi=$(cat "$obj/include/config/kernel.release")
ln -sfn obj "$dir/build"
ln -sfn obj/arch/x86/boot/bzImage "$dir/vmlinuz"
ln -sfn "root/lib/modules/$abi" "$dir/modules"
echo "$abi" > "$dir/abi"
echo $(($(date +%s) - start)) > "$dir/build-seconds"
touch "$dir/.done"
echo "debug-kernel: built $abi in $(cat "$dir/build-seconds") s" >&2
echo "$dir"
