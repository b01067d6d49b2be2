#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The kernel API wrappers' feature tests (scripts/kbuild/compat/*.sh, one per
# include/wrapper/*.h that differs by kernel), against the lines of the
# kernels' headers they read, kept as fixtures: scripts/kbuild/compat/fixtures/K/
# holds them for Debian's 6.1, 6.12, 7.2 and 7.3, and for "future", a made-up
# kernel whose APIs are in no form the wrappers know; K/expect lists the
# -D flags scripts/kbuild/compat-probe.sh must print for K.  A probe that stops
# detecting its form (a kernel's new spelling, a typo in a grep) fails
# here; the real headers are the builds' test (make compat, make check).
#
# Also checked: every flag a probe prints is read by a wrapper (or by
# <wrapper/requirements.h>, the MISSING ones), every SLABTRACE_ feature
# macro a wrapper reads is printed by a probe, --missing names the future
# kernel's APIs, and the build refuses the future kernel with one #error
# line per API (SLABTRACE_TEST_KDIR: a 6.12 headers tree to try it on,
# else make's KVER=6.12 is fetched).
#
# The last line is "compat-probes: N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
fix=$top/scripts/kbuild/compat/fixtures
npass=0
nfail=0
pass() {
	echo "PASS: compat-probes: $*"
	npass=$((npass + 1))
}
fail() {
	echo "FAIL: compat-probes: $*"
	nfail=$((nfail + 1))
}

