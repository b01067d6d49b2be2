# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers sourced by the host's shell tests, after they set T to their
# name.  Every check prints one line, "PASS: T: what" or "FAIL: T: what";
# "result" prints the last line, "T: N passed, N failed", and returns
# non-zero if a check failed.

npass=0
nfail=0
pass() { echo "PASS: $T: $*"; npass=$((npass + 1)); }
fail() { echo "FAIL: $T: $*"; nfail=$((nfail + 1)); }

# expect "what" EXPECTED ACTUAL
expect() {
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1 (expected '$2', got '$3')"; fi
}

result() {
	echo "$T: $npass passed, $nfail failed"
	[ "$nfail" -eq 0 ]
}
