# SPDX-License-Identifier: GPL-2.0
# The binary streams in a small guest (make check runs it after lowmem, in
# 256 MiB; issue 25 item 1): a start whose relay buffers would leave too
# little memory fails with ENOMEM and one log line saying so, and never
# wakes the OOM killer; a stream that fits starts.
. /tests/lib.sh

mem=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
[ "$mem" -le $((320 * 1024)) ] || skip "for a small guest (SLABTRACE_VM_MEM=256)"
check "insmod slabtrace.ko" insmod $MODDIR/slabtrace.ko

# 256 MiB a CPU: twice the guest's memory.
check "syscall size 256M" st syscall size 256M
check_eq "syscall start ctf: ENOMEM" "Cannot allocate memory" \
	"$(ctl_errno 'syscall start ctf comm nobody')"
logged "kptrace/ctf: start: $((256 * 1024 * $(nproc))) KiB of buffers would leave less than 32 MiB of the"
check "the OOM killer did not run" sh -c "! dmesg | grep -q 'invoked oom-killer'"
check_eq "kptrace is off" "kptrace: off" "$(grep '^kptrace:' $ST/status)"
check "no buffers: cpu0 has no data" sh -c "! cat $ST/kptrace/ctf/cpu0 > /dev/null 2>&1"

check "syscall size 64K" st syscall size 64K
check "syscall start ctf comm nobody: it fits" st syscall start ctf comm nobody
check "status shows its buffers" grep -q '^kptrace/ctf: tracing, buffers .* x 64 KiB' $ST/status
check "syscall stop" st syscall stop
check "status: kept for reading" grep -q '^kptrace/ctf: stopped, its buffers (.* x 64 KiB) kept for reading' $ST/status
check "rmmod slabtrace" rmmod slabtrace
finish
