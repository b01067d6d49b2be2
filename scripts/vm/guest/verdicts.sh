# SPDX-License-Identifier: GPL-2.0
# Leak verdicts: with "start all" for a minute over a warmed, steady file
# system and process workload, the requests module's four handlers run at
# a steady rate; after 30 s and at the end (60 s, and the views' time),
# exactly its two leaking handlers (errpath forgets 1 object in 8, nofree
# never frees) are judged leaks, its ring (256, oldest freed) and
# deferred (2 s) handlers live, and no other stack of any cache a leak.
# The per-object view, the slabtrace command and the folded stacks carry
# the verdicts.  A trace stopped while the leaks go on leaves them leaks.
. /tests/lib.sh

REQ=/sys/kernel/debug/requests/ctl
check "insmod slabtrace.ko" insmod $MODDIR/slabtrace.ko
check "insmod requests.ko" insmod $MODDIR/requests.ko

# The same file system and process work, round after round.
work() {
	d=/tmp/steady
	mkdir -p $d/a/b/c
	i=0
	while [ $i -lt 10 ]; do
		echo "line $i" > $d/a/b/c/f$i
		cat $d/a/b/c/f$i > /dev/null
		i=$((i + 1))
	done
	cp -r $d/a $d/copy
	ls -lR $d > /dev/null
	rm -rf $d/copy
	tar -cf $d.tar -C $d a 2> /dev/null
	rm -f $d.tar
	sh -c 'echo hi | wc -c' > /dev/null
	ps > /dev/null
}
# Warmed: the caches it fills are full before the trace.
for i in 1 2 3; do work; done
rm -f /tmp/steady.stop

# The test's own files are made before the trace and rewritten in place
# (": >", "cat >"; dump and cp would make new ones): a shell keeping a new
# file for each view is a steadily growing set of inodes, which a slow
# guest (6.1-arm64, 8 of them past 1 s) rightly judged a leak.
files="/tmp/mid /tmp/end /tmp/objs /tmp/nofree /tmp/cli-top /tmp/cli
	/tmp/cli.json /tmp/folded /out/verdicts-30s.txt /out/verdicts-end.txt
	/out/verdicts-top.txt /out/verdicts-leaks.txt /out/verdicts.folded
	/out/verdicts-cli.txt /out/verdicts-cli.json /out/verdicts-stopped.txt"
touch $files
# view "CACHE [OPTION...]" FILE: dump's print, into FILE in place.
view() {
	: > "$2"
	if st print "$1"; then
		cat "$ST/ctl" > "$2"
	else
		fail "print $1"
	fi
}
(while [ ! -e /tmp/steady.stop ]; do work; done; : > /tmp/steady.done) &

st start all
check "requests: run 50 a second" sh -c "echo run 50 > $REQ"
t0=$(date +%s)

