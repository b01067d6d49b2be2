# SPDX-License-Identifier: GPL-2.0
# The shell examples of README.md and Documentation/first-five-minutes.rst,
# run in order against the real module, so that they cannot drift from what
# works.  scripts/vm/run.sh puts them in /tests/doc-examples.txt
# (scripts/lint/doc-examples.py: what an example is, and the markers; see
# testing.rst, "The guides' examples").  Each command runs as written, one
# after the other in one shell, in a directory of its own; it must exit 0
# (or what an "exit N" marker says), and each "expect" of its block must
# match a line of the block's output.  What cannot run here is marked in
# the guide and said in a SKIP line with the guide's reason.
#
# What the busybox VM lacks, given as a Debian machine has it: sudo (the
# test runs as root; scripts/tests/test_realdeb.sh runs README.md's
# commands with Debian's sudo), slabtrace.ko where modprobe finds it (as
# DKMS installs it), the demo module leaky loaded, and ./my-test, the
# README's workload: leaky keeps 3000 more kmalloc(50) buffers.
# Its time budget (scripts/vm/guest/init): 50 s on 6.12, more than 300 s
# on 6.1 beside five other guests on two cores.
# vm-budget: 900
. /tests/lib.sh

EX=/tests/doc-examples.txt
[ -e /sys/kernel/slab/kmalloc-64 ] ||
	skip "this kernel has no kmalloc-64 cache, which the examples trace"
[ -s $EX ] || { fail "no examples in $EX (scripts/lint/doc-examples.py failed on the host)"; finish; }
W=/tmp/examples
kv=$(uname -r)
mkdir -p $W/bin /lib/modules/$kv/updates
printf '#!/bin/sh\nexec "$@"\n' > $W/bin/sudo
printf '#!/bin/sh\necho 3000 > /sys/module/leaky/parameters/bufs\n' > $W/my-test
chmod 755 $W/bin/sudo $W/my-test
cp $MODDIR/slabtrace.ko /lib/modules/$kv/updates/
check "depmod (slabtrace.ko where modprobe finds it)" depmod
rmmod slabtrace 2> /dev/null
rmmod leaky 2> /dev/null
check "insmod leaky.ko (the examples' leaking module)" insmod $MODDIR/leaky.ko

# The commands, each between markers, in one shell of their own (its
# variables are named ex_*, out of the examples' way).
tab=$(printf '\t')
cat > $W/run.sh <<EOF
cd $W || exit 1
PATH=$W/bin:\$PATH
while IFS='$tab' read -r ex_kind ex_loc ex_block ex_sect ex_note ex_cmd <&3; do
	[ "\$ex_kind" = run ] || continue
	echo "EX-BEGIN \$ex_block \$ex_loc"
	eval "\$ex_cmd"
	echo "EX-END \$ex_block \$ex_loc rc=\$?"
done 3< $EX
EOF
sh $W/run.sh < /dev/null > /out/examples.log 2>&1

# out BLOCK: what the commands of block BLOCK printed.
out() {
	awk -v b="$1" '$1 == "EX-BEGIN" { on = ($2 == b); next }
		$1 == "EX-END" { on = 0; next } on' /out/examples.log
}

while IFS="$tab" read -r kind loc block _ note c; do
	what="$loc '$(echo "${c%%  #*}" | sed 's/[[:space:]]*$//')'"
	case $kind in
	skip)
		skip_checks "$what: $note" ;;
	run)
		want=$(awk -F"$tab" -v b="$block" '$1 == "exit" && $3 == b { print $6 }' $EX)
		check_eq "$what exits ${want:-0}" "${want:-0}" \
			"$(sed -n "s|^EX-END $block $loc rc=\([0-9]*\)$|\1|p" /out/examples.log)" ;;
	expect)
		if out "$block" | grep -Eq -- "$c"; then
			pass "$loc: the output has a line matching '$c'"
		else
			fail "$loc: no line of the output matches '$c'"
		fi ;;
	esac
done < $EX

rmmod slabtrace
rmmod leaky
rm -f /lib/modules/$kv/updates/slabtrace.ko
depmod
finish
