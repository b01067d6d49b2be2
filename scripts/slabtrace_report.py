#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise a saved slabtrace dump: outstanding objects grouped by stack.

    echo print kmalloc-64 > /sys/kernel/debug/slabtrace/ctl
    cat /sys/kernel/debug/slabtrace/ctl > dump.txt
    scripts/slabtrace_report.py [--top N] [--older-than MS] dump.txt
    scripts/slabtrace_report.py --folded [--bytes] dump.txt | scripts/flamegraph.py > leaks.svg
    scripts/slabtrace_report.py --json dump.txt

It groups the objects of a per-object dump the way the kernel's stacks view
does (by backtrace and system call), sorts the groups by bytes, and prints
a table, then the backtraces of the biggest.  Python's standard library
only.  The module also parses the kernel's stacks view (parse_stacks), for
the tests that compare the two.
"""

import argparse
import json
import re
import sys

OBJ = re.compile(r"^Obj (\S+), (\d+) bytes \((\d+) requested\), age (\d+)\.(\d{3})s, "
                 r"cpu (\d+), from (.*):$")
STACK = re.compile(r"^Stack (\d+): (\d+) objects?, (\d+) bytes \((\d+) requested\), "
                   r"age min/avg/max (\d+)\.(\d{3})s/(\d+)\.(\d{3})s/(\d+)\.(\d{3})s, "
                   r"from (.*):$")
FRAME = re.compile(r"^ #\d+ \[<[^>]*>\] in (.*)$")
HEADER = re.compile(r"^Dumping outstanding allocs from (\S+)")
TRACED = re.compile(r"^traced (\d+\.\d{3})s, (\d+) outstanding \((\d+) bytes\)")
OFFSET = re.compile(r"\+0x[0-9a-f]+/0x[0-9a-f]+")
# The other lines a per-object dump has (dump.c); any line else is refused.
KNOWN = re.compile(r"^(drops: .*|shared with: .*|\d+ records replaced: .*|-+|"
                   r" \(backtrace not saved\)|)$")


class NotADump(ValueError):
    """The input is not a per-object dump; the message says why."""


def ms(secs, millis):
    return int(secs) * 1000 + int(millis)


def split_syscall(who):
    """("PID 5 sh", "write") from "PID 5 sh in syscall write"."""
    ctx, sep, syscall = who.partition(" in syscall ")
    return ctx, syscall if sep else None


def parse_dump(lines):
    """The header and the objects of a per-object dump.  Raises NotADump
    on anything else: a stacks view, folded stacks, a line it does not
    know (rather than report 0 objects)."""
    info = {"cache": None, "traced": None, "objects": []}
    obj = None
    for n, line in enumerate(lines, 1):
        line = line.rstrip("\n")
        m = HEADER.match(line)
        if m:
            if n != 1:
                raise NotADump("line %d: a second dump header" % n)
            if "(by stack" in line:
                raise NotADump("a stacks view (print ... stacks), not a per-object dump: "
                               "save 'cat ctl' after a plain print")
            info["cache"] = m.group(1)
            continue
        if info["cache"] is None:
            raise NotADump("not a slabtrace dump (no 'Dumping outstanding allocs' line)")
        m = TRACED.match(line)
        if m:
            info["traced"] = m.group(1)
            continue
        m = OBJ.match(line)
        if m:
            ctx, syscall = split_syscall(m.group(7))
            obj = {"size": int(m.group(2)), "requested": int(m.group(3)),
                   "age": ms(m.group(4), m.group(5)), "cpu": int(m.group(6)),
                   "who": ctx, "syscall": syscall, "frames": []}
            info["objects"].append(obj)
            continue
        m = FRAME.match(line)
        if m and obj is not None:
            obj["frames"].append(m.group(1))
        elif STACK.match(line):
            raise NotADump("line %d: a stacks view's group, not a per-object dump" % n)
        elif not KNOWN.match(line) and not (line == "----" and obj is not None):
            raise NotADump("line %d: not a line of a per-object dump: %r" % (n, line[:60]))
        elif not line:
            obj = None
    if info["cache"] is None:
        raise NotADump("not a slabtrace dump (empty)")
    if info["traced"] is None:
        raise NotADump("no 'traced ...' line after the header: a cut dump?")
    return info


def aggregate(objects):
    """Groups by (backtrace, system call), most bytes first, as the kernel."""
    groups = {}
    for o in objects:
        key = (tuple(o["frames"]), o["syscall"])
        g = groups.setdefault(key, {"frames": list(o["frames"]), "syscall": o["syscall"],
                                    "count": 0, "bytes": 0, "requested": 0,
                                    "ages": [], "who": []})
        g["count"] += 1
        g["bytes"] += o["size"]
        g["requested"] += o["requested"]
        g["ages"].append(o["age"])
        if o["who"] not in g["who"]:
            g["who"].append(o["who"])
    out = []
    for g in groups.values():
        ages = g.pop("ages")
        g["age_min"], g["age_max"] = min(ages), max(ages)
        g["age_avg"] = sum(ages) // len(ages)
        out.append(g)
    out.sort(key=lambda g: (-g["bytes"], -g["count"], -g["age_max"]))
    return out


def parse_stacks(lines):
    """The groups of the kernel's stacks view, in its order."""
    groups, g = [], None
    for line in lines:
        line = line.rstrip("\n")
        m = STACK.match(line)
        if m:
            who, syscall = split_syscall(m.group(11))
            g = {"count": int(m.group(2)), "bytes": int(m.group(3)),
                 "requested": int(m.group(4)), "age_min": ms(m.group(5), m.group(6)),
                 "age_avg": ms(m.group(7), m.group(8)), "age_max": ms(m.group(9), m.group(10)),
                 "who": who, "syscall": syscall, "frames": []}
            groups.append(g)
            continue
        m = FRAME.match(line)
        if m and g is not None:
            g["frames"].append(m.group(1))
        elif not line:
            g = None
    return groups


