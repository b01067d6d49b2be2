# SPDX-License-Identifier: GPL-2.0
# kptrace's binary stream: its files; "kmemtrace-record -s" records
# kpt_probe's known calls with no loss and nothing in the text queue (the
# events themselves are decoded on the host with babeltrace2:
# scripts/tests/test_kptrace_ctf.py, from /out/kptrace_ctf*); the recorder
# is not traced; a tiny buffer read late loses events and counts every
# one; a burst of 60000 calls read late loses none in the recorder's
# default buffer; the queue works again after; bad commands; the recorder and other
# users' traces (it refuses to start over one, fails on a restart and
# leaves the other trace running); rmmod while recording.
. /tests/lib.sh

# Every check runs on x86-64 and arm64, with the arch's system call
# numbers (kpt_nrs); the host test reads the arch from
# /out/kptrace_ctf/machine.
kpt_nrs

K=$ST/kptrace/ctf
N=1000

check "insmod slabtrace.ko" insmod $MODDIR/slabtrace.ko
for f in enable buffer_kb; do
	check "kptrace/ctf/$f is 0600" test "$(stat -c %a $K/$f)" = 600
done
for f in metadata events total_overruns abi_version cpu0; do
	check "kptrace/ctf/$f is 0400" test "$(stat -c %a $K/$f)" = 400
done
check_eq "abi_version" 2 "$(cat $K/abi_version)"
check_eq "buffer_kb: the 2 MiB queue size" 2048 "$(cat $K/buffer_kb)"
check "cpu0 before the first start ctf: no data" sh -c "! cat $K/cpu0 > /dev/null 2>&1"
check_eq "enable reads 0" 0 "$(cat $K/enable)"
check "metadata: no stream yet" sh -c "! cat $K/metadata > /dev/null 2>&1"

# --- N getpid, a missing path, a write and exit_group into the stream.
check "record kpt_probe's calls" sh -c \
	"kmemtrace-record -s --comm kpt_probe -o /out/kptrace_ctf -- kpt_probe -g $N -f /kpt/no/such/file -l 37 > /tmp/r.out"
cp /tmp/r.out /out/kptrace_ctf/record.txt
uname -m > /out/kptrace_ctf/machine
pid=$(sed -n 's/^getpid=\([0-9]*\) .*/\1/p' /tmp/r.out)
check_eq "kpt_probe made $N getpid" "getpid=$pid calls=$N" "$(grep '^getpid=' /tmp/r.out)"
written=$(head -n 1 $K/events)
check_eq "the recorder: every event, none lost" \
	"kmemtrace-record: recording
kmemtrace-record: $written events written, 0 lost, into /out/kptrace_ctf
kmemtrace-record: the packets say 0 discarded" \
	"$(grep '^kmemtrace-record:' /tmp/r.out)"
check_eq "total_overruns: 0" 0 "$(head -n 1 $K/total_overruns)"
check "the stream has files per CPU and the metadata" \
	test -s /out/kptrace_ctf/ctf/metadata -a -s /out/kptrace_ctf/ctf/cpu0
check "metadata names the syscall event" grep -q 'name = "syscall";' /out/kptrace_ctf/ctf/metadata
check "metadata maps $NR_GETPID to getpid ($ARCH_NRS)" \
	grep -Eq "\"getpid\" = $NR_GETPID(,|\$)" /out/kptrace_ctf/ctf/metadata
cat $ST/kptrace/summary > /tmp/sum.txt
check "summary counts the stream's calls: getpid $N" grep -q "^getpid  *$N  *0 " /tmp/sum.txt
total=$(awk '$1 == "total" { print $2 }' /tmp/sum.txt)
check_eq "summary's total is the events written" "$written" "$total"
check "nothing went to the text queue" grep -q '^written: 0$' $ST/kptrace/stats
check_eq "kptrace reads empty" "" "$(cat $ST/kptrace/queue)"

# --- every process: the recorder itself is not traced.
st syscall clear
# Names of 1 and 15 bytes (16 given: the kernel keeps 15), each NUL-padded
# in its events (test_kptrace_ctf.py decodes them).
kmemtrace-record -s -o /out/kptrace_ctf_all -- sh -c \
	'kpt_probe -g 10 && kpt_probe -n k -g 3 && kpt_probe -n kpt_sixteen_char -g 4' > /tmp/r2.out &