# leaks FILE: "CACHE #01-function" of each stack the stacks view FILE
# judges a leak (the word leak in its first line), sorted, on one line
# ("; " between them): a failure's message shows them all.
leaks() {
	awk '/^Dumping outstanding allocs from /{ c = $5 }
	     /^Stack [0-9]+: /{ l = ($0 ~ /[^A-Za-z_]leak[^A-Za-z_]/) }
	     / #01 /{ if (l) { f = $0; sub(/.* in /, "", f); sub(/[+.].*/, "", f); print c, f }; l = 0 }' "$1" |
		sort | awk '{ printf "%s%s", s, $0; s = "; " }'
}
# misjudged FILE: the header of every stack outside requests_obj that FILE
# judges a leak, with its evidence, for the log of a failed run.
misjudged() {
	awk '/^Dumping outstanding allocs from /{ c = $5 }
	     /^Stack [0-9]+: / && c != "requests_obj" && $0 ~ /: leak \(/{ print "misjudged: " c ": " $0 }' "$1"
}
# verdict FILE FUNC: the verdict word of the stack whose frame #01 is FUNC.
verdict() {
	awk -v f="$2" '/^Stack [0-9]+: /{ h = $0 }
		/ #01 /{ if (index($0, " in " f "+") || index($0, " in " f ".")) { sub(/.*\): /, "", h); sub(/[ :].*/, "", h); print h } }' "$1"
}
# judged WHEN FILE: the checks of one print of every stack.
judged() {
	check_eq "$1: exactly errpath and nofree are judged leaks" \
		"requests_obj requests_errpath; requests_obj requests_nofree" \
		"$(leaks "$2")"
	misjudged "$2"
	check_eq "$1: errpath: leak (error path)" "leak (error path)" \
		"$(awk '/^Stack /{ h = $0 } / #01 .* in requests_errpath[+.]/{ print h }' "$2" | sed -n 's/.*: \(leak (error path)\): .*/\1/p')"
	check_eq "$1: nofree: leak (growing)" "leak (growing)" \
		"$(awk '/^Stack /{ h = $0 } / #01 .* in requests_nofree[+.]/{ print h }' "$2" | sed -n 's/.*: \(leak (growing)\): .*/\1/p')"
	check_eq "$1: ring: live" live "$(verdict "$2" requests_ring)"
	check_eq "$1: deferred: live" live "$(verdict "$2" requests_deferred)"
	# The figure: how the stacks of every cache were judged.
	awk -v w="$1" '/^verdicts: /{ l += $2; v += $4; k += $6; u += $8; c++ }
		END { printf "verdicts: %s: %d caches, %d stacks: %d leak, %d live, %d kept, %d unknown\n", w, c, l + v + k + u, l, v, k, u }' "$2"
}

until_true 60 sh -c "[ \$((\$(date +%s) - $t0)) -ge 30 ]"
view "all stacks" /tmp/mid
cat $REQ
judged "after 30 s" /tmp/mid
cat /tmp/mid > /out/verdicts-30s.txt

until_true 60 sh -c "[ \$((\$(date +%s) - $t0)) -ge 60 ]"
# After 60 s, the handlers still running (once they stop, the leaks'
# arrivals end and, a quarter of the trace later, they are "kept": a
# slow guest, arm64 under TCG, gets there while these views are made),
# the per-object view names each object's stack and its verdict, and
# lists each stack's evidence in its header.
view requests_obj /tmp/objs
check "objects: the header counts the verdicts" \
	grep -q '^verdicts: 2 leak, 2 live, 0 kept, 0 unknown$' /tmp/objs
awk '/^Obj /{ o = $0 } / #01 .* in requests_nofree[+.]/{ print o }' /tmp/objs > /tmp/nofree
check "objects: nofree's each say leak ($(wc -l < /tmp/nofree))" \
	test -s /tmp/nofree -a "$(grep -vc ', stack [0-9]* (leak), from ' /tmp/nofree)" = 0
awk '/^Obj /{ o = $0 } / #01 .* in requests_ring[+.]/{ print o }' /tmp/objs > /tmp/ring
check "objects: ring's each say live ($(wc -l < /tmp/ring))" \
	test -s /tmp/ring -a "$(grep -vc ', stack [0-9]* (live), from ' /tmp/ring)" = 0
s=$(awk '/^Obj /{ o = $0 } / #01 .* in requests_errpath[+.]/{ print o; exit }' /tmp/objs | sed -n 's/.*, stack \([0-9]*\) (leak), .*/\1/p')
check "objects: errpath's stack has its evidence in the header" \
	grep -q "^stack ${s:-none}: leak (error path): " /tmp/objs

# The command: leaking stacks first, the count of each verdict, only the
# leaks on request.
slabtrace top -c requests_obj > /tmp/cli-top 2>&1
check_eq "slabtrace top: leaking stacks first" "leak leak live live" \
	"$(awk '/^ +[0-9]+ / { printf "%s%s", s, $6; s = " " }' /tmp/cli-top)"
check "slabtrace top: the count of each verdict" \
	grep -q '^verdicts of its stacks: 2 leak, 2 live, 0 kept, 0 unknown$' /tmp/cli-top
slabtrace leaks -c requests_obj --only-leaks > /tmp/cli 2>&1
check_eq "slabtrace leaks --only-leaks: the two leaking stacks" "leak leak" \
	"$(awk '/^ +[0-9]+ / { printf "%s%s", s, $6; s = " " }' /tmp/cli)"
check "slabtrace leaks: each with its evidence" grep -q '^       leak (error path): ' /tmp/cli
slabtrace top -c requests_obj --json > /tmp/cli.json 2>&1
check "slabtrace top --json: a verdict per stack" \
	grep -q '"verdict": "leak", "evidence": "leak (error path): ' /tmp/cli.json
cat /tmp/cli-top > /out/verdicts-top.txt
slabtrace leaks -c requests_obj > /out/verdicts-leaks.txt 2>&1
cat $ST/slab/folded > /tmp/folded
check_eq "folded: the two leaks end in [leak]" 2 "$(grep -c ';\[leak\] [0-9]*$' /tmp/folded)"
cat /tmp/folded > /out/verdicts.folded
cat /tmp/cli > /out/verdicts-cli.txt
cat /tmp/cli.json > /out/verdicts-cli.json

# The end of the run: every stack judged again, at once (the deferred
# handler's last objects outlive its tau of 16 s if left waiting).
check "requests: stop" sh -c "echo stop > $REQ"
view "all stacks" /tmp/end
cat $REQ
judged "at the end" /tmp/end
cat /tmp/end > /out/verdicts-end.txt
grep '^lifetimes ' $ST/slab/stats
: > /tmp/steady.stop
until_true 60 test -e /tmp/steady.done

st stop all
st reset all

# A stopped trace: requests_obj traced 20 s, the handlers running on, then
# stopped; 15 s later, past a quarter of the trace, its two leaks are still
# leaks: the bins since the stop are empty because nothing was recorded,
# not because the arrivals ended (a module that judged them so called them
# kept, "levelled off").
check "requests: run 50 a second again" sh -c "echo run 50 > $REQ"
st start requests_obj
t1=$(date +%s)
until_true 60 sh -c "[ \$((\$(date +%s) - $t1)) -ge 20 ]"
st stop requests_obj
t2=$(date +%s)
until_true 60 sh -c "[ \$((\$(date +%s) - $t2)) -ge 15 ]"
view "requests_obj stacks" /tmp/end
cat /tmp/end > /out/verdicts-stopped.txt
check_eq "stopped 15 s: nofree: leak (growing)" "leak (growing)" \
	"$(awk '/^Stack /{ h = $0 } / #01 .* in requests_nofree[+.]/{ print h }' /tmp/end | sed -n 's/.*: \(leak (growing)\): .*/\1/p')"
check_eq "stopped 15 s: errpath: leak (error path)" "leak (error path)" \
	"$(awk '/^Stack /{ h = $0 } / #01 .* in requests_errpath[+.]/{ print h }' /tmp/end | sed -n 's/.*: \(leak (error path)\): .*/\1/p')"
check "requests: stop again" sh -c "echo stop > $REQ"
st reset requests_obj

check "rmmod requests" rmmod requests
check "rmmod slabtrace" rmmod slabtrace
finish
