# SPDX-License-Identifier: GPL-2.0
# slabtrace as a Debian user installs and uses it, on the Debian system of
# scripts/vm/debian-rootfs.sh realdeb (scripts/tests/test_realdeb.sh boots it
# with make deb's packages and leaky.ko in /lib/slabtrace; the
# busybox VMs do not run this test).
#
# The commands are README.md's: the examples of its section "On a real
# machine" (its fenced blocks before the first subsection), as
# scripts/lint/doc-examples.py reads them for every VM, so that the README
# cannot drift from what works.  They run as alice (group sudo, with a
# password; Debian's /etc/sudoers, whose "Defaults use_pty" makes each sudo a session of its
# own) in a terminal (script(1)), one after the other in one shell, in the
# directory holding the two packages; ./my-test is the workload: leaky
# keeps 3000 more kmalloc(50) buffers (through its module parameter, which
# lockdown allows).  Checks: every command exits 0; apt installed both
# packages, and DKMS built, signed (with the key the README says to enrol)
# and installed slabtrace for the running kernel; modprobe loaded that
# module; growth ranks kmalloc-64 first; each record finds the
# 3000 buffers of leaky_alloc_buf; the dump read after "print" (another
# sudo, another session) lists them.  On trixie's 6.12, a kernel this
# slabtrace does not know is installed next (below).  Then the kernel is
# locked down (integrity, as Secure Boot does) and the same commands run
# again, with the same checks.  Between the two, and after: what the
# commands and the package say when the module is not loaded, not built
# for the kernel (no headers), not the one installed, or refused by
# Secure Boot.
# Its time budget (scripts/vm/guest/init): apt and DKMS build the module
# under TCG, twice.
# vm-budget: 3000
. /tests/lib.sh

[ -e /etc/debian_version ] ||
	skip "not a Debian system (scripts/tests/test_realdeb.sh boots one)"
U=alice
PW=slabtrace
H=/home/$U
W=$H/.realdeb
kv=$(uname -r)

# --- The system as Debian made it.
check "Debian's /etc/sudoers has 'Defaults use_pty'" \
	grep -Eq '^Defaults[[:space:]]+use_pty$' /etc/sudoers
check "no NOPASSWD in /etc/sudoers or /etc/sudoers.d" \
	sh -c '! grep -rqs NOPASSWD /etc/sudoers /etc/sudoers.d'
check "$U is in group sudo" sh -c "id -nG $U | grep -qw sudo"
check "sudo wants $U's password" sh -c "! su $U -c 'sudo -n true' 2> /dev/null"
check_eq "linux-headers-$kv is installed (dpkg)" "install ok installed" \
	"$(dpkg-query -W -f '${Status}' "linux-headers-$kv" 2>&1)"
check_eq "slabtrace is not installed yet" "modinfo: ERROR: Module slabtrace not found." \
	"$(modinfo -n slabtrace 2>&1)"
check "insmod leaky.ko (the workload's module)" insmod $MODDIR/leaky.ko

# --- README.md's commands, a line each: the examples of its section "On
# a real machine" (scripts/lint/doc-examples.py, which scripts/vm/run.sh ran),
# those the busybox VMs skip included.
EX=/tests/doc-examples.txt
mkdir -p $W
awk -F '\t' '$2 ~ /^README\.md:/ && $4 == "On a real machine" &&
	($1 == "run" || $1 == "skip") { print $6 }' $EX > $W/commands
cp $W/commands /out/realdeb-commands.txt
check "README.md's 'On a real machine' has commands" test -s $W/commands
for want in "apt install ./" "modprobe slabtrace" "slabtrace growth" \
	"slabtrace record" "print "; do
	check "README.md's commands include '$want'" grep -qF "$want" $W/commands
done
mok=$(awk -F '\t' '$2 ~ /^README\.md:/ { print $6 }' $EX |
	sed -n 's/.*mokutil --import \([^ ]*\).*/\1/p' | head -n 1)
