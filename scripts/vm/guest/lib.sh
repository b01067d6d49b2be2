# SPDX-License-Identifier: GPL-2.0
#
# Helpers sourced by the guest tests.  Every check prints one line,
# "PASS: test: what" or "FAIL: test: what", which scripts/vm/run.sh counts.

T=${0##*/}
T=${T%.sh}
# slabtrace's files: /proc/slabtrace, what the tools use, and the same
# tree in debugfs (core.sh checks that it mirrors /proc's).
ST=/proc/slabtrace
ST_DEBUGFS=/sys/kernel/debug/slabtrace
MODDIR=/lib/slabtrace
failed=0

# Where this test's part of the kernel log begins (logged).
TEST_MARK="slabtrace-test: $T begins ($$)"
echo "$TEST_MARK" > /dev/kmsg 2> /dev/null

pass() { echo "PASS: $T: $*"; }
fail() { echo "FAIL: $T: $*"; failed=$((failed + 1)); }

# check "what" command...: PASS when the command succeeds.
check() {
	what=$1
	shift
	if "$@"; then pass "$what"; else fail "$what"; fi
}

# check_eq "what" expected actual
check_eq() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1 (expected '$2', got '$3')"
	fi
}

# ctl_errno "command" prints the error the shell got writing it to ctl
# ("ok" when the write succeeded).  echo, not printf: busybox's printf
# builtin does not report write errors.
ctl_errno() {
	out=$( (echo "$1" > "$ST/ctl") 2>&1 ) && { echo ok; return; }
	echo "${out##*: }"
}

# skip "why": the whole test cannot run on this machine; says why, in a
# line scripts/vm/run.sh counts, and ends the test.
skip() {
	echo "SKIP: $T: $*"
	exit 0
}

# skip_checks "what: why": some checks of a test cannot run on this
# kernel; says so in a SKIP line, which the runner counts, and goes on.
skip_checks() { echo "SKIP: $T: $*"; }

# kpt_nrs: the native system call numbers kptrace's tests expect, by
# the guest's arch (the ABI; kptrace's names come from the kernel's own
# headers): x86-64's table, or arm64's, the asm-generic one
# (include/uapi/asm-generic/unistd.h).  Sets ARCH_NRS to the arch's name;
# another arch skips the test.
# shellcheck disable=SC2034 # used by the tests that call it
kpt_nrs() {
	case $(uname -m) in
	x86_64)
		ARCH_NRS=x86-64
		NR_WRITE=1 NR_GETPID=39 NR_EXIT_GROUP=231 NR_OPENAT=257 ;;
	aarch64)
		ARCH_NRS=arm64
		NR_WRITE=64 NR_GETPID=172 NR_EXIT_GROUP=94 NR_OPENAT=56 ;;
	*)
		skip "no expected system call numbers for $(uname -m)" ;;
	esac
}

# The debug kernel (KVER 6.12-debug: KASAN, lockdep, PREEMPT_RT; its
# release ends in -slabtrace-debug) runs the guest several times slower.
DEBUG_KERNEL=
case $(uname -r) in *-slabtrace-debug) DEBUG_KERNEL=1 ;; esac

# A test ends with "finish"; its exit status is the number of failures.
finish() { exit "$failed"; }

LEAKY=/sys/kernel/debug/leaky/ctl

# st COMMAND...: one command to slabtrace's ctl.
st() { printf '%s\n' "$*" > "$ST/ctl"; }

# dump "CACHE [OPTION...]" FILE: "print ...", and what reading ctl returns,
# into FILE; a failed print is a FAIL, and leaves no FILE to count in.
dump() {
	rm -f "$2"
	if st print "$1"; then
		cat "$ST/ctl" > "$2"
	else
		fail "print $1"
	fi
}

# until_true SECONDS COMMAND...: retry COMMAND every 0.1 s until it
# succeeds or SECONDS pass (the guest may run slowly under TCG).
until_true() {
	n=$(($1 * 10))
	shift
	while ! "$@"; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || return 1
		sleep 0.1
	done
}

# logged "MESSAGE"...: each message is a line of slabtrace's in dmesg,
# mark WHAT: logged looks from here on, for a later part of a test whose
# earlier part wrote the same lines.
mark() {
	TEST_MARK="slabtrace-test: $T: $* ($$)"
	echo "$TEST_MARK" > /dev/kmsg 2> /dev/null
}

