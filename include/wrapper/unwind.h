/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stack walk of a tracepoint probe, from its caller on.
 *
 * No version difference: the x86 unwinder API it uses has not changed
 * since v4.14 (6.1 to 7.3 checked); what differs is the architecture and
 * the unwinder configured, which Kconfig says.  Its test is the build for
 * every kernel (make compat) and the VM suites' backtraces.
 */
#ifndef _SLABTRACE_WRAPPER_UNWIND_H
#define _SLABTRACE_WRAPPER_UNWIND_H

#include <linux/stacktrace.h>
#if defined(CONFIG_X86_64) && defined(CONFIG_UNWINDER_ORC)
#include <linux/sched.h>
#include <asm/ptrace.h>
#include <asm/segment.h>
#include <asm/unwind.h>
#endif

/**
 * slabtrace_stack_walk_caller - a backtrace from the calling function's
 * caller on
 * @store: where the frames go, innermost first
 * @size: its room
 * @end: the start of a function where the walk ends
 * @end_size: its size; 0: the walk goes on to the stack's end
 *
 * Inlined into a tracepoint probe (the function the tracepoint calls),
 * this walks from the probe's return address: the first frame is in the
 * tracepoint's iterator or in the allocator.  stack_trace_save() would
 * walk from its own frame, through arch_stack_walk(), itself and the
 * probe, before reaching them: four frames more of the unwinder's work at
 * every traced allocation, one of them in module code (two lookups of the
 * module tree).
 *
 * x86-64 with the ORC unwinder (Debian's kernels, 6.1 to 7.3): the walk
 * starts from registers built from the probe's own frame, through the
 * unwinder API (__unwind_start(), unwind_next_frame(),
 * unwind_get_return_address(), exported GPL since v4.14, and struct
 * unwind_state's ip, regs and error, the same from 6.1 to 7.3), as
 * arch_stack_walk() does from an interrupt's registers.
 * __builtin_frame_address(0) makes GCC give the probe a frame pointer:
 * fp[0] is the caller's saved frame pointer and fp[1] the return address,
 * and the caller's stack pointer is fp + 2.  The probe must be notrace
 * and NOKPROBE_SYMBOL(): the function graph tracer and kretprobes replace
 * a function's return address on the stack, and the unwinder only
 * recovers the ones it reads itself.  Elsewhere (arm64's frame records,
 * UML): stack_trace_save(), whose first frames the trim drops.
 *
 * A return address in [@end, @end + @end_size) is stored and ends the
 * walk (x86-64 ORC only; stack_trace_save() cannot stop): what lies
 * beyond a function every walk passes through the same way, such as the
 * system call entry below do_syscall_64(), costs the unwinder frames and,
 * at the entry's registers, a failed search of the user address among
 * the kernel's, the modules' and BPF's text, and tells nothing.
 *
 * Return: the number of frames stored.
 */
#if defined(CONFIG_X86_64) && defined(CONFIG_UNWINDER_ORC)
static __always_inline unsigned int
slabtrace_stack_walk_caller(unsigned long *store, unsigned int size,
			    unsigned long end, unsigned long end_size)
{
	unsigned long *fp = __builtin_frame_address(0);
	struct unwind_state state __uninitialized;	/* __unwind_start()'s */
	struct pt_regs regs __uninitialized;
	unsigned int nr = 0;
	unsigned long addr;

	if (!size)
		return 0;
	/*
	 * Not zeroed whole (21 words): the unwinder reads ip, sp, bp and cs
	 * of the registers it starts from, and di, dx, r10 and r13 only if
	 * an ORC entry names them (entry code, stack realignment); those
	 * are set, the rest never read.
	 */
	regs.ip = (unsigned long)__builtin_return_address(0);
	regs.sp = (unsigned long)(fp + 2);
	regs.bp = fp[0];
	regs.cs = __KERNEL_CS;
	regs.di = 0;
	regs.dx = 0;
	regs.r10 = 0;
	regs.r13 = 0;
	/* arch_stack_walk()'s order: the registers' frame, then the walk. */
	store[nr++] = regs.ip;
	for (__unwind_start(&state, current, &regs, NULL);
	     nr < size && !unwind_done(&state); unwind_next_frame(&state)) {
		/*
		 * A call frame's state.ip is the return address ORC read
		 * where its table said, already recovered from the function
		 * graph tracer's and kretprobes' trampolines: kernel or
		 * module text, checked only where the walk may have left
		 * it.  unwind_get_return_address() adds nothing but
		 * __kernel_text_address() (a search of the kernel's, the
		 * modules' and BPF's text, every frame), so it is called
		 * for a registers frame (the ip an interrupt or a system
		 * call saved: a user address at a user's entry) and once
		 * the unwinder guessed (state.error: no ORC entry, frame
		 * pointers assumed); a frame it refuses ends the walk.
		 */
		addr = state.ip;
		if (unlikely(state.regs || state.error))
			addr = unwind_get_return_address(&state);
		if (!addr)
			break;
		store[nr++] = addr;
		if (addr - end < end_size)
			break;
	}
	return nr;
}
#else
static __always_inline unsigned int
slabtrace_stack_walk_caller(unsigned long *store, unsigned int size,
			    unsigned long end, unsigned long end_size)
{
	return stack_trace_save(store, size, 0);
}
#endif

#endif /* _SLABTRACE_WRAPPER_UNWIND_H */
