# SPDX-License-Identifier: GPL-2.0
# A big record pool comes and goes without locking up a CPU: "pool N" of
# a quarter of a million records per CPU, then "pool 16", a drain when
# nothing is traced any more ("stop" and "reset" of the last cache), and
# rmmod with a big pool each give back hundreds of thousands of records;
# every loop yields the CPU, and the commands that shrink the pool leave
# the freeing to a work item.  The soft-lockup watchdog is set to 4 s
# here: make check also runs this test with slub_debug=FZPU
# init_on_free=1, where a free costs microseconds in TCG.
. /tests/lib.sh

BIG=262144

# pool KEY: a number of the stats' pool line (free, per_cpu, allocated).
pool() { sed -n "s/^pool .*$1 \\([0-9]*\\).*/\\1/p" $ST/slab/stats; }
# small: the records allocated but not in the table are back to what
# small lists hold.
small() {
	recs=$(sed -n 's/^records \([0-9]*\) .*/\1/p' $ST/slab/stats)
	[ $(($(pool allocated) - recs)) -lt 1000 ]
}

thresh=$(cat /proc/sys/kernel/watchdog_thresh 2>/dev/null) ||
	skip "no soft-lockup watchdog in this kernel"
echo 2 > /proc/sys/kernel/watchdog_thresh
check "insmod slabtrace.ko" insmod $MODDIR/slabtrace.ko
log_mark
check "start kmalloc-64" st start kmalloc-64
check "pool $BIG" st pool $BIG
check "pool $BIG: its records allocated" \
	test "$(pool allocated)" -ge $((BIG * $(nproc)))
check "pool 16" st pool 16
check "pool 16: the records go back (a work item)" until_true 300 small
check "pool $BIG again" st pool $BIG
check "stop kmalloc-64" st stop kmalloc-64
check "reset kmalloc-64: nothing traced" st reset kmalloc-64
check "nothing traced: the pool drains (a work item)" until_true 300 small
check "start kmalloc-64 again, pool $BIG" \
	sh -c "echo start kmalloc-64 > $ST/ctl && echo pool $BIG > $ST/ctl"
check "rmmod slabtrace with a big pool" rmmod slabtrace
no_splat_since "(no soft lockup)" poolbig-dmesg.txt
echo "$thresh" > /proc/sys/kernel/watchdog_thresh
finish
