# SPDX-License-Identifier: GPL-2.0
# "start all" starts the caches created after it: a module loaded later
# has the caches its init created traced when insmod returns (leaky's
# leaky_widget), with the filter "start all" was given; a cache created at
# any other time (leaky_late, created by leaky's first "late") starts at
# its first allocation, which status counts as not recorded, and is traced
# from then on.  A cache stopped and reset stays out; "stop all" ends
# following; "start all" again follows with its new filter.
. /tests/lib.sh

state() { sed -n "s/^cache $1 \\([a-z]*\\) .*/\\1/p" "$ST/slab/stats"; }
stat_of() { awk -v c="$1" -v k="$2" '$1 == "cache" && $2 == c { for (i = 3; i < NF; i++) if ($i == k) print $(i + 1) }' "$ST/slab/stats"; }
new_line() { grep '^new caches: ' "$ST/status"; }
late_started() { [ "$(state leaky_late)" = tracing ]; }
missed() { sed -n 's/^new caches: .*(not recorded): \([0-9]*\).*/\1/p' "$ST/status"; }

check "insmod slabtrace.ko" insmod $MODDIR/slabtrace.ko
log_mark
# Everyone's allocations but for the pid filter's: this shell's.
check "start all pid $$" st start all pid $$
check "status: new caches are followed" \
	sh -c "new_line() { grep '^new caches: ' $ST/status; }; new_line | grep -q '^new caches: started as \"start all\" was: 0 so far; allocations made before their start (not recorded): [0-9]*$'"
new_line > /out/follow-status-before.txt

check "insmod leaky.ko" insmod $MODDIR/leaky.ko
check_eq "leaky_widget, which leaky's init created, is traced once insmod is done" \
	tracing "$(state leaky_widget)"
logged "start: all: new cache leaky_widget"
echo "widgets 7" > $LEAKY
sh -c "echo widgets 5 > $LEAKY"
dump leaky_widget /tmp/follow-w
cp /tmp/follow-w /out/follow-widget.txt
check "... with the filter of start all" grep -q "filter: pid $$; 5 allocations left out" /tmp/follow-w
check_eq "the 7 widgets this shell kept are found, not another process's 5" 7 \
	"$(nobjs_from /tmp/follow-w leaky_alloc_widget)"
check_eq "... which the filter counts" 5 "$(stat_of leaky_widget filtered)"

# leaky_late is created by the first "late": its first object is made
# before slabtrace knows of the cache, and is missed; the scan it queues
# starts the cache.
check_eq "leaky_late does not exist yet" "" "$(ls -d /sys/kernel/slab/leaky_late 2>/dev/null)"
echo "late 1" > $LEAKY
check "leaky_late, created later, is started after its first allocation" \
	until_true 30 late_started
check "status: counted as started (2 so far), its first object as not recorded" \
	sh -c "grep -q '^new caches: started as \"start all\" was: [2-9][0-9]* so far; allocations made before their start (not recorded): [1-9][0-9]*$' $ST/status"
new_line > /out/follow-status-after.txt
echo "late 4" > $LEAKY
dump leaky_late /tmp/follow-l
cp /tmp/follow-l /out/follow-late.txt
check_eq "the 4 objects made after it started are found" 4 \
	"$(nobjs_from /tmp/follow-l leaky_alloc_late)"
dump all /tmp/follow-all
cp /tmp/follow-all /out/follow-print-all.txt
check "print all has a section for leaky_late" grep -qx 'Dumping outstanding allocs from leaky_late' /tmp/follow-all

# Stopped and reset, a cache is forgotten, and following leaves it out:
# its allocations are no misses, and a scan (a module's load) does not
# start it.  kmalloc-large, which "start all" starts, is no new cache.
check "stop leaky_late kmalloc-large" sh -c "echo stop leaky_late > $ST/ctl && echo stop kmalloc-large > $ST/ctl"
check "reset leaky_late kmalloc-large" sh -c "echo reset leaky_late > $ST/ctl && echo reset kmalloc-large > $ST/ctl"
check_eq "... are forgotten" "" "$(state leaky_late)$(state kmalloc-large)"
check "status: one cache left out" \
	sh -c "grep -q '^new caches: .*; left out after a reset: 1$' $ST/status"
m=$(missed)
echo "late 3" > $LEAKY
check_eq "leaky_late's allocations are not taken for a new cache's" "$m" "$(missed)"
check "insmod initleak.ko (a scan)" insmod $MODDIR/initleak.ko
check_eq "leaky_late stays out" "" "$(state leaky_late)"
check_eq "kmalloc-large stays out" "" "$(state kmalloc-large)"
check "rmmod initleak" rmmod initleak
# "start all" again starts them, and leaves none out.
check "start all pid $$ again" st start all pid $$
check_eq "leaky_late is traced again" tracing "$(state leaky_late)"
check "status: following, none left out" \
	sh -c "grep -q '^new caches: .*(not recorded): [0-9]*$' $ST/status"
# A cache left out that is destroyed leaves the list at the next scan.
check "stop, reset leaky_late" sh -c "echo stop leaky_late > $ST/ctl && echo reset leaky_late > $ST/ctl"
check "status: one cache left out, again" \
	sh -c "grep -q '^new caches: .*; left out after a reset: 1$' $ST/status"
echo free > $LEAKY
check "rmmod leaky (leaky_late destroyed)" rmmod leaky
check "insmod initleak.ko (a scan)" insmod $MODDIR/initleak.ko
check "status: following, none left out" \
	sh -c "grep -q '^new caches: .*(not recorded): [0-9]*$' $ST/status"
check "rmmod initleak" rmmod initleak
check "insmod leaky.ko" insmod $MODDIR/leaky.ko

# "stop all" ends following: a module loaded then is not traced.
check "stop all" st stop all
check_eq "status: no longer following" "" "$(new_line)"
echo free > $LEAKY
check "rmmod leaky" rmmod leaky
check "insmod leaky.ko (stopped)" insmod $MODDIR/leaky.ko
check "leaky_widget is not traced" test "$(state leaky_widget)" != tracing

# "start all" again follows, with its own filter (none).
check "reset all" st reset all
check "start all again" st start all
check_eq "leaky_widget, there now, is traced" tracing "$(state leaky_widget)"
echo "late 1" > $LEAKY
check "leaky_late, new again, starts" until_true 30 late_started
echo "late 2" > $LEAKY
sh -c "echo late 3 > $LEAKY"
dump leaky_late /tmp/follow-l2
cp /tmp/follow-l2 /out/follow-late2.txt
check_eq "... and has everyone's objects made since" 5 \
	"$(nobjs_from /tmp/follow-l2 leaky_alloc_late)"
check "... with no filter" sh -c "! grep -q 'filter:' /tmp/follow-l2"

# rmmod right after a new cache's first allocation: its scan queued, or
# running.
echo free > $LEAKY
check "rmmod leaky" rmmod leaky
check "insmod leaky.ko" insmod $MODDIR/leaky.ko
echo "late 1" > $LEAKY
check "rmmod slabtrace, following" rmmod slabtrace
no_splat_since "while following new caches" follow-dmesg.txt
echo free > $LEAKY
check "rmmod leaky" rmmod leaky
finish
