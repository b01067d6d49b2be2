#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Fetch Debian's arm64 cross compiler (gcc-12, the compiler Debian's arm64
# kernels are built with) into the cache, never installing it, and print
# the directory to put first on PATH: it holds aarch64-linux-gnu-gcc-12
# (what the arm64 headers' Makefile calls) and aarch64-linux-gnu-gcc.
#
#   scripts/kernels/fetch-cross.sh
#
# Installing gcc-12-aarch64-linux-gnu would remove gcc-multilib (the -m32
# guest programs need it), so its packages are downloaded and unpacked
# (apt-get download + dpkg-deb -x).  The assembler and linker
# (binutils-aarch64-linux-gnu) and the C library for the static guest
# programs (libc6-dev-arm64-cross) do not conflict: scripts/deps/deps.sh
# installs them, in /usr/aarch64-linux-gnu, which the unpacked compiler
# finds through a symbolic link.
set -eu
cache=${SLABTRACE_CACHE:-$HOME/.cache/slabtrace}
dir=$cache/cross/aarch64
pkgs="gcc-12-aarch64-linux-gnu cpp-12-aarch64-linux-gnu
gcc-12-aarch64-linux-gnu-base libgcc-12-dev-arm64-cross"

if [ -f "$dir/.done" ]; then
	echo "$dir/bin"
	exit 0
fi
for t in /usr/bin/aarch64-linux-gnu-as /usr/aarch64-linux-gnu/lib/libc.a; do
	[ -e "$t" ] || { echo "fetch-cross: $t missing (run scripts/deps/deps.sh)" >&2; exit 1; }
done
mkdir -p "$cache/cross"
exec 9> "$cache/cross/aarch64.lock"
flock 9
if [ -f "$dir/.done" ]; then
	echo "$dir/bin"
	exit 0
fi
rm -rf "$dir"
mkdir -p "$dir/debs" "$dir/root" "$dir/bin"
echo "fetch-cross: downloading" $pkgs >&2
# As root, apt itself downloads (not its _apt user): fetch-kernel.sh says why.
# shellcheck disable=SC2086
(cd "$dir/debs" && apt-get download -q -o APT::Sandbox::User=root $pkgs >&2)
for deb in "$dir"/debs/*.deb; do
	dpkg-deb -x "$deb" "$dir/root"
done
# gcc looks for as, ld and the target's libc relative to itself.
ln -sfn /usr/aarch64-linux-gnu "$dir/root/usr/aarch64-linux-gnu"
ln -sfn "$dir/root/usr/bin/aarch64-linux-gnu-gcc-12" "$dir/bin/aarch64-linux-gnu-gcc-12"
ln -sfn "$dir/root/usr/bin/aarch64-linux-gnu-gcc-12" "$dir/bin/aarch64-linux-gnu-gcc"
ln -sfn "$dir/root/usr/bin/aarch64-linux-gnu-cpp-12" "$dir/bin/aarch64-linux-gnu-cpp"
rm -rf "$dir/debs"
touch "$dir/.done"
echo "$dir/bin"
