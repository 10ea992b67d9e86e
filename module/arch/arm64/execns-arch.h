/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64, with AArch32 (COMPAT) callers: everything execns does differently
 * on this architecture (see x86/execns-arch.h for the shape).
 *
 * Syscalls: invoke_syscall() still calls through sys_call_table[nr](regs)
 * (compat_sys_call_table for AArch32 tasks); every unused entry of both
 * tables is the one function __arm64_sys_ni_syscall, so the slot's probe
 * sees native and compat calls alike and tells them apart by
 * is_compat_task().  Arguments: regs[0..5] for both ABIs (x0-x5, r0-r5);
 * the number is syscallno (x8, or r7 for AArch32).
 *
 * ftrace: arm64 has DYNAMIC_FTRACE_WITH_ARGS but not WITH_REGS since 6.x,
 * so hooks get a struct ftrace_regs and no pt_regs; SAVE_REGS would make
 * register_ftrace_function() fail.  5.10 has WITH_REGS only: hooks ask for
 * SAVE_REGS there and get a pt_regs (EXECNS_FTRACE_ARGS_FLAGS, compat.h),
 * which its ftrace_common returns through the same way.  ftrace_caller
 * reloads the PC it returns to from the ftrace_regs (ret x9) and restores
 * x0-x8 and the caller's LR, so setting that PC continues the hooked call
 * in a function of the same signature, as livepatch's IP modification
 * needs; RET sets no branch-target type, so BTI, if a kernel enabled it,
 * does not apply.
 *
 * Kernel calls go through generic static calls (no HAVE_STATIC_CALL on
 * arm64): an indirect BLR to the resolved address.  Debian's 6.12 arm64
 * kernel has no ARM64_BTI_KERNEL, and where it is set GCC gives every
 * global function a BTI C landing pad (arm64 has nothing like objtool's
 * ENDBR sealing), so the indirect calls are safe there too.
 */
#ifndef _EXECNS_ARCH_H
#define _EXECNS_ARCH_H

#include <linux/build_bug.h>
#include <linux/compat.h>
#include <linux/ftrace.h>
#include <linux/ptrace.h>
#include <linux/string.h>
#include "uapi/execns.h"

#define EXECNS_ARCH_NAME		"arm64"
#define EXECNS_ARCH_COMPAT_NAME		"AArch32"
#define EXECNS_ARCH_HAS_COMPAT		IS_ENABLED(CONFIG_COMPAT)

/* The default slots, user space's facts too (uapi/execns.h says why these). */
#define EXECNS_ARCH_SYSCALL_NR		EXECNS_NR_ARM64
#define EXECNS_ARCH_COMPAT_SYSCALL_NR	EXECNS_NR_AARCH32

#define EXECNS_ARCH_SYS_NI_SYSCALL	"__arm64_sys_ni_syscall"
/* The same function fills the holes of the compat table. */
#define EXECNS_ARCH_COMPAT_SYS_NI_SYSCALL "__arm64_sys_ni_syscall"
/*
 * No switch dispatcher: dispatch is an indirect call through the tables,
 * which no compiler inlines (slot.c never uses these names here).
 */
#define EXECNS_ARCH_DISPATCH		"-"
#define EXECNS_ARCH_COMPAT_DISPATCH	"-"
#define EXECNS_ARCH_SYS_EXECVE		"__arm64_sys_execve"
#define EXECNS_ARCH_COMPAT_SYS_EXECVE	"__arm64_compat_sys_execve"
#define EXECNS_ARCH_SYS_CLOSE_RANGE	"__arm64_sys_close_range"
#define EXECNS_ARCH_SYS_UNSHARE		"__arm64_sys_unshare"
/* AArch32's table calls the same wrapper for unshare(2). */
#define EXECNS_ARCH_COMPAT_SYS_UNSHARE	NULL
#define EXECNS_ARCH_SYS_CALL_TABLE	"sys_call_table"
#define EXECNS_ARCH_COMPAT_SYS_CALL_TABLE "compat_sys_call_table"

static inline bool execns_arch_in_compat_syscall(void)
{
	return is_compat_task();
}

/* el0_svc_common() stores the (already 32-bit) number in syscallno. */
static inline unsigned int execns_arch_syscall_nr(const struct pt_regs *uregs)
{
	return (u32)uregs->syscallno;
}

/* Argument @n (0-7) of a function whose entry a kprobe stopped. */
static inline unsigned long execns_arch_probe_arg(struct pt_regs *regs, unsigned int n)
{
	return regs_get_kernel_argument(regs, n);
}

/*
 * The syscall wrappers of both ABIs read regs[0..5]; regs[0] still holds
 * the first argument while the syscall runs (the return value is written
 * after it returns), as does orig_x0.
 */
