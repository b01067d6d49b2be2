#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make check-all-kernels: every VM test (make check's default list) on
# every kernel Debian ships, each flavour: bookworm's 6.1 and 6.12,
# trixie's 6.12 (6.12-deb13), sid's 7.2 and trixie-backports' 7.3, each
# also -rt and -arm64 (6.1-arm64: load and core only, its smallest
# kmalloc cache is kmalloc-128, which the other tests do not expect).
# make check boots a subset (Documentation/testing.rst says which and
# why); this is the rest, for a release or a change to what differs
# between kernels.  Two guests at a time (one host CPU each).
#
#   scripts/check/check-all-kernels.sh [KVER...]
#
# Each kernel's build is in build/KVER/, its guest's files in
# build/KVER/vm-all/.  The last line is "check-all-kernels: N passed, N
# failed", the sum of the runs' checks.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
kvers=${*:-6.1 6.1-rt 6.1-arm64 6.12 6.12-rt 6.12-arm64 6.12-deb13 6.12-deb13-rt 6.12-deb13-arm64 7.2 7.2-rt 7.2-arm64 7.3 7.3-rt 7.3-arm64}
tests=$(cd scripts/vm/guest && ls ./*.sh | sed 's|^\./||' |
	grep -Ev '^(lib|lowmem|lowmem_.*|streams_lowmem|relayrace|lockdown|realdeb)\.sh$' |
	sed 's/\.sh$//' | paste -sd, -)
log=$top/build/check-all-kernels
rm -rf "$log"
mkdir -p "$log"
npass=0
nfail=0
scripts/deps/deps.sh || exit 1

# The builds, one after the other (each uses both CPUs' worth of make).
built=
for k in $kvers; do
	if make -j"$(nproc)" --no-print-directory KVER="$k" test-modules > "$log/build-$k.log" 2>&1; then
		echo "PASS: check-all-kernels: build $k"
		npass=$((npass + 1))
		built="$built $k"
	else
		echo "FAIL: check-all-kernels: build $k ($log/build-$k.log)"
		tail -n 5 "$log/build-$k.log" | sed 's/^/    /'
		nfail=$((nfail + 1))
	fi
done

# run KVER: its guest, in the background; the result in $log/vm-KVER.log.
run() {
	t=$tests
	case $1 in 6.1-arm64) t=load,core ;; esac
	rm -rf "build/$1/vm-all"
	scripts/vm/run.sh -o "build/$1/vm-all" "$1" "$t" > "$log/vm-$1.log" 2>&1 &
}
set -- $built
while [ $# -gt 0 ]; do
	run "$1"
	[ $# -lt 2 ] || run "$2"
	wait
	for k in "$1" ${2:+"$2"}; do
		line=$(grep -E "^vm $k: [0-9]+ passed, [0-9]+ failed" "$log/vm-$k.log" | tail -n 1)
		grep -E '^(FAIL|NOTE)' "$log/vm-$k.log" | sed "s/^/$k: /"
		echo "${line:-vm $k: no result (FAIL)}"
		if [ -n "$line" ]; then
			npass=$((npass + $(echo "$line" | awk '{ print $3 }')))
			nfail=$((nfail + $(echo "$line" | awk '{ print $5 }')))
		else
			nfail=$((nfail + 1))
		fi
	done
	shift
	[ $# -eq 0 ] || shift
done
echo "check-all-kernels: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
