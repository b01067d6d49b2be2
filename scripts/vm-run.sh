#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Boot a Debian kernel under QEMU with a busybox initramfs holding our modules
# and guest tests, run the named tests, and judge the console.
#
#   scripts/vm-run.sh [-o OUTDIR] [-t SECONDS] [-k] KVER TEST[,TEST...]
#
# KVER is 6.1 or 6.12; the modules must already be built in build/KVER/
# (make KVER=... test-modules).  Each TEST is scripts/guest/TEST.sh.
# Files the guest leaves in /out are copied (tar over the second serial
# port) to OUTDIR.  -k keeps the console log in OUTDIR even on success.
#
# The run fails on: a FAIL line, a test exiting non-zero, a missing END or
# DONE marker (guest hung, crashed or timed out), or a kernel splat in the
# console.  The last line is "vm KVER: N passed, N failed".
#
# The guest's crng is not ready when the tests run (TCG, no entropy
# device), and %p would print "(____ptrval____)" until it is: the kernel
# is booted with debug_boot_weak_hash, which hashes pointers without it.
#
# SLABTRACE_ACCEL overrides the accelerator (default tcg,thread=single; KVM
# cannot boot these kernels on this project's machines).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
out=
tmo=600
keep=
while getopts o:t:k opt; do
	case $opt in
	o) out=$OPTARG ;;
	t) tmo=$OPTARG ;;
	k) keep=1 ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
kver=${1:?usage: vm-run.sh [-o OUTDIR] [-t SECONDS] KVER TEST[,TEST...]}
tests=${2:?no tests named}
accel=${SLABTRACE_ACCEL:-tcg,thread=single}

kdir=$("$top/scripts/fetch-kernel.sh" "$kver")
bdir=$top/build/$kver
work=$(mktemp -d "${TMPDIR:-/tmp}/slabtrace-vm.XXXXXX")
trap 'rm -rf "$work"' EXIT

# initramfs: busybox, init, guest tests, our modules, guest programs.
root=$work/root
mkdir -p "$root/bin" "$root/sbin" "$root/proc" "$root/sys" "$root/dev" \
	"$root/tmp" "$root/tests" "$root/lib/slabtrace" "$root/out"
cp /bin/busybox "$root/bin/busybox"
cp "$top/scripts/guest/init" "$root/init"
cp "$top"/scripts/guest/*.sh "$root/tests/"
chmod 755 "$root/init"
for ko in "$bdir"/*.ko; do
	[ -e "$ko" ] && cp "$ko" "$root/lib/slabtrace/"
done
if [ -d "$bdir/bin" ]; then
	cp -r "$bdir/bin/." "$root/bin/"
fi
(cd "$root" && find . | cpio -o -H newc --quiet) > "$work/initrd.cpio"
gzip -1 "$work/initrd.cpio"
mv "$work/initrd.cpio.gz" "$work/initrd"

console=$work/console.log
: > "$work/out.tar"
rc=0
timeout --foreground "$tmo" qemu-system-x86_64 \
	-accel "$accel" -smp 2 -m 1024 -nodefaults -display none \
	-no-reboot -monitor none \
	-kernel "$kdir/vmlinuz" -initrd "$work/initrd" \
	-append "console=ttyS0 panic=-1 loglevel=7 debug_boot_weak_hash st_tests=$tests" \
	-serial "file:$console" -serial "file:$work/out.tar" \
	< /dev/null > "$work/qemu.log" 2>&1 || rc=$?

unpacked=1
if [ -n "$out" ]; then
	mkdir -p "$out"
	if [ -s "$work/out.tar" ] && ! tar -C "$out" -xf "$work/out.tar"; then
		unpacked=0
	fi
fi

sed -e 's/\r$//' "$console" > "$work/console.txt"
exec 3>&1
judge() {
	c=$work/console.txt
	grep -E '^(PASS|FAIL): ' "$c" || true
	npass=$(grep -c '^PASS: ' "$c" || true)
	nfail=$(grep -c '^FAIL: ' "$c" || true)
	if [ "$rc" -eq 124 ]; then
		echo "FAIL: vm: guest timed out after ${tmo}s"
		nfail=$((nfail + 1))
	elif [ "$rc" -ne 0 ]; then
		echo "FAIL: vm: qemu exited with $rc: $(tail -n 3 "$work/qemu.log")"
		nfail=$((nfail + 1))
	fi
	for t in $(echo "$tests" | tr , ' '); do
		end=$(grep "^ST-VM: END $t rc=" "$c" | tail -n 1)
		case $end in
		*" rc=0") ;;
		"") echo "FAIL: vm: test $t did not finish"
		    nfail=$((nfail + 1)) ;;
		*) if ! grep -q "^FAIL: $t: " "$c"; then
			echo "FAIL: vm: test $t exited ${end##* }"
			nfail=$((nfail + 1))
		   fi ;;
		esac
	done
	if [ "$unpacked" -eq 0 ]; then
		echo "FAIL: vm: could not unpack the guest's /out"
		nfail=$((nfail + 1))
	fi
	if ! grep -q '^ST-VM: DONE' "$c"; then
		echo "FAIL: vm: guest did not reach DONE"
		nfail=$((nfail + 1))
	fi
	splat='BUG:|WARNING:|Oops|general protection|KASAN|lockdep|possible recursive locking|RCU stall|rcu_.*detected stall|self-detected stall|list_add corruption|list_del corruption|Kernel panic|Call Trace:|blocked for more than'
	if grep -Eq "$splat" "$c"; then
		echo "FAIL: vm: kernel splat in the console:"
		grep -En "$splat" "$c" | head -n 20 | sed 's/^/    /'
		nfail=$((nfail + 1))
	else
		echo "PASS: vm: console free of splats"
		npass=$((npass + 1))
	fi
	echo "vm $kver: $npass passed, $nfail failed"
	[ "$nfail" -eq 0 ]
}
status=0
judge || status=1
if [ -n "$out" ] && { [ "$status" -ne 0 ] || [ -n "$keep" ]; }; then
	cp "$work/console.txt" "$out/console.log"
fi
if [ "$status" -ne 0 ] && [ -z "$out" ]; then
	echo "--- console (last 60 lines) ---"
	tail -n 60 "$work/console.txt"
fi
exit $status
