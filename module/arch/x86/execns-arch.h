/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86_64, with i386 (IA32 emulation) callers: everything execns does
 * differently on this architecture.  Kbuild puts module/arch/$(SRCARCH) on
 * the include path, so each port is one header of the same name.
 *
 * Syscalls: x86_64 dispatches through a switch in x64_sys_call() (and
 * ia32_sys_call()), or through sys_call_table (ia32_sys_call_table) on
 * kernels without the switch (5.10); an unused number reaches
 * __x64_sys_ni_syscall (or __ia32_sys_ni_syscall) with the caller's
 * pt_regs.  Arguments: di, si, dx, r10, r8, r9; i386: bx, cx, dx, si, di,
 * bp.  The number is orig_ax.
 *
 * ftrace hooks go through ftrace_caller, not ftrace_regs_caller: with
 * DYNAMIC_FTRACE_WITH_ARGS (x86 since 5.11) ftrace_caller saves the argument
 * registers in pt_regs layout and returns to the saved ip, which a handler
 * may change (livepatch drops SAVE_REGS there for this reason).
 * ftrace_regs_caller also saves the callee-saved registers and the flags,
 * which no hook reads.  Without WITH_ARGS (5.10) ftrace_caller would lose
 * the ip change, so the hooks ask for SAVE_REGS there, as livepatch did
 * (EXECNS_FTRACE_ARGS_FLAGS, compat.h).
 */
#ifndef _EXECNS_ARCH_H
#define _EXECNS_ARCH_H

#include <linux/ftrace.h>
#include <linux/ptrace.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <asm/syscall.h>
#include "uapi/execns.h"

#define EXECNS_ARCH_NAME		"x86_64"
#define EXECNS_ARCH_COMPAT_NAME		"i386"
/* Callers of the compat ABI exist (Debian builds IA32_EMULATION). */
#define EXECNS_ARCH_HAS_COMPAT		true

/* The default slots, user space's facts too (uapi/execns.h says why these). */
#define EXECNS_ARCH_SYSCALL_NR		EXECNS_NR_X86_64
#define EXECNS_ARCH_COMPAT_SYSCALL_NR	EXECNS_NR_I386

#define EXECNS_ARCH_SYS_NI_SYSCALL	"__x64_sys_ni_syscall"
#define EXECNS_ARCH_COMPAT_SYS_NI_SYSCALL "__ia32_sys_ni_syscall"
/*
 * The switch dispatchers (6.9 on; absent before).  Where a compiler
 * inlined ni_syscall's "return -ENOSYS" into one (clang's LTO does: the
 * two are in different files), no unused number reaches ni_syscall, and
 * the slot probes the dispatcher instead (slot.c).
 */
#define EXECNS_ARCH_DISPATCH		"x64_sys_call"
#define EXECNS_ARCH_COMPAT_DISPATCH	"ia32_sys_call"
#define EXECNS_ARCH_SYS_EXECVE		"__x64_sys_execve"
#define EXECNS_ARCH_COMPAT_SYS_EXECVE	"__ia32_compat_sys_execve"
#define EXECNS_ARCH_SYS_CLOSE_RANGE	"__x64_sys_close_range"
#define EXECNS_ARCH_SYS_UNSHARE		"__x64_sys_unshare"
#define EXECNS_ARCH_COMPAT_SYS_UNSHARE	"__ia32_sys_unshare"
/* Not read for dispatch since 2024, but still a mirror of the switch. */
#define EXECNS_ARCH_SYS_CALL_TABLE	"sys_call_table"
#define EXECNS_ARCH_COMPAT_SYS_CALL_TABLE "ia32_sys_call_table"

/* Whether the syscall being served came from a compat (i386) caller. */
static inline bool execns_arch_in_compat_syscall(void)
{
	return in_ia32_syscall();
}

/*
 * The number the dispatcher was given, truncated to 32 bits as the
 * dispatcher truncates it, so a value with stray upper bits matches exactly
 * when it would have been dispatched to this slot.
 */
static inline unsigned int execns_arch_syscall_nr(const struct pt_regs *uregs)
{
	return (u32)uregs->orig_ax;
}

/* Argument @n (0-5) of a function whose entry a kprobe stopped. */
static inline unsigned long execns_arch_probe_arg(struct pt_regs *regs, unsigned int n)
{
	return regs_get_kernel_argument(regs, n);
}

#define EXECNS_REG(r) offsetof(struct pt_regs, r)

/* The register that holds syscall argument @n (0-5) of a caller's pt_regs. */
static inline unsigned long *execns_arch_argp(struct pt_regs *regs, unsigned int n,
					      bool compat)
{
	static const unsigned short off[2][6] = {
		{ EXECNS_REG(di), EXECNS_REG(si), EXECNS_REG(dx),	/* x86_64 */
		  EXECNS_REG(r10), EXECNS_REG(r8), EXECNS_REG(r9) },
		{ EXECNS_REG(bx), EXECNS_REG(cx), EXECNS_REG(dx),	/* i386 */
		  EXECNS_REG(si), EXECNS_REG(di), EXECNS_REG(bp) },
	};

	return (unsigned long *)((char *)regs + off[compat][n]);
}

