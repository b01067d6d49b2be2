#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""kmemtrace-report's fragmentation per call site against perf kmem stat's.

    scripts/tests/test_perf_frag.py DIR

DIR is what part 5 of make bench-peers (make perf-frag) brings back from
the peers VM (scripts/bench/peers-guest.sh, frag()): one file churn of
"files" iterations recorded at once by kmemtrace-record (DIR/kt) and by
perf kmem record, whose "perf kmem stat --caller" table is
DIR/perf-kmem-stat.txt.  The call sites the churn allocates from at least
once every four iterations, in both (perf loses some of its events under
TCG), must show the same internal
fragmentation (perf prints 3 decimals, the report 2), and at least one of
them must have some (a kmem_cache_alloc cache whose objects are smaller
than their slots, such as filp's 184 bytes in 192 on 6.12): a report that
took a kmem_cache_alloc event's object size for the bytes allocated shows
0 % there.  Prints the compared rows; the last line is "perf-frag: N
passed, N failed".
"""

import os
import re
import sys

from checks import Checks
from test_kmemtrace import report

_checks = Checks("perf-frag")

# " alloc_empty_file+2d   |  384000/192  |  368000/184  |  2000 |  0 |  4.167%"
PERF_ROW = re.compile(r"^\s*(\S+)\s*\|\s*(\d+)/\d+\s*\|\s*(\d+)/\d+\s*\|\s*(\d+)\s*\|"
                      r"\s*\d+\s*\|\s*(-?[0-9.]+)%")


def site_key(name):
    """"func+0x2d [mod]" (the report) and "func+2d" (perf): "func+2d"."""
    return name.split(" ")[0].replace("+0x", "+").lower()


def perf_rows(path):
    """{site: (hits, bytes requested, bytes allocated, frag %)} of perf's table."""
    rows = {}
    for line in open(path):
        m = PERF_ROW.match(line)
        if m:
            name, alloc, req, hits, frag = m.groups()
            rows[site_key(name)] = (int(hits), int(req), int(alloc), float(frag))
    return rows


def main():
    d = sys.argv[1]
    files = int(open(os.path.join(d, "files")).read())
    perf = perf_rows(os.path.join(d, "perf-kmem-stat.txt"))
    rc, out, err, rows = report(os.path.join(d, "kt"), "--top", "0")
    _checks.check_eq("kmemtrace-report exits 0", 0, rc)
    kmt = {site_key(k): (v[0], v[1], v[2], float(v[3])) for k, v in rows.items()}
    _checks.check("perf kmem stat --caller has rows", perf, "no row parsed")
    common = sorted(k for k in kmt if k in perf
                    and min(kmt[k][0], perf[k][0]) >= files // 4)
    print("%-40s %8s %8s %9s %9s" % ("call site (hits >= %d in both)" % (files // 4),
                                     "hits", "perf", "frag", "perf"))
    for k in common:
        print("%-40s %8d %8d %8.2f%% %8.3f%%" % (k, kmt[k][0], perf[k][0],
                                                 kmt[k][3], perf[k][3]))
    _checks.check("the churn's call sites are in both (%d)" % len(common),
                  len(common) >= 3, "kmemtrace %d rows, perf %d" % (len(kmt), len(perf)))
    _checks.check("some have fragmentation (a slot larger than the object)",
                  any(perf[k][3] > 0 for k in common))
    differ = ["%s: %.2f%% against perf's %.3f%%" % (k, kmt[k][3], perf[k][3])
              for k in common if abs(kmt[k][3] - perf[k][3]) > 0.0051]
    _checks.check("each has perf's fragmentation (to 2 decimals)", not differ,
                  "; ".join(differ))
    return _checks.summary()


if __name__ == "__main__":
    sys.exit(main())
