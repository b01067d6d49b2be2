# SPDX-License-Identifier: GPL-2.0
# The slabtrace command (scripts/tools/slabtrace/) against the real module:
# record finds leaky's leak by function name, growth ranks the cache it
# leaks into first, record --auto finds that cache itself, status shows
# what is traced, and the errors name their cause.  record owns what it
# starts and nothing else: a trace started by hand survives it, a second
# record of a cache is refused while the first runs, SIGTERM ends the
# command and cleans up, and after SIGKILL its watchdog does; two top -i
# of two caches in one session each read their own cache.  What the
# commands printed is left in /out/cli-*.txt, and top --json in
# /out/cli-top.json and cli-top-i.jsonl for the host to parse
# (scripts/tests/test_cli.py); record's and report's pprof profiles with
# their dumps (cli-record.*, cli-before.*, cli-after.*: before and after
# a leak of 3 objects) and growth's Prometheus file (cli.prom) for
# scripts/tests/test_interop.py, which reads them with go tool pprof,
# promtool and node_exporter.
. /tests/lib.sh

check "insmod slabtrace.ko" insmod $MODDIR/slabtrace.ko
check "insmod leaky.ko" insmod $MODDIR/leaky.ko

# What reading ctl shows before any print (the module's state), saved for
# the docs.
cat $ST/ctl > /out/ctl-before-print.txt
check "ctl before any print shows the state" \
	grep -q '^No snapshot yet for this login user: print takes one.$' /out/ctl-before-print.txt

# --- status with nothing traced.
slabtrace status > /out/cli-status-idle.txt 2>&1
check "status with nothing traced says so" \
	grep -q '^slabtrace: 0 caches traced or holding records, 0 records (limit [0-9]*), probes detached$' \
	/out/cli-status-idle.txt
check "status with nothing traced: what to do" \
	grep -q '^next: slabtrace growth finds a growing cache' /out/cli-status-idle.txt

# --pprof: not in a build without protobuf-c (the arm64 guests').
if slabtrace record --help | grep -q 'not in this build'; then
	pprof() { :; }
	skip_checks "--pprof: this build of slabtrace has none"
else
	pprof() { printf '%s\n' --pprof "$1"; }
fi

# --- record around a command that leaks 20 buffers and 5 orphans.
# shellcheck disable=SC2046
slabtrace record -c kmalloc-64 -o /tmp/rec --settle 1 $(pprof /out/cli-record.pb.gz) -- \
	sh -c "echo bufs 20 > $LEAKY; echo orphans 5 > $LEAKY" > /out/cli-record.txt 2>&1
check "record exits 0" test $? -eq 0
cp /tmp/rec/kmalloc-64.dump /out/cli-record.dump
[ -z "$(pprof x)" ] ||
	check "record --pprof wrote a gzip file" sh -c "gzip -t /out/cli-record.pb.gz"
# The whole kernel's kmalloc-64 is traced: another stack may come first.
check_eq "record shows leaky's 20 buffers" \
	"20 1280 leaky_alloc_buf [leaky] < keep [leaky] < ctl_write [leaky]" \
	"$(awk '$2 ~ /^[0-9]+$/ && / leaky_alloc_buf / { print $2, $3, substr($0, index($0, "leaky_alloc_buf")); exit }' /out/cli-record.txt)"
check "record shows the 5 orphans" \
	grep -Eq '^ +[0-9]+ +5 +320 +200 .* leaky_orphan_buf \[leaky\]' /out/cli-record.txt
for f in dump stacks folded folded_bytes; do
	check "record saved kmalloc-64.$f" test -s /tmp/rec/kmalloc-64.$f
done
check_eq "the saved dump holds the 20 buffers" 20 "$(nobjs_from /tmp/rec/kmalloc-64.dump leaky_alloc_buf)"
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
slabtrace top -c kmalloc-64 --json -i 0.1 -r 2 > /out/cli-top-i.jsonl
check_eq "top -i --json: a line a report" 2 "$(wc -l < /out/cli-top-i.jsonl)"
slabtrace reset kmalloc-64

# --- record owns what it starts, nothing else.
traced() { slabtrace status | grep -q "^cache $1: tracing"; }
none_traced() { slabtrace status | grep -q '^slabtrace: 0 caches traced'; }
# A trace started by hand is shared: recorded, not stopped or reset.
slabtrace start kmalloc-128
slabtrace record -c kmalloc-128 --settle 0 -o /tmp/shared -- true > /out/cli-shared.txt 2>&1
check "record of a cache traced by hand exits 0" test $? -eq 0
check "record says it shares it" grep -q '^record: tracing kmalloc-128 (shared); running true$' /out/cli-shared.txt
check "the trace started by hand survives record" traced kmalloc-128
check "record saved its dump" test -s /tmp/shared/kmalloc-128.dump
slabtrace stop kmalloc-128
slabtrace reset kmalloc-128
# Two records of one cache: the second is refused, the first unharmed.
slabtrace record -c kmalloc-64 --settle 0 -o /tmp/r1 -- \
	sh -c "echo bufs 4 > $LEAKY; while [ ! -e /tmp/r2.done ]; do sleep 0.1; done" \
	> /out/cli-record1.txt 2>&1 &
