/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * kptrace's binary stream: the events of /proc/slabtrace/kptrace/ctf/, as
 * a CTF reader or a program parsing them sees them.  The packets and the
 * event headers are those of every slabtrace stream (<ctf.h>: struct
 * slabtrace_ctf_packet, the compact and extended headers); the TSDL in
 * kptrace/ctf/metadata describes the same layout, so babeltrace2 needs
 * nothing from here.
 *
 * One event per finished system call, its header's time the call's end.
 * Fields, byte-aligned, little-endian, in this order:
 *
 *   s32 nr            system call number (the event says which table)
 *   s64 ret           return value (0 for KPTRACE_CTF_NORETURN)
 *   u64 duration_ns   end - start, CLOCK_MONOTONIC
 *   s32 pid           the process (tgid)
 *   s32 tid
 *   u8  flags         KPTRACE_CTF_COMPAT, KPTRACE_CTF_NORETURN, KPTRACE_CTF_PATH
 *   u8  comm[16]      the task's name, NUL-padded
 *   u8  nargs         how many argument registers the call reads (0-6):
 *                     its sys_NAME prototype's arguments, 6 for a compat
 *                     call or one whose prototype the kernel's headers lack
 *   u64 args[nargs]   the first nargs argument registers
 *   u8  path_len      at KPTRACE_CTF_OFF_ARGS + 8 * nargs
 *   u8  path[path_len] the path argument's first bytes, no NUL
 */
#ifndef _UAPI_SLABTRACE_KPTRACE_H
#define _UAPI_SLABTRACE_KPTRACE_H

#define KPTRACE_CTF_ABI_VERSION	2

/* The largest "syscall size", per CPU, in KiB: 256 MiB. */
#define KPTRACE_SIZE_KB_MAX	262144

/* Event ids. */
enum kpt_ctf_event_id {
	KPTRACE_CTF_SYSCALL,		/* a native system call */
	KPTRACE_CTF_SYSCALL_COMPAT,	/* a compat (ia32, arm32) one */
	KPTRACE_CTF_NR_EVENTS,
};

#define KPTRACE_CTF_COMPAT	0x01	/* also said by the event id */
#define KPTRACE_CTF_NORETURN	0x02	/* ended by the task's exit */
#define KPTRACE_CTF_PATH	0x04	/* path[] holds a path argument */

/* Where each field starts, from the event's payload. */
#define KPTRACE_CTF_OFF_NR		0
#define KPTRACE_CTF_OFF_RET		4
#define KPTRACE_CTF_OFF_DURATION	12
#define KPTRACE_CTF_OFF_PID		20
#define KPTRACE_CTF_OFF_TID		24
#define KPTRACE_CTF_OFF_FLAGS		28
#define KPTRACE_CTF_OFF_COMM		29
#define KPTRACE_CTF_OFF_NARGS		45
#define KPTRACE_CTF_OFF_ARGS		46
/* Bytes of the fields but args[] and path[]: the event has 8 * nargs more. */
#define KPTRACE_CTF_PAYLOAD	47
#define KPTRACE_CTF_COMM_LEN	16

#endif /* _UAPI_SLABTRACE_KPTRACE_H */
