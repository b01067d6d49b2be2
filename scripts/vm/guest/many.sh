# SPDX-License-Identifier: GPL-2.0
# Every cache at once: "start all" traces each slab cache of the kernel
# once (merged names are one cache), kmalloc-large too, and none that
# "start NAME" would refuse; "start kmalloc" the kmalloc caches.  "print
# all" is one print of every traced cache holding objects, each as a
# print of it alone, most bytes first, and finds exactly what leaky and
# bigleak keep; "print kmalloc" only the kmalloc caches'.  stop, mark and
# reset take the words too; a cache holding records at another rate makes
# "start all" fail whole; the record limit holds for all of them; rmmod
# with every cache traced is clean.
. /tests/lib.sh

check "insmod slabtrace.ko" insmod $MODDIR/slabtrace.ko
check "insmod leaky.ko" insmod $MODDIR/leaky.ko
check "insmod bigleak.ko" insmod $MODDIR/bigleak.ko
BIG=/sys/kernel/debug/bigleak/ctl

# traced: the names the stats list, one a line; state NAME: tracing|stopped.
traced() { sed -n 's/^cache \([^ ]*\) .*/\1/p' "$ST/slab/stats"; }
state() { sed -n "s/^cache $1 \\([a-z]*\\) .*/\\1/p" "$ST/slab/stats"; }

log_mark
check "start all" st start all
traced > /tmp/many-all
n=$(wc -l < /tmp/many-all)
logged "start: all: $n caches"
check "more than 50 caches traced ($n)" test "$n" -gt 50
for c in kmalloc-large leaky_widget kmalloc-64 kmalloc-1k; do
	check_eq "$c is traced" tracing "$(state $c)"
done
check "percpu is not (no slab: started by name)" sh -c "! grep -qx percpu /tmp/many-all"
check "slabtrace's own cache is not" sh -c "! grep -qx slabtrace_record /tmp/many-all"
cat "$ST/status" > /tmp/many-status
cp /tmp/many-status /out/status-all.txt
check_eq "status: 16 caches" 16 "$(grep -c '^cache ' /tmp/many-status)"
check "status: the others summed up" \
	grep -q "^\.\.\. and $((n - 16)) more caches (those with most records first; slab/stats lists every one)$" /tmp/many-status

# Each cache once: the traced names lead to distinct /sys/kernel/slab
# directories; every cache of /sys/kernel/slab not traced is one that
# "start NAME" refuses (kmem_buckets caches, slabtrace's own).
grep -vx kmalloc-large /tmp/many-all | while read -r c; do
	readlink -f "/sys/kernel/slab/$c"
done | sort > /tmp/many-all.dirs
check_eq "no cache traced twice" $((n - 1)) "$(sort -u /tmp/many-all.dirs | grep -c .)"
# A merged cache goes by the name it was created with, slabinfo's.
sed -n '3,$s/^\([^ ]*\) .*/\1/p' /proc/slabinfo > /tmp/many-slabinfo
check "slabinfo read" test -s /tmp/many-slabinfo
check_eq "each goes by its name in /proc/slabinfo" "" \
	"$(awk 'NR == FNR { in_slabinfo[$1] = 1; next }
		$1 != "kmalloc-large" && !($1 in in_slabinfo)' /tmp/many-slabinfo /tmp/many-all | head -n 3)"
check_eq "every traced name is a cache" $((n - 1)) "$(grep -c . /tmp/many-all.dirs)"
# A link to nothing is no cache: SLUB leaves a merged name's link when
# its cache goes (oddcache's oddmerge, after core).
for e in /sys/kernel/slab/*; do
	[ -e "$e" ] || continue
	printf '%s %s\n' "$(readlink -f "$e")" "${e##*/}"
done | sort -k1,1 -u > /tmp/many-every
refused=0 wrong=
while read -r dir name; do
	grep -qx "$dir" /tmp/many-all.dirs && continue
	case "$(ctl_errno "start $name")" in
	*"not supported"* | *"not permitted"*) refused=$((refused + 1)) ;;
	*) wrong="$wrong $name" ;;
	esac
