#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Extract Debian's linux-source-6.12 once into the cache and print the
# tree's path.  The KUnit runner builds UML from it; checkpatch.pl comes
# from it.
set -eu
cache=${SLABTRACE_CACHE:-$HOME/.cache/slabtrace}
tarball=$(ls /usr/src/linux-source-6.12.tar.* 2>/dev/null | head -n 1)
if [ -z "$tarball" ]; then
	echo "linux-source: no /usr/src/linux-source-6.12.tar.*;" \
		"run scripts/deps/deps.sh (apt-get install linux-source-6.12)" >&2
	exit 1
fi
src=$cache/src/linux-source-6.12
if [ ! -f "$src/.slabtrace-extracted" ] ||
   [ "$tarball" -nt "$src/.slabtrace-extracted" ]; then
	echo "linux-source: extracting $tarball" >&2
	rm -rf "$src"
	mkdir -p "$cache/src"
	tar -C "$cache/src" -xf "$tarball"
	touch "$src/.slabtrace-extracted"
fi
echo "$src"
