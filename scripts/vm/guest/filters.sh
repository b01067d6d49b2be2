# SPDX-License-Identifier: GPL-2.0
# Trace-time filters and sampling.  Of two processes allocating leaky widgets, only the
# one a filter names (by pid, by command name, by cgroup v2 path) has
# records; the other's allocations are counted as left out, in the dump's
# header, the stats and the status; bad filters are refused with their
# errno and one log line.  "sample 10" records about 1 in 10 widgets,
# "sample-bytes 2048" about 1 - exp(-208 / 2048) of them, within stated
# bounds, and the header gives the estimate.
. /tests/lib.sh

check "insmod slabtrace.ko" insmod $MODDIR/slabtrace.ko
check "insmod leaky.ko" insmod $MODDIR/leaky.ko

# widgets_by FILE: the PIDs of the widgets' "from PID N" fields, sorted.
widgets_by() {
	objs_from "$1" leaky_alloc_widget | sed -n 's/.*, from PID \([0-9]*\) .*/\1/p' | sort | uniq -c |
		awk '{ print $2 "x" $1 }' | tr '\n' ' '
}

# Two processes: A waits for /tmp/go-a, then allocates 3 widgets; this
# shell allocates 5.  Only A's pid is traced.
rm -f /tmp/go-a
sh -c 'echo $$ > /tmp/pid-a; while [ ! -e /tmp/go-a ]; do sleep 0.05; done; echo widgets 3 > '$LEAKY &
until_true 10 test -s /tmp/pid-a
a=$(cat /tmp/pid-a)
check "start leaky_widget pid $a" st start leaky_widget pid "$a"
echo widgets 5 > $LEAKY
touch /tmp/go-a
wait
dump leaky_widget /tmp/pid
cp /tmp/pid /out/filters-pid.txt
check_eq "pid: only A's 3 widgets" "${a}x3 " "$(widgets_by /tmp/pid)"
check "pid: the header says the filter and what it left out" \
	grep -q "^filter: pid $a; [0-9]* allocations left out\$" /tmp/pid
left=$(sed -n 's/^filter: .*; \([0-9]*\) allocations left out$/\1/p' /tmp/pid)
check "pid: this shell's 5 widgets among those left out ($left)" test "${left:-0}" -ge 5
check "stats count them" grep -q "^cache leaky_widget tracing .* filtered $left\$" $ST/slab/stats
check "status says the filter" grep -q "^cache leaky_widget: tracing, .*, filter pid $a ($left left out)\$" $ST/status
check "reset leaky_widget (the filter stays)" st reset leaky_widget

# A pid written from a pid namespace of its own (a container's root
# numbers its processes from 1): the process it names there, not the one
# of that number in the initial namespace (init).  The shell, pid 1 in
# its namespace, traces "pid 1" and allocates 4 widgets; a pid with no
# process in the writer's namespace is refused.
unshare -p -f sh -c "echo start leaky_widget pid 1 > $ST/ctl && echo widgets 4 > $LEAKY"
dump leaky_widget /tmp/nspid
cp /tmp/nspid /out/filters-nspid.txt
ns=$(sed -n 's/^filter: pid \([0-9]*\);.*/\1/p' /tmp/nspid)
check "pid namespace: the filter is of the writer's pid 1, not of init ($ns)" \
	test "${ns:-1}" -gt 1
check_eq "pid namespace: its 4 widgets" "${ns}x4 " "$(widgets_by /tmp/nspid)"
err=$(unshare -p -f sh -c "echo start leaky_widget pid 99 > $ST/ctl" 2>&1)
check_eq "pid namespace: a pid with no process there refused" "No such process" "${err##*: }"
logged "ctl: start: no process 99 in the writer's pid namespace"
check "reset leaky_widget" st reset leaky_widget

# comm: a shell renamed "leakyB" allocates 2, this one 4.
sh -c 'printf leakyB > /proc/self/comm; echo widgets 2 > '$LEAKY
check "start leaky_widget comm leakyB" st start leaky_widget comm leakyB
sh -c 'printf leakyB > /proc/self/comm; echo widgets 2 > '$LEAKY
echo widgets 4 > $LEAKY
dump leaky_widget /tmp/comm
cp /tmp/comm /out/filters-comm.txt
check_eq "comm: only leakyB's 2 widgets" 2 \
	"$(objs_from /tmp/comm leaky_alloc_widget | grep -c ', from PID [0-9]* leakyB in syscall write:$')"
check_eq "comm: nothing else" 2 "$(nobjs /tmp/comm)"
check "comm: the header says it" grep -q '^filter: comm leakyB; [0-9]* allocations left out$' /tmp/comm

# cgroup: a shell moved into /lk allocates 6, this one 1.
mkdir -p /sys/fs/cgroup
if mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null && mkdir /sys/fs/cgroup/lk; then
	check "start leaky_widget cgroup /lk" st start leaky_widget cgroup /lk
	check "reset leaky_widget" st reset leaky_widget
	sh -c 'echo $$ > /sys/fs/cgroup/lk/cgroup.procs; echo widgets 6 > '$LEAKY
	echo widgets 1 > $LEAKY
	dump leaky_widget /tmp/cg
	cp /tmp/cg /out/filters-cgroup.txt
	check_eq "cgroup: only the 6 widgets of the task in /lk" 6 "$(nobjs /tmp/cg)"
	check "cgroup: the header says it" grep -q '^filter: cgroup /lk; [0-9]* allocations left out$' /tmp/cg
	check_eq "cgroup: no such cgroup" "No such file or directory" \
		"$(ctl_errno 'start leaky_widget cgroup /no-such')"
	check_eq "cgroup: a file, not a cgroup" "Not a directory" \
		"$(ctl_errno 'start leaky_widget cgroup /lk/cgroup.procs')"
	logged "ctl: start: no cgroup /no-such in the cgroup v2 hierarchy (-2)" \
		"ctl: start: no cgroup /lk/cgroup.procs in the cgroup v2 hierarchy (-20)"
