#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The VM runner's splat patterns (scripts/vm/splats.sh) against the first
# line of each kind of report, as the kernel prints it (the formats of
# linux-source-6.12), and against console lines that are no splat: the
# debug kernel's boot messages of its checkers, and the guest's own lines.
# The last line is "splats: N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/scripts/vm/splats.sh"
npass=0
nfail=0

# splat yes|no LINE
splat() {
	if printf '%s\n' "$2" | grep -Eq "$SPLATS"; then got=yes; else got=no; fi
	if [ "$got" = "$1" ]; then
		npass=$((npass + 1))
	else
		nfail=$((nfail + 1))
		echo "FAIL: splats: $1 expected, $got for: $2"
	fi
}

# DEBUG_ATOMIC_SLEEP, kernel/sched/core.c __might_resched()
splat yes '[   41.210345] BUG: sleeping function called from invalid context at kernel/locking/spinlock_rt.c:48'
# KASAN, mm/kasan/report.c
splat yes '[   12.000001] BUG: KASAN: slab-use-after-free in relay_file_read+0x3a/0x2c0'
# lockdep, kernel/locking/lockdep.c
splat yes '[    9.876543] WARNING: possible circular locking dependency detected'
splat yes '[    9.876543] [ BUG: Invalid wait context ]'
splat yes '[    9.876543] WARNING: inconsistent lock state'
splat yes '[    9.876543] WARNING: suspicious RCU usage'
splat yes '[    9.876543] INFO: lockdep is turned off.'
splat yes '[    9.876543] lockdep:check_path bad path found in chain graph'
# DEBUG_OBJECTS, lib/debugobjects.c: with its WARN, and alone
splat yes '[    5.5] ODEBUG: free active (active state 0) object: 000000007a3c1e2b object type: timer_list hint: kpt_timer+0x0/0x20 [slabtrace]'
splat yes '[    5.5] ODEBUG: Out of memory. ODEBUG disabled'
# the message of a WARN whose "WARNING:" line the console lost
splat yes '[    5.5] ODEBUG: object 00000000c3c5e1a2 is on stack 000000008b1ac9b2, but NOT annotated.'
# PREEMPT_RT without DEBUG_ATOMIC_SLEEP (Debian's rt kernels)
splat yes '[   24.1] BUG: scheduling while atomic: sh/1456/0x00000002'
splat yes '[   33.3] Oops: general protection fault, probably for non-canonical address 0x6b6b6b6b6b6b6b73: 0000 [#1] PREEMPT_RT SMP KASAN'
splat yes '[   24.1] WARNING: CPU: 1 PID: 1456 at kernel/softirq.c:171 __local_bh_disable_ip+0xc9/0xd0'
splat yes '[   24.1] list_add corruption. next->prev should be prev (ffff888003a0e0c8), but was 0000000000000000.'
# lib/list_debug.c, the other way
splat yes '[   24.1] list_del corruption. prev->next should be ffff888003a0e0c8, but was dead000000000100. (prev=ffff888003a0e100)'
# RCU stalls, kernel/rcu/tree_stall.h: another CPU's, and a CPU's own
splat yes '[  120.0] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:'
splat yes '[  120.0] rcu: INFO: rcu_sched self-detected stall on CPU'
# hung tasks, kernel/hung_task.c
splat yes '[  241.7] INFO: task kworker/0:1:42 blocked for more than 120 seconds.'
# a panic, kernel/panic.c, and a backtrace with no BUG or WARNING line
# before it (dump_stack(), lib/dump_stack.c)
splat yes '[   77.7] Kernel panic - not syncing: Fatal exception'
splat yes '[   77.7] Call Trace:'

# Not splats: the checkers' boot messages, the guest's lines.
splat no '[    0.000000] Lock dependency validator: Copyright (c) 2006 Red Hat, Inc., Ingo Molnar'
splat no '[    0.000000] ... MAX_LOCKDEP_SUBCLASSES:  8'
splat no '[    0.000000] rcu: 	RCU lockdep checking is enabled.'
splat no '[    0.000000] kasan: KernelAddressSanitizer initialized'
splat no '[    0.123456] rcu: Preemptible hierarchical RCU implementation.'
splat no 'ST-VM: kernel 6.12.117-slabtrace-debug, 2 cpus'
splat no 'PASS: kptrace: rmmod slabtrace while tracing everything'

echo "splats: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
