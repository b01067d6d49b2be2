#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make check-next: the early warning for the next kernel.  Finds the
# newest kernel any Debian suite serves (trixie, trixie-backports, sid and
# experimental, whose release candidates count: 7.3~rc7 is older than
# 7.3.4, newer than 7.2.13), builds slabtrace and the test modules
# against it (W=1, its suite's compiler, in its suite's build root: make
# KVER=next), boots it and runs the VM tests load and core
# (CHECK_NEXT_TESTS), and says what broke: the missing APIs by name
# (scripts/kbuild/compat-probe.sh --missing), the build's first errors, or the
# failed tests.
#
#   scripts/check/check-next.sh         the check; the last line is
#                                       "check-next: N passed, N failed"
#   scripts/check/check-next.sh --find  only the kernel: "SUITE VERSION-ABI",
#                                       e.g. "trixie 7.3.4+deb13"
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)

# find: the newest linux-headers-ABI-amd64 of the suites' indexes, by
# package version (dpkg's order).
find_next() {
	best_ver=
	best=
	for suite in trixie sid; do
		list=$("$top/scripts/kernels/in-chroot.sh" "$suite" sh -c '
			apt-cache pkgnames linux-headers- |
			grep -E "^linux-headers-[0-9][^-]*(-[0-9]+)?-amd64\$" |
			xargs apt-cache show --no-all-versions 2> /dev/null |
			sed -n "s/^Package: //p; s/^Version: //p" | paste - -') || return 1
		while read -r pkg ver; do
			[ -n "$ver" ] || continue
			if [ -z "$best_ver" ] || dpkg --compare-versions "$ver" gt "$best_ver"; then
				best_ver=$ver
				best="$suite ${pkg#linux-headers-}"
			fi
		done <<-EOF
		$list
		EOF
	done
	[ -n "$best" ] || return 1
	echo "${best%-amd64}"
}

if [ "${1:-}" = --find ]; then
	find_next
	exit
fi

npass=0
nfail=0
pass() {
	echo "PASS: check-next: $*"
	npass=$((npass + 1))
}
fail() {
	echo "FAIL: check-next: $*"
	nfail=$((nfail + 1))
}
finish() {
	echo "check-next: $npass passed, $nfail failed"
	[ "$nfail" -eq 0 ]
	exit
}

next=$(find_next) || { fail "no suite's index names a kernel"; finish; }
kdir=$("$top/scripts/kernels/fetch-kernel.sh" next) || { fail "cannot fetch $next"; finish; }
echo "check-next: the newest kernel Debian serves: $(cat "$kdir/abi") $(cat "$kdir/version") ($(cat "$kdir/suite"))"

missing=$("$top/scripts/kbuild/compat-probe.sh" --missing "$kdir/build")
if [ -n "$missing" ]; then
	fail "APIs this slabtrace does not know there: $(echo "$missing" | tr '\n' ' ')(scripts/kbuild/compat/, include/wrapper/)"
else
	pass "every API the wrappers probe is in a form they know"
fi

log=$top/build/next/check-next.log
mkdir -p "$top/build/next"
if make -C "$top" --no-print-directory KVER=next test-modules > "$log" 2>&1; then
	pass "slabtrace and the test modules build, W=1, no warning"
else
	fail "the build (make KVER=next test-modules; $log):"
	grep -E 'error|warning' "$log" | grep -v 'Skipping BTF' | head -n 10 | sed 's/^/    /'
	finish
fi

tests=${CHECK_NEXT_TESTS:-load,core}
rm -rf "$top/build/next/vm-out"
if "$top/scripts/vm/run.sh" -o "$top/build/next/vm-out" next "$tests" > "$log" 2>&1; then
	pass "boots and passes the VM tests $tests"
else
	fail "the VM tests $tests ($log):"
	grep -E '^(FAIL|vm next)' "$log" | head -n 10 | sed 's/^/    /'
fi
finish
