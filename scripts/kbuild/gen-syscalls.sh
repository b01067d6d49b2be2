#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Generate the syscall tables of the kernel being built for from its own
# numbering:
#
#   scripts/kbuild/gen-syscalls.sh [-I DIR]... [-p SYSCALLS_H] \
#       UNISTD_64_H UNISTD_32_H|- > syscall_table.h
#
# For each ABI (64: native, 32: the compat entry points, ia32 on x86-64,
# aarch32 on arm64) it emits the names by number, for the system calls
# that take a path which argument it is (1-based; 0: none), and how many
# arguments each takes.  Only the list of path-taking calls, by name, is
# written by hand, below.
#
# The number of arguments of a native call NAME is that of the prototype
# of sys_NAME in SYSCALLS_H (the kernel's include/linux/syscalls.h), the
# most of them if the header has several (sys_clone's, by configuration);
# 6, all the registers, if it has none (an arch's own calls, or a name
# whose entry point is named otherwise) or without -p.  A compat call
# always has 6: its 64-bit arguments take two registers each, which its
# sys_NAME prototype does not say.
#
# A header is read for its "#define __NR_name number" lines: the generated
# unistd_64.h and unistd_32.h (x86-64, arm64 from v6.11) or arm64's
# asm/unistd32.h (before v6.11).  A header that includes
# <asm-generic/unistd.h> instead (the arch's uapi asm/unistd.h: arm64
# before v6.11) is run through the preprocessor ($CPP, default cpp) with
# the -I directories, and its __NR_ macros are resolved.  "-" for the
# 32-bit header: the kernel has no compat system calls, the table has one
# unnamed entry.
set -eu
incs=
protos=
while getopts I:p: opt; do
	case $opt in
	I) incs="$incs -I$OPTARG" ;;
	p) protos=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
u64=$1
u32=$2

# name:argument (0-based) of the path a common system call takes.
paths="open:0 openat:1 openat2:1 creat:0 execve:0 execveat:1
stat:0 lstat:0 newfstatat:1 statx:1 stat64:0 lstat64:0 fstatat64:1
oldstat:0 oldlstat:0 access:0 faccessat:1 faccessat2:1
unlink:0 unlinkat:1 mkdir:0 mkdirat:1 rmdir:0 rename:0 renameat:1
renameat2:1 link:0 linkat:1 symlink:0 symlinkat:0 readlink:0
readlinkat:1 chdir:0 chroot:0 chmod:0 fchmodat:1 fchmodat2:1 chown:0
lchown:0 fchownat:1 chown32:0 lchown32:0 truncate:0 truncate64:0 mknod:0
mknodat:1 utime:0 utimes:0 utimensat:1 futimesat:1 statfs:0 statfs64:0
mount:1 umount:0 umount2:0 swapon:0 swapoff:0 acct:0 getxattr:0
lgetxattr:0 setxattr:0 lsetxattr:0 listxattr:0 llistxattr:0
removexattr:0 lremovexattr:0 uselib:0 name_to_handle_at:1
open_tree:1 move_mount:1 mount_setattr:1 inotify_add_watch:1"

# numbers FILE: "number name" for each system call FILE defines.
numbers() {
	if grep -q '^#include <asm-generic/unistd.h>' "$1"; then
		# The macros as the arch's settings leave them, then each
		# __NR_name resolved through its aliases (__NR_fcntl is
		# __NR3264_fcntl).  __NR_syscalls (the count, also in
		# arm64's generated headers) and __NR_arch_specific_syscall
		# are not system calls.
		# shellcheck disable=SC2086
		${CPP:-cpp} -nostdinc -undef -P -dM $incs "$1" |
		awk '$1 == "#define" && NF == 3 { v[$2] = $3 }
		END {
			for (m in v) {
				if (m !~ /^__NR_/ || m == "__NR_syscalls" ||
				    m == "__NR_arch_specific_syscall")
					continue
				x = v[m]
				for (i = 0; i < 8 && x in v; i++)
					x = v[x]
				if (x ~ /^[0-9]+$/)
					print x, substr(m, 6)
			}
		}'
	else
		sed -n 's/^#define __NR_\([a-z0-9_]*\)[ 	]\{1,\}\([0-9]\{1,\}\)\([ 	]*\/\*.*\*\/\)\{0,1\}$/\2 \1/p' "$1" |
		grep -v ' syscalls$'
	fi
}

# nargs: "name:count" for each sys_NAME prototype of $protos, the
# largest count of a name declared more than once.  A prototype is the
# text from "asmlinkage long sys_NAME(" to its ";"; its arguments are
# its commas at the outer level, plus one, or none for "(void)".
nargs() {
	[ -n "$protos" ] || return 0
	[ -r "$protos" ] || { echo "gen-syscalls: cannot read $protos" >&2; exit 1; }
	awk 'BEGIN { RS = ";" }
	{
		s = $0
		gsub(/[ \t\n]+/, " ", s)
		if (!match(s, /asmlinkage long sys_[a-z0-9_]+\(/))
			next
		name = substr(s, RSTART + 20, RLENGTH - 21)
		rest = substr(s, RSTART + RLENGTH)
		depth = 1; commas = 0; body = ""
		for (i = 1; i <= length(rest) && depth > 0; i++) {
			c = substr(rest, i, 1)
			if (c == "(")
				depth++
			else if (c == ")")
				depth--
			else if (c == "," && depth == 1)
				commas++
			if (depth > 0 && c != " ")
				body = body c
		}
		if (depth)
			next
		n = body == "" || body == "void" ? 0 : commas + 1
		# No more than the 6 registers the module copies (core.h).
		if (n > 6)
			n = 6
		if (!(name in max) || n > max[name])
			max[name] = n
	}
	END { for (m in max) printf "%s:%d ", m, max[m] }' "$protos"
}
counts=$(nargs)

table() {
	abi=$1
	file=$2
	if [ "$file" = - ]; then
		# One empty entry: no table (nor what is sized by one) is empty.
		echo "/* No compat system calls. */"
		echo "static const struct slabtrace_syscall syscalls_${abi}[1] = { };"
		return
	fi
	[ -r "$file" ] || { echo "gen-syscalls: cannot read $file" >&2; exit 1; }
	echo "/* From $(basename "$file"). */"
	echo "static const struct slabtrace_syscall syscalls_${abi}[] = {"
	numbers "$file" |
	sort -n -k1,1 -k2,2 |
	while read -r nr name; do
		arg=0
		for p in $paths; do
			if [ "${p%:*}" = "$name" ]; then
				arg=$((${p#*:} + 1))
				break
			fi
		done
		n=6
		if [ "$abi" = 64 ]; then
			for c in $counts; do
				if [ "${c%:*}" = "$name" ]; then
					n=${c#*:}
					break
				fi
			done
		fi
		printf '\t[%s] = { "%s", %s, %s },\n' "$nr" "$name" "$arg" "$n"
	done
	echo "};"
}

echo "/* SPDX-License-Identifier: GPL-2.0 */"
echo "/* Generated by scripts/kbuild/gen-syscalls.sh: do not edit. */"
table 64 "$u64"
echo
table 32 "$u32"
