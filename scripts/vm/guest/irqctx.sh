# SPDX-License-Identifier: GPL-2.0
# Interrupt allocations: the irqalloc module (scripts/test-modules/irqalloc.c) keeps
# known numbers of kmalloc(50) objects made in task, softirq (a timer) and
# hardirq (an hrtimer) context while its threads churn kmalloc-64 on every
# CPU, so that most interrupts land inside the allocator and slabtrace's
# probe.  slabtrace must list every object the module keeps, in the right
# context; booted with slub_debug=U,kmalloc-64, SLUB's own alloc_traces
# must count the same by call site.
. /tests/lib.sh

IA=/sys/kernel/debug/irqalloc/state
AT=/sys/kernel/debug/slab/kmalloc-64/alloc_traces

check "insmod slabtrace.ko" insmod $MODDIR/slabtrace.ko
st start kmalloc-64
check "insmod irqalloc.ko" insmod $MODDIR/irqalloc.ko
done_() { grep -q ' done$' $IA; }
check "irqalloc kept all its objects" until_true 120 done_
state=$(cat $IA)
echo "$state" > /out/irqalloc.txt
st stop kmalloc-64
dump kmalloc-64 /tmp/irq
cp /tmp/irq /out/irqctx.txt
[ -r $AT ] && cp $AT /out/irqctx-alloc_traces.txt

# kept SOURCE: what the module says it keeps.
kept() { echo "$state" | awk -v s="$1" '{ for (i = 1; i < NF; i += 2) if ($i == s) print $(i + 1) }'; }
hctx=$(kept hardirq_ctx)
check_eq "no record dropped" 0 "$(sed -n 's/^traced .*, \([0-9]*\) records dropped$/\1/p' /tmp/irq)"
for s in task softirq hardirq; do
	f=irqalloc_${s}_alloc
	n=$(kept $s)
	check "$s: irqalloc kept objects ($n)" test "${n:-0}" -gt 0
	check_eq "$s: slabtrace lists every object irqalloc keeps ($n)" "$n" "$(nobjs_from /tmp/irq $f)"
	objs_from /tmp/irq $f > /tmp/irq-$s
	case $s in
	task) want='from kthread irqalloc (PID [0-9]*):$' ;;
	*) [ $s = hardirq ] && c=$hctx || c=softirq
	   want="from $c:\$" ;;
	esac
	check_eq "$s: every one of them ${want%%:*}" "$n" "$(grep -c "$want" /tmp/irq-$s)"
	[ -r $AT ] || continue
	check_eq "$s: SLUB's alloc_traces count as many" "$n" \
		"$(awk -v f="$f" 'index($2, f "+") == 1 { n += $1 } END { print n + 0 }' $AT)"
done
[ -r $AT ] || skip_checks "SLUB's alloc_traces: no $AT (boot with slub_debug=U,kmalloc-64 to compare with SLUB)"
check "rmmod irqalloc" rmmod irqalloc
st reset kmalloc-64
check "rmmod slabtrace" rmmod slabtrace
finish