done < /tmp/many-every
check_eq "each cache not traced is one start refuses" "" "$wrong"
check_eq "the caches traced and the refused are every cache" \
	"$(wc -l < /tmp/many-every)" $((n - 1 + refused))

check "leaky keeps 7 widgets" sh -c "echo widgets 7 > $LEAKY"
check "leaky keeps 5 kmalloc(50)" sh -c "echo bufs 5 > $LEAKY"
check "leaky churns" sh -c "echo churn 50 > $LEAKY"
check "bigleak keeps 3 kmalloc(16384)" sh -c "echo large 3 > $BIG"

# section FILE CACHE: the part of a print of a word that is CACHE's.
section() {
	awk -v c="Dumping outstanding allocs from $2" '
		/^Dumping outstanding allocs from / { on = ($0 == c || index($0, c " (") == 1) }
		on' "$1"
}

dump all /tmp/many-pall
cp /tmp/many-pall /out/print-all.txt
parts=$(grep -c '^Dumping outstanding allocs from ' /tmp/many-pall)
check "the first line sums the print up" \
	grep -qx "Print of all: $n caches, $parts with outstanding objects, most bytes first" \
	/tmp/many-pall
check "then a cache's header" \
	sh -c "sed -n 2p /tmp/many-pall | grep -q '^Dumping outstanding allocs from '"
check_eq "leaky_widget: the 7 widgets kept" 7 "$(nobjs_from /tmp/many-pall leaky_alloc_widget leaky_widget)"
check_eq "kmalloc-64: the 5 buffers kept" 5 "$(nobjs_from /tmp/many-pall leaky_alloc_buf kmalloc-64)"
check_eq "kmalloc-large: bigleak's 3 objects" 3 "$(nobjs_from /tmp/many-pall bigleak_large kmalloc-large)"
section /tmp/many-pall leaky_widget > /tmp/many-pw
check_eq "a section's header counts its objects" "$(outstanding /tmp/many-pw)" "$(nobjs /tmp/many-pw)"
check_eq "each cache once" "$parts" \
	"$(sed -n 's/^Dumping outstanding allocs from \([^ ]*\).*/\1/p' /tmp/many-pall | sort -u | grep -c .)"
check_eq "most bytes first" "" \
	"$(sed -n 's/^traced [0-9.]*s, [0-9]* outstanding (\([0-9]*\) bytes).*/\1/p' /tmp/many-pall |
	   awk 'NR > 1 && $1 > last { print "line " NR ": " $1 " after " last } { last = $1 }')"
check_eq "no section is empty" "" \
	"$(sed -n 's/^traced [0-9.]*s, \(0\) outstanding.*/\1/p' /tmp/many-pall)"

cat "$ST/slab/folded" > /tmp/many-folded
cp /tmp/many-folded /out/folded-all.txt
check "folded: each line starts with its cache" \
	grep -q '^leaky_widget;.*;leaky_alloc_widget \[leaky\] 7$' /tmp/many-folded
check "folded: kmalloc-64's line of the buffers" \
	grep -q '^kmalloc-64;.*;leaky_alloc_buf \[leaky\] 5$' /tmp/many-folded

dump "all stacks top 1" /tmp/many-ptop
cp /tmp/many-ptop /out/print-all-top1.txt
# One stack a cache with records, none where it has none.
check_eq "top 1: one stack a cache" "" \
	"$(awk 'function end() { if (s && n != (o > 0)) print s ": " o " outstanding, " n " stacks" }
		/^Dumping/ { end(); s = $0; n = 0; o = -1 } /^traced / { o = $3 }
		/^Stack / { n++ } END { end(); if (!s) print "no section" }' /tmp/many-ptop | head -n 1)"

dump kmalloc /tmp/many-pkm
check "print kmalloc: kmalloc-64's" grep -q '^Dumping outstanding allocs from kmalloc-64$' /tmp/many-pkm
check "print kmalloc: kmalloc-large's" grep -q '^Dumping outstanding allocs from kmalloc-large$' /tmp/many-pkm
check "print kmalloc: not leaky_widget's" \
	sh -c "! grep -q '^Dumping outstanding allocs from leaky_widget' /tmp/many-pkm"
check "print kmalloc: it says so" grep -q '^Print of kmalloc: [0-9]* caches' /tmp/many-pkm