check "README.md says which certificate to enrol (mokutil --import)" test -n "$mok"

# The work: the packages, the workload, the runner.
cp $MODDIR/slabtrace-dkms_*.deb $MODDIR/slabtrace-tools_*.deb $H/
cat > $H/my-test <<'EOF'
#!/bin/sh
# The workload: leaky keeps 3000 more kmalloc(50) buffers.
echo 3000 | sudo tee /sys/module/leaky/parameters/bufs > /dev/null
EOF
chmod 755 $H/my-test
# run.sh: in the terminal, each command in the same shell between markers,
# sudo's credentials refreshed before each (its time stamp lasts 15
# minutes; a dkms build under TCG can take longer).
cat > $W/run.sh <<EOF
cd ~ || exit 1
printf '%s\n' $PW | sudo -S -p '' -v && echo RD-AUTH ok
n=0
while IFS= read -r c <&3; do
	n=\$((n + 1))
	printf '%s\n' $PW | sudo -S -p '' -v
	echo "RD-BEGIN \$n: \$c"
	t=\$SECONDS
	eval "\$c"
	echo "RD-END \$n rc=\$? (\$((SECONDS - t)) s)"
done 3< $W/commands
EOF
chown -R $U:$U $H

# seg LOG N: what the terminal showed of command N.
seg() {
	awk -v n="$2" 'index($0, "RD-BEGIN " n ":") == 1 { on = 1; next }
		index($0, "RD-END " n " rc=") == 1 { exit } on' "$1"
}

# pkg_checks: what apt install did (DKMS, signing) and modprobe loaded.
pkg_checks() {
	for p in slabtrace-dkms slabtrace-tools; do
		check_eq "$S: $p is installed" "install ok installed" \
			"$(dpkg-query -W -f '${Status}' $p 2>&1)"
	done
	check "$S: dkms status: slabtrace installed for $kv" \
		sh -c "dkms status -m slabtrace -k $kv | grep -q ': installed'"
	ko=$(modinfo -n slabtrace 2>&1)
	case $ko in
	/lib/modules/$kv/updates/dkms/slabtrace.ko*) pass "$S: DKMS installed $ko" ;;
	*) fail "$S: slabtrace's module is '$ko', not DKMS's" ;;
	esac
	check_eq "$S: its version is the package's" \
		"$(dpkg-query -W -f '${Version}' slabtrace-dkms)" "$(modinfo -F version slabtrace)"
	check_eq "$S: DKMS signed it" "DKMS module signing key" "$(modinfo -F signer slabtrace)"
	serial=$(openssl x509 -inform DER -in "$mok" -noout -serial 2>&1 | sed 's/^serial=//')
	check_eq "$S: with the key of $mok, the README's certificate to enrol" \
		"$serial" "$(modinfo -F sig_key slabtrace | tr -d : | tr a-f A-F)"
	check "$S: the slabtrace command is the package's" \
		sh -c "dpkg -S \$(command -v slabtrace) | grep -q '^slabtrace-tools:'"
	check "$S: slabtrace(8) is installed" \
		sh -c "dpkg -L slabtrace-tools | grep -q '/man8/slabtrace.8'"
}

