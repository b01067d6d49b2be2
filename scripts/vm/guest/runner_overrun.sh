# SPDX-License-Identifier: GPL-2.0
# runner_overrun: a test that overruns its time budget, for
# scripts/tests/test_runner.sh (not one of make check's guest suites): it
# loads leaky.ko, leaves a process behind in its group and sleeps past
# its 3 s; /init must stop it, fail it by name, unload the module and run
# the next test.
# vm-budget: 3
. /tests/lib.sh

check "insmod leaky.ko" insmod $MODDIR/leaky.ko
sleep 600 &
echo $! > /tmp/runner_overrun.child
sleep 60
pass "not stopped by its budget"
finish