check "stop kmalloc" st stop kmalloc
check_eq "kmalloc-64 stopped" stopped "$(state kmalloc-64)"
check_eq "kmalloc-large stopped" stopped "$(state kmalloc-large)"
check_eq "leaky_widget still traced" tracing "$(state leaky_widget)"
check "leaky keeps 4 more kmalloc(50)" sh -c "echo bufs 4 > $LEAKY"
dump kmalloc-64 /tmp/many-p64b
check_eq "stopped: the 4 are not recorded" 5 "$(nobjs_from /tmp/many-p64b leaky_alloc_buf)"

check "mark all" st mark all
check "leaky keeps 2 more widgets" sh -c "echo widgets 2 > $LEAKY"
dump "all since-mark" /tmp/many-pmark
check_eq "since the mark: the 2 widgets" 2 "$(nobjs_from /tmp/many-pmark leaky_alloc_widget leaky_widget)"

check "leaky frees what it kept" sh -c "echo free > $LEAKY"
dump kmalloc-64 /tmp/many-p64c
check_eq "frees drop records of a stopped cache" 0 "$(nobjs_from /tmp/many-p64c leaky_alloc_buf)"

check "reset kmalloc" st reset kmalloc
check_eq "kmalloc-64, stopped, is forgotten" "" "$(state kmalloc-64)"
check_eq "leaky_widget still traced" tracing "$(state leaky_widget)"

# A cache holding records at another rate: "start all" changes nothing.
check "reset all" st reset all
check "stop all" st stop all
check "reset all, stopped" st reset all
check_eq "nothing traced" "" "$(traced)"
check "probes off" grep -qx 'probes alloc off free off' "$ST/slab/stats"
check "start leaky_widget sample 10" st start leaky_widget sample 10
check "leaky keeps 100 widgets" sh -c "echo widgets 100 > $LEAKY"
check_eq "start all: EBUSY" "Device or resource busy" "$(ctl_errno 'start all')"
check_eq "and nothing else started" leaky_widget "$(traced)"
check "stop, reset leaky_widget" sh -c "echo stop leaky_widget > $ST/ctl && echo reset leaky_widget > $ST/ctl"

# The record limit holds for every cache together (checked before each
# insert without a lock: each CPU may add one past it).
limit=$(sed -n 's/^records [0-9]* limit \([0-9]*\)$/\1/p' "$ST/slab/stats")
check "limit 50" st limit 50
check "start all, limited" st start all
check "leaky keeps 200 widgets" sh -c "echo widgets 200 > $LEAKY"
recs=$(sed -n 's/^records \([0-9]*\) limit 50$/\1/p' "$ST/slab/stats")
ncpu=$(grep -c '^processor' /proc/cpuinfo)
check "at most 50 records, all caches together ($recs)" test "${recs:-999}" -le $((50 + ncpu))
check "the allocations past it counted (limit reached)" \
	sh -c "sed -n 's/.* limit_reached \([0-9]*\) .*/\1/p' $ST/slab/stats | awk '{ s += \$1 } END { exit !(s > 0) }'"
check "stop all, reset all, limit $limit" \
	sh -c "echo stop all > $ST/ctl && echo reset all > $ST/ctl && echo limit $limit > $ST/ctl && echo free > $LEAKY"

check "start kmalloc" st start kmalloc
traced > /tmp/many-km
check "kmalloc: the stats list its caches" test -s /tmp/many-km
check "kmalloc: kmalloc-64 and kmalloc-large" \
	sh -c "grep -qx kmalloc-64 /tmp/many-km && grep -qx kmalloc-large /tmp/many-km"
check "kmalloc: not leaky_widget" sh -c "! grep -qx leaky_widget /tmp/many-km"
check "kmalloc: every name a kmalloc cache's" \
	sh -c "! grep -Evx '(dma-)?kmalloc-(cg-|rcl-)?[0-9]+k?|kmalloc-large' /tmp/many-km"

check "start all" st start all
check "rmmod leaky, bigleak" rmmod leaky bigleak
check "rmmod slabtrace with every cache traced" rmmod slabtrace
no_splat_since "through every word" many-dmesg.txt
finish
