#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host test of kptrace's binary stream: babeltrace2 on what a VM recorded.

    scripts/tests/test_kptrace_ctf.py VM_OUT_DIR...

The guest test kptrace_ctf.sh leaves three recordings in VM_OUT_DIR
(x86-64 and arm64 guests): kptrace_ctf (kmemtrace-record -s --comm kpt_probe
of "kpt_probe -g 1000 -f /kpt/no/such/file -l 37"), kptrace_ctf_all
(every process, and the recorder's pid; kpt_probe then renamed k and
kpt_sixteen_char) and kptrace_ctf_tiny (a 16 KiB buffer read late).
babeltrace2 must read each with its own metadata and give: every event
the module wrote; exactly the 1000 getpid() calls of kpt_probe, from its
pid and tid, returning it; the openat() of the missing path with that
path and -ENOENT; the write() of 37 bytes; as many arguments as each
call takes (getpid 0, exit_group 1, write 3, openat 4; every event nargs
of them); exit_group() flagged as not returning, last; nothing of
another command; none of the recorder's own calls; the getpid() calls of
the renamed kpt_probe under names of 1 and 15 bytes; and for the tiny
buffer, as many discarded events as the recorder reported lost.  The
system call numbers expected are the guest's arch's (NRS), which the
guest wrote in kptrace_ctf/machine ("uname -m"); a recording without it
is taken for arm64's if VM_OUT_DIR's parent is named KVER-arm64
(build/KVER/vm-out, as test_kmemtrace.py tells), else for x86-64's.  With
SLABTRACE_REQUIRE_VM_OUT=1 a missing recording fails rather than skips.
The last line is "kptrace_ctf: N passed, N failed".
"""

import os
import re
import subprocess
import sys

from checks import Checks

N = 1000
# The native numbers of kpt_probe's calls, by "uname -m" of the guest:
# x86-64's table (arch/x86/entry/syscalls/syscall_64.tbl) and arm64's,
# the asm-generic one (include/uapi/asm-generic/unistd.h).
NRS = {
    "x86_64": {"getpid": 39, "write": 1, "openat": 257, "exit_group": 231},
    "aarch64": {"getpid": 172, "write": 64, "openat": 56, "exit_group": 94},
}
EVENT = re.compile(r'^\[[^]]*\] \([^)]*\) (syscall|syscall_compat): '
                   r'\{ cpu_id = (\d+) \}, \{ nr = \( "?([^":]*?)"? : '
                   r'container = (\d+) \), ret = (-?\d+), duration_ns = (\d+), '
                   r'pid = (\d+), tid = (\d+), flags = (0x[0-9A-F]+), '
                   r'comm = "([^"]*)", nargs = (\d+), args = \[ ?(.*?) ?\], '
                   r'path_len = (\d+), path = "([^"]*)" \}$')


_checks = Checks("kptrace_ctf")
check = _checks.check
check_eq = _checks.check_eq


def decode(trace):
    """The events babeltrace2 prints, as dicts, and its stderr."""
    p = subprocess.run(["babeltrace2", os.path.join(trace, "ctf")],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    check("babeltrace2 reads %s" % os.path.basename(trace), p.returncode == 0,
          p.stderr[-500:])
    events, bad = [], []
    for line in p.stdout.splitlines():
        m = EVENT.match(line)
        if not m:
            bad.append(line)
            continue
        args = [int(a.split(" = ")[1], 16) for a in m.group(12).split(", ") if a]
        events.append({
            "event": m.group(1), "cpu": int(m.group(2)), "name": m.group(3),
            "nr": int(m.group(4)), "ret": int(m.group(5)),
            "duration": int(m.group(6)), "pid": int(m.group(7)),
            "tid": int(m.group(8)), "flags": int(m.group(9), 16),
            "comm": m.group(10), "nargs": int(m.group(11)), "args": args,
            "path_len": int(m.group(13)),
            # babeltrace2 2.0 prints an empty text sequence as the last
            # non-empty one it decoded: path_len says.
            "path": m.group(14) if int(m.group(13)) else ""})
    check_eq("every line of %s is an event" % os.path.basename(trace), [], bad[:3])
    return events, p.stderr


def recorded(trace):
    """The events written and lost, as the recorder said."""
    with open(os.path.join(trace, "record.txt")) as f:
        text = f.read()
    m = re.search(r"^kmemtrace-record: (\d+) events written, (\d+) lost", text, re.M)
    return (int(m.group(1)), int(m.group(2)), text) if m else (None, None, text)


def machine(trace):
    """The guest's "uname -m": what it wrote, else what its KVER says."""
    try:
        with open(os.path.join(trace, "machine")) as f:
            return f.read().strip()
    except FileNotFoundError:
        kver = os.path.basename(os.path.dirname(os.path.abspath(os.path.dirname(trace))))
        return "aarch64" if kver.endswith("-arm64") else "x86_64"


