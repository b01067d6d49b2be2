# SPDX-License-Identifier: GPL-2.0
# The probe path: a record of an object freed with no tracepoint, in a
# stopped cache, goes when another cache reuses its address; the record
# limit and the pool are commands, and their drops are counted; the stats
# file; sessions read their login user's latest print, and a reset frees
# it.
# Frames in a module's __init text keep their names; a module in no saved
# trace costs no walk of the records.  The alloc probes cannot be traced
# by ftrace or kprobes.
. /tests/lib.sh

SF=/sys/kernel/debug/stalefree/ctl

check "insmod slabtrace.ko" insmod $MODDIR/slabtrace.ko

# --- The alloc probes' walk starts from their return address: neither the
# function graph tracer nor a kretprobe may replace it (notrace,
# NOKPROBE_SYMBOL).  The free probes may be traced.
FF=/sys/kernel/debug/tracing/available_filter_functions
ls $FF > /dev/null 2>&1
check_eq "alloc probes: not traceable by ftrace" 0 \
	"$(grep -c '^leak_probe_\(kmem_cache_alloc\|kmalloc\) ' $FF)"
check_eq "... the free probes are (the list is read)" 2 \
	"$(grep -c '^leak_probe_\(kmem_cache_free\|kfree\) ' $FF)"
check_eq "alloc probes: on the kprobe blacklist" 2 \
	"$(grep -c "	leak_probe_\(kmem_cache_alloc\|kmalloc\) \[slabtrace\]$" /sys/kernel/debug/kprobes/blacklist)"

# --- A module event walks the records (to name the frames in its code)
# only for a module that a saved trace has a frame in: first here, where
# no module yet had a traced allocation but leaky.  bigleak's load and
# unload (coming, live, going) walk nothing (on x86-64; elsewhere every
# module event walks); leaky's unload walks once.
modwalks() { sed -n 's/^modules events \([0-9]*\) walks \([0-9]*\)$/\1 \2/p' $ST/slab/stats; }
check "insmod leaky.ko (modules)" insmod $MODDIR/leaky.ko
st start leaky_widget
echo widgets 3 > $LEAKY
st stop leaky_widget
st reset leaky_widget
set -- $(modwalks)
e0=${1:-0} w0=${2:-0}
check "insmod bigleak.ko, rmmod bigleak" sh -c "insmod $MODDIR/bigleak.ko && rmmod bigleak"
w=$w0
[ "$(uname -m)" = x86_64 ] || w=$((w0 + 3))
check_eq "bigleak in no trace: 3 module events, no walk of the records" \
	"$((e0 + 3)) $w" "$(modwalks)"
check "rmmod leaky (modules)" rmmod leaky
check_eq "leaky, in saved traces: its unload walks" "$((e0 + 4)) $((w + 1))" "$(modwalks)"

# --- initleak allocates 8 objects from its __init text, which the kernel
# frees once the load is done; stalefree, loaded next, may land there.
# The frames keep the names they had, and none is named after stalefree.
st start kmalloc-256
check "insmod initleak.ko" insmod $MODDIR/initleak.ko
check "insmod stalefree.ko" insmod $MODDIR/stalefree.ko
dump kmalloc-256 /tmp/init; cp /tmp/init /out/initleak.txt
check_eq "init text: 8 objects from initleak_alloc()" 8 "$(nobjs_from /tmp/init initleak_alloc)"
check_eq "init text: #01 named with its module" 8 \
	"$(grep -c '^ #01 \[<[0-9a-f]*>\] in initleak_alloc+0x[0-9a-f]*/0x[0-9a-f]* \[initleak\]$' /tmp/init)"
check_eq "init text: #02 is initleak_init [initleak]" 8 \
	"$(grep -c '^ #02 \[<[0-9a-f]*>\] in initleak_init+0x[0-9a-f]*/0x[0-9a-f]* \[initleak\]$' /tmp/init)"
check_eq "init text: no frame of theirs named after a module loaded later" 0 \
	"$(awk '/^Obj / { mine = 0 } /^ #01 .* in initleak_alloc\+/ { mine = 1 }
		mine && /\[(stalefree|leaky)\]|in \?$/ { n++ } END { print n + 0 }' /tmp/init)"
