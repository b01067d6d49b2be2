# SPDX-License-Identifier: GPL-2.0
# The module loads, creates its two trees (/proc/slabtrace and debugfs's)
# and unloads cleanly;
# a failure at any step of loading leaves nothing behind; the sizes given
# at load are refused out of their range and used in it.
. /tests/lib.sh

check "insmod slabtrace.ko" insmod $MODDIR/slabtrace.ko
check "/proc/slabtrace exists" test -d $ST
check "the debugfs directory exists" test -d $ST_DEBUGFS
check "rmmod slabtrace" rmmod slabtrace
check "/proc/slabtrace removed" test ! -e $ST
check "the debugfs directory removed" test ! -e $ST_DEBUGFS
check "insmod again after rmmod" insmod $MODDIR/slabtrace.ko
check "rmmod again" rmmod slabtrace

# rmmod while a task renames itself and churns widgets under each name,
# 20000 widgets traced: the work items the probes kick (refills, deferred
# stacks) may run while the exit purges the records and the module goes.
# Several rounds; what the exit freed too early would be used then (make
# stress boots with slub_debug=FZPU init_on_free=1, so that such memory
# is poisoned).  The pool is made to hold a record for each of the 20000
# widgets, so that the count does not hang on how fast its refills run on
# a loaded host: two rounds of one CI run on 7.2 stayed under 20000
# records for 60 s (cause not seen; a failure now shows the cache's
# drops).
check "insmod leaky.ko" insmod $MODDIR/leaky.ko
records() { awk '$1 == "records" { print $2 }' $ST/slab/stats; }
churned() { [ "$(records)" -ge 20000 ]; }
for r in 1 2 3 4; do
	insmod $MODDIR/slabtrace.ko pool_size=20480 || fail "round $r: insmod"
	st start leaky_widget
	echo "widgets 20000" > $LEAKY
	kpt_probe -W $LEAKY -c 1000000 > /dev/null 2>&1 &
	churner=$!
	until_true 60 churned ||
		fail "round $r: the widgets are not traced ($(records) records; $(grep '^cache leaky_widget ' $ST/slab/stats))"
	sleep 1
	check "round $r: rmmod as a task renames itself and churns" rmmod slabtrace
	kill $churner
	wait $churner
	echo free > $LEAKY
done
check "rmmod leaky" rmmod leaky

# Every step of loading can fail: the steps before it are undone, nothing
# is left in /proc or debugfs, and the module loads normally afterwards
# (kmemtrace=1 has it start a capture at load, which must be undone too).
# fail_init is in the test build only (make test-modules).  The 19 steps:
# the file trees; slab_trace and its 11 steps (module/slab/slab.c), its
# files; kptrace, its files; kmemtrace, its files; ctl and status.
steps=19
n=0
while [ $n -lt $steps ]; do
	n=$((n + 1))
	check "fail_init=$n: the load fails" sh -c "! insmod $MODDIR/slabtrace.ko fail_init=$n kmemtrace=1 2>/dev/null"
	check "fail_init=$n: nothing is left in /proc or debugfs" \
		test ! -e $ST -a ! -e $ST_DEBUGFS
	check "fail_init=$n: the module is not loaded" sh -c "! grep -q '^slabtrace ' /proc/modules"
done

# A reader that opens a debugfs file of a load while it fails, and holds
# it open past the failure: debugfs revokes no open file (procfs does), so
# one opened then would run the freed module's code at its read and close
# (a page fault, or KASAN's use-after-free on the debug kernel).  No
# debugfs file may exist until nothing can fail: the last step is held 3 s
# (fail_init_ms, test build) for the reader, which polls for slab/stats.
rm -f /tmp/held /tmp/loaded
(
	until [ -e /tmp/loaded ]; do
		if [ -e $ST_DEBUGFS/slab/stats ] && exec 3< $ST_DEBUGFS/slab/stats; then
			echo slab/stats > /tmp/held
			until_true 60 test -e /tmp/loaded
			cat <&3 > /dev/null
			exec 3<&-
			exit 0
		fi
		sleep 0.05
	done
) 2>/dev/null &
reader=$!
check "fail_init=$steps held 3 s: the load fails" \
	sh -c "! insmod $MODDIR/slabtrace.ko fail_init=$steps fail_init_ms=3000 2>/dev/null"
check_eq "no debugfs file of the failing load could be opened" "" \
	"$(cat /tmp/held 2>/dev/null)"