rec=$!
wait $rec
check "record every process" grep -q '^kmemtrace-record: [0-9]* events written, 0 lost' /tmp/r2.out
check "nothing lost: no word of the buffer" sh -c "! grep -q 'a CPU filled its' /tmp/r2.out"
echo $rec > /out/kptrace_ctf_all/recorder.pid
cp /tmp/r2.out /out/kptrace_ctf_all/record.txt

# --- a 16 KiB buffer, read late: events are lost, and every one counted.
st syscall clear
check "record with a 16 KiB buffer, reading late" sh -c \
	"kmemtrace-record -s --lazy -b 16 --comm kpt_probe -o /out/kptrace_ctf_tiny -- kpt_probe -g 5000 > /tmp/r3.out"
cp /tmp/r3.out /out/kptrace_ctf_tiny/record.txt
# -b is this recording's: the size it had (2 MiB) is set back after.
check_eq "buffer_kb is set back after -b 16" 2048 "$(cat $K/buffer_kb)"
lost=$(head -n 1 $K/total_overruns)
written=$(head -n 1 $K/events)
check "events were lost" test "$lost" -gt 0
check "the recorder reports the loss" grep -q "events written, $lost lost" /tmp/r3.out
check "and the packets say as much" grep -q "the packets say $lost discarded" /tmp/r3.out
check "and what -b gives the next recording" grep -qx \
	"kmemtrace-record: a CPU filled its 16 KiB of buffer before the packets were read: -b 32 gives it more" /tmp/r3.out
total=$(awk '$1 == "total" { print $2 }' $ST/kptrace/summary)
check_eq "written + lost = the calls the summary counted" "$total" "$((written + lost))"
st syscall size 2M

# --- A burst read late (--lazy: nothing read until the command exits):
# 60000 getpid() make 3.1 MB of events (51 bytes each), more than 2 MiB
# on the CPU that runs them (the recorder's buffer before it took 8 MiB a
# CPU by default, which lost them); without -b it keeps every one, read at
# the end in batches.
st syscall clear
check "record a burst of 60000 calls, reading late" sh -c \
	"kmemtrace-record -s --lazy --comm kpt_probe -o /tmp/burst -- kpt_probe -g 60000 > /tmp/r7.out"
check_eq "kpt_probe made 60000 getpid" "calls=60000" "$(sed -n 's/^getpid=[0-9]* //p' /tmp/r7.out)"
written=$(head -n 1 $K/events)
check_eq "the burst: none lost" "0 0 0" \
	"$(head -n 1 $K/total_overruns) $(sed -n 's/^kmemtrace-record: [0-9]* events written, \([0-9]*\) lost.*/\1/p' /tmp/r7.out) $(sed -n 's/^kmemtrace-record: the packets say \([0-9]*\) discarded$/\1/p' /tmp/r7.out)"
check "... every call written" test "$written" -gt 60000
check_eq "... the summary's total is the events written" "$written" \
	"$(awk '$1 == "total" { print $2 }' $ST/kptrace/summary)"
check_eq "... and all of them saved" "$written" \
	"$(sed -n 's/^kmemtrace-record: \([0-9]*\) events written.*/\1/p' /tmp/r7.out)"
check_eq "the size is set back after (2 MiB)" 2048 "$(cat $K/buffer_kb)"
rm -rf /tmp/burst

# --- Its standard output's reader gone before it starts (a pipe to a
# command that has exited): no SIGPIPE kills the recorder at its
# "recording" line; it records, stops its trace and sets the size back.
# (COMMAND's output goes elsewhere: its standard output is the same pipe.)
st syscall clear
{ sleep 1; kmemtrace-record -s --comm kpt_probe -o /tmp/kpipe -- \
	sh -c 'kpt_probe -g 5 > /dev/null' 2> /tmp/kpipe.err; echo $? > /tmp/kpipe.rc; } | true
check_eq "stdout's reader gone: the recorder exits 0" 0 "$(cat /tmp/kpipe.rc)"
check "... stops its trace" sh -c "! grep -q '^kptrace: tracing' $ST/status"
check_eq "... sets the size back (2 MiB)" 2048 "$(cat $K/buffer_kb)"
check "... and saves the stream" test -s /tmp/kpipe/ctf/metadata
rm -rf /tmp/kpipe

# --- the text queue, after the stream.
st syscall clear
check "syscall start comm kpt_probe (the queue)" st syscall start comm kpt_probe
before=$(head -n 1 $K/events)
kpt_probe -g 5 > /dev/null
st syscall stop
check_eq "the queue has the 5 getpid" 5 "$(grep -c "Syscall $NR_GETPID (getpid)" $ST/kptrace/queue)"
check_eq "the stream got nothing" "$before" "$(head -n 1 $K/events)"

