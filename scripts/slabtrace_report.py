#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise a saved slabtrace dump: outstanding objects grouped by stack.

    slabtrace-report [--top N] [--older-than MS] DUMP
    slabtrace-report --folded [--bytes] DUMP | slabtrace-flamegraph --weight objects
    slabtrace-report --json DUMP

(scripts/slabtrace_report.py, installed as slabtrace-report by make
install-tools.)  DUMP is a per-object dump: record's CACHE.dump, or what
reading ctl gave after "print CACHE".  It groups the objects the way the
kernel's stacks view does (by backtrace and system call), sorts the groups
by bytes, and prints a table, then the backtraces of the biggest; or the
groups as folded stacks (by objects, by bytes with --bytes), or as JSON in
the schema of slabtrace top --json (slabtrace(8), JSON OUTPUT).  A dump
that lists fewer objects than its header counts is refused: it was cut
short.  Python's standard library only.  The module also parses the
kernel's stacks view (parse_stacks), for the tests that compare the two.
"""

import argparse
import json
import os
import re
import sys

OBJ = re.compile(r"^Obj (\S+), (\d+) bytes \((\d+) requested\), age (\d+)\.(\d{3})s, "
                 r"cpu (\d+), from (.*):$")
STACK = re.compile(r"^Stack (\d+): (\d+) objects?, (\d+) bytes \((\d+) requested\), "
                   r"age min/avg/max (\d+)\.(\d{3})s/(\d+)\.(\d{3})s/(\d+)\.(\d{3})s, "
                   r"from (.*):$")
FRAME = re.compile(r"^ #\d+ \[<[^>]*>\] in (.*)$")
HEADER = re.compile(r"^Dumping outstanding allocs from (\S+)")
TRACED = re.compile(r"^traced (\d+\.\d{3})s, (\d+) outstanding \((\d+) bytes\)"
                    r"(?:.*, (\d+) records dropped)?")
# The process of a context (as slabtrace's JSON gives it): "PID 5 sh",
# "kthread kworker/0:1 (PID 7)", "worker iou-wrk-9 (PID 9)"; else none.
CTX_PID = re.compile(r"^PID (\d+) |^(?:kthread|worker) .* \(PID (\d+)\)$")
JSON_VERSION = 1
OFFSET = re.compile(r"\+0x[0-9a-f]+/0x[0-9a-f]+")
# The other lines a per-object dump has (dump.c); any line else is refused.
KNOWN = re.compile(r"^(drops: .*|shared with: .*|\d+ records replaced: .*|-+|"
                   r" \(backtrace not saved: stack depot full\)|)$")


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
    info = {"cache": None, "traced": None, "outstanding": None, "bytes": None,
            "dropped": 0, "objects": []}
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
        if m and info["traced"] is None:
            info["traced"] = m.group(1)
            info["outstanding"], info["bytes"] = int(m.group(2)), int(m.group(3))
            info["dropped"] = int(m.group(4) or 0)
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
        raise NotADump("cut short: no 'traced ...' line after the header")
    if len(info["objects"]) != info["outstanding"]:
        raise NotADump("cut short: it lists %d objects, its header counts %d"
                       % (len(info["objects"]), info["outstanding"]))
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


def frame_json(frame):
    """A frame as slabtrace's JSON has it: function, module, the text."""
    mod = re.search(r"\[([^\]]*)\][^\[]*$", frame)
    return {"function": re.split(r"[+ ]", frame, maxsplit=1)[0],
            "module": mod.group(1) if mod else None, "text": frame}


def context_json(who):
    m = CTX_PID.match(who)
    return {"context": who, "pid": int(m.group(1) or m.group(2)) if m else -1}


def to_json(info, groups, top):
    """The document slabtrace top --json writes, for this dump's groups."""
    stacks = []
    for i, g in enumerate(groups[:top], 1):
        stacks.append({"rank": i, "objects": g["count"], "bytes": g["bytes"],
                       "requested": g["requested"], "age_min_ms": g["age_min"],
                       "age_avg_ms": g["age_avg"], "age_max_ms": g["age_max"],
                       "syscall": g["syscall"],
                       "contexts": [context_json(w) for w in g["who"][:4]],
                       "more_contexts": max(0, len(g["who"]) - 4),
                       "frames": [frame_json(f) for f in g["frames"]]})
    cache = {"cache": info["cache"], "traced_s": float(info["traced"]),
             "outstanding": info["outstanding"], "bytes": info["bytes"],
             "dropped": info["dropped"],
             "matched_objects": sum(g["count"] for g in groups),
             "matched_bytes": sum(g["bytes"] for g in groups), "stacks": stacks}
    return {"version": JSON_VERSION, "caches": [cache]}


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
    prog = os.path.basename(sys.argv[0])
    ap = argparse.ArgumentParser(prog=prog if "report" in prog else "slabtrace-report",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("dump", nargs="?", metavar="DUMP",
                    help="a saved per-object dump (default: standard input)")
    ap.add_argument("--top", type=int, default=10, metavar="N",
                    help="stacks shown, in the table and the JSON (default 10)")
    ap.add_argument("--older-than", type=int, default=0, metavar="MS",
                    help="only objects at least MS milliseconds old")
    fmt = ap.add_mutually_exclusive_group()
    fmt.add_argument("--folded", action="store_true", help="write folded stacks")
    fmt.add_argument("--json", action="store_true",
                     help="write the groups as JSON, one line (slabtrace(8), JSON OUTPUT)")
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
        print("%s: %s" % (ap.prog, e), file=sys.stderr)
        return 1
    except NotADump as e:
        print("%s: %s: %s" % (ap.prog, args.dump or "stdin", e), file=sys.stderr)
        return 1
    objects = [o for o in info["objects"] if o["age"] >= args.older_than]
    groups = aggregate(objects)
    if args.folded:
        for line in folded(groups, "bytes" if args.bytes else "count"):
            print(line)
    elif args.json:
        print(json.dumps(to_json(info, groups, args.top)))
    else:
        report(info, groups, args.top, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
