# SPDX-License-Identifier: GPL-2.0
# kptrace: known system calls of kpt_probe give exactly the records they
# should (numbers, names, arguments, returns, path, times); the queue made
# by the start, kept after the stop for its records, freed when they are
# read; pid and comm filters; the summary; a tiny queue drops and loses
# nothing else; kptrace/pipe wakes a blocked reader; bad commands (pid
# "+5" and "007" among them); rmmod while tracing.
. /tests/lib.sh

# On x86-64 and arm64, with the arch's system call numbers (kpt_nrs);
# the 32-bit program's calls (ia32, kpt_probe32) and x86-64's x32 calls
# on x86-64 only: arm64 guests get no 32-bit programs (testing.rst).
kpt_nrs

K=$ST/kptrace/queue
# AT_FDCWD, an int: the register may or may not be sign-extended.
AT_FDCWD='0x\(ffffffff\)\{0,1\}ffffff9c'

check "insmod slabtrace.ko" insmod $MODDIR/slabtrace.ko
for f in queue pipe stats summary; do
	check "kptrace/$f is 0400" test "$(stat -c %a $ST/kptrace/$f)" = 400
done
check_eq "kptrace reads empty before any trace" "" "$(cat $K)"

# --- comm filter, and the records of known calls.
allocated() { sed -n 's/^allocated: \([0-9]*\) bytes$/\1/p' $ST/kptrace/stats; }
check_eq "no queue before any trace" 0 "$(allocated)"
check "syscall start comm kpt_probe" st syscall start comm kpt_probe
check "the start made the queue (2 MiB per CPU)" \
	test "$(allocated)" -ge $((2000000 * $(nproc)))
kpt_probe -g 10 -f /kpt/no/such/file -l 37 > /tmp/p.out
check "syscall stop" st syscall stop
queued=$(sed -n 's/^queued: \([0-9]*\) bytes$/\1/p' $ST/kptrace/stats)
check "kptrace: bytes are queued" test "$queued" -gt 0
# procfs gives its inode the size when it is opened or read; debugfs's
# follows by itself.
exec 3< $K
check_eq "kptrace/queue's size, once open, is the bytes queued" "$queued" \
	"$(stat -L -c %s /proc/self/fd/3)"
exec 3<&-
check_eq "debugfs: kptrace/queue's size is the bytes queued" "$queued" \
	"$(stat -c %s $ST_DEBUGFS/kptrace/queue)"
check "stopped, the queue is kept for its records" test "$(allocated)" -gt 0
cp $ST/status /out/kptrace_status_held.txt
check "status says what it holds" \
	grep -q '^kptrace: off, its queue holds [0-9]* KiB for [1-9][0-9]* unread records (freed once read, or at syscall clear)$' $ST/status
cat $K > /tmp/k.txt
cp /tmp/k.txt /out/kptrace.txt
check_eq "kptrace/queue's size is 0 once read" 0 "$(stat -c %s $K)"
check_eq "the last record read freed the queue" 0 "$(allocated)"
check "status: off, nothing held" grep -q '^kptrace: off$' $ST/status
check_eq "a second read returns nothing" "" "$(cat $K)"
pid=$(sed -n 's/^getpid=\([0-9]*\) .*/\1/p' /tmp/p.out)
check_eq "kpt_probe says it made 10 getpid" "getpid=$pid calls=10" "$(grep '^getpid=' /tmp/p.out)"
check "kpt_probe ran" test -n "$pid"
ids="pid: $pid tid: $pid comm: kpt_probe cpu: [0-9]*"
check_eq "10 getpid records, returning the pid" 10 \
	"$(grep -c "^\[[0-9]*\] \[[0-9]*\] Syscall $NR_GETPID (getpid):(0x[0-9a-f]*, 0x[0-9a-f]*, 0x[0-9a-f]*, 0x[0-9a-f]*, 0x[0-9a-f]*, 0x[0-9a-f]*) ret: $pid $ids\$" /tmp/k.txt)"
check_eq "openat of the missing path: -ENOENT, with its path" 1 \
	"$(grep -c "^\[[0-9]*\] \[[0-9]*\] Syscall $NR_OPENAT (openat):($AT_FDCWD, 0x[0-9a-f]*, 0x0, 0x[0-9a-f]*, 0x[0-9a-f]*, 0x[0-9a-f]*) ret: -2 $ids data: \"/kpt/no/such/file\"\$" /tmp/k.txt)"
