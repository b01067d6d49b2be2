#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make bench: the slabtrace_bench KUnit suite in a UML kernel without
# KASAN or lockdep (kunit-tests/bench.kunitconfig, a build directory of its
# own), N = 1,000,000 operations per figure.  Prints "NAME VALUE UNIT".
# Numbers, not tests: nothing here passes or fails on a time.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${SLABTRACE_CACHE:-$HOME/.cache/slabtrace}
SLABTRACE_KUNITCONFIG=bench.kunitconfig "$top/scripts/check/kunit.sh" > /dev/null || {
	echo "bench: the benchmark kernel failed; see $cache/kunit-um-bench/kunit.log" >&2
	exit 1
}
sed -n 's/.*# [a-z_]*: bench: //p' "$cache/kunit-um-bench/test.log"
