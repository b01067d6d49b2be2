#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run the KUnit suites on UML with the kernel's own kunit.py.
#
# Debian's kernels have CONFIG_KUNIT off and UML cannot load modules, so the
# suites run in a UML kernel built from Debian's linux-source-6.12 with this
# project linked into drivers/misc/slabtrace (symlinks, one Kconfig source
# line, one Makefile line; idempotent).  The tree and the build directory
# live in $SLABTRACE_CACHE (default ~/.cache/slabtrace), so reruns are warm.
#
#   scripts/check/kunit.sh [kunit.py run options...]
#
# SLABTRACE_KUNITCONFIG names another kunitconfig (relative to kunit-tests/)
# and gets a build directory of its own; scripts/bench/bench.sh uses that.
#
# The last line is "kunit: N passed, N failed, N skipped".
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${SLABTRACE_CACHE:-$HOME/.cache/slabtrace}
src=$("$top/scripts/kernels/linux-source.sh")

# The tree and its build directories are shared by every checkout using
# this cache: one run at a time, each with its own overlay.
mkdir -p "$cache"
exec 9> "$cache/kunit.lock"
flock 9

# Overlay this checkout.
d=$src/drivers/misc/slabtrace
mkdir -p "$d"
for f in Kbuild module include kunit-tests scripts; do
	ln -sfn "$top/$f" "$d/$f"
done
kc=$src/drivers/misc/Kconfig
grep -q 'drivers/misc/slabtrace/module/Kconfig' "$kc" ||
	sed -i '$ s|^endmenu$|source "drivers/misc/slabtrace/module/Kconfig"\nendmenu|' "$kc"
grep -q 'drivers/misc/slabtrace/module/Kconfig' "$kc" ||
	{ echo "kunit: could not add our Kconfig to $kc" >&2; exit 1; }
mf=$src/drivers/misc/Makefile
grep -q '^obj-$(CONFIG_SLABTRACE)' "$mf" ||
	echo 'obj-$(CONFIG_SLABTRACE)	+= slabtrace/' >> "$mf"

kconf=${SLABTRACE_KUNITCONFIG:-.kunitconfig}
case $kconf in
.kunitconfig) bdir=$cache/kunit-um ;;
*) bdir=$cache/kunit-um-${kconf%.kunitconfig} ;;
esac
mkdir -p "$bdir"
json=$bdir/results.json
rm -f "$json"
rc=0
(cd "$src" && python3 tools/testing/kunit/kunit.py run --arch=um \
	--kunitconfig="$d/kunit-tests/$kconf" --build_dir="$bdir" \
	--jobs="$(nproc)" --json="$json" "$@") > "$bdir/kunit.log" 2>&1 || rc=$?

# The build log is noisy: show kunit.py's result lines, and its tail when
# it failed before running anything.
sed -n '/Starting KUnit Kernel/,$p' "$bdir/kunit.log" | grep -v '^\[..:..:..\] *$' || true
if [ ! -s "$json" ]; then
	tail -n 40 "$bdir/kunit.log"
	echo "kunit: 0 passed, 1 failed, 0 skipped (no results: build or boot failed)"
	exit 1
fi
# A splat fails the run even if every case passed (KUnit does not fail a
# case for a WARN or a lockdep report by itself).  The whole log counts:
# slabtrace's init runs at boot, before the suites.
splat='BUG:|WARNING:|Oops|general protection|KASAN|possible recursive locking|circular locking|inconsistent lock state|RCU stall|detected stall|list_add corruption|list_del corruption|Kernel panic|Call Trace:|blocked for more than'
nsplat=$(grep -Ec "$splat" "$bdir/test.log" || true)
if [ "$nsplat" -gt 0 ]; then
	echo "kunit: kernel splat while the suites ran:"
	grep -En "$splat" "$bdir/test.log" | head -n 20
	rc=1
fi
python3 - "$json" "$nsplat" <<'PY'
import json, sys

def walk(node, prefix, acc):
    name = prefix + node.get("name", "")
    for case in node.get("test_cases", []):
        st = case.get("status", "")
        acc.setdefault(st, []).append(name + "." + case["name"])
    for sub in node.get("sub_groups", []):
        walk(sub, "" if not node.get("name") or node.get("name") == "KUnit Test Group" else name + ".", acc)

acc = {}
walk(json.load(open(sys.argv[1])), "", acc)
for st in ("FAIL", "ERROR"):
    for t in acc.get(st, []):
        print("kunit: %s %s" % (st, t))
npass = len(acc.get("PASS", []))
nfail = sum(len(acc.get(s, [])) for s in acc if s not in ("PASS", "SKIP"))
nfail += 1 if int(sys.argv[2]) else 0
print("kunit: %d passed, %d failed, %d skipped" % (npass, nfail, len(acc.get("SKIP", []))))
PY
exit $rc
