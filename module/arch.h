/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the core files use of the architecture port.  Each architecture's
 * differences live in one header, module/arch/$(SRCARCH)/execns-arch.h
 * (Kbuild puts its directory on the include path); this one adds the
 * helpers that are the same everywhere on top of it.
 */
#ifndef _EXECNS_ARCH_COMMON_H
#define _EXECNS_ARCH_COMMON_H

#include <linux/compat.h>
#include <linux/ptrace.h>

/* What the text scan keeps across instructions (execns_arch_refers()). */
struct execns_arch_scan;

#include <execns-arch.h>

/*
 * An architecture whose decoder reads each instruction alone (x86, s390)
 * keeps nothing; arm64 defines EXECNS_ARCH_SCAN_STATE and its own.
 */
#ifndef EXECNS_ARCH_SCAN_STATE
struct execns_arch_scan { };

static inline void execns_arch_scan_reset(struct execns_arch_scan *st)
{
}

static inline void execns_arch_scan_step(struct execns_arch_scan *st, const u8 *code,
					 size_t i, size_t len, unsigned long base)
{
}
#endif

/*
 * Argument @n of a syscall from the caller's pt_regs.  A compat caller's
 * arguments are 32 bits wide whatever the upper half of the register holds.
 */
static inline unsigned long execns_syscall_arg(const struct pt_regs *uregs,
					       unsigned int n, bool compat)
{
	unsigned long v = *execns_arch_argp((struct pt_regs *)uregs, n, compat);

	return compat ? (u32)v : v;
}

/* Argument @n as a user pointer (compat_ptr() for a compat caller). */
static inline void __user *execns_syscall_uptr(const struct pt_regs *uregs,
					       unsigned int n, bool compat)
{
	unsigned long v = execns_syscall_arg(uregs, n, compat);

	return compat ? compat_ptr(v) : (void __user *)v;
}

/*
 * @regs, a copy of the caller's, with its arguments moved down by one
 * (argument n + 1 into n, for n < @count): the caller's execns(flags, path,
 * argv, envp) becomes execve(path, argv, envp).  Whole registers are moved.
 */
static inline void execns_syscall_shift_args(struct pt_regs *regs, unsigned int count,
					     bool compat)
{
	unsigned int n;

	for (n = 0; n < count; n++)
		*execns_arch_argp(regs, n, compat) = *execns_arch_argp(regs, n + 1, compat);
}

/*
 * Direct branches to an address in [@lo, @hi] in @code, @len bytes of
 * text copied from @base, decoded by the architecture's
 * execns_arch_branch() (the load-time proof, proof.c).
 */
static inline unsigned int execns_count_branches(const u8 *code, size_t len, unsigned long base,
						 unsigned long lo, unsigned long hi)
{
	unsigned long dest;
	unsigned int n = 0;
	size_t i, step;

	for (i = 0; i < len; i += step) {
		step = execns_arch_branch(code + i, len - i, base + i, &dest);
		if (!step)
			break;
		n += dest >= lo && dest <= hi;
	}
	return n;
}

#endif /* _EXECNS_ARCH_COMMON_H */
