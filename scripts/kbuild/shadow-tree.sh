#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Mirror the module's sources as symlinks in DEST, so that kbuild can put
# the objects for one kernel there (kbuild writes objects next to the
# sources) while several kernels are built from one checkout.
#
#   scripts/kbuild/shadow-tree.sh DEST
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
dest=$1
mkdir -p "$dest"
# Drop links whose source went away.
find "$dest" -type l ! -exec test -e {} \; -delete 2>/dev/null || true
cd "$top"
find Kbuild module include scripts/kbuild/compat-probe.sh scripts/kbuild/compat \
	scripts/test-modules \
	-type f \( -name Kbuild -o -name '*.[ch]' -o -name '*.sh' \) |
while read -r f; do
	mkdir -p "$dest/$(dirname "$f")"
	ln -sfn "$top/$f" "$dest/$f"
done
