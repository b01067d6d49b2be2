#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Fetch Debian's promtool and node_exporter, the readers make check's
# interop test checks growth --prometheus's file with, into the cache,
# never installing them, and print the directory that holds them
# (promtool, prometheus-node-exporter).
#
#   scripts/deps/fetch-prometheus.sh
#
# Installing the packages prometheus and prometheus-node-exporter would
# start (and enable at boot) their services on a systemd machine,
# listening on ports 9090 and 9100; the test only runs the two programs,
# node_exporter on a port of its own, so they are downloaded and unpacked
# (apt-get download + dpkg-deb -x).  Both are Go programs that need
# nothing but libc.
set -eu
cache=${SLABTRACE_CACHE:-$HOME/.cache/slabtrace}
dir=$cache/prometheus
pkgs="prometheus prometheus-node-exporter"

if [ -f "$dir/.done" ]; then
	echo "$dir/root/usr/bin"
	exit 0
fi
mkdir -p "$cache"
exec 9> "$cache/prometheus.lock"
flock 9
if [ -f "$dir/.done" ]; then
	echo "$dir/root/usr/bin"
	exit 0
fi
rm -rf "$dir"
mkdir -p "$dir/debs" "$dir/root"
echo "fetch-prometheus: downloading $pkgs" >&2
# As root, apt itself downloads (not its _apt user): scripts/kernels/fetch-kernel.sh says why.
# shellcheck disable=SC2086
(cd "$dir/debs" && apt-get download -q -o APT::Sandbox::User=root $pkgs >&2)
for deb in "$dir"/debs/*.deb; do
	dpkg-deb -x "$deb" "$dir/root"
done
for p in promtool prometheus-node-exporter; do
	"$dir/root/usr/bin/$p" --version > /dev/null 2>&1 || {
		echo "fetch-prometheus: $dir/root/usr/bin/$p does not run" >&2
		exit 1
	}
done
rm -rf "$dir/debs"
touch "$dir/.done"
echo "$dir/root/usr/bin"