# The size in their names is the function's extent as kallsyms counts it,
# up to the next symbol, or for the last function of the init text its own
# size, never the rest of the init text (initleak.syms: readelf's sizes
# and distances to the next symbol, at build time).
while read -r f size next; do
	[ "$next" = - ] && want=$size || want=$next
	check_eq "init text: $f is named with its size (0x$want)" 8 \
		"$(grep -c "^ #0[12] \[<[0-9a-f]*>\] in $f+0x[0-9a-f]*/0x$want \[initleak\]\$" /tmp/init)"
done < /bin/initleak.syms
check "rmmod initleak" rmmod initleak
st stop kmalloc-256
st reset kmalloc-256

# --- Stale records: freed by kfree_bulk() (kfree_rcu()'s batches), stopped.
st start stalefree_a
echo "alloc 2000" > $SF
st stop stalefree_a
echo free_bulk > $SF
dump stalefree_a /tmp/sa; cp /tmp/sa /out/sa.txt
check_eq "objects freed with no tracepoint keep their records" 2000 "$(outstanding /tmp/sa)"
check_eq "... made in stalefree_alloc()" 2000 "$(nobjs_from /tmp/sa stalefree_alloc)"
check "stopped with records: both probes stay attached" grep -q '^probes alloc on free on$' $ST/slab/stats
echo shrink > $SF
echo "reuse 8000" > $SF
reused=$(sed -n 's/.* reused \([0-9]*\)$/\1/p' $SF)
check "stalefree_b got some of stalefree_a's old addresses" test "${reused:-0}" -gt 0
dump stalefree_a /tmp/sa2
cp /tmp/sa2 /out/stale.txt
replaced=$(sed -n 's/^\([0-9]*\) records replaced: .*/\1/p' /tmp/sa2)
# Other caches may take old addresses too: at least the ones stalefree_b did.
check "every address stalefree_b reused lost its stale record" test "${replaced:-0}" -ge "$reused"
check_eq "records left + replaced = the 2000 freed" 2000 "$(($(outstanding /tmp/sa2) + ${replaced:-0}))"
# Other caches go on taking old addresses: the stats line on its own.
cp $ST/slab/stats /out/stats.txt
check_eq "the stats line: records + replaced = 2000 too" 2000 \
	"$(awk '$1 == "cache" && $2 == "stalefree_a" { print $5 + $7 }' /out/stats.txt)"
st reset stalefree_a

# --- The record limit: what is past it is dropped, counted by kind.
check_eq "limit 0 is refused" "Invalid argument" "$(ctl_errno 'limit 0')"
check_eq "limit 18446744073709551616 is refused" "Numerical result out of range" "$(ctl_errno 'limit 18446744073709551616')"
check_eq "limit 10" ok "$(ctl_errno 'limit 10')"
check "stats show the limit" grep -q '^records 0 limit 10$' $ST/slab/stats
st start stalefree_a
echo "alloc 100" > $SF
dump stalefree_a /tmp/lim
check_eq "limit 10: 10 records" 10 "$(outstanding /tmp/lim)"
check "limit 10: 90 records dropped" grep -q '^traced .*, 10 outstanding (2480 bytes), 90 records dropped$' /tmp/lim
check_eq "limit 10: counted as limit reached" "drops: limit reached 90" "$(sed -n '/^drops:/p' /tmp/lim)"
st stop stalefree_a
st reset stalefree_a
check_eq "limit 1000000" ok "$(ctl_errno 'limit 1000000')"

# --- The pool.
check_eq "pool 15 is refused" "Numerical result out of range" "$(ctl_errno 'pool 15')"
check_eq "pool 12k is refused" "Invalid argument" "$(ctl_errno 'pool 12k')"
check_eq "pool 64" ok "$(ctl_errno 'pool 64')"
check "stats show the pool size" grep -q '^pool free [0-9]* per_cpu 64 allocated [0-9]*$' $ST/slab/stats
check_eq "pool 4096" ok "$(ctl_errno 'pool 4096')"

