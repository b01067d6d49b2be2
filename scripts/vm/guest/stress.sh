# SPDX-License-Identifier: GPL-2.0
# stress: the fuzzer (scripts/vm/guest/fuzz.c) for STRESS_SECS seconds (45,
# and on until it made 4000 writes, for at most 180 s; 150 s on the debug
# kernel; the kernel parameter stress_secs= sets it, as
# make stress does, and stress_seed= the seed of a run to make its
# commands again), with
# stressirq (scripts/test-modules/stressirq.c) allocating in task, softirq and
# hardirq context: random and mutated commands to every writable file,
# random reads and seeks of every file, slabtrace and stressirq unloaded
# and loaded again.  Every write succeeded or failed with an expected
# errno, nothing hung and the kernel logged no splat (the fuzzer's
# verdict), and each kind of command was accepted at least once.  Then,
# on the state the fuzzer left: every trace stopped and reset leaves no
# record, slabtrace_record no object, and the cache is gone after rmmod.  Last, on a fresh load: a trace of
# stressirq_obj shows objects allocated in hardirq context (in the
# irq_work thread on PREEMPT_RT, where the slab allocator must not run in
# hardirq), in softirq and in the kthread, with their frames.
. /tests/lib.sh

# The debug kernel runs the fuzzer about ten times slower: in 45 s it made
# a tenth of the writes, too few for each kind of command to be accepted.
# Elsewhere the run is long enough for 4000 writes, of which about 0.3 %
# are accepted prints: x86 makes them in 35-40 s, arm64 under emulation
# makes a third as many (1653 writes in 45 s, of which no print was
# accepted, once in a make check), and a busy host fewer.
secs=45
writes=4000
[ -z "$DEBUG_KERNEL" ] || { secs=150; writes=0; }
SECS=${stress_secs:-${STRESS_SECS:-$secs}}
[ -z "${stress_secs:-$STRESS_SECS}" ] || writes=0
ctl() { echo "$*" > "$ST/ctl"; }
splat='BUG:|WARNING:|Oops|general protection|Call Trace:|scheduling while atomic|possible recursive locking|stall'
RT=
case "$(uname -v)" in *PREEMPT_RT*) RT=1 ;; esac

check "insmod stressirq.ko" insmod $MODDIR/stressirq.ko
check "insmod slabtrace.ko" insmod $MODDIR/slabtrace.ko

# Its lines go to the console as they come: the runner stops a guest
# that prints nothing for 180 s.
{
	fuzz -t "$SECS" -n $writes ${stress_seed:+-s "$stress_seed"} -m $MODDIR 2>&1
	echo $? > /tmp/fuzz.rc
} | tee /tmp/fuzz.out
rc=$(cat /tmp/fuzz.rc)
cp /tmp/fuzz.out /out/stress-fuzz.txt
seed=$(sed -n 's/^fuzz: seed \([0-9]*\),.*/\1/p' /tmp/fuzz.out)
check_eq "fuzz -s $seed: no unexpected result, nothing hung, no splat (exit status)" 0 "$rc"
check_eq "fuzz: the summary counts nothing unexpected" "fuzz: unexpected 0, hung 0, splats 0" \
	"$(grep '^fuzz: unexpected' /tmp/fuzz.out)"
# accepted VERB: how many commands of the kind succeeded.
accepted() {
	sed -n "s/^fuzz: accepted:.* $1 \([0-9]*\),.*/\1/p" /tmp/fuzz.out
}
# On the debug kernel, or when the fuzzer made fewer than its 4000 writes
# in the time it had (a guest slowed down by a busy host: 116 writes in
# 180 s on arm64 beside five other guests), a kind that happened not to be
# accepted is said (writes in 150 s on the debug kernel: 400 to 600, a
# tenth of the other kernels').
made=$(sed -n 's/^fuzz: writes \([0-9]*\):.*/\1/p' /tmp/fuzz.out)
for v in start stop print reset pool limit syscall kmemtrace enable buffer_kb; do
	if [ "$(accepted $v)" = 0 ] &&
	   { [ -n "$DEBUG_KERNEL" ] || [ "${made:-0}" -lt "$writes" ]; }; then
		skip_checks "fuzz: no '$v' command accepted in $made writes"
	else
		check "fuzz: '$v' commands were accepted ($(accepted $v))" test "$(accepted $v)" -gt 0
	fi
done
reloads() { sed -n "s/^fuzz: reloads:.* $1 \([0-9]*\).*/\1/p" /tmp/fuzz.out; }
check "fuzz: slabtrace was unloaded and loaded again ($(reloads slabtrace) times)" \
	test "$(reloads slabtrace)" -gt 0
