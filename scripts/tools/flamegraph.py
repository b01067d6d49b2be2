#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Render folded stacks as an SVG flame graph.

    slabtrace-flamegraph [--title TITLE] [--weight bytes|objects] [--width PX]
                         [--minwidth PX] [FILE] > leaks.svg
    slabtrace-flamegraph -h | --help | -V | --version

(scripts/tools/flamegraph.py, installed as slabtrace-flamegraph by make
install-tools.)  FILE (or standard input) holds folded stacks, one per
line, root frame first: "frame;frame;...;frame COUNT", as slabtrace's
folded (objects) and folded_bytes (bytes) files give them, or FlameGraph's
stackcollapse scripts.  Equal prefixes merge into one frame whose width is
the sum of its stacks' counts: the root "all" spans the whole width, every
frame is one rectangle, as wide as its share of the total, and a frame
narrower than --minwidth pixels (0.1) is left out, its count staying in
its parent's width, as flamegraph.pl does.  --weight says what the counts
are, objects or bytes; the title gives the total in that unit.  Without
it, FILE's name says: one ending in "folded_bytes" holds bytes, one ending
in "folded" objects; for any other name, and standard input, --weight is
needed.  Input with no stack, or counts that add up to 0, is an error.

The SVG works like flamegraph.pl's, with its script embedded: hover a frame
for its details in the bar at the bottom, click it to zoom (its ancestors
fade, its subtree fills the width; "Reset Zoom" goes back), "Search" (or
Ctrl-F, or "?s=REGEX" in the URL) highlights the frames whose names match
and shows the share of the total they cover.  A legend gives the colours:
kernel functions, module functions, system calls, and leaking stacks: a
stack slabtrace judged a leak ends with the pseudo-frame "[leak]", drawn
in red with every frame all of whose stacks are leaks.  Python's standard
library only.
"""

import argparse
import hashlib
import io
import os
import re
import sys
from xml.sax.saxutils import escape, quoteattr

# The release's version, dkms.conf's PACKAGE_VERSION (scripts/tests/test_deb.sh
# checks that they agree).
VERSION = "0.1"
WIDTH = 1200            # pixels, the whole graph
ROW = 16                # pixels, one frame's height
PAD_TOP = 52            # room for the title, the buttons and the legend
PAD_BOTTOM = 26         # room for the details bar
MARGIN = 10
FONT = 11               # pixels
CHAR = 6.6              # average width of a character at FONT, pixels
MINWIDTH = 0.1          # pixels: narrower frames are left out
MATCH = "rgb(230,0,230)"  # a frame the search matched

# Zoom, search, details; the names are prefixed: a global named "status"
# would be window.status.
SCRIPT = r"""
var fg_frames = [], fg_details, fg_matched, fg_unzoom, fg_search, fg_term = null;
var fg_full = %(full)s, fg_margin = %(margin)s, fg_char = %(char)s, fg_match = "%(match)s";

function fg_init() {
	fg_details = document.getElementById("details");
	fg_matched = document.getElementById("matched");
	fg_unzoom = document.getElementById("unzoom");
	fg_search = document.getElementById("search");
	var gs = document.querySelectorAll("g.frame");
	for (var i = 0; i < gs.length; i++) {
		var g = gs[i], r = g.querySelector("rect");
		g.fg_x = parseFloat(r.getAttribute("x"));
		g.fg_w = parseFloat(r.getAttribute("width"));
		g.fg_level = parseInt(g.getAttribute("data-level"), 10);
		g.fg_fill = r.getAttribute("fill");
		g.fg_name = g.getAttribute("data-name");
		g.fg_tip = g.querySelector("title").textContent;
		g.addEventListener("click", fg_zoom_to.bind(null, g));
		g.addEventListener("mouseover", fg_show.bind(null, g));
		g.addEventListener("mouseout", fg_show.bind(null, null));
		fg_frames.push(g);
	}
	fg_unzoom.addEventListener("click", fg_reset_zoom);
	fg_search.addEventListener("click", fg_search_click);
	window.addEventListener("keydown", function (e) {
		if (e.keyCode === 114 || (e.ctrlKey && e.keyCode === 70)) {
			e.preventDefault();
			fg_search_prompt();
		}
	});
	var m = /[?&]s=([^&]*)/.exec(window.location.search);
	if (m)
		fg_search_for(decodeURIComponent(m[1].replace(/[+]/g, " ")));
}