check_eq "openat of /dev/null, with its path" 1 \
	"$(grep -c "Syscall $NR_OPENAT (openat):($AT_FDCWD, .* ret: [0-9]* $ids data: \"/dev/null\"\$" /tmp/k.txt)"
check_eq "write of 37 bytes returns 37" 1 \
	"$(grep -c "Syscall $NR_WRITE (write):(0x[0-9a-f]*, 0x[0-9a-f]*, 0x25, .*) ret: 37 $ids\$" /tmp/k.txt)"
check_eq "exit_group, which does not return, is recorded" 1 \
	"$(grep -c "Syscall $NR_EXIT_GROUP (exit_group):(0x0, .*) ret: - $ids\$" /tmp/k.txt)"
check_eq "exit_group is the last record" "$NR_EXIT_GROUP" \
	"$(tail -n 1 /tmp/k.txt | sed 's/.* Syscall \([0-9]*\) .*/\1/')"
check_eq "only kpt_probe was traced" 0 "$(grep -vc "comm: kpt_probe cpu" /tmp/k.txt)"
check_eq "every record ends after it starts" 0 \
	"$(awk '{ s = substr($1, 2) + 0; e = substr($2, 2) + 0; if (e < s) n++ } END { print n + 0 }' /tmp/k.txt)"
check_eq "records come oldest first" 0 \
	"$(awk '{ s = substr($1, 2) + 0; if (s < last) n++; last = s } END { print n + 0 }' /tmp/k.txt)"

cat $ST/kptrace/summary > /tmp/sum.txt
cp /tmp/sum.txt /out/kptrace_summary.txt
check "summary: getpid 10 calls, 0 errors" grep -q '^getpid  *10  *0 ' /tmp/sum.txt
check "summary: openat 2 calls, 1 error" grep -q '^openat  *2  *1 ' /tmp/sum.txt
# Its 37 bytes, and its own output flushed once at the end.
check "summary: write 2 calls" grep -q '^write  *2  *0 ' /tmp/sum.txt
total=$(awk '$1 == "total" { print $2 }' /tmp/sum.txt)
check_eq "summary: the total is the number of records" "$(wc -l < /tmp/k.txt)" "$total"
check "summary: min <= avg <= max" awk '$1 == "getpid" && !($5 <= $6 && $6 <= $7) { exit 1 }' /tmp/sum.txt
cat $ST/kptrace/stats > /tmp/stats.txt
cp /tmp/stats.txt /out/kptrace_stats.txt
check "stats: written = read = records" \
	grep -q "^written: $total\$" /tmp/stats.txt
check "stats: read" grep -q "^read: $total\$" /tmp/stats.txt
check "stats: none dropped" grep -q "^dropped: 0\$" /tmp/stats.txt
check "stats: 2 MiB per CPU by default" grep -q "^queue size: 2097152 bytes per CPU" /tmp/stats.txt

# --- a 32-bit program's calls are the compat ones, and say so.
if [ "$(uname -m)" = x86_64 ]; then
	st syscall clear
	st syscall start comm kpt_probe32
	kpt_probe32 -g 4 -f /kpt/compat > /tmp/p32.out
	st syscall stop
	cat $K > /tmp/k32.txt
	cp /tmp/k32.txt /out/kptrace32.txt
	pid32=$(sed -n 's/^getpid=\([0-9]*\) .*/\1/p' /tmp/p32.out)
	check_eq "compat: kpt_probe32 says it made 4 getpid" "getpid=$pid32 calls=4" "$(grep '^getpid=' /tmp/p32.out)"
	# ia32 numbers: getpid 20, openat 295.
	check_eq "compat: 4 getpid, labelled compat" 4 \
		"$(grep -c "Syscall 20 (compat getpid):(.*) ret: $pid32 pid: $pid32 " /tmp/k32.txt)"
	check_eq "compat: openat with its path" 1 \
		"$(grep -c "Syscall 295 (compat openat):(0xffffff9c, .*) ret: -2 .* data: \"/kpt/compat\"\$" /tmp/k32.txt)"
	check "compat: the summary has a compat getpid row" grep -q '^compat getpid  *4  *0 ' $ST/kptrace/summary
