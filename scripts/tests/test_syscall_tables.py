#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host test of the arm64 system call tables gen-syscalls.sh made.

    scripts/tests/test_syscall_tables.py [BUILD_DIR]

Reads build/KVER/syscall_table.h (BUILD_DIR: build) of the arm64 kernels
built (6.1-arm64, 6.12-arm64, 7.3-arm64; one not built is skipped, all
three are required with SLABTRACE_REQUIRE_BUILDS=1) and checks what
testing.rst ("The build") says of them: the native table is the
asm-generic numbering (openat 56, write 64, exit_group 94, getpid 172,
the numbers test_kptrace_ctf.py expects of an arm64 guest, with 4, 3, 1
and 0 arguments); 6.1's names are 6.12's without the calls added since
(cachestat to mseal, 451-462); below 451, 6.1's compat table differs
from 6.12's only by 6.12's _sysctl (149), which 6.1 lacks, and 6.1's name
for 341 (sync_file_range2, 6.12's arm_sync_file_range); 7.3's bpf
takes 5 arguments where 6.12's takes 3.  The last line is
"syscall_tables: N passed, N failed".
"""

import os
import re
import sys

from checks import Checks

_checks = Checks("syscall_tables")
check = _checks.check
check_eq = _checks.check_eq

ENTRY = re.compile(r'^\t\[(\d+)\] = \{ "([a-z0-9_]+)", (\d+), (\d+) \},$')
# include/uapi/asm-generic/unistd.h; nargs from include/linux/syscalls.h.
GENERIC = {"openat": (56, 4), "write": (64, 3), "exit_group": (94, 1),
           "getpid": (172, 0)}
KVERS = ("6.1-arm64", "6.12-arm64", "7.3-arm64")


def tables(path):
    """{"64": {nr: (name, path_arg, nargs)}, "32": {...}} of a syscall_table.h."""
    out, abi = {}, None
    with open(path) as f:
        for line in f:
            m = re.match(r"^static const struct slabtrace_syscall syscalls_(\d+)\[", line)
            if m:
                abi = m.group(1)
                out[abi] = {}
                continue
            m = ENTRY.match(line)
            if m and abi:
                out[abi][int(m.group(1))] = (m.group(2), int(m.group(3)), int(m.group(4)))
    return out


def by_name(table):
    return {v[0]: (nr, v[2]) for nr, v in table.items()}


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    require = os.environ.get("SLABTRACE_REQUIRE_BUILDS") == "1"
    t = {}
    for k in KVERS:
        path = os.path.join(build, k, "syscall_table.h")
        if os.path.exists(path):
            t[k] = tables(path)
        elif require:
            check("%s is built" % path, False)
        else:
            print("SKIP: syscall_tables: %s: not built" % k)
    for k, tab in t.items():
        native = by_name(tab.get("64", {}))
        check_eq("%s: openat, write, exit_group, getpid: the asm-generic numbers "
                 "and their arguments" % k,
                 GENERIC, {n: native.get(n) for n in GENERIC})
        check("%s: a compat (aarch32) table" % k, len(tab.get("32", {})) > 1)
    if "6.1-arm64" in t and "6.12-arm64" in t:
        old, new = t["6.1-arm64"], t["6.12-arm64"]
        added = {nr: v for nr, v in new["64"].items() if nr not in old["64"]}
        # The names by number (the arguments are each kernel's own
        # syscalls.h's: 6.1 declares lookup_dcookie's 3, 6.12 no more).
        want = {nr: v[0] for nr, v in new["64"].items() if not 451 <= nr <= 462}
        got = {nr: v[0] for nr, v in old["64"].items()}
        check_eq("6.1-arm64: 6.12's native names without 451-462 (the differences)",
                 {}, {nr: (want.get(nr), got.get(nr)) for nr in set(want) | set(got)
                      if want.get(nr) != got.get(nr)})
        check_eq("... which are cachestat to mseal",
                 ("cachestat", "mseal", list(range(451, 463))),
                 (added.get(451, ("",))[0], added.get(462, ("",))[0], sorted(added)))
        # The compat (aarch32) tables: besides 451-462, 6.12's 149
        # _sysctl, which 6.1 has not, and 341 under 6.1's name.
        want = {149: (None, "_sysctl"), 341: ("sync_file_range2", "arm_sync_file_range")}
        diff = {nr: (old["32"].get(nr, (None,))[0], new["32"].get(nr, (None,))[0])
                for nr in set(old["32"]) | set(new["32"]) if not 451 <= nr <= 462}
        check_eq("compat: 6.1-arm64's names against 6.12-arm64's: _sysctl, sync_file_range2",
                 want, {nr: v for nr, v in diff.items() if v[0] != v[1]})
    if "6.12-arm64" in t and "7.3-arm64" in t:
        check_eq("bpf's arguments: 3 on 6.12-arm64, 5 on 7.3-arm64", (3, 5),
                 (by_name(t["6.12-arm64"]["64"]).get("bpf", (0, 0))[1],
                  by_name(t["7.3-arm64"]["64"]).get("bpf", (0, 0))[1]))
    return _checks.summary()


if __name__ == "__main__":
    sys.exit(main())
