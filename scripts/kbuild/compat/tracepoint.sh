#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# <wrapper/tracepoint.h>: whether the tracepoints call their probes with
# preemption disabled, as the probes need, or preemptible.
#   scripts/kbuild/compat/tracepoint.sh SRCTREE
# Prints the -D flags; -DSLABTRACE_MISSING_TP_CALL if the guard of the
# probes' call is none of the forms the wrapper knows, as
# -DSLABTRACE_MISSING_SYSCALL_TP for sys_enter's macro and
# -DSLABTRACE_MISSING_PROCESS_EXIT for sched_process_exit's prototype.
# sched_process_exit with group_dead: -DSLABTRACE_PROCESS_EXIT_GROUP_DEAD.
h=${1:?usage: tracepoint.sh SRCTREE}/include/linux/tracepoint.h
s=$1/include/trace/events/syscalls.h
# What guards the call of the probes (__DO_TRACE_CALL) in the macro that
# makes a tracepoint's call (__DO_TRACE up to 6.12, __DECLARE_TRACE after;
# not __DECLARE_TRACE_SYSCALL): the last guard before the call, in that
# macro only, so that a preempt_disable_notrace() elsewhere in the file
# cannot pass for it.  Every such call must agree.
#   preempt: preempt_disable_notrace() (6.1, 6.12) or
#            guard(preempt_notrace)() (mainline 6.14 to 6.x)
#   srcu:    guard(srcu_fast_notrace)(&tracepoint_srcu) (Debian's 7.2, 7.3)
call=$(awk '
	/^#define[ \t]+(__DO_TRACE|__DECLARE_TRACE)\(/ { in_m = 1; g = "" }
	in_m && /preempt_disable_notrace\(\);|guard\(preempt_notrace\)\(\);/ { g = "preempt" }
	in_m && /guard\(srcu_fast_notrace\)\(&tracepoint_srcu\);/ { g = "srcu" }
	in_m && /guard\(/ && !/guard\((preempt_notrace|srcu_fast_notrace)\)/ { g = "" }
	in_m && /__DO_TRACE_CALL\(name, TP_ARGS\(args\)\);/ {
		if (g == "" || (seen != "" && seen != g)) { seen = "none"; exit }
		seen = g
	}
	in_m && !/\\$/ { in_m = 0 }
	END { print seen }' "$h" 2> /dev/null)
case $call in
preempt) ;;
# after 6.12 (Debian's 7.2): probes called under SRCU-fast, preemptible
srcu) printf ' %s' -DSLABTRACE_TP_PREEMPTIBLE ;;
*) printf ' %s' -DSLABTRACE_MISSING_TP_CALL ;;
esac
# sys_enter: TRACE_EVENT_FN up to 6.12, its probes called as every
# tracepoint's; after 6.12 (Debian's 7.2) TRACE_EVENT_SYSCALL: sys_enter
# and sys_exit may fault, their probes called under RCU tasks trace,
# preemptible.  Another macro may call them in another way: refused.
if grep -q '^TRACE_EVENT_SYSCALL(sys_enter,' "$s" 2> /dev/null; then
	printf ' %s' -DSLABTRACE_SYSCALL_TP_PREEMPTIBLE
elif ! grep -q '^TRACE_EVENT_FN(sys_enter,' "$s" 2> /dev/null; then
	printf ' %s' -DSLABTRACE_MISSING_SYSCALL_TP
fi
# sched_process_exit(p) up to 6.12, (p, group_dead) after (Debian's 7.2):
# the first TP_PROTO after its name.  Another prototype: refused.
form=$(awk '/sched_process_exit,/ { f = 1 }
     f && /TP_PROTO\(/ {
	if (/TP_PROTO\(struct task_struct \*p, bool group_dead\)/) print "group_dead"
	else if (/TP_PROTO\(struct task_struct \*p\)/) print "task"
	exit
     }' "$1/include/trace/events/sched.h" 2> /dev/null)
case $form in
task) ;;
group_dead) printf ' %s' -DSLABTRACE_PROCESS_EXIT_GROUP_DEAD ;;
*) printf ' %s' -DSLABTRACE_MISSING_PROCESS_EXIT ;;
esac
exit 0
