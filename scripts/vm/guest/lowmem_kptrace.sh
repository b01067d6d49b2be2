# SPDX-License-Identifier: GPL-2.0
# lowmem_kptrace: kptrace's queue in a 256 MiB guest (SLABTRACE_VM_MEM=256;
# make check runs it with lowmem).  "syscall start" refuses a queue of more
# than half the memory available with ENOMEM and a log line, before
# allocating anything: the biggest size (256M per CPU), and one of which
# each CPU's part fits (the ring buffer's own check) but that would leave
# the guest short.  A queue that fits is allocated by the start and given
# back by the stop.  A binary stream's start that fails on its table of
# tasks gives its buffers back.  The OOM killer never runs.
. /tests/lib.sh

mem=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
check "a small guest (MemTotal ${mem} kB)" test "$mem" -le $((320 * 1024))
check "insmod slabtrace.ko" insmod $MODDIR/slabtrace.ko
cpus=$(nproc)
avail() { awk '/^MemAvailable:/ { print $2 }' /proc/meminfo; }
allocated() { sed -n 's/^allocated: \([0-9]*\) bytes$/\1/p' $ST/kptrace/stats; }

check "syscall size 256M" st syscall size 256M
check_eq "syscall start with 256 MiB per CPU: ENOMEM" "Cannot allocate memory" \
	"$(ctl_errno "syscall start comm nobody")"
logged "syscall: start: the queue would take"
check "kptrace is off" grep -q '^kptrace: off$' $ST/status

# 3/5 of what is available, all CPUs together: more than half, though
# each CPU's part fits in what is left when it is allocated (the ring
# buffer's own check).
a=$(avail)
kb=$((a * 3 / 5 / cpus))
check "syscall size ${kb}K" st syscall size ${kb}K
check_eq "syscall start with ${kb} KiB per CPU of $a KiB available: ENOMEM" \
	"Cannot allocate memory" "$(ctl_errno "syscall start comm nobody")"
check "kptrace is off again" grep -q '^kptrace: off$' $ST/status
check_eq "no queue is left" 0 "$(allocated)"
echo "queue of ${kb} KiB x $cpus refused, $a KiB available" > /out/lowmem_kptrace.txt

# An eighth of what is available per CPU: taken, and given back by the stop.
a0=$(avail)
kb=$((a0 / 8 / cpus))
check "syscall size ${kb}K" st syscall size ${kb}K
check "syscall start with ${kb} KiB per CPU of $a0 KiB available" \
	st syscall start comm nobody
a1=$(avail)
check "the queue is allocated ($(allocated) bytes)" test "$(allocated)" -ge $((kb * cpus * 1000))
check "syscall stop" st syscall stop
a2=$(avail)
echo "queue of ${kb} KiB x $cpus: available $a0 KiB, $a1 tracing, $a2 stopped" >> /out/lowmem_kptrace.txt
check_eq "stopped with nothing queued, the queue is freed" 0 "$(allocated)"
# MemAvailable moves by a few MiB on its own (page cache, slab): the
# stop must give back at least half of what the start took.
check "its memory is available again ($a0 KiB, $a1 KiB tracing, $a2 KiB stopped)" \
	test $((a2 - a1)) -ge $(((a0 - a1) / 2))
check "kptrace is off" grep -q '^kptrace: off$' $ST/status

# A start to the binary stream whose buffers fit but whose table of tasks
# does not: refused, and the buffers it took are given back, not kept
# for the reading of a trace that never ran.
check "rmmod slabtrace" rmmod slabtrace
check "insmod slabtrace.ko kptrace_tasks=1048576" \
	insmod $MODDIR/slabtrace.ko kptrace_tasks=1048576
check "syscall size 64K" st syscall size 64K
check_eq "syscall start ctf with a table of 1 M tasks: ENOMEM" \
	"Cannot allocate memory" "$(ctl_errno "syscall start ctf comm nobody")"
logged "syscall: start: the table of tasks would take"
check "kptrace is off" grep -q '^kptrace: off$' $ST/status
check "no stream buffers are kept (status has no kptrace/ctf line)" \
	sh -c "! grep '^kptrace/ctf:' $ST/status"

dmesg > /tmp/dmesg
cp /tmp/dmesg /out/lowmem_kptrace-dmesg.txt
check_eq "the OOM killer never ran" 0 "$(grep -c 'invoked oom-killer' /tmp/dmesg)"
check "rmmod slabtrace" rmmod slabtrace
finish