check "fuzz: stressirq was unloaded and loaded again ($(reloads stressirq) times)" \
	test "$(reloads stressirq)" -gt 0
traced=$(sed -n 's/^fuzz: reloads:.* its cache \([0-9]*\))/\1/p' /tmp/fuzz.out)
check "fuzz: ... right after a start of its cache ($traced times)" test "$traced" -gt 0
reads=$(sed -n 's/^fuzz: reads \([0-9]*\) .*/\1/p' /tmp/fuzz.out)
check "fuzz: files were read ($reads reads)" test "$reads" -gt 0
check "slabtrace is loaded after the fuzz" grep -q '^slabtrace ' /proc/modules
check "stressirq is loaded after the fuzz" grep -q '^stressirq ' /proc/modules

# Stop and reset everything the fuzzer left traced.  The fuzzer watched
# the kernel log for splats; the checks below get a log of their own.
dmesg -c > /dev/null
check "syscall stop" ctl syscall stop
check "kmemtrace stop" ctl kmemtrace stop
for c in $(sed -n 's/^cache \([^ ]*\) .*/\1/p' $ST/slab/stats); do
	ctl stop "$c"
	ctl reset "$c"
done
cp $ST/slab/stats /out/stress-stats.txt
check_eq "after reset, no cache is listed in stats" "" "$(grep '^cache ' $ST/slab/stats)"
check_eq "after reset, no record is kept" "records 0" \
	"$(sed -n 's/^\(records [0-9]*\) .*/\1/p' $ST/slab/stats)"
# With nothing traced the probes go (a work item detaches them) and the
# pool gives its records back: slabtrace_record is empty.  The count is
# exact after a shrink, which flushes the per-CPU slabs.
SLAB=/sys/kernel/slab/slabtrace_record
empty() {
	echo 1 > $SLAB/shrink
	objs=$(cut -d' ' -f1 $SLAB/objects)
	pool=$(sed -n 's/^pool \(.*\)/\1/p' $ST/slab/stats)
	[ "$objs" = 0 ] && [ "$pool" != "${pool% allocated 0}" ] &&
		grep -q '^probes alloc off free off$' $ST/slab/stats
}
check "with nothing traced, slabtrace_record has no object" until_true 10 empty
echo "stress: slabtrace_record: $objs objects; pool: $pool"
check "rmmod slabtrace" rmmod slabtrace
check "slabtrace_record is gone from /sys/kernel/slab" test ! -e $SLAB
check "slabtrace_record is gone from /proc/slabinfo" \
	sh -c "! grep -q '^slabtrace_record ' /proc/slabinfo"

# Contexts, on a fresh load.  seen CONTEXT FUNC: a print of stressirq_obj
# lists an object allocated "from CONTEXT" with FUNC in its backtrace.
check "insmod slabtrace.ko" insmod $MODDIR/slabtrace.ko
check "start stressirq_obj" ctl start stressirq_obj
seen() {
	ctl print stressirq_obj && cat $ST/ctl > /tmp/stressirq.dump &&
		awk -v ctx="from $1" -v f=" in $2+" '
			/^Obj / { in_ctx = index($0, ctx) > 0 }
			in_ctx && index($0, f) { found = 1 }
			END { exit !found }' /tmp/stressirq.dump
}
if [ -z "$RT" ]; then
	check "an object allocated in hardirq context says 'from hardirq'" \
		until_true 30 seen hardirq stressirq_hardirq
else
	check "PREEMPT_RT: the irq_work's objects come from its thread" \
		until_true 30 seen "kthread irq_work/" stressirq_hardirq
fi
cp /tmp/stressirq.dump /out/stress-stressirq.txt
check "an object allocated in the timer says 'from softirq'" \
	until_true 30 seen softirq stressirq_softirq
check "an object allocated by the kthread says 'from kthread stressirq'" \
	until_true 30 seen "kthread stressirq" stressirq_task
check "rmmod stressirq while its cache is traced" rmmod stressirq
check "stressirq_obj is gone from /sys/kernel/slab" test ! -e /sys/kernel/slab/stressirq_obj
check_eq "print stressirq_obj after its rmmod" "No such file or directory" \
	"$(ctl_errno 'print stressirq_obj')"
check "rmmod slabtrace" rmmod slabtrace

dmesg > /tmp/dmesg.stress
check_eq "the kernel logged no splat after the fuzz" "" \
	"$(grep -E "$splat" /tmp/dmesg.stress | head -n 3)"
finish
