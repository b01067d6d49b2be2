# SPDX-License-Identifier: GPL-2.0
# Leak views: the stacks view and "top", the folded stacks agreeing with it
# on the same snapshot, older-than and since-mark picking exactly leaky's
# objects, the backtrace of a leak outliving its module's unload (and, with
# no memory to keep its names, shown as '?' with a log line), and the
# table giving its memory back at reset.
. /tests/lib.sh

check "insmod slabtrace.ko" insmod $MODDIR/slabtrace.ko
check "insmod leaky.ko" insmod $MODDIR/leaky.ko
check "stacks is 0400" test "$(stat -c %a $ST/slab/stacks)" = 400
check "folded is 0400" test "$(stat -c %a $ST/slab/folded)" = 400
check "folded_bytes is 0400" test "$(stat -c %a $ST/slab/folded_bytes)" = 400
check_eq "folded reads empty before any print" "" "$(cat $ST/slab/folded)"

st start kmalloc-64
st start leaky_widget
# 5 old buffers, then the mark, then 3 young ones, 2 orphans (another
# backtrace, also in kmalloc-64) and 2 widgets.  Every age this part
# expects comes from the module's own clock, never from a sleep: the old
# buffers are left to age until a print shows them 3 s old, and the
# older-than threshold is read off a print (see below).
echo bufs 5 > $LEAKY
# ages FILE FUNC: the ages, in ms, of the objects whose frame #01 is FUNC.
ages() {
	objs_from "$1" "$2" | sed -n 's/.*, age \([0-9]*\)\.\([0-9]*\)s, .*/\1 \2/p' |
		awk '{ print $1 * 1000 + $2 }'
}
# traced_ms FILE: the "traced S.MMMs" of the header, in ms: the clock the
# ages are counted in (kmalloc-64 is traced without a break).
traced_ms() {
	awk '/^traced [0-9]*\.[0-9]*s, /{ split($2, t, "[.s]"); print t[1] * 1000 + t[2]; exit }' "$1"
}
old_enough() {
	dump kmalloc-64 /tmp/age
	[ "$(nobjs_from /tmp/age leaky_alloc_buf "" --older 3000)" = 5 ]
}
tries=0
until old_enough; do
	tries=$((tries + 1))
	[ "$tries" -lt 240 ] || break
	sleep 0.5
done
check "leaky's 5 buffers reach 3 s of age (the module's clock)" old_enough
check "mark kmalloc-64" st mark kmalloc-64
echo bufs 3 > $LEAKY
echo orphans 2 > $LEAKY
# One unfiltered print gives every object's age at one moment: the
# threshold T (thr) is the age of the youngest old buffer then.  The old ones
# only get older, so they pass any later older-than T; a young one passes
# only once the clock has moved on by the gap between the youngest old
# buffer and the oldest young object, and the prints' own "traced" times
# say whether it did (ages and "traced" are whole ms of one clock; one ms
# of slack for the rounding).  If the prints came too slowly (a loaded
# host), the three are taken again: a measurement that cannot decide is
# not a verdict.
tries=0
while :; do
	tries=$((tries + 1))
	dump kmalloc-64 /tmp/ages
	t1=$(traced_ms /tmp/ages)
	old=$(ages /tmp/ages leaky_alloc_buf | sort -rn | head -n 5 | tail -n 1)
	young=$( (ages /tmp/ages leaky_alloc_buf | sort -rn | tail -n +6
		ages /tmp/ages leaky_orphan_buf) | sort -rn | head -n 1)
	thr=${old:-0}
	gap=$((thr - ${young:-0}))
	dump "kmalloc-64 older-than $thr" /tmp/older
	dump "kmalloc-64 older-than $thr since-mark" /tmp/both
	t3=$(traced_ms /tmp/both)
	[ $((${t3:-0} - ${t1:-0} + 1)) -ge "$gap" ] || break
	[ "$tries" -lt 5 ] || break
done
check "the old buffers are 3 s older than the young objects (the module's clock)" \
	test "$gap" -ge 3000