else
	skip_checks "compat: kpt_probe32's ia32 calls: x86-64 only (no 32-bit programs on $ARCH_NRS)"
fi

# --- pid filter: only the named process.  The filter is armed while
# kpt_probe waits on the FIFO; what it did before (exec, startup, its
# "pid=" getpid, opening the FIFO) may or may not be traced, depending on
# how far it got: only the calls after its marker, an openat of
# /kpt/mark made once it has read the FIFO, are counted.
check "syscall clear" st syscall clear
check_eq "clear empties the summary" "total 0 0" "$(awk '$1 == "total" { print $1, $2, $3 }' $ST/kptrace/summary)"
rm -f /tmp/go
mkfifo /tmp/go
kpt_probe -w /tmp/go -m /kpt/mark -g 7 > /tmp/p2.out &
pid2=$!
check "syscall start pid $pid2" st syscall start pid 99999 $pid2
echo go > /tmp/go
wait $pid2
st syscall stop
cat $K > /tmp/k2.txt
cp /tmp/k2.txt /out/kptrace_pid.txt
check_eq "kpt_probe says: marker, then 7 getpid" "mark=/kpt/mark openat=-1 getpid=$pid2 calls=7" \
	"$(grep -e '^mark=' -e '^getpid=' /tmp/p2.out | tr '\n' ' ' | sed 's/ $//')"
check_eq "pid filter: the marker is traced once" 1 \
	"$(grep -c "Syscall $NR_OPENAT (openat):.* ret: -2 pid: $pid2 .* data: \"/kpt/mark\"\$" /tmp/k2.txt)"
check_eq "pid filter: 7 getpid after the marker" 7 \
	"$(awk -v p="$pid2" -v nr="$NR_GETPID" 'index($0, "data: \"/kpt/mark\"") { m = 1; next }
		m && index($0, " Syscall " nr " (getpid):(") && index($0, " ret: " p " pid: " p " ") { n++ }
		END { print n + 0 }' /tmp/k2.txt)"
check_eq "pid filter: no other process" 0 "$(grep -vc " pid: $pid2 tid: " /tmp/k2.txt)"

# A pid written from a pid namespace of its own is that namespace's
# number (slab_trace's rule): the shell, pid 1 in its namespace, traces
# "pid 1", notes its own number in the initial namespace (/proc/self of
# this /proc, read by the shell itself) and opens /kpt/nsmark, which does
# not exist.  A pid with no process in the writer's namespace is refused.
st syscall clear
unshare -p -f sh -c "echo syscall start pid 1 > $ST/ctl
	read gp rest < /proc/self/stat; echo \$gp > /tmp/nsgp
	read x < /kpt/nsmark
	echo syscall stop > $ST/ctl" 2> /tmp/nsgp.err
cat $K > /tmp/kns.txt
cp /tmp/kns.txt /out/kptrace_nspid.txt
nsgp=$(cat /tmp/nsgp)
check "pid namespace: the shell is pid $nsgp in the initial namespace, not 1" \
	test "${nsgp:-1}" -gt 1
check_eq "pid namespace: its openat of /kpt/nsmark is traced" 1 \
	"$(grep -c "Syscall $NR_OPENAT (openat):.* ret: -2 pid: $nsgp tid: $nsgp .* data: \"/kpt/nsmark\"\$" /tmp/kns.txt)"
check_eq "pid namespace: no other process" 0 "$(grep -vc " pid: $nsgp tid: " /tmp/kns.txt)"
err=$(unshare -p -f sh -c "echo syscall start pid 99 > $ST/ctl" 2>&1)
check_eq "pid namespace: a pid with no process there refused" "No such process" "${err##*: }"
logged "syscall: start: no process 99 in the writer's pid namespace"

