# SPDX-License-Identifier: GPL-2.0
# The module loads, creates its debugfs directory and unloads cleanly;
# a failure at any step of loading leaves nothing behind.
. /tests/lib.sh

check "insmod slabtrace.ko" insmod $MODDIR/slabtrace.ko
check "debugfs directory exists" test -d $ST
check "rmmod slabtrace" rmmod slabtrace
check "debugfs directory removed" test ! -e $ST
check "insmod again after rmmod" insmod $MODDIR/slabtrace.ko
check "rmmod again" rmmod slabtrace

# Every step of loading can fail: the steps before it are undone, nothing
# is left in debugfs, and the module loads normally afterwards (kmemtrace=1
# has it start a capture at load, which must be undone too).
for n in 1 2 3 4 5 6 7 8 9 10 11 12; do
	check "fail_init=$n: the load fails" sh -c "! insmod $MODDIR/slabtrace.ko fail_init=$n kmemtrace=1 2>/dev/null"
	check "fail_init=$n: nothing is left in debugfs" test ! -e $ST
	check "fail_init=$n: the module is not loaded" sh -c "! grep -q '^slabtrace ' /proc/modules"
done
check "fail_init=13 (no such step) loads" insmod $MODDIR/slabtrace.ko fail_init=13
check "then ctl works" sh -c "echo 'pool 64' > $ST/ctl"
check "rmmod after the failed loads" rmmod slabtrace
finish