else
	skip_checks "cgroup: no cgroup v2 to mount on this kernel"
fi

# No filter: everyone's again.
check "start leaky_widget (no filter)" st start leaky_widget
check "reset leaky_widget" st reset leaky_widget
echo widgets 1 > $LEAKY
dump leaky_widget /tmp/all
check "no filter line" sh -c "! grep -q '^filter: ' /tmp/all"
check_eq "the widget is recorded" 1 "$(nobjs /tmp/all)"

# Sampling: 1 in 10 of 2000 widgets.  The records are Binomial(2000,
# 1/10): mean 200, sigma sqrt(2000 * 0.1 * 0.9) = 13.4; 4 sigma either way
# (54) fails a correct sampler once in about 16,000 runs (2 (1 - Phi(4))
# = 6.3e-5).
check "stop leaky_widget" st stop leaky_widget
check "reset leaky_widget" st reset leaky_widget
check "start leaky_widget sample 10" st start leaky_widget sample 10
echo widgets 2000 > $LEAKY
dump leaky_widget /tmp/sampled
cp /tmp/sampled /out/filters-sampled.txt
n=$(outstanding /tmp/sampled)
check "sampled: $n records of 2000 widgets, within 200 +- 54" test "${n:-0}" -ge 146 -a "${n:-0}" -le 254
size=$(sed -n 's/^Obj [^,]*, \([0-9]*\) bytes .*/\1/p' /tmp/sampled | head -n 1)
check "sampled: the header gives the estimate" \
	grep -q "^sampled 1 in 10: estimated $((n * 10)) outstanding ($((n * 10 * ${size:-0})) bytes); the counts below are of records\$" /tmp/sampled
check "status says the rate" grep -q '^cache leaky_widget: tracing, .*, sampled 1 in 10$' $ST/status
check_eq "another rate while records are kept" "Device or resource busy" \
	"$(ctl_errno 'start leaky_widget sample 5')"
check_eq "a rate of 1" "Numerical result out of range" "$(ctl_errno 'start leaky_widget sample 1')"
check "stop leaky_widget" st stop leaky_widget
check "reset leaky_widget" st reset leaky_widget

# Sampling by bytes: 2000 widgets of 208 bytes with sample-bytes 2048, each
# recorded with p = 1 - exp(-208 / 2048) = 0.0965753: the records are
# Binomial(2000, p), mean 193.2, sigma 13.2; 4 sigma either way (141..245)
# fails a correct sampler once in about 16,000 runs.  The header's estimate
# is the records over p (1e9 p = 96575286; the module's fixed point is
# within 1e-7 of it).
check "start leaky_widget sample-bytes 2048" st start leaky_widget sample-bytes 2048
echo widgets 2000 > $LEAKY
dump leaky_widget /tmp/sampled-bytes
cp /tmp/sampled-bytes /out/filters-sampled-bytes.txt
n=$(outstanding /tmp/sampled-bytes)
size=$(sed -n 's/^Obj [^,]*, \([0-9]*\) bytes .*/\1/p' /tmp/sampled-bytes | head -n 1)
check_eq "a widget is 208 bytes" 208 "$size"
check "sampled by bytes: $n records of 2000 widgets, within 193 +- 52" \
	test "${n:-0}" -ge 141 -a "${n:-0}" -le 245
est=$(sed -n 's/^sampled 1 per 2048 bytes: estimated \([0-9]*\) outstanding .*records$/\1/p' /tmp/sampled-bytes)
want=$(((${n:-0} * 1000000000 + 48287643) / 96575286))
check "sampled by bytes: the header estimates $est, records / p = $want" \
	test "${est:-0}" -ge $((want - 1)) -a "${est:-0}" -le $((want + 1))
check "status says sample-bytes" grep -q '^cache leaky_widget: tracing, .*, sampled 1 per 2048 bytes$' $ST/status
check_eq "sample N while sampled by bytes" "Device or resource busy" \
	"$(ctl_errno 'start leaky_widget sample 10')"
check_eq "sample and sample-bytes" "Invalid argument" \
	"$(ctl_errno 'start leaky_widget sample 10 sample-bytes 2048')"
check_eq "sample-bytes 63" "Numerical result out of range" \
	"$(ctl_errno 'start leaky_widget sample-bytes 63')"
check "stop leaky_widget" st stop leaky_widget
check "reset leaky_widget" st reset leaky_widget

check_eq "a bad pid" "Invalid argument" "$(ctl_errno 'start leaky_widget pid 0x5')"
logged "ctl: start: bad pid '0x5'"
# Above any pid: ERANGE, as every number too big for its field.
check_eq "pid 4194304" "Numerical result out of range" "$(ctl_errno 'start leaky_widget pid 4194304')"
check_eq "pid 99999999999" "Numerical result out of range" \
	"$(ctl_errno 'start leaky_widget pid 99999999999')"
logged "ctl: start: pid '4194304' is not in 1..4194303" \
	"ctl: start: pid '99999999999' is not in 1..4194303"
check_eq "an unknown filter" "Invalid argument" "$(ctl_errno 'start leaky_widget uid 0')"
logged "ctl: start: a filter is 'pid PID...' (at most 8), 'comm NAME' or 'cgroup PATH'"
check_eq "a relative cgroup path" "Invalid argument" "$(ctl_errno 'start leaky_widget cgroup lk')"

check "stop leaky_widget" st stop leaky_widget
check "reset leaky_widget" st reset leaky_widget
check "rmmod leaky" rmmod leaky
check "rmmod slabtrace" rmmod slabtrace
finish