function fg_show(g) {
	fg_details.textContent = g ? "Frame: " + g.fg_tip : " ";
}

/* Put frame @g at @x, @w wide, its label cut to fit. */
function fg_place(g, x, w) {
	var r = g.querySelector("rect"), t = g.querySelector("text");
	r.setAttribute("x", x.toFixed(3));
	r.setAttribute("width", w.toFixed(3));
	if (!t)
		return;
	var fit = Math.floor((w - 4) / fg_char), name = g.fg_name;
	t.setAttribute("x", (x + 3).toFixed(3));
	t.textContent = fit >= name.length ? name : fit > 3 ? name.substring(0, fit - 2) + ".." : "";
}

function fg_zoom_to(node) {
	var x = node.fg_x, w = node.fg_w, ratio = fg_full / w, eps = 0.0001;
	fg_unzoom.setAttribute("class", "button");
	for (var i = 0; i < fg_frames.length; i++) {
		var g = fg_frames[i], inside = g.fg_x >= x - eps && g.fg_x + g.fg_w <= x + w + eps;
		if (g.fg_level < node.fg_level && g.fg_x <= x + eps && g.fg_x + g.fg_w >= x + w - eps) {
			g.setAttribute("class", "frame parent");
			fg_place(g, fg_margin, fg_full);
		} else if (g.fg_level >= node.fg_level && inside) {
			g.setAttribute("class", "frame");
			fg_place(g, fg_margin + (g.fg_x - x) * ratio, g.fg_w * ratio);
		} else {
			g.setAttribute("class", "frame hidden");
		}
	}
}

function fg_reset_zoom() {
	fg_unzoom.setAttribute("class", "button hidden");
	for (var i = 0; i < fg_frames.length; i++) {
		fg_frames[i].setAttribute("class", "frame");
		fg_place(fg_frames[i], fg_frames[i].fg_x, fg_frames[i].fg_w);
	}
}

function fg_search_click() {
	if (fg_term === null)
		fg_search_prompt();
	else
		fg_search_for(null);
}

function fg_search_prompt() {
	var term = prompt("Search for (regular expression):", "");
	if (term)
		fg_search_for(term);
}