def folded(groups, weight="count"):
    """Folded stacks, root first, as the kernel's folded file writes them."""
    lines = []
    for g in groups:
        frames = [OFFSET.sub("", f).replace(";", ":") for f in reversed(g["frames"])]
        if g["syscall"]:
            frames.insert(0, "syscall:" + g["syscall"].replace("compat ", "compat_"))
        lines.append("%s %d" % (";".join(frames) or "[unknown]", g[weight]))
    return lines


def secs(ms_):
    return "%d.%03ds" % (ms_ // 1000, ms_ % 1000)


def where(g, n=3):
    return " < ".join(OFFSET.sub("", f) for f in g["frames"][:n]) or "[unknown]"


def report(info, groups, top, out):
    total = sum(g["count"] for g in groups)
    nbytes = sum(g["bytes"] for g in groups)
    out.write("%s: %d outstanding objects (%d bytes) in %d stacks%s\n\n"
              % (info["cache"] or "?", total, nbytes, len(groups),
                 ", traced %ss" % info["traced"] if info["traced"] else ""))
    out.write("%3s %8s %10s %10s %8s %8s %8s  %s\n"
              % ("#", "objects", "bytes", "requested", "age min", "avg", "max",
                 "allocated in (innermost first)"))
    for i, g in enumerate(groups[:top], 1):
        out.write("%3d %8d %10d %10d %8s %8s %8s  %s\n"
                  % (i, g["count"], g["bytes"], g["requested"], secs(g["age_min"]),
                     secs(g["age_avg"]), secs(g["age_max"]), where(g)))
    if len(groups) > top:
        out.write("%3s %d more stacks\n" % ("...", len(groups) - top))
    for i, g in enumerate(groups[:top], 1):
        who = ", ".join(g["who"][:4]) + (" and %d more" % (len(g["who"]) - 4)
                                          if len(g["who"]) > 4 else "")
        out.write("\nStack %d: %d objects, %d bytes, from %s%s\n"
                  % (i, g["count"], g["bytes"], who,
                     " in syscall " + g["syscall"] if g["syscall"] else ""))
        for f in g["frames"]:
            out.write("    %s\n" % f)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dump", nargs="?", help="a saved per-object dump (default: stdin)")
    ap.add_argument("--top", type=int, default=10, help="stacks shown (default 10)")
    ap.add_argument("--older-than", type=int, default=0, metavar="MS",
                    help="only objects at least MS milliseconds old")
    fmt = ap.add_mutually_exclusive_group()
    fmt.add_argument("--folded", action="store_true", help="write folded stacks")
    fmt.add_argument("--json", action="store_true", help="write the groups as JSON")
    ap.add_argument("--bytes", action="store_true", help="folded: weigh by bytes")
    args = ap.parse_args(argv)
    if args.top < 1:
        ap.error("--top takes a number above 0")
    try:
        if args.dump:
            with open(args.dump) as f:
                info = parse_dump(f)
        else:
            info = parse_dump(sys.stdin)
    except OSError as e:
        print("slabtrace_report: %s" % e, file=sys.stderr)
        return 1
    except NotADump as e:
        print("slabtrace_report: %s: %s" % (args.dump or "stdin", e), file=sys.stderr)
        return 1
    objects = [o for o in info["objects"] if o["age"] >= args.older_than]
    groups = aggregate(objects)
    if args.folded:
        for line in folded(groups, "bytes" if args.bytes else "count"):
            print(line)
    elif args.json:
        json.dump({"cache": info["cache"], "groups": groups}, sys.stdout, indent=1)
        print()
    else:
        report(info, groups, args.top, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