def test_probe(trace):
    arch = machine(trace)
    check("a known arch: %s" % arch, arch in NRS)
    nrs = NRS.get(arch, NRS["x86_64"])
    written, lost, text = recorded(trace)
    m = re.search(r"^getpid=(\d+) calls=%d$" % N, text, re.M)
    check("kpt_probe's pid is in record.txt", m is not None)
    if not m:
        return
    pid = int(m.group(1))
    events, err = decode(trace)
    check_eq("babeltrace2 gives every event written", written, len(events))
    check_eq("none lost", 0, lost)
    check("no discarded events", "discarded" not in err, err[-300:])
    getpid = [e for e in events if e["name"] == "getpid"]
    check_eq("%d getpid events" % N, N, len(getpid))
    check_eq("each from kpt_probe's pid and tid, returning the pid, flags 0",
             [], [e for e in getpid if (e["pid"], e["tid"], e["ret"], e["flags"],
                                        e["nr"], e["event"]) !=
                  (pid, pid, pid, 0, nrs["getpid"], "syscall")][:2])
    check_eq("only kpt_probe was recorded", {"kpt_probe"},
             set(e["comm"] for e in events))
    # Only the registers each call reads, as its prototype says.
    check_eq("nargs of getpid, openat, write, exit_group: 0, 4, 3, 1",
             {"getpid": {0}, "openat": {4}, "write": {3}, "exit_group": {1}},
             {n: set(e["nargs"] for e in events if e["name"] == n)
              for n in ("getpid", "openat", "write", "exit_group")})
    # The arch's numbering, which the module's table (gen-syscalls.sh)
    # names and the metadata maps.
    check_eq("%s numbers of getpid, openat, write, exit_group: %s" %
             (arch, ", ".join(str(nrs[n]) for n in ("getpid", "openat", "write", "exit_group"))),
             {n: {nrs[n]} for n in nrs},
             {n: set(e["nr"] for e in events if e["name"] == n and e["event"] == "syscall")
              for n in nrs})
    check_eq("every event has nargs arguments", [],
             [e for e in events if len(e["args"]) != e["nargs"]][:2])
    missing = [e for e in events if e["path"] == "/kpt/no/such/file"]
    check_eq("one openat of the missing path", 1, len(missing))
    if missing:
        e = missing[0]
        check_eq("its fields: openat, -ENOENT, path flag, path_len, AT_FDCWD",
                 ("openat", nrs["openat"], -2, 0x4, 17, 0xffffff9c),
                 (e["name"], e["nr"], e["ret"], e["flags"], e["path_len"],
                  e["args"][0] & 0xffffffff))
    writes = [e for e in events if e["name"] == "write" and e["args"][2] == 37]
    check_eq("one write of 37 bytes, returning 37", [37], [e["ret"] for e in writes])
    check_eq("exit_group is last, flagged as not returning (0x2)",
             ("exit_group", 0x2), (events[-1]["name"], events[-1]["flags"]) if events else None)
    check("durations are below a second", all(e["duration"] < 10**9 for e in events))


def test_all(trace):
    written, lost, _ = recorded(trace)
    with open(os.path.join(trace, "recorder.pid")) as f:
        rec = int(f.read())
    events, _ = decode(trace)
    check_eq("every process: every event written", written, len(events))
    check_eq("none of the recorder's own calls", [],
             [e for e in events if e["pid"] == rec][:2])
    def getpids(comm):
        return sum(1 for e in events if e["comm"] == comm and e["name"] == "getpid")
    check_eq("kpt_probe's 10 getpid are there", 10, getpids("kpt_probe"))
    # comm is NUL-padded: the shortest and the longest name decode.
    check_eq("3 getpid named k, 4 named kpt_sixteen_cha (15 bytes kept)",
             (3, 4), (getpids("k"), getpids("kpt_sixteen_cha")))


def test_tiny(trace):
    written, lost, _ = recorded(trace)
    events, err = decode(trace)
    check_eq("tiny buffer: babeltrace2 gives the events written", written, len(events))
    discarded = sum(int(n) for n in re.findall(r"discarded (\d+) events", err))
    check("tiny buffer: events were lost", lost and lost > 0, "lost %r" % lost)
    check_eq("tiny buffer: babeltrace2's discarded events are the recorder's lost",
             lost, discarded)


def main():
    require = os.environ.get("SLABTRACE_REQUIRE_VM_OUT") == "1"
    for out in sys.argv[1:]:
        base = os.path.join(out, "kptrace_ctf")
        if not os.path.isdir(base):
            if require and os.path.isdir(out):
                check("%s has a kptrace_ctf recording" % out, False)
            else:
                print("SKIP: kptrace_ctf: no recording in %s" % out)
            continue
        test_probe(base)
        test_all(base + "_all")
        test_tiny(base + "_tiny")
    return _checks.summary()


if __name__ == "__main__":
    sys.exit(main())