touch /tmp/loaded
wait $reader
check "... nothing is left in /proc or debugfs" test ! -e $ST -a ! -e $ST_DEBUGFS

# procfs revokes a file opened during a failing load, but not what it left
# behind: a mapping of a stream's buffer (kmemtrace=1 makes one), a poll()
# queued on the module's wait queue, a read sleeping in kptrace's pipe
# (which would hold insmod).  So no file opens until the load is done
# (EAGAIN, said): a reader trying all through the held last step.
rm -f /tmp/popened /tmp/prefused /tmp/loaded
(
	until [ -e /tmp/loaded ]; do
		if [ -e $ST/slab/stats ]; then
			if cat $ST/slab/stats > /dev/null 2>&1; then
				echo opened > /tmp/popened
			else
				echo refused > /tmp/prefused
			fi
		fi
		sleep 0.05
	done
) &
reader=$!
check "kmemtrace=1 fail_init=$steps held 3 s: the load fails" \
	sh -c "! insmod $MODDIR/slabtrace.ko fail_init=$steps fail_init_ms=3000 kmemtrace=1 2>/dev/null"
touch /tmp/loaded
wait $reader
check_eq "no procfs file of the failing load could be opened" "" \
	"$(cat /tmp/popened 2>/dev/null)"
check_eq "... the reader was refused" refused "$(cat /tmp/prefused 2>/dev/null)"
logged "stats: not open until the module has loaded"
check "... nothing is left in /proc or debugfs" test ! -e $ST -a ! -e $ST_DEBUGFS
check "fail_init=$((steps + 1)) (no such step) loads" insmod $MODDIR/slabtrace.ko fail_init=$((steps + 1))
check "then ctl works" sh -c "echo 'pool 64' > $ST/ctl"
check "rmmod after the failed loads" rmmod slabtrace

# The sizes given at load (slabtrace.rst, leak-views.rst): out of its
# documented range, 16..1048576, pool_size= or lifetime_slots= fails the
# load with EINVAL and one log line naming the parameter and its range;
# at the edge, 16, it loads.  lifetime_slots= is rounded up to a power of
# two, which slab/stats' "lifetimes stacks N of M" says (order_base_2()
# in module/slab/lifetime.c: 100 is 128).
# insmod_err PARAMS prints what insmod said after its last ": " (busybox:
# "can't insert '...': Invalid argument"), "ok" if it loaded.
insmod_err() {
	out=$(insmod "$MODDIR"/slabtrace.ko "$@" 2>&1) && { echo ok; return; }
	echo "${out##*: }"
}
not_loaded() { ! grep -q '^slabtrace ' /proc/modules; }
for p in pool_size=15 pool_size=1048577 lifetime_slots=15 lifetime_slots=1048577; do
	mark "$p"
	check_eq "insmod slabtrace.ko $p: EINVAL" "Invalid argument" "$(insmod_err $p)"
	check "... the module is not loaded" not_loaded
	check "... nothing is left in /proc or debugfs" test ! -e "$ST" -a ! -e "$ST_DEBUGFS"
	logged "$p: not in 16..1048576"
	# One line a load, and no other: busybox's insmod tries finit_module()
	# then init_module(), two loads, so the line may come twice.
	check_eq "... and no other line" "slabtrace: $p: not in 16..1048576" \
		"$(grep -o 'slabtrace: .*' /tmp/.dmesg | sort -u)"
	not_loaded || rmmod slabtrace
done
lifetimes_of() { sed -n 's/^lifetimes stacks [0-9]* of \([0-9]*\) lost .*/\1/p' "$ST"/slab/stats; }
check_eq "insmod slabtrace.ko pool_size=16 loads" ok "$(insmod_err pool_size=16)"
check_eq "... a pool of 16 records per CPU" 16 \
	"$(awk '$1 == "pool" { print $5 }' "$ST"/slab/stats)"
check "... rmmod" rmmod slabtrace
for p in 16:16 100:128; do
	check_eq "insmod slabtrace.ko lifetime_slots=${p%:*} loads" ok \
		"$(insmod_err lifetime_slots=${p%:*})"
	check_eq "... slab/stats: a lifetime table of ${p#*:} stacks" "${p#*:}" \
		"$(lifetimes_of)"
	check "... rmmod" rmmod slabtrace
done
check_eq "insmod slabtrace.ko (no lifetime_slots=): 4096 stacks" ok "$(insmod_err)"
check_eq "... slab/stats: a lifetime table of 4096 stacks" 4096 "$(lifetimes_of)"
check "... rmmod" rmmod slabtrace
finish
