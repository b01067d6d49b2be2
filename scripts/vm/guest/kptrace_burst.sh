# SPDX-License-Identifier: GPL-2.0
# kptrace_burst: 100 new tasks traced at once.  "syscall start" traces
# every process; kpt_burst (scripts/vm/guest/kpt_burst.c) releases 100
# waiting children, SCHED_FIFO on CPU 0 with RT throttling off, which each
# make one call and stay alive until all have.  Each takes an in-flight
# entry at that call, in the hook, which must not allocate for it (an
# rhashtable would, GFP_ATOMIC, when an insert finds it full and its
# deferred grow cannot run on CPU 0 before the burst ends).  On the debug
# kernel (PREEMPT_RT, DEBUG_ATOMIC_SLEEP) such an allocation is "BUG:
# sleeping function called from invalid context" in the console, whatever
# the contention, and the runner fails the run; on Debian's kernels it
# goes unseen.  The test checks that the burst ran as meant: 100
# children, each traced.
. /tests/lib.sh

N=100
check "insmod slabtrace.ko" insmod $MODDIR/slabtrace.ko
rt=/proc/sys/kernel/sched_rt_runtime_us
rt_was=$(cat $rt)
check "RT throttling off" sh -c "echo -1 > $rt"
rm -f /tmp/burst.go /tmp/burst.out
mkfifo /tmp/burst.go
kpt_burst $N < /tmp/burst.go > /tmp/burst.out &
burst=$!
exec 7> /tmp/burst.go
check "kpt_burst: $N children wait" until_true 120 grep -q '^ready$' /tmp/burst.out
check "syscall start" st syscall start
echo go >&7
exec 7>&-
wait $burst
check_eq "kpt_burst: all $N called, together" "0 burst $N" "$? $(tail -n 1 /tmp/burst.out)"
check "syscall stop" st syscall stop
echo "$rt_was" > $rt
cat $ST/kptrace/queue > /tmp/burst.txt
check_eq "each child's getpid traced" $N \
	"$(sed -n 's/.* (getpid):.* pid: \([0-9]*\) tid: .* comm: kpt_burst .*/\1/p' /tmp/burst.txt | sort -u | wc -l)"
check_eq "no call dropped" 0 "$(sed -n 's/^dropped: //p' $ST/kptrace/stats)"
check "rmmod slabtrace" rmmod slabtrace
finish