# rmmod_in_use: rmmod slabtrace is refused because the module is in use
# (kmod's "is in use", busybox's EAGAIN), not for another reason.
rmmod_in_use() {
	! rmmod slabtrace > /tmp/.rmmod.err 2>&1 &&
		grep -qE 'is in use|Resource temporarily unavailable' /tmp/.rmmod.err
}

# logged since this test began (its mark, TEST_MARK): tests share a boot,
# and a line an earlier test made proves nothing about this one.
logged() {
	dmesg > /tmp/.dmesg.all
	_l=$(grep -nF "$TEST_MARK" /tmp/.dmesg.all | tail -n 1 | cut -d: -f1)
	# No mark: the log wrapped past it, so all of it came after.
	tail -n +"${_l:-1}" /tmp/.dmesg.all > /tmp/.dmesg
	for msg in "$@"; do
		check "log says: $msg" grep -qF "slabtrace: $msg" /tmp/.dmesg
	done
}

# A kernel splat, as a line of dmesg shows it.
SPLAT='BUG:|WARNING:|Oops|general protection|Call Trace:|scheduling while atomic|possible recursive locking|stall'

# log_mark: note where the kernel log ends, for no_splat_since.
log_mark() { dmesg > /tmp/.log.mark; }

# no_splat_since "WHEN" FILE: what the kernel logged since log_mark goes
# to /out/FILE; a check that none of it is a splat.
no_splat_since() {
	dmesg > /tmp/.log.now
	tail -n +"$(($(wc -l < /tmp/.log.mark) + 1))" /tmp/.log.now > "/out/$2"
	check_eq "the kernel logged no splat $1" "" \
		"$(grep -E "$SPLAT" "/out/$2" | head -n 3)"
}

# objs_from FILE FUNC: the "Obj" lines of the objects whose frame #01 is FUNC.
objs_from() {
	awk -v f="$2" '/^Obj /{ obj = $0 } /^ #01 /{ if (index($0, " in " f "+")) print obj }' "$1"
}

# nobjs_from FILE FUNC [CACHE [OPTION...]]: how many objects of the saved
# dump (or print of a word: of its CACHE, if not "") in FILE have frame
# #01 FUNC (any frame, if ""), as the one parser of the dump counts them:
# slabtrace report (OPTIONs are its filters: --older MS, ...), read off
# its folded stacks, a line a group of objects, "[CACHE;][syscall:S;]
# outer;...;FUNC[ [MODULE]][;[leak]] COUNT".  A dump the parser refuses
# gives no count but the error, with the options, so that no two such
# compare equal.
nobjs_from() {
	_f=$1 _fn=$2 _c=${3:-}
	shift 2
	[ $# -eq 0 ] || shift
	slabtrace report --folded "$@" "$_f" > /tmp/.nobjs 2>&1 || {
		echo "slabtrace report${*:+ $*} refused $_f: $(head -n 1 /tmp/.nobjs)"
		return
	}
	awk -v f="$_fn" -v c="$_c" '{
		n = $NF
		s = substr($0, 1, length($0) - length(n) - 1)
		if (c != "" && index(s, c ";") != 1)
			next
		sub(/;\[leak\]$/, "", s)
		k = split(s, fr, ";")
		sub(/ \[[^]]*\]$/, "", fr[k])
		if (f == "" || fr[k] == f)
			sum += n
	} END { print sum + 0 }' /tmp/.nobjs
}

# outstanding FILE: the count the dump's header gives.
outstanding() { sed -n 's/^traced [0-9.]*s, \([0-9]*\) outstanding.*/\1/p' "$1"; }

# nobjs FILE: the number of objects the dump lists.
nobjs() { grep -c '^Obj ' "$1"; }

# stream_recording DIR: a recorder has started the binary stream in DIR
# (kmemtrace's or kptrace's ctf/: its enable says 1, which the recorder
# writes after it pinned the module) and events are counted.  Not the
# events alone: a trace stopped before leaves its count.
stream_recording() {
	case "$(cat "$1/enable")" in
	1*) [ "$(head -n 1 "$1/events")" -gt 0 ] ;;
	*) false ;;
	esac
}