# --- the order: a long call on CPU 0, short ones on CPU 1 meanwhile.
# Records come in the order the calls ended, across CPUs: the getpid
# calls, which started after the nanosleep and ended before it, come
# before it.
# traced_probe PROG OPT NAME: PROG OPT traced alone, what it printed in
# /tmp/NAME.out, its records in /tmp/NAME.txt and /out/kptrace_NAME.txt.
traced_probe() {
	st syscall clear
	st syscall start comm "$1"
	"$1" "$2" > "/tmp/$3.out"
	st syscall stop
	cat $K > "/tmp/$3.txt"
	cp "/tmp/$3.txt" "/out/kptrace_$3.txt"
}
traced_probe kpt_probe -o order
check_eq "order: kpt_probe -o ran" "overlap=0" "$(cat /tmp/order.out)"
check_eq "order: every record ended no earlier than the one before" 0 \
	"$(awk -F'[][]' '{ if (NR > 1 && $4 + 0 < last) bad++; last = $4 + 0 } END { print bad + 0 }' /tmp/order.txt)"
# The calls overlapped: 10 getpid started after the nanosleep started
# and ended before it did, and come before it.
check_eq "order: the 10 getpid inside the nanosleep come before it" 10 \
	"$(awk -F'[][]' '/ \(nanosleep\):/ { s = $2 + 0; e = $4 + 0; print n + 0; exit }
		/ \(getpid\):/ { g[++n] = $2 + 0 }' /tmp/order.txt)"
check_eq "order: ... and started after it" 10 \
	"$(awk -F'[][]' '/ \(nanosleep\):/ { s = $2 + 0 } / \(getpid\):/ { g[++n] = $2 + 0 }
		END { for (i = 1; i <= n; i++) if (g[i] > s) k++; print k + 0 }' /tmp/order.txt)"

# --- a stopped trace that queued nothing frees its queue at once; "syscall
# size" frees one that holds records.
check "syscall start comm nobody" st syscall start comm nobody
check "syscall stop" st syscall stop
check_eq "nothing queued: the stop freed the queue" 0 "$(allocated)"
st syscall start comm kpt_probe
kpt_probe -g 3 > /dev/null
st syscall stop
check "kpt_probe's records hold the queue" test "$(allocated)" -gt 0
check "syscall size 2M" st syscall size 2M
check_eq "syscall size freed it, records and all" 0 "$(allocated)"
check_eq "... and kptrace reads empty" "" "$(cat $K)"

# --- a tiny queue drops, and loses nothing else.
check "syscall size 4K" st syscall size 4K
st syscall clear
st syscall start comm kpt_probe
kpt_probe -g 3000 > /dev/null
st syscall stop
cat $ST/kptrace/stats > /tmp/stats2.txt
cp /tmp/stats2.txt /out/kptrace_stats_tiny.txt
written=$(sed -n 's/^written: //p' /tmp/stats2.txt)
dropped=$(sed -n 's/^dropped: //p' /tmp/stats2.txt)
check "tiny queue: records were dropped" test "$dropped" -gt 0
check "tiny queue: 4096 bytes per CPU" grep -q "^queue size: 4096 bytes per CPU" /tmp/stats2.txt
n=$(cat $K | wc -l)
check_eq "tiny queue: every record written is read" "$written" "$n"
check "tiny queue: the summary counts all 3000 getpid" grep -q '^getpid  *3000 ' $ST/kptrace/summary
check_eq "tiny queue: written + dropped = calls" "$(awk '$1 == "total" { print $2 }' $ST/kptrace/summary)" "$((written + dropped))"
st syscall size 2M

# --- kptrace/pipe blocks until records come; poll() and O_NONBLOCK.
st syscall clear
check_eq "kptrace/pipe: O_NONBLOCK on an empty queue: EAGAIN" "nonblock=-1 errno=11" \
	"$(kpt_probe -N $ST/kptrace/pipe)"
check_eq "kptrace/pipe: poll() on an empty queue times out" "poll=0 revents=0x0" \
	"$(kpt_probe -P $ST/kptrace/pipe)"
cat $ST/kptrace/pipe > /tmp/pipe.txt &
reader=$!
# Waiting: it has kptrace/pipe open and sleeps (in read()).
reader_waits() {
	ls -l /proc/$reader/fd 2>/dev/null | grep -q 'kptrace/pipe$' &&
		grep -q '^State:.*S (sleeping)' /proc/$reader/status
}
check "kptrace/pipe: the reader waits" until_true 30 reader_waits
check_eq "kptrace/pipe: nothing yet" 0 "$(wc -c < /tmp/pipe.txt)"
st syscall start comm kpt_probe
kpt_probe -g 5 > /dev/null
got5() { [ "$(grep -c "Syscall $NR_GETPID (getpid)" /tmp/pipe.txt)" = 5 ]; }
check "kptrace/pipe: the reader got the 5 getpid" until_true 10 got5
check "kptrace/pipe: the reader still waits" reader_waits
kill $reader
wait 2>/dev/null
kpt_probe -g 1 > /dev/null
check_eq "kptrace/pipe: poll() says a record is there" "poll=1 revents=0x1" \
	"$(kpt_probe -P $ST/kptrace/pipe)"
