# SPDX-License-Identifier: GPL-2.0
# The module loads, creates its two trees (/proc/slabtrace and debugfs's)
# and unloads cleanly;
# a failure at any step of loading leaves nothing behind.
. /tests/lib.sh

check "insmod slabtrace.ko" insmod $MODDIR/slabtrace.ko
check "/proc/slabtrace exists" test -d $ST
check "the debugfs directory exists" test -d $ST_DEBUGFS
check "rmmod slabtrace" rmmod slabtrace
check "/proc/slabtrace removed" test ! -e $ST
check "the debugfs directory removed" test ! -e $ST_DEBUGFS
check "insmod again after rmmod" insmod $MODDIR/slabtrace.ko
check "rmmod again" rmmod slabtrace

# rmmod as the context table fills: its sweep is kicked, and may wait for
# slab_trace_mutex while the exit purges the records, then run while the
# module goes.  Several rounds; what the exit freed too early would be
# walked then (make stress boots with slub_debug=FZPU init_on_free=1, so
# that such memory is poisoned).  The table is swept once, then the
# rmmod comes when it is nearly full again.
check "insmod leaky.ko" insmod $MODDIR/leaky.ko
swept() { awk '$1 == "contexts" { exit !($11 > 0) }' $ST/slab/stats; }
nearly_full() { awk '$1 == "contexts" { exit !($2 + 100 >= $4) }' $ST/slab/stats; }
for r in 1 2 3 4; do
	insmod $MODDIR/slabtrace.ko || fail "round $r: insmod"
	st start leaky_widget
	echo "widgets 20000" > $LEAKY
	kpt_probe -W $LEAKY -c 1000000 > /dev/null 2>&1 &
	churner=$!
	until_true 60 swept || fail "round $r: no sweep of the context table"
	until_true 60 nearly_full || fail "round $r: the context table did not fill again"
	check "round $r: rmmod as the context table fills" rmmod slabtrace
	kill $churner
	wait $churner
	echo free > $LEAKY
done
check "rmmod leaky" rmmod leaky

# Every step of loading can fail: the steps before it are undone, nothing
# is left in /proc or debugfs, and the module loads normally afterwards
# (kmemtrace=1 has it start a capture at load, which must be undone too).
# fail_init is in the test build only (make test-modules).  The 17 steps:
# the file trees; slab_trace and its 9 steps (module/slab/slab.c), its
# files; kptrace, its files; kmemtrace, its files; ctl and status.
steps=17
n=0
while [ $n -lt $steps ]; do
	n=$((n + 1))
	check "fail_init=$n: the load fails" sh -c "! insmod $MODDIR/slabtrace.ko fail_init=$n kmemtrace=1 2>/dev/null"
	check "fail_init=$n: nothing is left in /proc or debugfs" \
		test ! -e $ST -a ! -e $ST_DEBUGFS
	check "fail_init=$n: the module is not loaded" sh -c "! grep -q '^slabtrace ' /proc/modules"
done
check "fail_init=$((steps + 1)) (no such step) loads" insmod $MODDIR/slabtrace.ko fail_init=$((steps + 1))
check "then ctl works" sh -c "echo 'pool 64' > $ST/ctl"
check "rmmod after the failed loads" rmmod slabtrace
finish