static inline unsigned long *execns_arch_argp(struct pt_regs *regs, unsigned int n,
					      bool compat)
{
	/* u64 and unsigned long are one type of storage on arm64. */
	BUILD_BUG_ON(sizeof(regs->regs[0]) != sizeof(unsigned long));
	return (unsigned long *)&regs->regs[n];
}

#define EXECNS_ARCH_HOOK_FLAGS		EXECNS_FTRACE_ARGS_FLAGS

/*
 * No KPROBES_ON_FTRACE on arm64: a kprobe on a hooked function is a BRK
 * at its entry, stepped before the ftrace call, and never touches the
 * hook's regs.
 */
#define EXECNS_ARCH_KPROBE_RESETS_IP	false

static inline unsigned long execns_hook_arg0(struct execns_fregs *fregs)
{
	return execns_ftrace_regs_arg(fregs, 0);
}

static inline void execns_hook_redirect(struct execns_fregs *fregs, void *target)
{
	execns_ftrace_regs_set_ip(fregs, (unsigned long)target);
}

/*
 * The load-time proof (proof.c) counts the direct branches in a caller's
 * machine code that land on a function's entry: at the symbol, or 4 bytes
 * on, past a BTI landing pad (CONFIG_ARM64_BTI_KERNEL puts "bti c" before
 * the patchable NOPs that ftrace turns into its call).
 */
#define EXECNS_ARCH_ENTRY_BEFORE	0
#define EXECNS_ARCH_ENTRY_AFTER		4

/*
 * The instruction at @code (@len bytes of text left, copied from address
 * @ip): the target of a direct branch in *@dest (0 if it is none), and how
 * far to step (0: the text ends inside it).  Every A64 instruction is one aligned word, so this
 * decodes them all: b and bl (imm26), b.cond, cbz and cbnz (imm19), tbz
 * and tbnz (imm14), all relative to the instruction, in words.
 */
static inline size_t execns_arch_branch(const u8 *code, size_t len, unsigned long ip,
					unsigned long *dest)
{
	long words;
	u32 insn;

	*dest = 0;
	if (len < 4)
		return 0;
	memcpy(&insn, code, sizeof(insn));
	if ((insn & 0x7c000000) == 0x14000000)
		words = sign_extend64(insn & 0x03ffffff, 25);
	else if ((insn & 0xff000010) == 0x54000000 || (insn & 0x7e000000) == 0x34000000)
		words = sign_extend64((insn >> 5) & 0x7ffff, 18);
	else if ((insn & 0x7e000000) == 0x36000000)
		words = sign_extend64((insn >> 5) & 0x3fff, 13);
	else
		return 4;
	*dest = ip + words * 4;
	return 4;
}

/*
 * Text between _stext and _etext that the text scan (textscan.c) must not
 * read: KVM's hypervisor text.  Booted with kvm-arm.mode=protected, the
 * hypervisor takes those pages from the host, and a host read of them
 * traps to EL2, which older kernels answer with a hypervisor panic that
 * no fault handler of the host's can catch.
 */
#define EXECNS_ARCH_TEXT_HOLE_START	"__hyp_idmap_text_start"
#define EXECNS_ARCH_TEXT_HOLE_END	"__hyp_text_end"

/*
 * What the text scan (textscan.c) knows of a function's registers: every
 * address adrp (a 4 KiB page, relative to the instruction's) and the adds
 * and movs built on it put in each, anywhere in the function so far, up
 * to EXECNS_ARCH_REG_VALUES each.  GCC's section anchors build one address
 * per file's objects and reach each object by an add or a load's offset
 * from it, anywhere in the function (5.10's alloc_uid() takes uidhash_lock
 * as the anchor of uid_cachep plus 0x408).  Nothing is forgotten before
 * the function ends, whatever the order of its blocks: a value another
 * path overwrote can only make a function name something it does not,
 * never hide one it does.  A register past its slots keeps its first
 * ones; the adjacent adrp and add that the compiler emits without an
 * anchor are found without the registers (execns_arch_refers()).
 */
#define EXECNS_ARCH_REG_VALUES	4
#define EXECNS_ARCH_SCAN_STATE	1

struct execns_arch_scan {
	u8 n[31];
	unsigned long x[31][EXECNS_ARCH_REG_VALUES];
};

static inline void execns_arch_scan_reset(struct execns_arch_scan *st)
{
	memset(st->n, 0, sizeof(st->n));
}

static inline void execns_arch_add_value(struct execns_arch_scan *st, unsigned int r,
					 unsigned long v)
{
	unsigned int k;

	if (r >= 31 || !v)
		return;
	for (k = 0; k < st->n[r]; k++)
		if (st->x[r][k] == v)
			return;
	if (st->n[r] < EXECNS_ARCH_REG_VALUES)
		st->x[r][st->n[r]++] = v;
}