# --- Sessions of one login user read its latest print (dumps.sh has the
# rest of whose print a reader sees).
st start kmalloc-64
st start kmalloc-128
rm -f /tmp/p1 /tmp/p2
mkfifo /tmp/p1 /tmp/p2
setsid sh -c "echo print kmalloc-64 > $ST/ctl && echo printed > /tmp/p1; read go < /tmp/p2; head -n 1 $ST/ctl > /tmp/s1" &
read printed < /tmp/p1
setsid sh -c "echo print kmalloc-128 > $ST/ctl && head -n 1 $ST/ctl > /tmp/s2"
echo go > /tmp/p2
wait
check_eq "session 1 reads the user's latest print, session 2's" "Dumping outstanding allocs from kmalloc-128" "$(cat /tmp/s1)"
check_eq "session 2 reads its print" "Dumping outstanding allocs from kmalloc-128" "$(cat /tmp/s2)"
st print kmalloc-64
check "this session's print shows" grep -q '^Dumping outstanding allocs from kmalloc-64$' $ST/ctl
st reset kmalloc-64
check_eq "reset frees the snapshot: ctl says there is none" \
	"No snapshot yet for this login user: print takes one." "$(head -n 1 $ST/ctl)"
check "reset frees the snapshot: no object left to read" \
	sh -c "cat $ST/ctl > /tmp/pp-reset && ! grep -q '^Obj ' /tmp/pp-reset"
st stop kmalloc-64
st stop kmalloc-128
st reset kmalloc-64
st reset kmalloc-128

# --- slabtrace's own allocations are not recorded, even through kernel
# helpers: the command's buffers (memdup_user_nul(), argv_split()) exist
# while "print" runs, and the ctl file held open has its debugfs state.
st start kmalloc-32
st start kmalloc-64
st start kmalloc-512
exec 3< $ST_DEBUGFS/ctl
for c in kmalloc-32 kmalloc-64 kmalloc-512; do
	dump $c /tmp/own-$c
	check_eq "$c: no record made through slabtrace" 0 "$(grep -c '\[slabtrace\]' /tmp/own-$c)"
	check_eq "$c: no debugfs proxy of ctl" 0 "$(grep -c 'full_proxy_open' /tmp/own-$c)"
done
exec 3<&-
for c in kmalloc-32 kmalloc-64 kmalloc-512; do
	st stop $c
	st reset $c
done

# --- io_uring's worker threads: not in the system call of their process.
st start filp
rm -f /tmp/iou /tmp/iou.out
mkfifo /tmp/iou
iou_open /tests/lib.sh 5 /tmp/iou > /tmp/iou.out 2>&1 &
iou=$!
check "io_uring: 5 files opened through io_uring" until_true 20 grep -q '^opened 5$' /tmp/iou.out
dump filp /tmp/filp
cp /tmp/filp /out/filp-iouring.txt
check "io_uring: the 5 opens were made by a worker, named as such" \
	test "$(grep -c '^Obj .*, from worker iou-wrk-[0-9]* (PID [0-9]*):$' /tmp/filp)" -ge 5
check "io_uring: no worker's object is put in a system call" \
	sh -c "! grep '^Obj .*from worker iou-wrk-' /tmp/filp | grep -q 'in syscall'"
# The FIFO has a reader only while iou_open lives: never block on it.
echo done > /tmp/iou &
echo_pid=$!
wait $iou
kill $echo_pid 2>/dev/null
st stop filp
st reset filp

# --- "merged" only when two names share a cache.  A lonely mergeable cache:
# a symlink to a unique-id directory that no other name points to.
# Generic KASAN (the debug kernel) makes every cache unmergeable: no
# symlink at all in /sys/kernel/slab.
if [ -z "$(find /sys/kernel/slab -maxdepth 1 -type l | head -n 1)" ]; then
	skip_checks "a lonely mergeable cache: this kernel merges no cache"