# --- bad commands.
for cmd in "syscall start ctf pid abc" "syscall start ctf everything" \
	"syscall start ctf comm" "syscall start ctf ctf"; do
	check_eq "'$cmd' is refused" "Invalid argument" "$(ctl_errno "$cmd")"
done
st syscall start comm nobody
check_eq "start ctf while tracing to the queue" "Device or resource busy" \
	"$(ctl_errno 'syscall start ctf comm nobody')"
# "syscall stop ctf" (what enable's "0" runs) stops the stream only.
check_eq "stop ctf while tracing to the queue" "Device or resource busy" \
	"$(ctl_errno 'syscall stop ctf')"
check_eq "... enable's 0 likewise" "Device or resource busy" \
	"$( (echo 0 > $K/enable) 2>&1 | sed 's/.*: //')"
check "... and the queue still traces" grep -q '^kptrace: tracing' $ST/status
check_eq "stop ctf now: an extra word" "Invalid argument" "$(ctl_errno 'syscall stop ctf now')"
st syscall stop
st syscall start ctf comm nobody
check_eq "start (queue) while tracing to the stream" "Device or resource busy" \
	"$(ctl_errno 'syscall start comm nobody')"
check_eq "... with a bad filter: the filter's error" "Invalid argument" \
	"$(ctl_errno 'syscall start comm')"
check "a new filter, same stream" st syscall start ctf pid 1
check "syscall stop ctf stops the stream" st syscall stop ctf
check "... kptrace is off" grep -q '^kptrace: off' $ST/status
check_eq "... enable reads 0" 0 "$(cat $K/enable)"
logged "syscall: start: bad pid 'abc'" \
	"syscall: start takes nothing, 'pid PID...' (at most 16) or 'comm NAME', after an optional 'ctf'" \
	"syscall: start: tracing to the queue: stop first" \
	"syscall: start: tracing to the binary stream: stop first" \
	"syscall: stop ctf: the calls go to the text queue, not to the binary stream ('syscall stop' stops them)"

# --- Other users' traces.  kptrace tracing: the recorder does not start.
st syscall start comm nobody
kmemtrace-record -s -o /tmp/busy -- true > /tmp/r5.out 2>&1
check_eq "kptrace tracing: the recorder exits 1" 1 $?
check "... saying so" grep -q "^kmemtrace-record: kptrace is tracing already, another process's trace" /tmp/r5.out
check "... and leaves it tracing" grep -q '^kptrace: tracing' $ST/status
st syscall stop
# Stopped and started again (a new stream) by another process: an error,
# nothing saved, the other trace left running.
kmemtrace-record -s -c kpt_probe -o /tmp/restart -- sh -c \
	"kpt_probe -g 10 > /dev/null; echo syscall stop > $ST/ctl; echo syscall start ctf comm nobody > $ST/ctl; kpt_probe -g 10 > /dev/null" \
	> /tmp/r6.out 2>&1
check_eq "a restart while recording: exit 1" 1 $?
cat /tmp/r6.out
check "... saying so" grep -q '^kmemtrace-record: the trace was restarted by another process (trace [0-9a-f-]*, now [0-9a-f-]*): nothing saved$' /tmp/r6.out
check "... saving nothing" test ! -e /tmp/restart
check "... and the other trace still runs" grep -q '^kptrace: tracing' $ST/status
st syscall stop

# --- rmmod while recording everything: refused while the recorder holds
# metadata open (as while a reader holds kptrace_pipe), then the recorder
# stops on SIGTERM with what it recorded.
kpt_probe -b > /dev/null &
busy=$!
kmemtrace-record -s -o /tmp/rm > /tmp/r4.out 2>&1 &
rec=$!
check "the recording started" until_true 30 stream_recording $K
sleep 1
check "rmmod slabtrace is refused while recording" rmmod_in_use
kill $rec
wait $rec
check "the recorder stops on SIGTERM and says what it wrote" \
	grep -q '^kmemtrace-record: [1-9][0-9]* events written, [0-9]* lost' /tmp/r4.out
# What the recorder said, for a run where it ended early.
cp /tmp/r4.out /out/kptrace-ctf-rmmod-recorder.txt
kill $busy
wait 2>/dev/null
check "rmmod slabtrace" rmmod slabtrace
check "insmod slabtrace.ko again" insmod $MODDIR/slabtrace.ko
check "rmmod slabtrace" rmmod slabtrace
finish
