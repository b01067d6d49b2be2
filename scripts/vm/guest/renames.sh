# SPDX-License-Identifier: GPL-2.0
# What any user does with task names costs slabtrace nothing it must
# sweep: with vm_area_struct traced, user nobody renames itself before
# each of 70,000 mappings it keeps (more names than a table of interned
# names ever held), then goes on renaming itself before each mapping it
# makes and unmaps.  Every kept mapping's record names its own name: none
# is "?", nothing is dropped.  Meanwhile a module is loaded and unloaded,
# which must work; how long that took is left in /out/renames.txt (a
# table of names full of names in use made module loads wait for sweeps
# of every record; make check times nothing).
. /tests/lib.sh

N=70000

# now: seconds since boot, to the hundredth.
now() { cut -d' ' -f1 /proc/uptime; }

check "insmod slabtrace.ko" insmod $MODDIR/slabtrace.ko
maps=$(cat /proc/sys/vm/max_map_count)
echo $((N + 1000)) > /proc/sys/vm/max_map_count
log_mark
check "start vm_area_struct" st start vm_area_struct
renames $N > /tmp/rn.out 2>&1 &
rn=$!
check "nobody kept $N mappings, each under a name of its own" \
	until_true 600 grep -qx "kept $N" /tmp/rn.out
t0=$(now)
check "insmod leaky.ko beside the renames" insmod $MODDIR/leaky.ko
t1=$(now)
check "rmmod leaky beside the renames" rmmod leaky
t2=$(now)
echo "beside the renames: insmod leaky $t0 -> $t1, rmmod $t1 -> $t2 (s since boot)" > /out/renames.txt
dump vm_area_struct /tmp/rn.dump
kill $rn
wait $rn 2>/dev/null
head -n 4 /tmp/rn.dump >> /out/renames.txt
names=$(grep -o "from PID $rn rn[0-9]* " /tmp/rn.dump | sort -u | wc -l)
echo "names of renames' records: $names" >> /out/renames.txt
check "the kept mappings' records have their $N names ($names)" test "$names" -ge $N
check_eq "none shows ?" 0 "$(grep -c "from PID $rn ? " /tmp/rn.dump)"
check_eq "nothing dropped" 0 "$(grep -c '^drops: ' /tmp/rn.dump)"
check "stop, reset vm_area_struct" \
	sh -c "echo stop vm_area_struct > $ST/ctl && echo reset vm_area_struct > $ST/ctl"
echo "$maps" > /proc/sys/vm/max_map_count
check "rmmod slabtrace" rmmod slabtrace
no_splat_since "through the renames" renames-dmesg.txt
finish