check "debugfs: kptrace/queue's size follows while tracing" \
	until_true 5 sh -c "test \"\$(stat -c %s $ST_DEBUGFS/kptrace/queue)\" -gt 0"
# ... from the start, before anything read the queue.
st syscall stop
st syscall clear
sleep 0.5	# the last size update of the cleared queue has run
check_eq "debugfs: kptrace/queue's size is 0 after clear" 0 "$(stat -c %s $ST_DEBUGFS/kptrace/queue)"
st syscall start comm kpt_probe
kpt_probe -g 3 > /dev/null
check "debugfs: kptrace/queue's size follows from the start, unread" \
	until_true 5 sh -c "test \"\$(stat -c %s $ST_DEBUGFS/kptrace/queue)\" -gt 0"

# --- a new filter while tracing applies at once.
check "syscall start comm nobody, while tracing" st syscall start comm nobody
cat $K > /dev/null
kpt_probe -g 3 > /dev/null
check_eq "the new filter: nothing of kpt_probe" 0 "$(cat $K | grep -c 'comm: kpt_probe ')"
check_eq "clear while tracing" "Device or resource busy" "$(ctl_errno 'syscall clear')"
st syscall stop

# --- a reader's file closed by another process: the reader is traced again.
# The child holds its copy of fd 4 until the shell, having closed its own,
# writes to the FIFO: the last close is the child's.
rm -f /tmp/hold
mkfifo /tmp/hold
exec 4< $K
(read -r x < /tmp/hold) &
holder=$!
exec 4<&-
echo done > /tmp/hold
wait $holder
st syscall start pid $$
echo hello > /dev/null
st syscall stop
check "after its file went, the shell is traced" sh -c "cat $K | grep -q ' pid: $$ tid: $$ '"

# --- 8 reader processes at most: a 9th is refused, not traced.
holders=
for i in 1 2 3 4 5 6 7 8; do
	sleep 60 < $K &
	holders="$holders $!"
done
eight_readers() { [ "$(ls -l /proc/[0-9]*/fd 2>/dev/null | grep -c 'kptrace/queue$')" -ge 8 ]; }
check "8 processes have kptrace open" until_true 30 eight_readers
out=$( (cat $K > /dev/null) 2>&1 )
check_eq "a 9th reader is refused" "Too many users" "${out##*: }"
logged "kptrace: 8 processes have it open already: no more readers"
kill $holders
wait 2>/dev/null
check "with the 8 gone, a reader opens again" sh -c "cat $K > /dev/null"

# --- bad commands.
for cmd in "syscall" "syscall begin" "syscall start pid" "syscall start pid abc" \
	"syscall start pid 0" "syscall start pid -3" "syscall start pid +5" \
	"syscall start pid 007" "syscall start pid 5 +6" "syscall start comm" \
	"syscall start comm a_name_longer_than_15" "syscall start everything" \
	"syscall stop now" "syscall clear all" "syscall size" "syscall size 10X" \
	"syscall size 1G" "syscall size 0x1000" "syscall size +4096" \
	"syscall size -4096" "syscall size 4 K" "syscall size 4096 4096"; do
	check_eq "'$cmd' is refused" "Invalid argument" "$(ctl_errno "$cmd")"
done
# Sizes that overflow (memparse() would wrap them to 4096 and 1M) or are
# outside 4K..256M.
for size in 18446744073709555712 17592186044417M 99999999999999999999999999K \
	1 4095 257M 268435457; do
	check_eq "'syscall size $size' is out of range" "Numerical result out of range" \
		"$(ctl_errno "syscall size $size")"
done
check "syscall size 64K (decimal with K) is taken" st syscall size 64K
check "  ... and is the queue's size" grep -q "^queue size: 65536 bytes per CPU" $ST/kptrace/stats
check "syscall size 4096 after 30 zeros is taken" \
	st syscall size "$(printf '%034d' 4096)"