# stage NAME: README.md's commands, as $U, in a terminal; then the checks.
stage() {
	S=$1
	log=/out/realdeb-$S.log
	rm -f $W/typescript
	su -l $U -c "script -qec 'bash $W/run.sh' $W/typescript" < /dev/null
	tr -d '\r' < $W/typescript > "$log"
	check "$S: $U's sudo took her password" grep -q '^RD-AUTH ok$' "$log"
	n=0
	printed=
	while IFS= read -r c; do
		n=$((n + 1))
		seg "$log" $n > $W/out
		what="$S: '$(echo "${c%%#*}" | sed 's/[[:space:]]*$//')'"
		check_eq "$what exits 0" 0 \
			"$(sed -n "s/^RD-END $n rc=\([0-9]*\) .*/\1/p" "$log")"
		case $c in
		*"apt install ./"*)
			pkg_checks ;;
		*"modprobe slabtrace"*)
			check_eq "$what loaded DKMS's module" \
				"$(modinfo -F srcversion slabtrace)" \
				"$(cat /sys/module/slabtrace/srcversion 2>&1)" ;;
		*"slabtrace growth"*)
			# /proc/slabinfo's counts are not exact (first-five-minutes.rst).
			check_eq "$what ranks kmalloc-64 first" kmalloc-64 \
				"$(awk '$1 == "CACHE" { getline; print $1; exit }' $W/out)" ;;
		*"slabtrace record"*)
			check_eq "$what finds leaky_alloc_buf's 3000 buffers" 3000 \
				"$(awk '/ leaky_alloc_buf \[leaky\]/ && $2 ~ /^[0-9]+$/ { print $2; exit }' $W/out)" ;;
		esac
		if [ -n "$printed" ]; then
			check_eq "$what: the dump print took lists leaky's 3000 buffers" 3000 \
				"$(objs_from $W/out leaky_alloc_buf | wc -l)"
		fi
		printed=
		case $c in *"print "*) printed=1 ;; esac
	done < $W/commands
}

stage open
cp /var/lib/dkms/slabtrace/*/"$kv"/*/log/make.log /out/realdeb-dkms-make.log

