# SPDX-License-Identifier: GPL-2.0
# The slabtrace command (scripts/slabtrace.c) against the real module:
# record finds leaky's leak by function name, growth ranks the cache it
# leaks into first, record --auto finds that cache itself, status shows
# what is traced, and the errors name their cause.  What the commands
# printed is left in /out/cli-*.txt, and top --json in /out/cli-top.json
# for the host to parse (scripts/tests/test_cli.py).
. /tests/lib.sh

check "insmod slabtrace.ko" insmod $MODDIR/slabtrace.ko
check "insmod leaky.ko" insmod $MODDIR/leaky.ko

# What reading ctl shows before any print (the module's state), saved for
# the docs.
cat $ST/ctl > /out/ctl-before-print.txt
check "ctl before any print shows the state" \
	grep -q '^No snapshot in this session yet: print takes one.$' /out/ctl-before-print.txt

# --- status with nothing traced.
slabtrace status > /out/cli-status-idle.txt 2>&1
check "status with nothing traced says so" \
	grep -q '^slabtrace: 0 caches traced or holding records, 0 records (limit [0-9]*), probes detached$' \
	/out/cli-status-idle.txt
check "status with nothing traced: what to do" \
	grep -q '^next: slabtrace growth finds a growing cache' /out/cli-status-idle.txt

# --- record around a command that leaks 20 buffers and 5 orphans.
slabtrace record -c kmalloc-64 -o /tmp/rec -s 1 -- \
	sh -c "echo bufs 20 > $LEAKY; echo orphans 5 > $LEAKY" > /out/cli-record.txt 2>&1
check "record exits 0" test $? -eq 0
check_eq "record's top stack is leaky's 20 buffers" \
	"20 1280 leaky_alloc_buf [leaky] < keep [leaky] < ctl_write [leaky]" \
	"$(awk '$1 == 1 && $2 ~ /^[0-9]+$/ { print $2, $3, substr($0, index($0, "leaky_alloc_buf")); exit }' /out/cli-record.txt)"
check "record shows the 5 orphans" \
	grep -Eq '^ +[0-9]+ +5 +320 +200 .* leaky_orphan_buf \[leaky\]' /out/cli-record.txt
for f in dump stacks folded folded_bytes; do
	check "record saved kmalloc-64.$f" test -s /tmp/rec/kmalloc-64.$f
done
check_eq "the saved dump holds the 20 buffers" 20 "$(objs_from /tmp/rec/kmalloc-64.dump leaky_alloc_buf | wc -l)"
check "the saved folded stacks name leaky_alloc_buf" grep -q 'leaky_alloc_buf \[leaky\] 20$' /tmp/rec/kmalloc-64.folded
check "record reset the cache: nothing traced after" \
	sh -c "slabtrace status | grep -q '^slabtrace: 0 caches traced'"

# --- status while tracing, top and --json on what is kept.
slabtrace start kmalloc-64
echo bufs 7 > $LEAKY
slabtrace status > /out/cli-status.txt 2>&1
cat $ST/status > /out/status.txt
# 7 records or more: the programs run meanwhile may allocate from kmalloc-64.
check "status shows kmalloc-64 traced, since when, its drops" \
	grep -Eq '^cache kmalloc-64: tracing, traced [0-9]+\.[0-9]{3}s, ([7-9]|[1-9][0-9]+) records, drops: none$' \
	/out/cli-status.txt
check "status: probes attached" \
	grep -Eq '^slabtrace: 1 cache traced or holding records, ([7-9]|[1-9][0-9]+) records \(limit [0-9]+\), probes attached$' \
	/out/cli-status.txt
slabtrace stop kmalloc-64
slabtrace top --module leaky > /out/cli-top.txt 2>&1
check "top --module leaky: the 7 buffers first" \
	grep -Eq '^ +1 +7 +448 +350 .* leaky_alloc_buf \[leaky\]' /out/cli-top.txt
check_eq "top --module leaky: only leaky's stacks" 1 \
	"$(grep -Ec '^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+s ' /out/cli-top.txt)"
slabtrace leaks -c kmalloc-64 > /out/cli-leaks.txt 2>&1
check "leaks: the full backtrace of the 7 buffers" \
	grep -q '^       #02 keep+0x[0-9a-f]*/0x[0-9a-f]* \[leaky\]$' /out/cli-leaks.txt