echo "leakviews: older-than T: T $thr ms, gap $gap ms, 3 prints in $((${t3:-0} - ${t1:-0})) ms, $tries tries"
decided=0
[ $((${t3:-0} - ${t1:-0} + 1)) -lt "$gap" ] && decided=1
# Five tries too slow say something about the host, not the module: a
# skip, not a failure (a module whose prints took seconds fails its
# other tests' time budgets).
if [ "$decided" != 1 ]; then
	skip_checks "older-than T: 3 prints took longer than the ${gap} ms gap in 5 tries: no verdict on the counts"
fi
echo widgets 2 > $LEAKY
ls -R /sys/kernel/slab > /dev/null

# --- filters on the objects view.
dump "kmalloc-64 since-mark" /tmp/since
check "since-mark: the header says so" grep -q '^Dumping outstanding allocs from kmalloc-64 (since mark)$' /tmp/since
check_eq "since-mark: exactly the 3 young buffers" 3 "$(nobjs_from /tmp/since leaky_alloc_buf)"
check_eq "since-mark: and the 2 orphans" 2 "$(nobjs_from /tmp/since leaky_orphan_buf)"
check "older-than: the header says so" grep -q "^Dumping outstanding allocs from kmalloc-64 (older than $thr ms)\$" /tmp/older
check "both filters: the header says so" grep -q "^Dumping outstanding allocs from kmalloc-64 (older than $thr ms, since mark)\$" /tmp/both
check_eq "older-than: every object is T ms old or more" "$(nobjs_from /tmp/older "")" \
	"$(nobjs_from /tmp/older "" "" --older "$thr")"
# Only when the prints said the young objects were younger than T:
# otherwise the counts below would not mean anything (one SKIP above).
if [ "$decided" = 1 ]; then
	check_eq "older-than T: exactly the 5 old buffers" 5 "$(nobjs_from /tmp/older leaky_alloc_buf)"
	check_eq "older-than T: none of the orphans" 0 "$(nobjs_from /tmp/older leaky_orphan_buf)"
	check_eq "both filters: none of leaky's buffers" 0 "$(nobjs_from /tmp/both leaky_alloc_buf)"
fi
check_eq "since-mark on a cache without a mark" "Invalid argument" "$(ctl_errno 'print leaky_widget since-mark')"

# --- one snapshot, every view: objects, stacks, folded (for the host's
# test of the userspace report and flame graph, scripts/tests/).
dump kmalloc-64 /tmp/objects
cat $ST/slab/stacks > /tmp/stacks
check "stacks file: the same snapshot, by stack" \
	grep -q '^Dumping outstanding allocs from kmalloc-64 (by stack)$' /tmp/stacks
check_eq "stacks file: the same objects as ctl" "$(outstanding /tmp/objects)" \
	"$(sed -n 's/^traced [0-9.]*s, \([0-9]*\) outstanding .*/\1/p' /tmp/stacks)"
cp /tmp/objects /out/objects.txt
cp /tmp/stacks /out/stacks-file.txt
cat $ST/slab/folded > /out/objects.folded
# A reader keeps the snapshot it started with; one starting anew gets the
# newest; an open file keeps the module loaded.
exec 3< $ST/ctl
read -r first <&3
st print leaky_widget
rest=$(cat <&3)
check "a reader keeps its snapshot" test "$first" = "Dumping outstanding allocs from kmalloc-64"
# (The text is an argument, never code: a verdict says "the freed ones'
# p99", whose quote ended the shell's string when it was pasted in.)
check "... to the end" sh -c 'printf "%s\n" "$1" | grep -q leaky_alloc_buf &&
	! printf "%s\n" "$1" | grep -q "from leaky_widget"' sh "$rest"
check "a new reader gets the newest" grep -q '^Dumping outstanding allocs from leaky_widget$' $ST/ctl
check "an open ctl keeps slabtrace loaded" rmmod_in_use
exec 3<&-

# --- the stacks view, and the folded stacks of the same snapshot.
dump "kmalloc-64 stacks" /tmp/agg
cat $ST/slab/folded > /tmp/folded
cat $ST/slab/folded_bytes > /tmp/folded_bytes
cp /tmp/agg /out/stacks.txt
cp /tmp/folded /out/stacks.folded
check "stacks: the header counts stacks" grep -q '^traced [0-9.]*s, [0-9]* outstanding ([0-9]* bytes) in [0-9]* stacks, 0 records dropped$' /tmp/agg
nstacks=$(sed -n 's/^traced .* in \([0-9]*\) stacks, .*/\1/p' /tmp/agg)
check_eq "stacks: one group per stack in the header" "$nstacks" "$(grep -c '^Stack ' /tmp/agg)"
check_eq "stacks: leaky's buffers are one group of 8" 1 \
	"$(awk '/^Stack /{ h = $0 } / #01 .* in leaky_alloc_buf\+/{ print h }' /tmp/agg | grep -c ': 8 objects, 512 bytes (400 requested), age min/avg/max ')"