# --- A kernel this slabtrace does not know (trixie's 6.12 only: the
# root file system holds, in /root/refused/, what "apt install
# linux-headers-ABI" of trixie-backports' newest 7.x installs).  The
# installed slabtrace is made one that predates 7.2: its kmalloc probe
# loses the form it knows 7.x's kmalloc_type() by.  Installing the
# headers must succeed, DKMS skipping slabtrace for that kernel with one
# line that names it, and leave no package half-configured.
if [ -f /root/refused/kernel ]; then
	rk=$(cat /root/refused/kernel)
	probe=$(ls /usr/src/slabtrace-*/scripts/kbuild/compat/kmalloc.sh)
	sed -i 's/kmalloc_type(gfp_t flags, kmalloc_token_t token)/a kmalloc_type() of a later kernel/' "$probe"
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
		/root/refused/*.deb > /out/realdeb-refused.log 2>&1
	check_eq "refused: apt install linux-headers-$rk exits 0" 0 $?
	check_eq "refused: one line says slabtrace is not built for $rk" 1 \
		"$(grep -c "^slabtrace [^ ]*: not built for $rk: its kernel APIs KMALLOC_TYPE are newer than this slabtrace knows" /out/realdeb-refused.log)"
	check_eq "refused: linux-headers-$rk is installed (dpkg)" "install ok installed" \
		"$(dpkg-query -W -f '${Status}' "linux-headers-$rk" 2>&1)"
	check_eq "refused: no package is left half-installed (dpkg --audit)" "" \
		"$(dpkg --audit 2>&1)"
	check "refused: DKMS built nothing for $rk" \
		sh -c "! dkms status -m slabtrace -k $rk | grep -Eq ': (built|installed)'"
	check "refused: slabtrace is still installed for $kv" \
		sh -c "dkms status -m slabtrace -k $kv | grep -q ': installed'"
fi
# own_postinst: the installed slabtrace-dkms postinst's own part, after
# dh_dkms's (DKMS's "add" refuses a module added already, so the whole
# script runs only after the prerm's removal, and a rebuild under TCG),
# run as dpkg runs it: what the package says last when it is installed.
own_postinst() {
	sed -n '/^# End automatically added section/,$p' \
		/var/lib/dpkg/info/slabtrace-dkms.postinst | sh -s configure
}

# user_sudo CMD: CMD run by $U through sudo, her password on stdin; what
# it wrote (stdout and stderr).
user_sudo() {
	su -l $U -c "printf '%s\n' $PW | sudo -S -p '' $1" 2>&1
}

# --- What the commands and the package say when the module cannot be
# loaded: not loaded; not built for this kernel, its headers missing
# (DKMS's module and the headers moved away; the package's postinst's own
# part run again).
ver=$(dpkg-query -W -f '${Version}' slabtrace-dkms)
check "rmmod slabtrace" rmmod slabtrace
check_eq "not loaded: 'sudo slabtrace status' says to load it" \
	"slabtrace: the slabtrace module is not loaded: sudo modprobe slabtrace" \
	"$(user_sudo 'slabtrace status')"
check_eq "and so does 'sudo kmemtrace-record'" \
	"kmemtrace-record: the slabtrace module is not loaded: sudo modprobe slabtrace" \
	"$(user_sudo 'kmemtrace-record -o /tmp/kt -- true')"
mkdir -p /tmp/away
mv /lib/modules/$kv/updates/dkms/slabtrace.ko* /tmp/away/
mv /lib/modules/$kv/build /tmp/away/build
depmod $kv
check_eq "no module, no headers: it names the headers' package" \
	"slabtrace: the slabtrace module is not loaded, and not built for this kernel ($kv): its headers are missing: sudo apt install linux-headers-$kv (DKMS then builds slabtrace for it), then sudo modprobe slabtrace" \
	"$(user_sudo 'slabtrace status')"
own_postinst > /out/realdeb-postinst-noheaders.txt 2>&1
check_eq "slabtrace-dkms's postinst ends saying which headers to install" \
	"slabtrace-dkms: install them (DKMS then builds it): sudo apt install linux-headers-$kv" \
	"$(tail -n 1 /out/realdeb-postinst-noheaders.txt)"
mv /tmp/away/build /lib/modules/$kv/build
check_eq "headers back, no module: DKMS's status and log" \
	"slabtrace: the slabtrace module is not loaded, and not built for this kernel ($kv): dkms status slabtrace says why, /var/lib/dkms/slabtrace/$ver/build/make.log is DKMS's build log; sudo dkms install slabtrace/$ver -k $kv tries again" \
	"$(user_sudo 'slabtrace status')"
mv /tmp/away/slabtrace.ko* /lib/modules/$kv/updates/dkms/
depmod $kv
check "modprobe slabtrace again" modprobe slabtrace
# The module loaded is DKMS's: the postinst has nothing to say of it.  Then
# another (its srcversion, as after an upgrade: a file mounted over
# /sys's): it says how to load DKMS's.
own_postinst > /out/realdeb-postinst-loaded.txt 2>&1
check "the module loaded is DKMS's: the postinst says nothing of reloading" \
	sh -c "! grep -q rmmod /out/realdeb-postinst-loaded.txt"
echo 0123456789ABCDEF0123456 > /tmp/srcversion
mount --bind /tmp/srcversion /sys/module/slabtrace/srcversion
own_postinst > /out/realdeb-postinst-upgraded.txt 2>&1
umount /sys/module/slabtrace/srcversion
check_eq "another module loaded: the postinst says to load DKMS's" \
	"slabtrace-dkms: the slabtrace module loaded is not the one DKMS installed (an upgrade?): sudo rmmod slabtrace && sudo modprobe slabtrace loads the installed one" \
	"$(tail -n 1 /out/realdeb-postinst-upgraded.txt)"

# --- Locked down, as under Secure Boot.
mount -t securityfs securityfs /sys/kernel/security
echo integrity > /sys/kernel/security/lockdown
check "the kernel is locked down (integrity)" \
	grep -q '\[integrity\]' /sys/kernel/security/lockdown
check "an unsigned module is refused now" sh -c "! insmod $MODDIR/initleak.ko"
stage lockdown

# --- Secure Boot refuses a module signed with a key it does not trust
# (DKMS's key is not enrolled in this VM): what the command and the
# package say.
check "rmmod slabtrace (locked down)" rmmod slabtrace
# Lockdown's log lines are ratelimited (10 in 5 s): a new window.
sleep 6
check "modprobe slabtrace is refused (DKMS's key is not trusted here)" \
	sh -c "! modprobe slabtrace 2> /dev/null"
user_sudo 'slabtrace status' > /out/realdeb-secureboot.txt
check_eq "'sudo slabtrace status' quotes the kernel's refusal" \
	"slabtrace: the kernel refused a module for its signature: 'Lockdown: modprobe: unsigned module loading is restricted; see man kernel_lockdown.7'" \
	"$(sed -n 1p /out/realdeb-secureboot.txt)"
check_eq "and says to enrol DKMS's key" \
	"slabtrace: the slabtrace module is not loaded, and this kernel loads only signed modules (Secure Boot), with a key it trusts: sudo modprobe slabtrace; if that says 'Operation not permitted' or 'Key was rejected by service', enrol DKMS's key once: sudo mokutil --import /var/lib/dkms/mok.pub, reboot and confirm it in the MOK manager" \
	"$(sed -n 2p /out/realdeb-secureboot.txt)"
own_postinst > /out/realdeb-postinst-secureboot.txt 2>&1
check_eq "slabtrace-dkms's postinst ends saying how to enrol DKMS's key" \
	"slabtrace-dkms: sudo mokutil --import /var/lib/dkms/mok.pub, reboot and confirm it in the MOK manager" \
	"$(tail -n 1 /out/realdeb-postinst-secureboot.txt)"
# Before DKMS's first build there is no key yet: the postinst says when.
mv /var/lib/dkms/mok.pub /var/lib/dkms/mok.pub.away
own_postinst > /out/realdeb-postinst-nokey.txt 2>&1
mv /var/lib/dkms/mok.pub.away /var/lib/dkms/mok.pub
check_eq "... and, with no key made yet, after which build to enrol it" \
	"slabtrace-dkms: once DKMS has built it (and made /var/lib/dkms/mok.pub): sudo mokutil --import /var/lib/dkms/mok.pub, reboot and confirm it in the MOK manager" \
	"$(tail -n 1 /out/realdeb-postinst-nokey.txt)"
# DKMS set to sign with a key of the user's (mok_certificate, in
# framework.conf.d, as the Debian wiki has it): that is the one to enrol.
mkdir -p /etc/dkms/framework.conf.d
cp /var/lib/dkms/mok.pub /root/own-mok.der
printf '%s\n' 'mok_signing_key="/root/own-mok.key"' 'mok_certificate="/root/own-mok.der"' \
	> /etc/dkms/framework.conf.d/zz-slabtrace-test.conf
own_postinst > /out/realdeb-postinst-ownkey.txt 2>&1
user_sudo 'slabtrace status' > /out/realdeb-secureboot-ownkey.txt
# Set again, empty, by a file read after it: DKMS's own key.
echo 'mok_certificate=' > /etc/dkms/framework.conf.d/zzz-slabtrace-test.conf
own_postinst > /out/realdeb-postinst-emptykey.txt 2>&1
rm -f /etc/dkms/framework.conf.d/zz-slabtrace-test.conf \
	/etc/dkms/framework.conf.d/zzz-slabtrace-test.conf /root/own-mok.der
check_eq "... and, with DKMS set to sign with another key, names its certificate" \
	"slabtrace-dkms: sudo mokutil --import /root/own-mok.der, reboot and confirm it in the MOK manager" \
	"$(tail -n 1 /out/realdeb-postinst-ownkey.txt)"
check "and so does 'sudo slabtrace status'" \
	grep -q "enrol DKMS's key once: sudo mokutil --import /root/own-mok.der, reboot" \
	/out/realdeb-secureboot-ownkey.txt
check_eq "... set again, empty, it names DKMS's own" \
	"slabtrace-dkms: sudo mokutil --import /var/lib/dkms/mok.pub, reboot and confirm it in the MOK manager" \
	"$(tail -n 1 /out/realdeb-postinst-emptykey.txt)"
dmesg > /out/realdeb-dmesg.txt
finish