check "  ... and is 4096 bytes" grep -q "^queue size: 4096 bytes per CPU" $ST/kptrace/stats
st syscall size 2M
st syscall start comm nobody
check_eq "size while tracing" "Device or resource busy" "$(ctl_errno 'syscall size 8K')"
st syscall stop
check "stop when stopped is harmless" st syscall stop
logged "syscall: start: bad pid 'abc'" "syscall: start: bad pid '+5'" \
	"syscall: start: bad pid '007'" "syscall: size: '10X' is not a size" \
	"syscall: size: '18446744073709555712' is not a size from 4096 to 268435456 bytes (decimal, K or M): out of range" \
	"syscall: expected start, stop, clear or size" "syscall: stop takes no argument" \
	"syscall: size takes one size in bytes" "syscall: start: a command name has at most 15 bytes" \
	"syscall: start takes nothing, 'pid PID...'" "syscall: size: stop tracing first" \
	"syscall: clear: stop tracing first" "syscall: stop: not tracing"

# --- x86-64's x32 calls: getpid()'s number with __X32_SYSCALL_BIT is a
# native getpid, not a compat call (-ENOSYS unless syscall.x32=y).
if [ "$(uname -m)" = x86_64 ]; then
	traced_probe kpt_probe -x x32
	ret=$(sed -n 's/^x32getpid=\(-\{0,1\}[0-9]*\) .*/\1/p' /tmp/x32.out)
	check "kpt_probe made its x32 getpid" test -n "$ret"
	# syscall() returns -1 and sets errno; the record has the call's -ENOSYS.
	[ "$ret" = -1 ] && ret=-38
	check_eq "an x32 getpid is recorded as getpid, not compat" 1 \
		"$(grep -c "Syscall $NR_GETPID (getpid):(.*) ret: $ret pid: " /tmp/x32.txt)"
	check_eq "no compat record of kpt_probe -x" 0 "$(grep -c ' (compat ' /tmp/x32.txt)"
	# The same number from a 32-bit program is an ia32 call, which the
	# kernel refuses: compat, the bit kept (0x40000014, 1073741844).
	traced_probe kpt_probe32 -x ia32x
	check_eq "kpt_probe32 -x: refused" "x32getpid=-1 errno=38" "$(cat /tmp/ia32x.out)"
	check_eq "an ia32 call with the x32 bit stays compat" 1 \
		"$(grep -c "Syscall 1073741844 (compat unknown):(.*) ret: -38 pid: " /tmp/ia32x.txt)"
	# An ia32 call from a 64-bit program, its register's high half set:
	# the record has the argument the kernel read, the low half.
	traced_probe kpt_probe -i int80
	check_eq "kpt_probe -i: close(99) refused" "int80close=-9" "$(cat /tmp/int80.out)"
	check_eq "an ia32 call's argument is its register's low half" 1 \
		"$(grep -c "Syscall 6 (compat close):(0x63, .*) ret: -9 pid: " /tmp/int80.txt)"
else
	skip_checks "x32 and ia32 calls with the x32 bit, an ia32 call's arguments: x86-64 only"
fi

# --- rmmod while a busy process is traced.
st syscall start comm kpt_probe
kpt_probe -b > /tmp/busy.out &
busy=$!
check "kpt_probe is in its busy loop" until_true 30 grep -q '^busy$' /tmp/busy.out
check "rmmod slabtrace while tracing a busy process" rmmod slabtrace
kill $busy
wait 2>/dev/null
mark "bad module parameters"
check "insmod with a bad kptrace_size fails" sh -c "! insmod $MODDIR/slabtrace.ko kptrace_size=100G 2>/dev/null"
for size in 18446744073709555712 17592186044417M; do
	check "insmod with kptrace_size=$size (overflows) fails" \
		sh -c "! insmod $MODDIR/slabtrace.ko kptrace_size=$size 2>/dev/null"
done
logged "syscall: size: '100G' is not a size" \
	"syscall: size: '18446744073709555712' is not a size" \
	"syscall: size: '17592186044417M' is not a size"
