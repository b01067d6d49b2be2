# SPDX-License-Identifier: GPL-2.0
# runner_overrun: a test that overruns its time budget, for
# scripts/tests/test_runner.sh (not one of make check's guest suites): it
# leaves a process behind in its group and sleeps past its 3 s; /init
# must stop it, fail it by name and run the next test.
# vm-budget: 3
. /tests/lib.sh

pass "started"
sleep 600 &
echo $! > /tmp/runner_overrun.child
sleep 60
pass "not stopped by its budget"
finish
