# SPDX-License-Identifier: GPL-2.0
# kptrace_storm: kptrace's hooks under a storm of short-lived tasks.  While
# "syscall start" traces every process: four loops of 30 short-lived
# "sh -c" processes each, tstorm's 60 threads sleeping 1 ms in a loop and
# its batches of 50 short-lived threads (every new task takes an in-flight
# entry at its first call and gives it back at its exit), and a reader
# draining kptrace (on arm64, whose emulation is slower, and on the debug
# kernel, 20 processes a
# loop and 10 threads: with 50 and 30 the test took almost 3 minutes, with
# 150 threads 11); once a third of the processes ran, a loop toggling
# "syscall stop", "syscall start ctf", "syscall stop", "syscall start",
# then new filters while tracing, "syscall start comm sh" and "syscall
# start" (the first gives back the entries of every other task, racing
# their calls and exits), which goes round at least twice before the
# storm ends.  Every loop did
# its share and every command succeeded; the kernel logged no splat
# (scripts/vm/run.sh also fails the run on one in the console).  A hook
# that takes a sleeping lock or allocates shows up here on PREEMPT_RT as
# "BUG: scheduling while atomic" or a WARNING from __local_bh_disable_ip.
# Its time budget (scripts/vm/guest/init): the storm's rounds take 2 min
# on a busy host (5.5 min beside five other guests), and the test waits
# up to 10 min for them.
# vm-budget: 1200
. /tests/lib.sh

# The debug kernel (KASAN, lockdep, PREEMPT_RT) under TCG: the lighter
# load too; the full one starves RCU there (a stall in the threads'
# clone(), not in slabtrace).  Its checks find a sleeping lock or an
# allocation in a hook at the first traced call of a new task anyway.
if [ "$(uname -m)" = x86_64 ] && [ -z "$DEBUG_KERNEL" ]; then
	PROCS=30
	THREADS=60
else
	PROCS=20
	THREADS=10
fi
S=/tmp/kstorm

check "insmod slabtrace.ko" insmod $MODDIR/slabtrace.ko
log_mark
# Small queues: the toggling loop makes new ones at every start.
check "syscall size 256K" st syscall size 256K
rm -rf $S
mkdir $S

# spawner N: PROCS short-lived processes, one "sh -c" after another; a
# line per process in $S/N.rounds.
spawner() {
	i=0
	while [ $i -lt "$PROCS" ]; do
		sh -c 'echo > /dev/null' || echo "spawner $1: sh -c failed" >> $S/errors
		echo >> $S/$1.rounds
		i=$((i + 1))
	done
}
rounds() { cat $S/$1.rounds 2>/dev/null | wc -l; }
procs() { echo $(($(rounds 1) + $(rounds 2) + $(rounds 3) + $(rounds 4))); }
# ctl COMMAND: one command; a failure is written to $S/errors.
ctl() {
	echo "$*" > "$ST/ctl" 2> $S/ctl.stderr ||
		echo "'$*' failed: $(cat $S/ctl.stderr)" >> $S/errors
}

check "syscall start (every process)" st syscall start
tstorm -t $THREADS -c 50 -f $S/stop > $S/tstorm.out 2> $S/tstorm.err &
pt=$!
for n in 1 2 3 4; do
	spawner $n &
	eval p$n=\$!
done
# The reader: drains kptrace, as a user's cat would.
(
	while [ ! -e $S/stop ]; do
		cat $ST/kptrace/queue > /dev/null || echo "cat kptrace failed" >> $S/errors
		echo >> $S/reader.rounds
		sleep 0.3
	done
) &
pr=$!
# The toggler: once a third of the processes ran (everyone traced until
# then), stop and start again, to the binary stream and to the queue,
# each start a new table of in-flight entries.
(
	until_true 600 sh -c "[ \$(cat $S/[1-4].rounds 2>/dev/null | wc -l) -ge $((4 * PROCS / 3)) ]"
	while [ ! -e $S/stop ]; do
		ctl syscall stop
		ctl syscall start ctf
		sleep 1
		ctl syscall stop
		ctl syscall start
		sleep 1
		ctl syscall start comm sh
		sleep 0.5
		ctl syscall start
		sleep 0.5
		echo >> $S/toggler.rounds
	done
) &
pg=$!
wait $p1 $p2 $p3 $p4
check "the toggler went round twice" until_true 120 sh -c "[ \$(cat $S/toggler.rounds 2>/dev/null | wc -l) -ge 2 ]"
touch $S/stop
wait $pt
tstorm_rc=$?
wait $pr $pg

echo "kptrace_storm: sh -c processes $(rounds 1) $(rounds 2) $(rounds 3) $(rounds 4), reads $(rounds reader), toggles $(rounds toggler)"
echo "kptrace_storm: tstorm: $(cat $S/tstorm.out)"
check_eq "the four loops ran $((4 * PROCS)) short-lived processes" $((4 * PROCS)) "$(procs)"
check "tstorm ran its threads" test "$tstorm_rc" = 0
check "tstorm: $THREADS threads and batches of short-lived ones" \
	grep -q "^threads=$THREADS batches=[1-9][0-9]* churned=[1-9]" $S/tstorm.out
check "the reader drained kptrace" test "$(rounds reader)" -gt 0
[ -e $S/errors ] && sed 's/^/kptrace_storm: /' $S/errors
check_eq "every command and process of the storm succeeded" 0 \
	"$(cat $S/errors 2>/dev/null | wc -l)"
check "syscall stop" st syscall stop
cat $ST/kptrace/stats > $S/stats
cp $S/stats /out/kptrace_storm_stats.txt
check "calls were recorded" \
	test "$(sed -n 's/^written: //p' $S/stats)" -gt 0
check "rmmod slabtrace" rmmod slabtrace

no_splat_since "during the storm" kptrace_storm-dmesg.txt
finish
