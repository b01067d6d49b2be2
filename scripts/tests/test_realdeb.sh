#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# slabtrace on a real Debian system: make deb's packages installed with apt
# and used through sudo as README.md says, in a VM booting Debian's kernel
# with a root file system of the Debian release that ships it
# (scripts/vm/debian-rootfs.sh realdeb: Debian's sudo and sudoers, a user
# in group sudo, the kernel's headers installed by apt, dkms).  The
# guest side is scripts/vm/guest/realdeb.sh.
#
#   scripts/tests/test_realdeb.sh [KVER...]     (6.12, the default, 6.1:
#                                                Debian 12; 6.12-deb13 and
#                                                7.3: Debian 13, 7.3 from
#                                                trixie-backports)
#
# The packages are built for the release they are installed on: on this
# (Debian 12) host for Debian 12, in a Debian 13 root
# (scripts/kernels/suite-chroot.sh trixie-deb) for Debian 13.  On trixie's 6.12
# the guest also installs the headers of trixie-backports' newest 7.x
# with the installed slabtrace made not to know it: DKMS must skip it
# with one line, and apt succeed.
#
# The commands run twice: as the system boots, and once the kernel is
# locked down (integrity, as under Secure Boot).
# Environment: SLABTRACE_BUILT=1: the modules are built (make check).
# What each guest saved, its console included, is in build/KVER/realdeb-out/.
# The last line is "realdeb: N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
mkdir -p build
kvers=${*:-6.12}
T=realdeb
. scripts/tests/lib.sh
scripts/deps/deps.sh realdeb || { fail "scripts/deps/deps.sh"; result; exit; }

# debs SUITE: make deb's packages for that Debian release, built on it,
# in build/deb-SUITE (not make deb's build/deb: make check runs this
# beside test_deb.sh); prints their directory.
debs() {
	d=build/deb-$1
	[ -e "$d/.done" ] && { echo "$d"; return 0; }
	if [ "$1" = bookworm ]; then
		SLABTRACE_DEB_OUT=$top/$d scripts/package/deb.sh > "build/realdeb-deb-$1.log" 2>&1
	else
		SLABTRACE_DEB_OUT=$top/$d scripts/kernels/in-chroot.sh "$1-deb" \
			scripts/package/deb.sh > "build/realdeb-deb-$1.log" 2>&1
	fi || {
		cat "build/realdeb-deb-$1.log" >&2
		return 1
	}
	touch "$d/.done"
	echo "$d"
}
rm -f build/deb-*/.done
for k in $kvers; do
	suite=$(cat "$(scripts/kernels/fetch-kernel.sh "$k")/suite" 2> /dev/null || echo bookworm)
	if ! debs=$(debs "$suite"); then
		fail "$k: make deb for $suite"
		continue
	fi
	# make check built them already, and runs VMs of the same kernel
	# beside this one: no rebuild under their feet (SLABTRACE_BUILT=1).
	if [ "${SLABTRACE_BUILT:-0}" != 1 ] &&
	   ! make -s --no-print-directory KVER="$k" test-modules; then
		fail "$k: make test-modules (leaky.ko)"
		continue
	fi
	if ! rootfs=$(scripts/vm/debian-rootfs.sh realdeb "$k"); then
		fail "$k: the Debian root file system (scripts/vm/debian-rootfs.sh)"
		continue
	fi
	set --
	for f in "$debs"/slabtrace-dkms_*.deb "$debs"/slabtrace-tools_*.deb; do
		set -- "$@" -a "$f"
	done
	rm -rf "build/$k/realdeb-out"
	# Installing builds the module under TCG: minutes with little output.
	SLABTRACE_VM_MEM=${SLABTRACE_VM_MEM:-2560} \
	SLABTRACE_IDLE_TIMEOUT=${SLABTRACE_IDLE_TIMEOUT:-900} \
		scripts/vm/run.sh -k -t 3600 -r "$rootfs" "$@" \
		-o "build/$k/realdeb-out" "$k" realdeb > "build/$k/realdeb.log" 2>&1
	cat "build/$k/realdeb.log"
	line=$(grep -E "^vm $k: [0-9]+ passed, [0-9]+ failed" "build/$k/realdeb.log" | tail -n 1)
	if [ -z "$line" ]; then
		fail "$k: no result from scripts/vm/run.sh"
		continue
	fi
	npass=$((npass + $(echo "$line" | awk '{ print $3 }')))
	nfail=$((nfail + $(echo "$line" | awk '{ print $5 }')))
done
result
