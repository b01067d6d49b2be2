#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make sign: slabtrace.ko of the 6.12 build signed with a key made here
# carries that key's signature (modinfo: signer, sig_key, the kernel's
# hash); a second make sign leaves it alone; a missing key is refused with
# the commands that make one; the test build is neither signed nor
# installed (make modules_install), the module is.  The unsigned module is
# put back after.
# The last line is "sign: N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
t=$top/build/sign
T=sign
. scripts/tests/lib.sh

rm -rf "$t"
mkdir -p "$t"
# A build of its own: make check's build/6.12 is the test build, which
# the VM tests load.
b=$(pwd)/build/6.12-sign
make -s --no-print-directory KVER=6.12 BUILD="$b" modules || { fail "make KVER=6.12"; result; exit; }
ko=$b/slabtrace.ko
kdir=$(scripts/kernels/fetch-kernel.sh 6.12)
cp -p "$ko" "$t/unsigned.ko"
trap 'cp -p "$t/unsigned.ko" "$ko"' EXIT
expect "the module is unsigned before" "" "$(modinfo -F signer "$ko")"

openssl req -new -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=slabtrace test key/" \
	-outform DER -keyout "$t/key.pem" -out "$t/cert.der" > "$t/openssl.log" 2>&1 ||
	fail "openssl req: $(tail -n 2 "$t/openssl.log")"
sign() { make -s --no-print-directory KVER=6.12 BUILD="$b" sign "$@" > "$t/out" 2>&1; }
# As a user runs it with a key of their own: no /usr/sbin in PATH.
if (PATH=/usr/local/bin:/usr/bin:/bin; export PATH; sign SIGN_KEY="$t/key.pem" SIGN_CERT="$t/cert.der"); then
	pass "make sign SIGN_KEY=... SIGN_CERT=..., with no sbin in PATH"
else
	fail "make sign: $(cat "$t/out")"
fi
expect "modinfo names the signer" "slabtrace test key" "$(modinfo -F signer "$ko")"
expect "the key is the certificate's (serial)" \
	"$(openssl x509 -inform DER -in "$t/cert.der" -noout -serial | sed 's/^serial=//')" \
	"$(modinfo -F sig_key "$ko" | tr -d :)"
expect "the hash is the kernel's CONFIG_MODULE_SIG_HASH" \
	"$(sed -n 's/^CONFIG_MODULE_SIG_HASH="\(.*\)"$/\1/p' "$kdir/build/.config")" \
	"$(modinfo -F sig_hashalgo "$ko")"
size=$(wc -c < "$ko")
sign SIGN_KEY="$t/key.pem" SIGN_CERT="$t/cert.der"
expect "a signed module is not signed twice" "$size" "$(wc -c < "$ko")"
if grep -q "is signed already, by 'slabtrace test key'" "$t/out"; then
	pass "make sign says it is signed already"
else
	fail "make sign on a signed module said: $(cat "$t/out")"
fi

cp -p "$t/unsigned.ko" "$ko"
if sign SIGN_KEY="$t/no-such.key" SIGN_CERT="$t/cert.der"; then
	fail "make sign without the key succeeded"
else
	pass "make sign without the key fails"
fi
if grep -q 'openssl req -new -x509' "$t/out" && grep -q 'mokutil --import' "$t/out"; then
	pass "and says how to make a key and enrol it"
else
	fail "make sign without the key said: $(cat "$t/out")"
fi
expect "and leaves the module unsigned" "" "$(modinfo -F signer "$ko")"

# --- The test build (make test-modules: make check's build/6.12, or one
# made here) is neither signed nor installed.
tb=$top/build/6.12
if ! modinfo -F parm "$tb/slabtrace.ko" 2> /dev/null | grep -q '^fail_init:'; then
	tb=$top/build/6.12-sign-test
	make -s --no-print-directory KVER=6.12 BUILD="$tb" test-modules > "$t/test-build.log" 2>&1 ||
		fail "make KVER=6.12 test-modules: $(tail -n 2 "$t/test-build.log")"
fi
mkdir -p "$t/test"
cp "$tb/slabtrace.ko" "$tb/modules.order" "$t/test/"
if sign BUILD="$t/test" SIGN_KEY="$t/key.pem" SIGN_CERT="$t/cert.der"; then
	fail "make sign signed the test build"
else
	expect "make sign refuses the test build" \
		"make sign: $t/test/slabtrace.ko is the test build (make test-modules): make modules first" \
		"$(grep '^make sign:' "$t/out")"
fi
expect "and leaves it unsigned" "" "$(modinfo -F signer "$t/test/slabtrace.ko")"
inst() { make -s --no-print-directory KVER=6.12 INSTALL_MOD_PATH="$t/root" "$@" modules_install > "$t/out" 2>&1; }
if inst BUILD="$t/test"; then
	fail "make modules_install installed the test build"
else
	expect "make modules_install refuses it" \
		"make modules_install: $t/test holds the test build (make test-modules): make modules first" \
		"$(grep '^make modules_install:' "$t/out")"
fi
# An earlier install's, in updates/ itself (6.12's kbuild put it there),
# would outrank extra/: it goes.  DKMS's, in updates/dkms/, stays.
krel=$(cat "$kdir/build/include/config/kernel.release")
mkdir -p "$t/root/lib/modules/$krel/updates/dkms"
: > "$t/root/lib/modules/$krel/updates/slabtrace.ko.xz"
: > "$t/root/lib/modules/$krel/updates/dkms/slabtrace.ko.xz"
if inst BUILD="$b"; then
	# The kernel's compression: slabtrace.ko.xz on Debian's.
	# In extra/: below slabtrace-dkms' updates/dkms/ for depmod.
	expect "make modules_install installs the module alone, in extra/ (INSTALL_MOD_PATH), and removes an earlier install's from updates/" \
		"extra/slabtrace.ko updates/dkms/slabtrace.ko" \
		"$(cd "$t/root" && find . -name '*.ko*' | sed 's|^\./lib/modules/[^/]*/||; s/\.ko\..*/.ko/' | sort | paste -sd ' ')"
else
	fail "make modules_install: $(tail -n 2 "$t/out")"
fi
result
