#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make sign: sign a module for a kernel that loads only signed modules
# (Secure Boot's lockdown), with the kernel's own scripts/sign-file.
#
#   scripts/package/sign-module.sh KDIR MODULE KEY CERT
#
# KDIR is the kernel's headers (scripts/sign-file and .config, for the
# hash: CONFIG_MODULE_SIG_HASH); KEY the private key (PEM), CERT its X.509
# certificate (DER or PEM), by default Debian's DKMS key pair, which is the
# one enrolled on a machine where DKMS signed modules before.  A module that
# already carries a signature is left alone, and the test build (make
# test-modules) is refused.  Says what to do when the key or the module is
# missing.
set -eu
kdir=$1
ko=$2
key=$3
cert=$4

[ -f "$ko" ] || { echo "make sign: no $ko: build it first (make)" >&2; exit 1; }
# Not the test build (make test-modules): it has the tests' hooks.
modinfo=$(PATH=$PATH:/usr/sbin:/sbin command -v modinfo) || {
	echo "make sign: no modinfo (kmod) to tell the module from the test build" >&2
	exit 1
}
if "$modinfo" -F parm "$ko" 2> /dev/null | grep -q '^fail_init:'; then
	echo "make sign: $ko is the test build (make test-modules): make modules first" >&2
	exit 1
fi
signfile=$kdir/scripts/sign-file
[ -x "$signfile" ] || {
	echo "make sign: no $signfile (Debian's linux-kbuild package has it)" >&2
	exit 1
}
if [ ! -e "$key" ] || [ ! -e "$cert" ]; then
	cat >&2 <<-MSG
	make sign: no key $key, or no certificate $cert
	  (Debian's DKMS makes /var/lib/dkms/mok.key and mok.pub the first
	  time it builds a module).  To make a pair:
	    openssl req -new -x509 -newkey rsa:2048 -nodes -days 36500 \\
	        -subj "/CN=slabtrace module signing key/" -outform DER \\
	        -keyout mok.key -out mok.pub
	    make sign SIGN_KEY=mok.key SIGN_CERT=mok.pub
	  and, for Secure Boot, enrol it once: sudo mokutil --import mok.pub,
	  reboot, confirm in the MOK manager.
	MSG
	exit 1
fi
[ -r "$key" ] || { echo "make sign: cannot read $key: run it as root (sudo make sign)" >&2; exit 1; }

signer=$("$modinfo" -F signer "$ko")
if [ -n "$signer" ]; then
	echo "make sign: $ko is signed already, by '$signer' (make clean && make for an unsigned one)"
	exit 0
fi
hash=$(sed -n 's/^CONFIG_MODULE_SIG_HASH="\(.*\)"$/\1/p' "$kdir/.config")
"$signfile" "${hash:-sha512}" "$key" "$cert" "$ko"
echo "make sign: $ko signed by '$("$modinfo" -F signer "$ko")' (${hash:-sha512})"
