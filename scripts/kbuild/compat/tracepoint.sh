#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# <wrapper/tracepoint.h>: whether the tracepoints call their probes with
# preemption disabled, as the probes need, or preemptible.
#   scripts/kbuild/compat/tracepoint.sh SRCTREE
# Prints the -D flags; -DSLABTRACE_MISSING_TP_CALL if __DO_TRACE's call of
# the probes is none of the forms the wrapper knows.  sched_process_exit
# with group_dead: -DSLABTRACE_PROCESS_EXIT_GROUP_DEAD; any other form is
# taken for the old one (task only).
h=${1:?usage: tracepoint.sh SRCTREE}/include/linux/tracepoint.h
s=$1/include/trace/events/syscalls.h
if grep -q 'guard(srcu_fast_notrace)(&tracepoint_srcu);' "$h" 2> /dev/null; then
	# after 6.12 (Debian's 7.2): probes called under SRCU-fast, preemptible
	printf ' %s' -DSLABTRACE_TP_PREEMPTIBLE
elif ! grep -q 'preempt_disable_notrace();' "$h" 2> /dev/null; then
	printf ' %s' -DSLABTRACE_MISSING_TP_CALL
fi
# after 6.12 (Debian's 7.2): sys_enter and sys_exit may fault, their
# probes called under RCU tasks trace, preemptible
grep -q '^TRACE_EVENT_SYSCALL(sys_enter,' "$s" 2> /dev/null &&
	printf ' %s' -DSLABTRACE_SYSCALL_TP_PREEMPTIBLE
# after 6.12 (Debian's 7.2): sched_process_exit(p, group_dead)
awk '/^TRACE_EVENT\(sched_process_exit,/ { f = 1; next }
     f && /TP_PROTO\(/ { found = /TP_PROTO\(struct task_struct \*p, bool group_dead\)/; exit }
     END { exit !found }' "$1/include/trace/events/sched.h" 2> /dev/null &&
	printf ' %s' -DSLABTRACE_PROCESS_EXIT_GROUP_DEAD
exit 0
