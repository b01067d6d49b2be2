#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Render folded stacks as an SVG flame graph.

    scripts/flamegraph.py [--title TITLE] [--unit objects|bytes] [FILE] > leaks.svg

FILE (or standard input) holds folded stacks, one per line, root frame
first: "frame;frame;...;frame COUNT", as /sys/kernel/debug/slabtrace/folded
and folded_bytes give them (or FlameGraph's stackcollapse scripts).  Equal
prefixes merge into one frame whose width is the sum of its stacks'
counts: the root "all" spans the whole width, and every frame is one
rectangle (the only rectangles), as wide as its share of the total.  Python's standard library
only.
"""

import argparse
import hashlib
import sys
from xml.sax.saxutils import escape

WIDTH = 1200            # pixels, the whole graph
ROW = 16                # pixels, one frame's height
PAD_TOP = 36            # room for the title
PAD_BOTTOM = 8
MARGIN = 10
FONT = 11               # pixels
CHAR = 6.6              # average width of a character at FONT, pixels


class Node:
    """A frame in the merged tree: its name, total count, children."""

    def __init__(self, name):
        self.name = name
        self.count = 0
        self.children = {}

    def child(self, name):
        if name not in self.children:
            self.children[name] = Node(name)
        return self.children[name]


def parse(lines):
    """The merged tree of folded stack lines.  Raises ValueError."""
    root = Node("all")
    for number, line in enumerate(lines, 1):
        line = line.rstrip("\n")
        if not line.strip():
            continue
        stack, sep, count = line.rpartition(" ")
        if not sep or not stack:
            raise ValueError("line %d: no count: %r" % (number, line))
        try:
            n = int(count)
        except ValueError:
            raise ValueError("line %d: bad count %r" % (number, count))
        if n < 0:
            raise ValueError("line %d: negative count" % number)
        root.count += n
        node = root
        for frame in stack.split(";"):
            node = node.child(frame)
            node.count += n
    return root


def depth(node):
    return 1 + max((depth(c) for c in node.children.values()), default=0)


def color(name):
    """A stable warm color per name; module frames ("f [mod]") greener."""
    h = int(hashlib.md5(name.encode()).hexdigest()[:6], 16)
    if name.endswith("]") and " [" in name:
        return "rgb(%d,%d,%d)" % (80 + h % 60, 170 + (h >> 8) % 60, 60)
    if name.startswith("syscall:"):
        return "rgb(%d,%d,%d)" % (120, 140 + h % 60, 220)
    return "rgb(%d,%d,%d)" % (205 + h % 50, 80 + (h >> 8) % 130, 40 + (h >> 16) % 40)


def layout(node, x, level, scale, out):
    """Append (node, x, level, width) for @node and its subtree."""
    width = node.count * scale
    out.append((node, x, level, width))
    for name in sorted(node.children):
        child = node.children[name]
        layout(child, x, level + 1, scale, out)
        x += child.count * scale


def render(root, title, unit, width=WIDTH):
    levels = depth(root)
    height = PAD_TOP + levels * ROW + PAD_BOTTOM
    scale = (width - 2 * MARGIN) / root.count if root.count else 0
    frames = []
    layout(root, MARGIN, 0, scale, frames)

    out = ['<?xml version="1.0" encoding="UTF-8" standalone="no"?>',
           '<svg xmlns="http://www.w3.org/2000/svg" version="1.1" '
           'width="%d" height="%d" viewBox="0 0 %d %d">' % (width, height, width, height),
           '<style>svg { background: #f8f8f0; } '
           'text { font-family: monospace; font-size: %dpx; }</style>' % FONT,
           '<text x="%d" y="22" text-anchor="middle" font-size="16">%s</text>'
           % (width // 2, escape(title))]
    for node, x, level, w in frames:
        y = height - PAD_BOTTOM - (level + 1) * ROW
        share = 100.0 * node.count / root.count if root.count else 0
        tip = "%s (%d %s, %.2f%%)" % (node.name, node.count, unit, share)
        label = node.name
        fit = int((w - 4) / CHAR)
        if fit < len(label):
            label = label[:fit - 2] + ".." if fit > 3 else ""
        out.append('<g><title>%s</title><rect x="%.3f" y="%d" width="%.3f" '
                   'height="%d" fill="%s" rx="2"/>%s</g>'
                   % (escape(tip), x, y, w, ROW - 1, color(node.name),
                      '<text x="%.3f" y="%d">%s</text>' % (x + 3, y + ROW - 4, escape(label))
                      if label else ""))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", nargs="?", help="folded stacks (default: stdin)")
    ap.add_argument("--title", default="slabtrace: outstanding allocations")
    ap.add_argument("--unit", default="objects", help="what counts measure")
    ap.add_argument("--width", type=int, default=WIDTH)
    args = ap.parse_args(argv)
    try:
        if args.file:
            with open(args.file) as f:
                root = parse(f)
        else:
            root = parse(sys.stdin)
    except (OSError, ValueError) as e:
        print("flamegraph: %s" % e, file=sys.stderr)
        return 1
    sys.stdout.write(render(root, args.title, args.unit, args.width))
    return 0


if __name__ == "__main__":
    sys.exit(main())