first=$!
check "the first record traces kmalloc-64" until_true 30 traced kmalloc-64
slabtrace record -c kmalloc-64 --settle 0 -o /tmp/r2 -- true > /out/cli-record2.txt 2>&1
check_eq "a second record of the cache is refused" 1 $?
check "... saying why" grep -q '^slabtrace: record: not tracing kmalloc-64: another slabtrace record is tracing it' /out/cli-record2.txt
check "... and left the first's trace alone" traced kmalloc-64
touch /tmp/r2.done
wait $first
check_eq "the first record exits 0" 0 $?
check_eq "the first record's dump holds its 4 buffers" 4 "$(nobjs_from /tmp/r1/kmalloc-64.dump leaky_alloc_buf)"
check "nothing traced after both" none_traced
echo free > $LEAKY
# SIGTERM: the command ends, record saves and cleans up, exits 128 + 15.
slabtrace record -c kmalloc-64 --settle 0 -o /tmp/rt -- sleep 60 > /out/cli-sigterm.txt 2>&1 &
rec=$!
check "record traces kmalloc-64" until_true 30 traced kmalloc-64
kill -TERM $rec
wait $rec
check_eq "record exits 143 on SIGTERM" 143 $?
check "... after sleep was ended" grep -q '^slabtrace: sleep was killed by signal 15$' /out/cli-sigterm.txt
check "... having saved its dump" test -s /tmp/rt/kmalloc-64.dump
check "... and cleaned up" none_traced
# SIGKILL: the watchdog stops and resets what record started.
slabtrace record -c kmalloc-64 --settle 0 -o /tmp/rk -- sh -c 'echo $$ > /tmp/rk.pid; exec sleep 60' \
	> /out/cli-sigkill.txt 2>&1 &
rec=$!
check "record traces kmalloc-64" until_true 30 traced kmalloc-64
kill -KILL $rec
wait $rec 2>/dev/null
check "after SIGKILL, the watchdog stops and resets kmalloc-64" until_true 30 none_traced
check "... and says so" until_true 10 grep -q '^slabtrace: record (pid [0-9]*) ended without cleaning up; its watchdog stopped and reset kmalloc-64$' /out/cli-sigkill.txt
kill "$(cat /tmp/rk.pid)"
# A view it cannot save (a directory of kmalloc-64.dump's name): said,
# the next cache's views saved still, the records kept, exit 1.
mkdir -p /tmp/rsave/kmalloc-64.dump
slabtrace record -c kmalloc-64 -c kmalloc-128 --settle 0 -o /tmp/rsave -- true \
	> /out/cli-unsaved.txt 2>&1
check_eq "record with a view it cannot save exits 1" 1 $?
check "... naming it" grep -q '^slabtrace: /tmp/rsave/kmalloc-64.dump: Is a directory$' \
	/out/cli-unsaved.txt
for f in dump stacks folded folded_bytes; do
	check "... the next cache's kmalloc-128.$f saved still" test -f /tmp/rsave/kmalloc-128.$f
done
check "... the records kept" grep -q 'the records are kept' /out/cli-unsaved.txt
for c in kmalloc-64 kmalloc-128; do
	slabtrace reset $c
done
check "... and reset by hand" none_traced
# --pprof FILE it cannot write (a directory of its name): said, the
# snapshot saved, the cache reset by record itself (not by its
# watchdog, after an exit before the reset), exit 1.
if [ -n "$(pprof x)" ]; then
	mkdir -p /tmp/pp.pb.gz
	# shellcheck disable=SC2046
	slabtrace record -c kmalloc-64 -o /tmp/rpp --settle 0 $(pprof /tmp/pp.pb.gz) -- true \
		> /out/cli-pprof-dir.txt 2>&1
	check_eq "record --pprof FILE it cannot write exits 1" 1 $?
	check "... naming FILE and the error" \
		grep -q '^slabtrace: /tmp/pp.pb.gz: Is a directory$' /out/cli-pprof-dir.txt
	for f in dump stacks folded folded_bytes; do
		check "... having saved kmalloc-64.$f" test -f /tmp/rpp/kmalloc-64.$f
	done
	check "... and reset the cache" none_traced
	if until_true 5 grep -q 'ended without cleaning up' /out/cli-pprof-dir.txt; then
		fail "... itself, not its watchdog"
	else
		pass "... itself, not its watchdog"
	fi
fi
# Two top -i of two caches in one session: each gets its own cache.
slabtrace start kmalloc-64
slabtrace start kmalloc-128
echo bufs 3 > $LEAKY
slabtrace top -i 0.001 -r 150 -c kmalloc-64 > /out/cli-top64.txt 2>&1 &
a=$!
slabtrace top -i 0.001 -r 150 -c kmalloc-128 > /out/cli-top128.txt 2>&1 &
b=$!
wait $a
check_eq "top -i of kmalloc-64 exits 0 beside another" 0 $?
wait $b
check_eq "top -i of kmalloc-128 exits 0 beside another" 0 $?
check_eq "150 reports of kmalloc-64, each of kmalloc-64" "150 150" \
	"$(grep -c '^--- ' /out/cli-top64.txt) $(grep -c '^kmalloc-64: ' /out/cli-top64.txt)"