/* Whether register @r (31: sp or xzr, never) may hold @v - @off. */
static inline bool execns_arch_reg_is(const struct execns_arch_scan *st, unsigned int r,
				      unsigned long off, unsigned long v)
{
	unsigned int k;

	for (k = 0; r < 31 && k < st->n[r]; k++)
		if (st->x[r][k] + off == v)
			return true;
	return false;
}

static inline unsigned long execns_arch_adrp_page(u32 insn, unsigned long ip)
{
	return (ip & ~0xfffUL) +
	       sign_extend64((((insn >> 5) & 0x7ffff) << 2) | ((insn >> 29) & 3), 20) * 4096;
}

#define EXECNS_ARCH_IS_ADRP(insn)	(((insn) & 0x9f000000) == 0x90000000)
/* add xd, xn, #imm{, lsl #12} (64-bit, no flags) */
#define EXECNS_ARCH_IS_ADD(insn)	(((insn) & 0xff800000) == 0x91000000)
static inline unsigned long execns_arch_add_imm(u32 insn)
{
	return (unsigned long)((insn >> 10) & 0xfff) << (insn & BIT(22) ? 12 : 0);
}

/* mov xd, xm: orr xd, xzr, xm */
#define EXECNS_ARCH_IS_MOV(insn)	(((insn) & 0xffe0ffe0) == 0xaa0003e0)
/*
 * ldr/str (and prfm) with an unsigned offset, scaled by the access size;
 * a 128-bit SIMD access scales by 16, not by its size field, which no
 * lock or pointer is loaded with.
 */
#define EXECNS_ARCH_IS_LDST(insn)	(((insn) & 0x3b000000) == 0x39000000)
static inline unsigned long execns_arch_ldst_off(u32 insn)
{
	return (unsigned long)((insn >> 10) & 0xfff) << (insn >> 30);
}

/* After the instruction at @code[@i]: what it put in a register. */
static inline void execns_arch_scan_step(struct execns_arch_scan *st, const u8 *code,
					 size_t i, size_t len, unsigned long base)
{
	unsigned int rd, rn, k;
	u32 insn;

	if (i + 4 > len)
		return;
	memcpy(&insn, code + i, sizeof(insn));
	rd = insn & 31;
	rn = (insn >> 5) & 31;
	if (EXECNS_ARCH_IS_ADRP(insn)) {
		execns_arch_add_value(st, rd, execns_arch_adrp_page(insn, base + i));
	} else if (EXECNS_ARCH_IS_ADD(insn) && rn < 31) {
		for (k = 0; k < st->n[rn]; k++)
			execns_arch_add_value(st, rd, st->x[rn][k] + execns_arch_add_imm(insn));
	} else if (EXECNS_ARCH_IS_MOV(insn)) {
		rn = (insn >> 16) & 31;
		for (k = 0; rn < 31 && k < st->n[rn]; k++)
			execns_arch_add_value(st, rd, st->x[rn][k]);
	}
}

/*
 * Whether the instruction at @code[@i] (of @len copied from @base) names
 * the kernel object at @target: the text scan (textscan.c) finds the
 * functions that take a file-static lock this way.  adrp of the object's
 * page and an add of its low 12 bits into the same register within
 * EXECNS_ARCH_REF_LOOKAHEAD instructions (the compiler may schedule it a
 * few later); or an add, load or store whose base register held, anywhere
 * in the function before, an address that lands on it (@st).
 */
#define EXECNS_ARCH_REF_LOOKAHEAD	8

static inline bool execns_arch_refers(const struct execns_arch_scan *st, const u8 *code,
				      size_t i, size_t len, unsigned long base,
				      unsigned long target)
{
	unsigned int j, rd, rn;
	u32 insn;

	if (i + 4 > len)
		return false;
	memcpy(&insn, code + i, sizeof(insn));
	rn = (insn >> 5) & 31;
	if (EXECNS_ARCH_IS_ADD(insn))
		return execns_arch_reg_is(st, rn, execns_arch_add_imm(insn), target);
	if (EXECNS_ARCH_IS_LDST(insn))
		return execns_arch_reg_is(st, rn, execns_arch_ldst_off(insn), target);
	if (!EXECNS_ARCH_IS_ADRP(insn) ||
	    execns_arch_adrp_page(insn, base + i) != (target & ~0xfffUL))
		return false;
	if (!(target & 0xfff))
		return true;
	rd = insn & 31;
	for (j = 1; j <= EXECNS_ARCH_REF_LOOKAHEAD && i + 4 * j + 4 <= len; j++) {
		memcpy(&insn, code + i + 4 * j, sizeof(insn));
		if ((insn & 0xffc00000) == 0x91000000 && ((insn >> 5) & 31) == rd &&
		    ((insn >> 10) & 0xfff) == (target & 0xfff))
			return true;
	}
	return false;
}

#endif /* _EXECNS_ARCH_H */