check "stacks: ... made in write() by this shell" sh -c \
	"awk '/^Stack /{ h = \$0 } / #01 .* in leaky_alloc_buf\+/{ print h }' /tmp/agg | grep -q 'from PID $$ sh in syscall write: '"
check_eq "stacks: sorted by bytes, most first" 0 \
	"$(sed -n 's/^Stack [0-9]*: [0-9]* objects\{0,1\}, \([0-9]*\) bytes .*/\1/p' /tmp/agg | awk 'NR > 1 && $1 > last { n++ } { last = $1 } END { print n + 0 }')"
check_eq "folded: one line per stack" "$nstacks" "$(wc -l < /tmp/folded)"
check_eq "folded: the same counts, in the same order" \
	"$(sed -n 's/^Stack [0-9]*: \([0-9]*\) objects\{0,1\}, .*/\1/p' /tmp/agg | tr '\n' ' ')" \
	"$(awk '{ print $NF }' /tmp/folded | tr '\n' ' ')"
check_eq "folded_bytes: the same bytes, in the same order" \
	"$(sed -n 's/^Stack [0-9]*: [0-9]* objects\{0,1\}, \([0-9]*\) bytes .*/\1/p' /tmp/agg | tr '\n' ' ')" \
	"$(awk '{ print $NF }' /tmp/folded_bytes | tr '\n' ' ')"
# The leaf of each folded line is frame #01 of the same group, unoffset
# (under the pseudo-frame [leak] of a stack judged a leak).
awk '/^ #01 /{ sub(/^ #01 \[<[^>]*>\] in /, ""); sub(/\+0x[0-9a-f]*\/0x[0-9a-f]*/, ""); print }' /tmp/agg > /tmp/leaves.agg
awk '{ $NF = ""; sub(/ $/, ""); sub(/;\[leak\]$/, ""); n = split($0, f, ";"); print f[n] }' /tmp/folded > /tmp/leaves.folded
check "folded: leaf frames are the groups' frame #01" cmp -s /tmp/leaves.agg /tmp/leaves.folded
check "folded: the orphans' line" grep -q ';leaky_orphan_buf \[leaky\] 2$' /tmp/folded
# The root frame is the arch's system call entry; on x86-64 the walk
# ends at do_syscall_64(), before the entry code (<wrapper/unwind.h>).
case $(uname -m) in
aarch64) entry=el0t_64_sync ;;
*) entry=do_syscall_64 ;;
esac
check "folded: leaky's line, root first, syscall pseudo-frame" \
	grep -q "^syscall:write;$entry;.*;leaky_alloc_buf \[leaky\] 8\$" /tmp/folded

dump "kmalloc-64 stacks top 2" /tmp/top
cat $ST/slab/folded > /tmp/top.folded
check_eq "top 2: two groups" 2 "$(grep -c '^Stack ' /tmp/top)"
check "top 2: the header says so" grep -q '^Dumping outstanding allocs from kmalloc-64 (by stack, top 2)$' /tmp/top
check_eq "top 2: still every stack in folded" \
	"$(sed -n 's/^traced .* in \([0-9]*\) stacks, .*/\1/p' /tmp/top)" "$(wc -l < /tmp/top.folded)"
for bad in "print kmalloc-64 top" "print kmalloc-64 top 0" "print kmalloc-64 older-than soon" \
	"print kmalloc-64 backwards" "mark" "mark kmalloc-64 now"; do
	check_eq "'$bad' is refused" "Invalid argument" "$(ctl_errno "$bad")"
done
check_eq "mark of an untraced cache" "No data available" "$(ctl_errno 'mark kmalloc-128')"
if [ -e /sys/kernel/slab/memdup_user-64 ]; then
	check_eq "a kmem_buckets cache is refused" "Operation not supported" \
		"$(ctl_errno 'start memdup_user-64')"
	logged "start: memdup_user-64 is a kmem_buckets cache"