check_eq "150 reports of kmalloc-128, each of kmalloc-128" "150 150" \
	"$(grep -c '^--- ' /out/cli-top128.txt) $(grep -c '^kmalloc-128: ' /out/cli-top128.txt)"
for c in kmalloc-64 kmalloc-128; do
	slabtrace stop $c
	slabtrace reset $c
done
echo free > $LEAKY

# --- pprof: two prints of one trace, before and after leaky leaks 3
# objects, each as a profile of leaky's objects (report --module leaky).
slabtrace start kmalloc-64
echo bufs 4 > $LEAKY
dump kmalloc-64 /out/cli-before.dump
echo orphans 3 > $LEAKY
dump kmalloc-64 /out/cli-after.dump
slabtrace stop kmalloc-64
# Prometheus: growth's figures with a traced cache holding records.
slabtrace growth -i 0.1 -r 2 --prometheus /out/cli.prom > /out/cli-growth-prom.txt 2>&1
check "growth --prometheus exits 0" test $? -eq 0
check "growth --prometheus: kmalloc-64's records" \
	grep -Eq '^slabtrace_cache_records\{cache="kmalloc-64"\} [0-9]+$' /out/cli.prom
# Its temporary file is cli.prom.XXXXXX (mkstemp()).
check_eq "growth --prometheus left no temporary file" cli.prom \
	"$(ls /out | grep '^cli\.prom')"
slabtrace reset kmalloc-64
echo free > $LEAKY
for c in before after; do
	# shellcheck disable=SC2046
	slabtrace report --module leaky $(pprof /out/cli-$c.pb.gz) /out/cli-$c.dump \
		> /out/cli-$c.txt 2>&1
	check "report of the $c dump exits 0" test $? -eq 0
done
check "before: leaky's 4 buffers" grep -Eq '^ +1 +4 +256 .* leaky_alloc_buf \[leaky\]' /out/cli-before.txt
check "after: the 4 buffers" grep -Eq '^ +[12] +4 +256 .* leaky_alloc_buf \[leaky\]' /out/cli-after.txt
check "after: and the 3 orphans" grep -Eq '^ +[12] +3 +192 .* leaky_orphan_buf \[leaky\]' /out/cli-after.txt
check_eq "before: nothing else of leaky's" 1 "$(grep -Ec '^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+s ' /out/cli-before.txt)"

# --- report on what record saved, without the module's help.
check "report on record's saved dump" \
	sh -c "slabtrace report /tmp/rec/kmalloc-64.dump | grep -Eq '^ +[0-9]+ +20 +1280 .* leaky_alloc_buf'"
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
# The same as JSON (the host parses it: test_cli.py, VmOutput).
slabtrace growth --json -n 1 -- sh -c "echo bufs 3000 > $LEAKY" > /out/cli-growth.json 2>&1
check "growth --json exits 0" test $? -eq 0
check "growth --json: one line, kmalloc-64 first" \
	grep -q '^{"version": 1, "seconds": [0-9.]*, "around": "command", "caches": \[{"cache": "kmalloc-64", ' \
	/out/cli-growth.json

# --- record --auto: a first run finds the growing cache (leaky's widgets).
slabtrace record --auto -o /tmp/auto --settle 1 -- sh -c "echo widgets 400 > $LEAKY" \
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
	"slabtrace: needs root: /proc/slabtrace is root's only (run it with sudo)" "$err"
check "rmmod leaky" rmmod leaky
check "rmmod slabtrace" rmmod slabtrace
# Not loaded, and not installed for this kernel (no modules.dep lists it).
kv=$(uname -r)
err=$(slabtrace status 2>&1)
check_eq "module not loaded, none installed" \
	"slabtrace: the slabtrace module is not loaded, and none is installed for this kernel ($kv): install the slabtrace-dkms package; from a checkout: make && sudo insmod slabtrace.ko" "$err"
# Installed (modules.dep lists it, as depmod writes it): load it.
mkdir -p /lib/modules/$kv
echo "$MODDIR/slabtrace.ko:" > /lib/modules/$kv/modules.dep
err=$(slabtrace status 2>&1)
check_eq "module not loaded, installed" \
	"slabtrace: the slabtrace module is not loaded: sudo modprobe slabtrace" "$err"
# debugfs is not needed (/proc/slabtrace): its absence is not the cause.
umount /sys/kernel/debug
err=$(slabtrace status 2>&1)
check_eq "module not loaded, debugfs not mounted: the module is the cause" \
	"slabtrace: the slabtrace module is not loaded: sudo modprobe slabtrace" "$err"
mount -t debugfs debugfs /sys/kernel/debug
rm /lib/modules/$kv/modules.dep
finish
