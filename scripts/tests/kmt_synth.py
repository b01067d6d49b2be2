#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write kmemtrace traces with chosen events, in the module's format, for
the host tests of kmemtrace-report (scripts/tests/test_kmemtrace.py).

The metadata is a real one the module wrote (a checked-in trace's); the
packets and events are laid out as include/uapi/slabtrace/kmemtrace.h
says.  An event is (ns, cpu, name, call_site, ptr[, req, alloc], cache).
"""

import os
import re
import struct
import uuid

IDS = {"kmem:kmalloc": 0, "kmem:kmem_cache_alloc": 1, "kmem:kfree": 2,
       "kmem:kmem_cache_free": 3}
MAGIC = 0xC1FC1FC1
PACKET = struct.Struct("<I16sIQQQQQQI")
assert PACKET.size == 76


def encode(ev, last, cache_fmt="<H"):
    """The bytes of one event after an event at time @last; @cache_fmt: how
    a free event's cache id is stored (a metadata's cache_t of 16 bits), or
    None: a free event of no fields."""
    ns, _cpu, name, cs, ptr = ev[:5]
    eid = IDS[name]
    if 0 <= ns - last < 1 << 29:
        hdr = struct.pack("<I", eid | ((ns << 3) & 0xFFFFFFFF))
    else:
        hdr = struct.pack("<BIQ", 7, eid, ns)
    if eid >= 2 and cache_fmt is None:
        return hdr
    body = struct.pack("<I", cs) + struct.pack("<Q", ptr)[:6]
    if eid < 2:
        req, alloc, cache = ev[5:8]
        body += struct.pack("<IIIHh", req, alloc, 0xCC0, cache, -1)
    else:
        body += struct.pack(cache_fmt, ev[5])
    return hdr + body


def write(tdir, metadata, events, per_packet=50, discarded=None,
          cache_fmt="<H"):
    """Write a trace: @events sorted by time, @per_packet events a packet;
    @discarded: {cpu: n}, the events_discarded of that CPU's last packet;
    @cache_fmt as encode()'s."""
    ctf = os.path.join(tdir, "ctf")
    os.makedirs(ctf, exist_ok=True)
    text = open(metadata).read()
    tid = uuid.UUID(re.search(r'uuid = "([0-9a-f-]+)"', text).group(1)).bytes
    with open(os.path.join(ctf, "metadata"), "w") as f:
        f.write(text)
    discarded = discarded or {}
    cpus = sorted({e[1] for e in events})
    for cpu in cpus:
        evs = [e for e in events if e[1] == cpu]
        out = bytearray()
        for i in range(0, len(evs), per_packet):
            chunk = evs[i:i + per_packet]
            last = begin = chunk[0][0]
            body = bytearray()
            for e in chunk:
                body += encode(e, last, cache_fmt)
                last = e[0]
            size = (PACKET.size + len(body)) * 8
            final = i + per_packet >= len(evs)
            lost = discarded.get(cpu, 0) if final else 0
            out += PACKET.pack(MAGIC, tid, 0, begin, last, size, size, lost,
                               i // per_packet, cpu) + body
        with open(os.path.join(ctf, "cpu%d" % cpu), "wb") as f:
            f.write(out)