slabtrace top -c kmalloc-64 --json > /out/cli-top.json
check "top --json exits 0" test $? -eq 0
check "top --json names leaky_alloc_buf" grep -q '"function": "leaky_alloc_buf", "module": "leaky"' /out/cli-top.json
slabtrace reset kmalloc-64

# --- report on what record saved, without the module's help.
check "report on record's saved dump" \
	sh -c "slabtrace report /tmp/rec/kmalloc-64.dump | grep -Eq '^ +1 +20 +1280 .* leaky_alloc_buf'"
check_eq "report refuses the saved stacks view" \
	"slabtrace: /tmp/rec/kmalloc-64.stacks: a stacks view, not a per-object dump" \
	"$(slabtrace report /tmp/rec/kmalloc-64.stacks 2>&1 | head -n 1)"

# --- growth: the cache leaky leaks 3000 buffers into comes first.
slabtrace growth -- sh -c "echo bufs 3000 > $LEAKY" > /out/cli-growth.txt 2>&1
check "growth exits 0" test $? -eq 0
check_eq "growth ranks kmalloc-64 first" kmalloc-64 "$(sed -n 3p /out/cli-growth.txt | awk '{ print $1 }')"
# /proc/slabinfo counts the free objects of a CPU's slab as active: the
# growth it shows is short of the 3000 by up to a few slabs' worth.
check "growth: kmalloc-64 grew by 2500 objects or more" \
	awk 'NR == 3 { exit !($4 + 0 >= 2500) }' /out/cli-growth.txt
slabtrace growth -i 0.2 -r 3 > /out/cli-growth-sampled.txt 2>&1
check "growth sampled exits 0" test $? -eq 0

# --- record --auto: a first run finds the growing cache (leaky's widgets).
slabtrace record --auto -o /tmp/auto -s 1 -- sh -c "echo widgets 400 > $LEAKY" \
	> /out/cli-auto.txt 2>&1
check "record --auto exits 0" test $? -eq 0
check "record --auto traced leaky_widget" grep -q '^record: tracing.* leaky_widget' /out/cli-auto.txt
check "record --auto found leaky_alloc_widget" \
	grep -Eq '^ +[0-9]+ +400 +[0-9]+ .* leaky_alloc_widget \[leaky\]' /out/cli-auto.txt
echo free > $LEAKY

# --- errors name their cause.
err=$(slabtrace start kmalloc-8192 2>&1)
check_eq "kmalloc-8192: did you mean kmalloc-8k" \
	"slabtrace: no such cache 'kmalloc-8192' (did you mean kmalloc-8k?)" "$err"
err=$(slabtrace start slabtrace_record 2>&1)
check_eq "the module's reason, not the errno" \
	"slabtrace: 'start slabtrace_record' failed: start: slabtrace_record is slabtrace's own cache" "$err"
err=$(slabtrace mark kmalloc-128 2>&1)
check_eq "mark of an untraced cache: the module's reason" \
	"slabtrace: 'mark kmalloc-128' failed: mark: kmalloc-128 is not traced" "$err"
err=$(slabtrace top 2>&1)
check_eq "top with nothing traced says what to do" \
	"slabtrace: no cache is traced or holds records (slabtrace status; slabtrace record -c CACHE -- COMMAND)" "$err"
mkdir -p /etc
grep -q '^nobody:' /etc/passwd 2>/dev/null ||
	echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >> /etc/passwd
err=$(su nobody -c 'slabtrace status' 2>&1)
check_eq "needs root" \
	"slabtrace: needs root: /sys/kernel/debug is root's only (run it with sudo)" "$err"
check "rmmod leaky" rmmod leaky
check "rmmod slabtrace" rmmod slabtrace
err=$(slabtrace status 2>&1)
check_eq "module not loaded" \
	"slabtrace: the slabtrace module is not loaded (insmod slabtrace.ko, or modprobe slabtrace after make modules_install)" "$err"
umount /sys/kernel/debug
err=$(slabtrace status 2>&1)
check_eq "debugfs not mounted" \
	"slabtrace: debugfs is not mounted on /sys/kernel/debug (mount -t debugfs none /sys/kernel/debug)" "$err"
mount -t debugfs debugfs /sys/kernel/debug
finish
