#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The VM runner's time budgets and its transfer of /out
# (scripts/vm/run.sh, scripts/vm/guest/init), on 6.12: the guest test
# runner_overrun sleeps past its budget of 3 s and must be stopped and
# failed by name, what it left in its process group killed, and the next
# tests run (runner_bigout, runner_nocheck, filters); runner_nocheck ends
# well without a check and must be failed by name; runner_bigout leaves
# 4 MiB in /out, sent over the second UART (SLABTRACE_OUT_UART=1: about
# 20 s under TCG, nothing on the console meanwhile) with an idle timeout
# of 10 s: the bytes of /out must count as progress, and arrive whole.
# The last line is "runner: N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
T=runner
. "$top/scripts/tests/lib.sh"

out=build/6.12/vm-runner
rm -rf "$out"
log=$(SLABTRACE_OUT_UART=1 SLABTRACE_IDLE_TIMEOUT=10 \
	scripts/vm/run.sh -k -o "$out" 6.12 runner_overrun,runner_bigout,runner_nocheck,filters 2>&1)
echo "$log"
expect "the test over its budget failed by name" \
	"FAIL: runner_overrun: ran out of its budget of 3s, stopped" \
	"$(echo "$log" | grep '^FAIL: runner_overrun: ')"
expect "... before its end" "" "$(echo "$log" | grep 'not stopped by its budget')"
expect "a test that ran no check failed by name" \
	"FAIL: vm: test runner_nocheck ran no check" \
	"$(echo "$log" | grep '^FAIL: vm: test runner_nocheck ')"
expect "... and they are the run's two failures" 2 \
	"$(echo "$log" | sed -n 's/^vm 6.12: [0-9]* passed, \([0-9]*\) failed.*/\1/p')"
expect "the next tests ran" "rc=0 rc=0" \
	"$(sed -n 's/^ST-VM: END \(runner_bigout\|filters\) \(rc=[0-9]*\).*/\2/p' "$out/console.log" | paste -sd ' ')"
expect "the runner says how long each took, of its budget" 1 \
	"$(echo "$log" | grep -c '^TIME: vm: runner_overrun [0-9]*s of 3s, runner_bigout [0-9]*s of 600s, runner_nocheck [0-9]*s of 600s, filters [0-9]*s of 600s$')"
expect "no guest hung while /out came over the UART" "" "$(echo "$log" | grep 'guest hung')"
expect "/out came whole" "$(yes slabtrace | head -c 4194304 | md5sum)" \
	"$(md5sum < "$out/bigout.txt" 2>/dev/null)"
result