else
	lonely=
	for l in /sys/kernel/slab/*; do
		[ -L "$l" ] || continue
		t=$(readlink "$l")
		[ "$(for o in /sys/kernel/slab/*; do [ -L "$o" ] && [ "$(readlink "$o")" = "$t" ] && echo x; done | wc -l)" = 1 ] || continue
		lonely=${l##*/}
		break
	done
	check "a lonely mergeable cache exists (${lonely:-none})" test -n "$lonely"
	dmesg -c > /dev/null
	st start "$lonely"
	check "start: a lonely cache is not called merged" sh -c "! dmesg | grep -q 'merged with other caches'"
	dump "$lonely" /tmp/lonely
	check "its dump shares it with nobody" sh -c "! grep -q '^shared with' /tmp/lonely"
	st stop "$lonely"
	st reset "$lonely"
fi

# --- A snapshot a reader still holds keeps its frames' names when their
# module goes, though no record and no session's snapshot has them any
# more: leaky's 5 buffers printed, one line read, the records and the
# session's snapshot dropped by a reset, leaky unloaded; then read on.
check "insmod leaky.ko" insmod $MODDIR/leaky.ko
st start kmalloc-64
echo "bufs 5" > $LEAKY
st print kmalloc-64
exec 4< $ST/ctl
read -r head <&4
check_eq "a reader starts on kmalloc-64's snapshot" "Dumping outstanding allocs from kmalloc-64" "$head"
st reset kmalloc-64
echo free > $LEAKY
check "rmmod leaky while a reader holds a snapshot of its buffers" rmmod leaky
cat <&4 > /tmp/held
exec 4<&-
cp /tmp/held /out/held.txt
check_eq "the reader still names #01 of the 5 buffers leaky_alloc_buf [leaky]" 5 \
	"$(grep -c '^ #01 \[<[0-9a-f]*>\] in leaky_alloc_buf+0x[0-9a-f]*/0x[0-9a-f]* \[leaky\]$' /tmp/held)"
st stop kmalloc-64
st reset kmalloc-64

# --- A usermode helper's allocations before its exec: its task was forked
# from a kernel thread, is no kernel thread itself, and is in no system
# call (whatever its zeroed registers would say).
check "insmod leaky.ko" insmod $MODDIR/leaky.ko
st start leaky_widget
check "3 usermode helpers each made a widget" sh -c "echo 'helper 3' > $LEAKY"
dump leaky_widget /tmp/umh
cp /tmp/umh /out/umh.txt
awk '/^Obj /{ obj = $0 } /^ #02 /{ if (index($0, " in leaky_helper_setup+")) print obj }' /tmp/umh > /tmp/umh-objs
check_eq "the 3 widgets made in leaky_helper_setup() are listed" 3 "$(wc -l < /tmp/umh-objs)"
check_eq "... each from a task (PID N comm)" 3 "$(grep -c ', from PID [0-9]* [^ ]*:$' /tmp/umh-objs)"
check_eq "... none in a system call" 0 "$(grep -c ' in syscall ' /tmp/umh-objs)"
echo free > $LEAKY
st stop leaky_widget
st reset leaky_widget

# --- Names: 4200 of them (more than the 4093 a table of interned names
# held before it had to sweep), each allocating and freeing a widget;
# a name that comes later is shown, not "?".
st start leaky_widget
check_eq "kpt_probe: 4200 names churned widgets" "names=4200" "$(kpt_probe -W $LEAKY -c 4200)"
check_eq "a new name keeps a widget" "kept=1" "$(kpt_probe -n ctx_fresh -W $LEAKY -K)"
dump leaky_widget /tmp/ctx; cp /tmp/ctx /out/contexts_dump.txt
check_eq "its widget shows its name, not ?" 1 "$(grep -c '^Obj .* PID [0-9]* ctx_fresh' /tmp/ctx)"
check_eq "no widget left shows ?" 0 "$(grep -c '^Obj .* PID [0-9]* ?' /tmp/ctx)"
st stop leaky_widget
st reset leaky_widget
check "rmmod leaky" rmmod leaky

check "rmmod stalefree" rmmod stalefree
check "rmmod slabtrace" rmmod slabtrace
finish
