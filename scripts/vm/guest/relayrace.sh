# SPDX-License-Identifier: GPL-2.0
# The binary streams' cpuN files across stop, start, buffer resize and
# rmmod (issue 20 item 13): two readers open, map, poll and read cpu0 and
# cpu1 in a loop (one through /proc/slabtrace, one through debugfs) while
# a third process writes 1 and 0 to the stream's enable, and changes
# buffer_kb, in a loop; kmemtrace's stream, then kptrace's.  A buffer
# freed under a reader shows as a refcount warning or a fault on the
# console (the runner fails the run on either), or as a mapping that no
# longer starts with a packet.  Then rmmod while a cpuN file is mapped,
# its descriptor closed: refused; and once it is unmapped: done.
# make check runs it with slub_debug=FZPU init_on_free=1 (freed memory
# poisoned); relay_secs=N seconds per stream (15), relay_readers=N readers
# of each of the two files (1).
. /tests/lib.sh

SECS=${relay_secs:-15}
READERS=${relay_readers:-1}
check "insmod slabtrace.ko" insmod $MODDIR/slabtrace.ko
# relay_pin_keys=1: two more probes (ftrace's events, in two instances) on
# every tracepoint the streams use, so that starting and stopping them
# patches no kernel text.  For a run in multi-threaded TCG
# (SLABTRACE_ACCEL=tcg,thread=multi), the only way here to run the guest's
# CPUs truly at once, which dies on text patching (FACTS.md).
if [ "${relay_pin_keys:-0}" = 1 ]; then
	tr=/sys/kernel/tracing
	mount -t tracefs nodev $tr
	for inst in a b; do
		mkdir $tr/instances/$inst
		for e in kmem/kmalloc kmem/kfree kmem/kmem_cache_alloc \
			kmem/kmem_cache_free raw_syscalls/sys_enter \
			raw_syscalls/sys_exit sched/sched_process_exit; do
			echo 1 > $tr/instances/$inst/events/$e/enable
		done
	done
fi
# The readers use both trees: /proc's and debugfs's.
P=$ST
D=$ST_DEBUGFS
ncpu=$(nproc)
[ "$ncpu" -ge 2 ] || skip "needs two CPUs"

# race DIR START STOP RESIZE: readers on DIR's cpu0 and cpu1, a toggler
# running the START and STOP commands, and every 8th time the RESIZE one
# (a printf format of the KiB), SECS seconds.
race() {
	dir=$1
	rm -f /tmp/r.*.out
	for i in $(seq "$READERS"); do
		(relay_reader -t "$SECS" "$P/$dir/cpu0" > /tmp/r.$i.0.out) &
		(relay_reader -t "$SECS" "$D/$dir/cpu1" > /tmp/r.$i.1.out) &
	done
	end=$(($(date +%s) + SECS))
	n=0
	fails=0
	while [ "$(date +%s)" -lt "$end" ]; do
		sh -c "$2" 2>/dev/null || fails=$((fails + 1))
		sh -c "$3" 2>/dev/null || fails=$((fails + 1))
		n=$((n + 1))
		# A resize now and then, while stopped.
		if [ $((n % 8)) -eq 0 ]; then
			kb=$((16 * (1 + (n / 8) % 2)))
			# shellcheck disable=SC2059
			sh -c "$(printf "$4" $kb)" 2>/dev/null ||
				fails=$((fails + 1))
		fi
	done
	wait
	echo "$dir: $n starts and stops, $fails refused"
	cat /tmp/r.*.out
	check "$dir: started and stopped at least 5 times ($n)" test "$n" -ge 5
	check "$dir: every start, stop and resize done" test "$fails" -eq 0
	for r in /tmp/r.*.out; do
		line=$(grep '^opens=' $r)
		get() { echo "$line" | sed -n "s/.* $1=\([0-9]*\).*/\1/p;s/^$1=\([0-9]*\).*/\1/p"; }
		check "$dir: a reader opened a buffer ($(get opens))" test "$(get opens)" -gt 0
		check "$dir: mapped one ($(get maps))" test "$(get maps)" -gt 0
		check "$dir: read ($(get reads))" test "$(get reads)" -gt 0
		check_eq "$dir: every mapping began with a packet" 0 "$(get badmagic)"
		check_eq "$dir: no other error" 0 "$(get other)"
		check_eq "$dir: the cpuN files are always there" 0 "$(get enoent)"
	done
}

# kmemtrace: every cache, so both CPUs write.
echo 16 > $P/kmemtrace/buffer_kb
race kmemtrace "echo 1 > $P/kmemtrace/enable" "echo 0 > $P/kmemtrace/enable" \
	"echo %s > $P/kmemtrace/buffer_kb"
echo 1024 > $P/kmemtrace/buffer_kb

# kptrace's stream: every process ("1" is "syscall start ctf").
race kptrace/ctf "echo 1 > $P/kptrace/ctf/enable" \
	"echo 0 > $P/kptrace/ctf/enable" "echo %s > $P/kptrace/ctf/buffer_kb"
st syscall size 2M

# rmmod while a cpuN file is mapped (its descriptor closed), in each tree.
for tree in $P $D; do
	echo 1 > $P/kmemtrace/enable
	# The last round's output goes first: the shell truncates it in the
	# reader's child, which a grep of it before then would not see.
	rm -f /tmp/hold /tmp/hold.out
	mkfifo /tmp/hold
	relay_reader -H /tmp/hold $tree/kmemtrace/cpu0 > /tmp/hold.out &
	holder=$!
	until_true 10 grep -q '^mapped' /tmp/hold.out
	check_eq "$tree: the mapping begins with a packet" "mapped magic=ok" "$(cat /tmp/hold.out)"
	echo 0 > $P/kmemtrace/enable
	check "$tree: rmmod is refused while cpu0 is mapped" rmmod_in_use
	echo go > /tmp/hold
	wait $holder
	check "$tree: rmmod once it is unmapped" rmmod slabtrace
	check "$tree: insmod again" insmod $MODDIR/slabtrace.ko
done
check "rmmod slabtrace" rmmod slabtrace
finish