#undef EXECNS_REG

#define EXECNS_ARCH_HOOK_FLAGS		EXECNS_FTRACE_ARGS_FLAGS

/*
 * x86's kprobe_ftrace_handler() puts back the address it found, so a
 * kprobe on a hooked function leaves the hook's redirect alone whichever
 * of the two ftrace calls first.
 */
#define EXECNS_ARCH_KPROBE_RESETS_IP	false

/* The hooked function's first argument, at its entry. */
static inline unsigned long execns_hook_arg0(struct execns_fregs *fregs)
{
	return execns_ftrace_regs_arg(fregs, 0);
}

/*
 * Continue the hooked call in @target (same signature).  The jump there is
 * the trampoline's ret, which indirect-branch tracking does not check;
 * @target is address-taken, so it keeps its ENDBR anyway.
 */
static inline void execns_hook_redirect(struct execns_fregs *fregs, void *target)
{
	execns_ftrace_regs_set_ip(fregs, (unsigned long)target);
}

/*
 * The load-time proof (proof.c) counts the direct branches in a caller's
 * machine code that land on a function's entry.  A branch lands on it when
 * it starts the function at or before its ftrace call: at the symbol, 4
 * bytes on (past an ENDBR64, where __fentry__ is called on IBT kernels), or
 * in the padding before the symbol that call-depth tracking's call thunks
 * use (CONFIG_CALL_PADDING, 6.2 on), whose code runs straight into the
 * entry.  A call to the symbol + 4 of a function without ENDBR would be
 * inside its 5-byte __fentry__ call, which no compiler emits.  The padding
 * counts only with CONFIG_CALL_PADDING: CONFIG_FUNCTION_PADDING_BYTES is
 * also set without it (FUNCTION_ALIGNMENT), and that padding is alignment
 * fill that no branch targets, so accepting it would widen the window for nothing.
 */
#ifdef CONFIG_CALL_PADDING
#define EXECNS_ARCH_ENTRY_BEFORE	CONFIG_FUNCTION_PADDING_BYTES
#else
#define EXECNS_ARCH_ENTRY_BEFORE	0
#endif
#define EXECNS_ARCH_ENTRY_AFTER		4

/*
 * The bytes at @code (@len left, copied from address @ip): the target of
 * a direct branch in *@dest (0 if they encode none), and how far to step.
 * x86 code cannot be split into instructions without a decoder, so the
 * proof steps one byte at a time and this matches the three encodings of a
 * direct branch with a 32-bit displacement: call (e8), jmp (e9) and jcc
 * (0f 80-8f), the forms GCC uses for calls and tail calls to functions
 * outside the caller's own section.  A false match needs four bytes of
 * other code to encode exactly the distance to the entry (one chance in
 * 2^32 per offset); a missed branch (a rel8 jump to a function within 128
 * bytes) only makes the proof fail, never pass.
 */
static inline size_t execns_arch_branch(const u8 *code, size_t len, unsigned long ip,
					unsigned long *dest)
{
	size_t op;
	s32 rel;

	*dest = 0;
	if (len >= 5 && (code[0] == 0xe8 || code[0] == 0xe9))
		op = 1;
	else if (len >= 6 && code[0] == 0x0f && (code[1] & 0xf0) == 0x80)
		op = 2;
	else
		return 1;
	memcpy(&rel, code + op, sizeof(rel));	/* the CPU's byte order */
	*dest = ip + op + sizeof(rel) + rel;
	return 1;	/* every offset: there is no decoder to step by instructions */
}

/* No text between _stext and _etext is kept from the text scan here. */
#define EXECNS_ARCH_TEXT_HOLE_START	NULL
#define EXECNS_ARCH_TEXT_HOLE_END	NULL

/*
 * Whether the bytes at @code[@i] (of @len copied from @base) are the 32-bit
 * field of an instruction that names the kernel object at @target: the
 * text scan (textscan.c) finds the functions that take a file-static lock
 * this way.  Two forms, checked at every offset as branches are: a
 * RIP-relative operand (ModRM mod 00, r/m 101, the displacement ending the
 * instruction, as in lea and mov), and a sign-extended absolute immediate
 * (mov $sym, %reg: c7 with a register ModRM), which -mcmodel=kernel emits
 * for a symbol's address.  The ModRM byte before the field cuts a chance
 * match to about one in 2^37 per offset.
 */
static inline bool execns_arch_refers(const struct execns_arch_scan *st, const u8 *code,
				      size_t i, size_t len, unsigned long base,
				      unsigned long target)
{
	bool rip, abs;
	s32 v;

	if (i < 2 || i + sizeof(v) > len)
		return false;
	rip = (code[i - 1] & 0xc7) == 0x05;
	abs = code[i - 2] == 0xc7 && (code[i - 1] & 0xf8) == 0xc0;
	if (!rip && !abs)
		return false;
	memcpy(&v, code + i, sizeof(v));
	return rip ? base + i + sizeof(v) + v == target : (unsigned long)(long)v == target;
}

#endif /* _EXECNS_ARCH_H */