check "insmod slabtrace.ko kptrace_size=8192" insmod $MODDIR/slabtrace.ko kptrace_size=8192
check_eq "the parameter is visible" 8192 "$(cat /sys/module/slabtrace/parameters/kptrace_size)"
check "trace everything for a moment" st syscall start
check "the queue has the parameter's size" grep -q "^queue size: 8192 bytes per CPU" $ST/kptrace/stats
kpt_probe -g 100 > /dev/null
check "cat kptrace ends" sh -c "timeout 10 cat $K > /dev/null"
check "rmmod slabtrace while tracing everything" rmmod slabtrace

# --- kptrace_tasks: in-flight entries are preallocated.  With 4, four
# processes asleep hold them all; two more, started and gone meanwhile,
# have their calls dropped; once the four exit, a new process is traced.
for n in 3 99999999999 abc; do
	check "insmod with kptrace_tasks=$n fails" \
		sh -c "! insmod $MODDIR/slabtrace.ko kptrace_tasks=$n 2>/dev/null"
	logged "kptrace_tasks=$n: not a number in 4..1048576"
done
check "insmod slabtrace.ko kptrace_tasks=4" insmod $MODDIR/slabtrace.ko kptrace_tasks=4
st syscall start comm sleep
# asleep N: at least N sleep processes sleeping.
asleep() {
	n=0
	for f in /proc/[0-9]*/status; do
		grep -q '^Name:.sleep$' "$f" 2>/dev/null &&
			grep -q '^State:.*S (sleeping)' "$f" 2>/dev/null && n=$((n + 1))
	done
	[ "$n" -ge "$1" ]
}
# six_sleeps: four sleep processes asleep all along (holding the 4
# entries), two more started and gone meanwhile.  The four sleep long
# and are killed after: a slow guest may take seconds to see them asleep.
# hold_four: four sleep processes asleep, their pids in $holders.
hold_four() {
	holders=
	for i in 1 2 3 4; do
		sleep 120 &
		holders="$holders $!"
	done
	check "four sleep processes asleep" until_true 30 asleep 4
}
six_sleeps() {
	hold_four
	sleep 1 &
	s5=$!
	sleep 1 &
	s6=$!
	wait $s5 $s6
	kill $holders
	wait $holders
}
six_sleeps
st syscall stop
cat $K > /tmp/tasks.txt
cp /tmp/tasks.txt /out/kptrace_tasks.txt
check_eq "4 of the 6 traced" 4 "$(sed -n 's/.* pid: \([0-9]*\) tid: .*/\1/p' /tmp/tasks.txt | sort -u | wc -l)"
check "the others' calls were dropped" \
	test "$(sed -n 's/^dropped: //p' $ST/kptrace/stats)" -gt 0
st syscall clear
st syscall start comm sleep
sleep 0
st syscall stop
check_eq "after they exit, a new process is traced" 1 \
	"$(cat $K | sed -n 's/.* pid: \([0-9]*\) tid: .*/\1/p' | sort -u | wc -l)"
# The same into the binary stream: the calls with no entry are events
# the stream lost (total_overruns, and the packets' events_discarded).
st syscall clear
st syscall start ctf comm sleep
six_sleeps
st syscall stop ctf
check "ctf: the others' calls are the stream's lost events" \
	test "$(head -n 1 $ST/kptrace/ctf/total_overruns)" -gt 0
# A new filter gives back the entries of the tasks it does not trace:
# four sleep processes asleep in their calls hold the 4 entries, and
# after "start comm cat" a cat is traced, none of its calls dropped.
st syscall clear
st syscall start comm sleep
hold_four
st syscall start comm cat
d0=$(sed -n 's/^dropped: //p' $ST/kptrace/stats)
cat /dev/null
check_eq "a new filter: its task's calls not dropped" "$d0" \
	"$(sed -n 's/^dropped: //p' $ST/kptrace/stats)"
kill $holders
wait $holders
st syscall stop
cat $K > /tmp/nf.txt
cp /tmp/nf.txt /out/kptrace_new_filter.txt
check "a new filter: its task traced" grep -q ' comm: cat cpu' /tmp/nf.txt
check "a new filter: the sleeps' calls in flight not recorded" \
	sh -c "! grep -Eq 'Syscall [0-9]+ \\([a-z_]*nanosleep\\):.* comm: sleep cpu' /tmp/nf.txt"
check "rmmod slabtrace" rmmod slabtrace
finish