fi
logged "ctl: print: unknown option 'backwards'" "ctl: print: top takes a number above 0" \
	"ctl: print: older-than takes a number" "print: since-mark: leaky_widget has no mark" \
	"mark: kmalloc-128 is not traced" "ctl: 'mark' takes one cache name, not 2 words"

# --- a leak outlives its module: its backtrace keeps its names.
echo free > $LEAKY
echo orphans 4 > $LEAKY
check "rmmod leaky, leaving 4 buffers behind" rmmod leaky
dump kmalloc-64 /tmp/after
cp /tmp/after /out/after-rmmod.txt
check_eq "after rmmod: 6 buffers from leaky_orphan_buf" 6 "$(nobjs_from /tmp/after leaky_orphan_buf)"
check "after rmmod: slabtrace's own allocations are not listed" sh -c "! grep -q '^ #01 .*\[slabtrace\]\$' /tmp/after"
check "after rmmod: frame #01 keeps offset and module" \
	grep -q '^ #01 \[<[0-9a-f]*>\] in leaky_orphan_buf+0x[0-9a-f]*/0x[0-9a-f]* \[leaky\]$' /tmp/after
# run() is static: the compiler may have inlined it in ctl_write().
check "after rmmod: so does frame #02" \
	grep -Eq '^ #02 \[<[0-9a-f]*>\] in (run|ctl_write)\+0x[0-9a-f]*/0x[0-9a-f]* \[leaky\]$' /tmp/after
dump "kmalloc-64 stacks" /tmp/after-agg
check "after rmmod: the folded leaf too" grep -q ';leaky_orphan_buf \[leaky\] 6$' $ST/slab/folded
check "insmod leaky.ko again" insmod $MODDIR/leaky.ko
dump kmalloc-64 /tmp/again
check_eq "reloaded: the old leak still shows" 6 "$(nobjs_from /tmp/again leaky_orphan_buf)"

# --- reset drops the print of its cache (dumps.sh has the rest).
snaps() { sed -n 's/^snapshots kept \([0-9]*\) alive \([0-9]*\) bytes \([0-9]*\)$/\1 \2 \3/p' $ST/slab/stats; }
st reset kmalloc-64
check_eq "reset drops the print of its cache" "0 0 0" "$(snaps)"

# --- the table grows with the records, and shrinks back at reset.
buckets() { sed -n 's/^table buckets \([0-9]*\) .*/\1/p' $ST/slab/stats; }
small=$(buckets)
echo bufs 20000 > $LEAKY
check "20000 records grow the table" until_true 20 sh -c "[ \$(sed -n 's/^table buckets \([0-9]*\) .*/\1/p' $ST/slab/stats) -ge 8192 ]"
grep '^table ' $ST/slab/stats > /out/table-grown.txt
echo free > $LEAKY
st reset kmalloc-64
check_eq "reset shrinks it back to its first size" "$small" "$(buckets)"
check "the stats count the shrink" grep -Eq '^table .* shrinks [1-9][0-9]*$' $ST/slab/stats
grep '^table ' $ST/slab/stats > /out/table-shrunk.txt
check "rmmod leaky" rmmod leaky
check "rmmod slabtrace" rmmod slabtrace

# --- no memory to keep the names of a module's frames when it goes (the
# test build's fail_keep_name): they show as '?', and the log says so.
# A fresh load keeps no name yet, whichever stack the depot hands back.
check "insmod slabtrace.ko fail_keep_name=1" insmod $MODDIR/slabtrace.ko fail_keep_name=1
check "insmod leaky.ko again" insmod $MODDIR/leaky.ko
st start kmalloc-64
echo orphans 2 > $LEAKY
mark "no memory to keep names"
check "rmmod leaky, with no memory to keep its frames' names" rmmod leaky
logged "modules: no memory to name the frames of leaky in every record: some show as '?'"
dump kmalloc-64 /tmp/nomem
check "... and its leak's frame #01 shows as '?'" grep -q '^ #01 \[<[0-9a-f]*>\] in ?$' /tmp/nomem
check "rmmod slabtrace" rmmod slabtrace
finish