/* Highlight the frames whose names match @term (null: none). */
function fg_search_for(term) {
	var re = null, spans = [], i;
	if (term !== null) {
		try {
			re = new RegExp(term);
		} catch (e) {
			re = new RegExp(term.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
		}
	}
	fg_term = term;
	for (i = 0; i < fg_frames.length; i++) {
		var g = fg_frames[i], hit = re !== null && re.test(g.fg_name);
		g.querySelector("rect").setAttribute("fill", hit ? fg_match : g.fg_fill);
		if (hit)
			spans.push([g.fg_x, g.fg_x + g.fg_w]);
	}
	/* The share of the total: nested matches count once. */
	spans.sort(function (a, b) { return a[0] - b[0] || b[1] - a[1]; });
	var covered = 0, end = -1;
	for (i = 0; i < spans.length; i++) {
		if (spans[i][1] <= end)
			continue;
		covered += spans[i][1] - Math.max(spans[i][0], end);
		end = spans[i][1];
	}
	fg_search.textContent = term === null ? "Search" : "Reset Search";
	fg_matched.textContent = term === null ? " " :
		"Matched: " + (100 * covered / fg_full).toFixed(1) + "%%";
}
"""


class Node:
    """A frame in the merged tree: its name, total count, children."""

    def __init__(self, name):
        self.name = name
        self.count = 0
        self.leak = 0           # the count of its stacks judged leaks
        self.children = {}

    def child(self, name):
        if name not in self.children:
            self.children[name] = Node(name)
        return self.children[name]


# What XML cannot hold (control characters, U+FFFE, U+FFFF, a lone
# surrogate of undecodable input): shown as "?", or the SVG is no SVG.
NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_safe(text):
    return NOT_XML.sub("?", text)


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
        frames = xml_safe(stack).split(";")
        leak = n if frames[-1] == LEAK else 0
        root.count += n
        root.leak += leak
        node = root
        for frame in frames:
            node = node.child(frame)
            node.count += n
            node.leak += leak
    return root


# The pseudo-frame that ends a stack slabtrace judged a leak.
LEAK = "[leak]"


def color(name, leaking=False):
    """A stable warm color per name; module frames ("f [mod]") greener;
    a frame all of whose stacks are leaks (@leaking) red."""
    # Not for security: FIPS-mode hosts refuse md5 otherwise.
    h = int(hashlib.md5(name.encode(), usedforsecurity=False).hexdigest()[:6], 16)
    if leaking:
        return "rgb(%d,%d,%d)" % (200 + h % 56, 20 + (h >> 8) % 40, 30 + (h >> 16) % 30)
    if name.endswith("]") and " [" in name:
        return "rgb(%d,%d,%d)" % (80 + h % 60, 170 + (h >> 8) % 60, 60)
    if name.startswith("syscall:"):
        return "rgb(%d,%d,%d)" % (120, 140 + h % 60, 220)
    return "rgb(%d,%d,%d)" % (205 + h % 50, 80 + (h >> 8) % 130, 40 + (h >> 16) % 40)


# The legend: what the colours of color() mean, with a sample name each.
LEGEND = (("kernel function", "kfree", False), ("module function", "f [mod]", False),
          ("system call", "syscall:write", False), ("leaking stack", LEAK, True))


def layout(node, x, level, scale, out, minwidth=0):
    """Append (node, x, level, width) for @node and its subtree, parents
    first; frames narrower than @minwidth pixels are left out, with their
    subtrees.  No recursion: stacks may be thousands of frames deep."""
    todo = [(node, x, level)]
    while todo:
        node, x, level = todo.pop()
        width = node.count * scale
        if width < minwidth and level:
            continue
        out.append((node, x, level, width))
        kids = []
        for name in sorted(node.children):
            child = node.children[name]
            kids.append((child, x, level + 1))
            x += child.count * scale
        todo.extend(reversed(kids))


def render(root, title, unit, width=WIDTH, minwidth=MINWIDTH):
    frames = []
    scale = (width - 2 * MARGIN) / root.count if root.count else 0
    layout(root, MARGIN, 0, scale, frames, minwidth)
    levels = 1 + max(level for _, _, level, _ in frames)
    height = PAD_TOP + levels * ROW + PAD_BOTTOM
    full = width - 2 * MARGIN

    out = ['<?xml version="1.0" encoding="UTF-8" standalone="no"?>',
           '<svg xmlns="http://www.w3.org/2000/svg" version="1.1" '
           'width="%d" height="%d" viewBox="0 0 %d %d" onload="fg_init()">'
           % (width, height, width, height),
           '<style>svg { background: #f8f8f0; } '
           'text { font-family: monospace; font-size: %dpx; } '
           '.frame:hover rect { stroke: black; stroke-width: 0.5; } '
           '.frame, .button { cursor: pointer; } '
           '.parent { opacity: 0.5; } .hidden { display: none; }</style>' % FONT,
           '<script type="text/ecmascript"><![CDATA[%s]]></script>'
           % (SCRIPT % {"full": full, "margin": MARGIN, "char": CHAR, "match": MATCH}),
           '<text id="title" x="%d" y="22" text-anchor="middle" font-size="16">%s</text>'
           % (width // 2, escape(xml_safe("%s (%d %s)" % (title, root.count, unit)))),
           '<text id="unzoom" class="button hidden" x="%d" y="40">Reset Zoom</text>' % MARGIN,
           '<text id="search" class="button" x="%d" y="40" text-anchor="end">Search</text>'
           % (width - MARGIN),
           '<text id="details" x="%d" y="%d"> </text>' % (MARGIN, height - 8),
           '<text id="matched" x="%d" y="%d" text-anchor="end"> </text>'
           % (width - MARGIN, height - 8)]
    x = width // 2 - 270
    for label, sample, leaking in LEGEND:
        out.append('<g class="legend"><rect x="%d" y="31" width="12" height="12" fill="%s"/>'
                   '<text x="%d" y="41">%s</text></g>'
                   % (x, color(sample, leaking), x + 16, escape(label)))
        x += 140
    for node, x, level, w in frames:
        y = height - PAD_BOTTOM - (level + 1) * ROW
        share = 100.0 * node.count / root.count if root.count else 0
        tip = "%s (%d %s, %.2f%%)" % (node.name, node.count, unit, share)
        label = node.name
        fit = int((w - 4) / CHAR)
        if fit < len(label):
            label = label[:fit - 2] + ".." if fit > 3 else ""
        out.append('<g class="frame" data-level="%d" data-name=%s><title>%s</title>'
                   '<rect x="%.3f" y="%d" width="%.3f" height="%d" fill="%s" rx="2"/>'
                   '<text x="%.3f" y="%d">%s</text></g>'
                   % (level, quoteattr(node.name), escape(tip), x, y, w, ROW - 1,
                      color(node.name, level and node.leak == node.count),
                      x + 3, y + ROW - 4, escape(label)))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def weight_of(path):
    """What the counts of the file @path are, by its name; None if it
    does not say."""
    base = os.path.basename(path or "")
    if base.endswith("folded_bytes"):
        return "bytes"
    if base.endswith("folded"):
        return "objects"
    return None


def main(argv=None):
    prog = os.path.basename(sys.argv[0])
    ap = argparse.ArgumentParser(prog=prog if "flamegraph" in prog else "slabtrace-flamegraph",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("file", nargs="?", metavar="FILE",
                    help="folded stacks (default: standard input)")
    ap.add_argument("-V", "--version", action="version", version="%(prog)s " + VERSION,
                    help="the version")
    ap.add_argument("--title", default="slabtrace: outstanding allocations",
                    help="the title; the total and its unit follow it")
    ap.add_argument("--weight", "--unit", dest="weight", choices=("bytes", "objects"),
                    help="what the counts are: bytes (folded_bytes) or objects "
                    "(folded); by default what FILE's name says")
    ap.add_argument("--width", type=int, default=WIDTH, metavar="PX",
                    help="the width of the graph, in pixels (%d)" % WIDTH)
    ap.add_argument("--minwidth", type=float, default=MINWIDTH, metavar="PX",
                    help="leave out frames narrower than this, in pixels (0.1)")
    args = ap.parse_args(argv)
    if args.width <= 2 * MARGIN:
        ap.error("--width takes more than %d pixels, not %d" % (2 * MARGIN, args.width))
    if args.minwidth < 0:
        ap.error("--minwidth takes 0 pixels or more, not %g" % args.minwidth)
    weight = args.weight or weight_of(args.file)
    if weight is None:
        ap.error("%s does not say whether its counts are objects or bytes: "
                 "give --weight objects or --weight bytes"
                 % (args.file or "standard input"))
    try:
        # Names are bytes to the kernel: what is not UTF-8 shows as U+FFFD.
        if args.file:
            with open(args.file, encoding="utf-8", errors="replace") as f:
                root = parse(f)
        else:
            root = parse(io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8",
                                          errors="replace"))
    except (OSError, ValueError) as e:
        print("%s: %s" % (ap.prog, e), file=sys.stderr)
        return 1
    if not root.count:
        print("%s: %s: no stacks (%s)" % (ap.prog, args.file or "standard input",
                                          "empty input" if not root.children else
                                          "their counts are all 0"), file=sys.stderr)
        return 1
    svg = render(root, args.title, weight, args.width, args.minwidth)
    try:
        out = getattr(sys.stdout, "buffer", None)
        if out is None:
            sys.stdout.write(svg)
        else:
            # UTF-8, as the SVG's declaration says, whatever the locale's.
            sys.stdout.flush()
            out.write(svg.encode("utf-8"))
            out.flush()
    except OSError as e:
        print("%s: standard output: %s" % (ap.prog, e.strerror), file=sys.stderr)
        # What is left unwritten goes nowhere, not to a second error at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