for d in "$fix"/*/; do
	k=$(basename "$d")
	got=$("$top/scripts/kbuild/compat-probe.sh" "$d" | tr ' ' '\n' | sed '/^$/d' | sort)
	want=$(sed '/^$/d' "$d/expect" | sort)
	if [ "$got" = "$want" ]; then
		pass "$k: $(echo "$got" | tr '\n' ' ')"
	else
		fail "$k: got '$(echo "$got" | tr '\n' ' ')', want '$(echo "$want" | tr '\n' ' ')'"
	fi
done

# --missing: the future kernel's APIs by name, none for the others.
got=$("$top/scripts/kbuild/compat-probe.sh" --missing "$fix/future" | sort | tr '\n' ' ')
want=$(sed -n 's/^-DSLABTRACE_MISSING_//p' "$fix/future/expect" | sort | tr '\n' ' ')
if [ -n "$got" ] && [ "$got" = "$want" ]; then
	pass "--missing future: $got"
else
	fail "--missing future: got '$got', want '$want'"
fi
got=$("$top/scripts/kbuild/compat-probe.sh" --missing "$fix/7.2")
if [ -z "$got" ]; then
	pass "--missing 7.2: none"
else
	fail "--missing 7.2: got '$got'"
fi

# Every flag a probe can print is read by a wrapper, and every feature
# macro a wrapper reads is printed by a probe.
printed=$(cat "$fix"/*/expect | sed -n 's/^-D//p' | sort -u)
probed=$(grep -ho -- '-DSLABTRACE_[A-Z0-9_]*' "$top"/scripts/kbuild/compat/*.sh |
	sed 's/^-D//' | sort -u)
read=$(grep -ho 'defined(SLABTRACE_[A-Z0-9_]*)\|#ifdef SLABTRACE_[A-Z0-9_]*' \
	"$top"/include/wrapper/*.h | grep -o 'SLABTRACE_[A-Z0-9_]*' | sort -u)
for m in $probed; do
	if ! echo "$read" | grep -qx "$m"; then
		fail "$m: printed by a probe, read by no wrapper"
	elif ! echo "$printed" | grep -qx "$m"; then
		fail "$m: printed by a probe, expected by no fixture"
	else
		pass "$m: probed, read, in a fixture"
	fi
done
for m in $read; do
	echo "$probed" | grep -qx "$m" || fail "$m: read by a wrapper, printed by no probe"
done

# tracepoint.sh reads the guard of the probes' call in its own macro: the
# form of mainline 6.14 to 6.x (guard(preempt_notrace)(), in no Debian
# kernel) keeps the probes' preemption disabled; two calls under different
# guards are refused, as are a sys_enter or sched_process_exit of a form
# it does not know.
t=$(mktemp -d)
mkdir -p "$t/include/linux" "$t/include/trace/events"
# sys_enter and sched_process_exit as up to 6.12: nothing to say of them
cat > "$t/include/trace/events/syscalls.h" <<'EOT'
TRACE_EVENT_FN(sys_enter,
EOT
cat > "$t/include/trace/events/sched.h" <<'EOT'
DEFINE_EVENT(sched_process_template, sched_process_exit,
	TP_PROTO(struct task_struct *p),
EOT
cat > "$t/include/linux/tracepoint.h" <<'EOT'
#define __DECLARE_TRACE(name, proto, args, cond, data_proto)		\
	static inline void __do_trace_##name(proto)			\
	{								\
		if (cond) {						\
			guard(preempt_notrace)();			\
			__DO_TRACE_CALL(name, TP_ARGS(args));		\
		}							\
	}
EOT
got=$(sh "$top/scripts/kbuild/compat/tracepoint.sh" "$t")
if [ -z "$got" ]; then
	pass "tracepoint: guard(preempt_notrace): preemption disabled"
else
	fail "tracepoint: guard(preempt_notrace): got '$got', want nothing"
fi
cat >> "$t/include/linux/tracepoint.h" <<'EOT'

#define __DECLARE_TRACE(name, proto, args, cond, data_proto)		\
	static inline void __do_trace_##name(proto)			\
	{								\
		guard(srcu_fast_notrace)(&tracepoint_srcu);		\
		__DO_TRACE_CALL(name, TP_ARGS(args));			\
	}
EOT
got=$(sh "$top/scripts/kbuild/compat/tracepoint.sh" "$t")
if [ "$got" = " -DSLABTRACE_MISSING_TP_CALL" ]; then
	pass "tracepoint: two guards: refused"
else
	fail "tracepoint: two guards: got '$got'"
fi
# sys_enter under a macro of neither form, sched_process_exit with a
# prototype of neither form: each refused by its own flag
echo 'TRACE_EVENT_FAULTABLE(sys_enter,' > "$t/include/trace/events/syscalls.h"
printf '%s\n' 'TRACE_EVENT(sched_process_exit,' \
	'	TP_PROTO(struct task_struct *p, bool group_dead, int code),' \
	> "$t/include/trace/events/sched.h"
got=$(sh "$top/scripts/kbuild/compat/tracepoint.sh" "$t")
want=" -DSLABTRACE_MISSING_TP_CALL -DSLABTRACE_MISSING_SYSCALL_TP -DSLABTRACE_MISSING_PROCESS_EXIT"
if [ "$got" = "$want" ]; then
	pass "tracepoint: sys_enter and sched_process_exit of unknown forms: refused"
else
	fail "tracepoint: unknown sys_enter and sched_process_exit: got '$got'"
fi
rm -rf "$t"

# The build refuses the future kernel, one #error line per API: its
# fixture's flags added to a real build (6.12), the way KCFLAGS adds them.
kdir=${SLABTRACE_TEST_KDIR:-}
[ -n "$kdir" ] || kdir=$("$top/scripts/kernels/fetch-kernel.sh" 6.12)/build
b=$top/build/compat-probes
rm -rf "$b"
"$top/scripts/kbuild/shadow-tree.sh" "$b"
flags=$(tr '\n' ' ' < "$fix/future/expect")
if "$top/scripts/kbuild/kbuild.sh" "$kdir" "$b" KCFLAGS="$flags" modules > "$b.log" 2>&1; then
	fail "future: built"
else
	errs=$(grep -o 'error: .*' "$b.log" | sort -u)
	n=$(echo "$errs" | grep -c '^error: #error "slabtrace does not know ')
	other=$(echo "$errs" | grep -vc '^error: #error "slabtrace does not know ')
	want=$(grep -c . "$fix/future/expect")
	if [ "$n" -eq "$want" ] && [ "$other" -eq 0 ]; then
		pass "future: refused by the build, one line per API ($n): $(echo "$errs" | head -n 1)"
	else
		fail "future: $n of $want APIs refused by an #error line, $other other errors:"
		echo "$errs" | head -n 5 | sed 's/^/    /'
	fi
fi
rm -rf "$b" "$b.log"

echo "compat-probes: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
