# SPDX-License-Identifier: GPL-2.0
# lowmem: in a 256 MiB guest (SLABTRACE_VM_MEM=256; make check runs it
# alone so), kmalloc-64 holds so many traced objects that a copy of their
# records (48 bytes each) does not fit in the memory left.  "print" must
# fail with ENOMEM, or succeed; never wake the OOM killer, never panic.
# "pool 1048576" fails the same way and keeps the pool as it was.  Then
# "reset" gives the memory back.  Last, a pool_size= that does not fit is
# cut at the first start.
. /tests/lib.sh

mem=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
check "a small guest (MemTotal ${mem} kB)" test "$mem" -le $((320 * 1024))
check "insmod slabtrace.ko" insmod $MODDIR/slabtrace.ko
check "insmod leaky.ko" insmod $MODDIR/leaky.ko
# Past the default limit (1/64 of RAM), as a user may set it.
st limit 4000000
st start kmalloc-64

avail() { awk '/^MemAvailable:/ { print $2 * 1024 }' /proc/meminfo; }
records() { awk '$1 == "records" { print $2 }' $ST/slab/stats; }
# kmalloc(50) objects, 50000 a command, until the records' copy cannot
# fit in what is available (each object costs ~120 bytes, a copy 48),
# with 4 MiB to spare: MemAvailable moves between two reads.  The leak
# itself must not run the guest out: stop at 16 MiB left.
i=0
while [ $i -lt 80 ]; do
	r=$(records)
	a=$(avail)
	[ $((r * 48)) -gt $((a + (4 << 20))) ] && break
	[ "$a" -lt $((16 << 20)) ] && break
	echo bufs 50000 > $LEAKY || break
	i=$((i + 1))
done
# The last command may have added records; MemAvailable is the read
# that ended the loop (a new read may be several MiB higher).
r=$(records)
echo "records $r available $a commands $i" > /out/lowmem.txt
check "a copy of the $r records ($((r * 48)) bytes) exceeds the $a bytes available" \
	test $((r * 48)) -gt "$a"
out=$(ctl_errno "print kmalloc-64")
echo "print: $out" >> /out/lowmem.txt
check "print: ENOMEM or done ($out)" test "$out" = "Cannot allocate memory" -o "$out" = ok

# "pool 1048576" (records kept ready per CPU) cannot fit in what is left:
# it fails with ENOMEM, the pool keeps its size and gives back what the
# attempt took (a refill's worth of slack: frees and refills go on).
pool() { awk -v k="$1" '$1 == "pool" { for (i = 2; i < NF; i++) if ($i == k) print $(i + 1) }' $ST/slab/stats; }
size=$(pool per_cpu)
before=$(pool allocated)
pout=$(ctl_errno "pool 1048576")
after=$(pool allocated)
echo "pool 1048576: $pout; allocated $before -> $after; $(grep '^MemAvailable' /proc/meminfo)" >> /out/lowmem.txt
check_eq "pool 1048576: ENOMEM" "Cannot allocate memory" "$pout"
check_eq "pool 1048576: the pool keeps its size" "$size" "$(pool per_cpu)"
check "pool 1048576: what it took is given back ($before -> $after records)" \
	test "$after" -le $((before + 2 * size))
logged "pool: no memory for 1048576 records per CPU"

dmesg > /tmp/dmesg
cp /tmp/dmesg /out/lowmem-dmesg.txt
check_eq "the OOM killer never ran" 0 "$(grep -c 'invoked oom-killer' /tmp/dmesg)"
[ "$out" = ok ] || logged "print: no memory for a copy of"
check "the shell that asked is alive: stop" st stop kmalloc-64
check "reset" st reset kmalloc-64
check_eq "no record left" 0 "$(records)"
echo free > $LEAKY
check "rmmod leaky" rmmod leaky
check "rmmod slabtrace" rmmod slabtrace

# pool_size=1048576 at load: 2 M records of 64 bytes on this guest's two
# CPUs, more than half of what it has.  No command asked that size: the
# first start asks, as "pool N" does, and cuts it to what fits.
mark pool_size
a=$(avail)
check "insmod slabtrace.ko pool_size=1048576" insmod $MODDIR/slabtrace.ko pool_size=1048576
check "pool_size=1048576: start kmalloc-64" st start kmalloc-64
got=$(pool per_cpu)
alloc=$(pool allocated)
echo "pool_size=1048576: per_cpu $got allocated $alloc; available before $a" >> /out/lowmem.txt
check "pool_size=1048576: cut to what fits ($got per CPU)" test "${got:-0}" -ge 16 -a "${got:-0}" -lt 1048576
# MemAvailable moves between this script's read and the module's: the
# larger of the two, the module's from its log line.
y=$(dmesg | sed -n 's/.*pool: no memory for 1048576 records per CPU ([0-9]* MiB more, \([0-9]*\) MiB available).*/\1/p' | tail -n 1)
[ $((${y:-0} << 20)) -gt "$a" ] && a=$((y << 20))
check "pool_size=1048576: the records take at most half of the $a bytes available ($alloc)" \
	test $((${alloc:-0} * 64)) -le $((a / 2 + (4 << 20)))
logged "pool: no memory for 1048576 records per CPU"
logged "pool: $got records per CPU instead"
check_eq "the OOM killer never ran" 0 "$(dmesg | grep -c 'invoked oom-killer')"
check "stop" st stop kmalloc-64
check "reset" st reset kmalloc-64
check "rmmod slabtrace" rmmod slabtrace
finish
