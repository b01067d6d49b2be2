# SPDX-License-Identifier: GPL-2.0
# What no slab cache holds: "kmalloc-large" finds exactly the kmalloc(16384)
# objects bigleak keeps (and those of a size the compiler cannot see, which
# 6.12 reports twice), "percpu" exactly its alloc_percpu() objects, each
# with its size, backtrace, node and GFP flags, and their frees drop them;
# objects freed at once (churn) leave nothing.
. /tests/lib.sh

BIG=/sys/kernel/debug/bigleak/ctl
check "insmod slabtrace.ko" insmod $MODDIR/slabtrace.ko
check "insmod bigleak.ko" insmod $MODDIR/bigleak.ko

check "start kmalloc-large" st start kmalloc-large
check "start percpu" st start percpu
check "bigleak keeps 5 kmalloc(16384)" sh -c "echo large 5 > $BIG"
check "bigleak keeps 3 kmalloc(20000)" sh -c "echo large_var 3 > $BIG"
check "bigleak keeps 4 alloc_percpu()" sh -c "echo percpu 4 > $BIG"
check "bigleak churns 50 of each" sh -c "echo churn 50 > $BIG"

dump kmalloc-large /tmp/large
cp /tmp/large /out/large.txt
check_eq "5 kmalloc(16384) objects of bigleak_large" 5 \
	"$(objs_from /tmp/large bigleak_large | grep -c ', 16384 bytes (16384 requested), ')"
# 20000 bytes take 8 pages.
check_eq "3 kmalloc(20000) objects of bigleak_large_var, 32768 bytes each" 3 \
	"$(objs_from /tmp/large bigleak_large_var | grep -c ', 32768 bytes (20000 requested), ')"
check_eq "none of the churn is left" 0 \
	"$(nobjs_from /tmp/large bigleak_churn_large)"
check_eq "each with its node and GFP flags" 8 \
	"$( (objs_from /tmp/large bigleak_large; objs_from /tmp/large bigleak_large_var) |
	   grep -c ', node 0, gfp GFP_KERNEL, stack [0-9]* ([a-z]*), from PID ')"
check "no record replaced (6.12's second event of one object is not a replacement)" \
	sh -c "! grep -q 'records replaced' /tmp/large"

dump percpu /tmp/pcpu
cp /tmp/pcpu /out/percpu.txt
ncpu=$(grep -c '^processor' /proc/cpuinfo)
check_eq "4 alloc_percpu() objects of bigleak_percpu, 40 bytes on each CPU" 4 \
	"$(objs_from /tmp/pcpu bigleak_percpu | grep -c ", [0-9]* bytes (40 requested), ")"
check "the header says what percpu bytes count" \
	grep -q "^percpu objects: requested is the size on one CPU, bytes on all [0-9]* possible CPUs$" /tmp/pcpu
possible=$(sed -n 's/^percpu objects: .* on all \([0-9]*\) possible CPUs$/\1/p' /tmp/pcpu)
check "at least as many possible CPUs ($possible) as online ($ncpu)" \
	test "${possible:-0}" -ge "$ncpu"
check_eq "their bytes: 40 on each possible CPU" 4 \
	"$(objs_from /tmp/pcpu bigleak_percpu | grep -c ", $((40 * ${possible:-0})) bytes (40 requested), age [0-9.]*s, cpu [0-9]*, gfp GFP_KERNEL, stack [0-9]* ([a-z]*), from PID ")"
check_eq "none of the percpu churn is left" 0 \
	"$(nobjs_from /tmp/pcpu bigleak_churn_percpu)"
check "frame #02 of a percpu leak is keep()" \
	grep -q ' #02 .* in keep+' /tmp/pcpu

check "bigleak frees what it kept" sh -c "echo free > $BIG"
dump kmalloc-large /tmp/large2
check_eq "kfree() dropped the kmalloc-large records" 0 \
	"$(nobjs_from /tmp/large2 bigleak_large)"
dump percpu /tmp/pcpu2
check_eq "free_percpu() dropped the percpu records" 0 \
	"$(nobjs_from /tmp/pcpu2 bigleak_percpu)"

check "stop kmalloc-large" st stop kmalloc-large
check "stop percpu" st stop percpu
check "reset percpu" st reset percpu
check_eq "print percpu after its reset: not traced" "No data available" \
	"$(ctl_errno 'print percpu')"
check "reset kmalloc-large" st reset kmalloc-large
check "rmmod bigleak" rmmod bigleak
check "rmmod slabtrace" rmmod slabtrace
finish
