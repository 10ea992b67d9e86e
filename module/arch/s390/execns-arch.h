/* SPDX-License-Identifier: GPL-2.0 */
/*
 * s390x, with 31-bit (COMPAT) callers where the kernel has them:
 * everything execns does differently on this architecture (see
 * x86/execns-arch.h for the shape).
 *
 * Syscalls: do_syscall() calls current->thread.sys_call_table[nr](regs)
 * (sys_call_table_emu for 31-bit tasks); unused entries are
 * __s390x_sys_ni_syscall, whose compat twin __s390_sys_ni_syscall is an
 * alias of it, so the ABI is told by is_compat_task().  Arguments: the
 * first in orig_gpr2 (gprs[2] becomes the return value), the others in
 * gprs[3..7]; the number is the low 16 bits of int_code, which
 * do_syscall() fills in from gpr1 for "svc 0".
 *
 * Probes: s390 has KPROBES_ON_FTRACE, so the slot's kprobe at the function
 * entry is an ftrace callback whose pt_regs the trampoline returns
 * through; setting its address (psw.addr) redirects as on x86.  Hooks
 * save full pt_regs (DYNAMIC_FTRACE_WITH_REGS, as livepatch on s390).
 * Kernel calls go through generic static calls (no HAVE_STATIC_CALL):
 * indirect calls through the expoline thunks.
 */
#ifndef _EXECNS_ARCH_H
#define _EXECNS_ARCH_H

#include <linux/compat.h>
#include <linux/ftrace.h>
#include <linux/ptrace.h>
#include <linux/string.h>
#include "uapi/execns.h"

#define EXECNS_ARCH_NAME		"s390x"
#define EXECNS_ARCH_COMPAT_NAME		"s390 (31-bit)"
#define EXECNS_ARCH_HAS_COMPAT		IS_ENABLED(CONFIG_COMPAT)

/* The default slots, user space's facts too (uapi/execns.h says why these). */
#define EXECNS_ARCH_SYSCALL_NR		EXECNS_NR_S390X
#define EXECNS_ARCH_COMPAT_SYSCALL_NR	EXECNS_NR_S390

#define EXECNS_ARCH_SYS_NI_SYSCALL	"__s390x_sys_ni_syscall"
#define EXECNS_ARCH_COMPAT_SYS_NI_SYSCALL "__s390_sys_ni_syscall"
/*
 * No switch dispatcher: dispatch is an indirect call through the tables,
 * which no compiler inlines (slot.c never uses these names here).
 */
#define EXECNS_ARCH_DISPATCH		"-"
#define EXECNS_ARCH_COMPAT_DISPATCH	"-"
#define EXECNS_ARCH_SYS_EXECVE		"__s390x_sys_execve"
#define EXECNS_ARCH_COMPAT_SYS_EXECVE	"__s390_compat_sys_execve"
#define EXECNS_ARCH_SYS_CLOSE_RANGE	"__s390x_sys_close_range"
#define EXECNS_ARCH_SYS_UNSHARE		"__s390x_sys_unshare"
/* Absent without CONFIG_COMPAT; the proof then has nothing to check. */
#define EXECNS_ARCH_COMPAT_SYS_UNSHARE	"__s390_sys_unshare"
#define EXECNS_ARCH_SYS_CALL_TABLE	"sys_call_table"
#define EXECNS_ARCH_COMPAT_SYS_CALL_TABLE "sys_call_table_emu"

static inline bool execns_arch_in_compat_syscall(void)
{
	return is_compat_task();
}

static inline unsigned int execns_arch_syscall_nr(const struct pt_regs *uregs)
{
	return uregs->int_code & 0xffff;
}

/*
 * Argument @n (0-4) of a function whose entry a kprobe stopped: r2 to r6
 * of the s390x calling convention.  Not regs_get_kernel_argument(), which
 * calls regs_get_register(): 6.12 defines that out of line and does not
 * export it to modules (7.x makes it inline).
 */
static inline unsigned long execns_arch_probe_arg(struct pt_regs *regs, unsigned int n)
{
	return regs->gprs[2 + n];
}

/* The wrappers of both ABIs read orig_gpr2, then gprs[3..7]. */
static inline unsigned long *execns_arch_argp(struct pt_regs *regs, unsigned int n,
					      bool compat)
{
	return n ? &regs->gprs[n + 2] : &regs->orig_gpr2;
}

#define EXECNS_ARCH_HOOK_FLAGS		FTRACE_OPS_FL_SAVE_REGS

/*
 * With KPROBES_ON_FTRACE, s390's kprobe_ftrace_handler() sets psw.addr to
 * the probed function (ip + MCOUNT_INSN_SIZE) after a pre-handler that
 * returns 0, whatever an ops called before it left there.  So a hook's
 * redirect survives a kprobe on its function only if ftrace calls the
 * hook after the kprobe: hook.c keeps the hooks behind kprobe_ftrace_ops
 * in ftrace's list.
 */
#define EXECNS_ARCH_KPROBE_RESETS_IP	IS_ENABLED(CONFIG_KPROBES_ON_FTRACE)

static inline unsigned long execns_hook_arg0(struct execns_fregs *fregs)
{
	return execns_fregs_pt_regs(fregs)->gprs[2];
}

static inline void execns_hook_redirect(struct execns_fregs *fregs, void *target)
{
	instruction_pointer_set(execns_fregs_pt_regs(fregs), (unsigned long)target);
}

/*
 * The load-time proof (proof.c) counts the direct branches in a caller's
 * machine code that land on a function's entry: exactly the symbol, where
 * s390's ftrace site (the 6-byte brcl that -mnop-mcount leaves) is the
 * first instruction.
 */
#define EXECNS_ARCH_ENTRY_BEFORE	0
#define EXECNS_ARCH_ENTRY_AFTER		0

/*
 * The instruction at @code (@len bytes of text left, copied from address
 * @ip): the target of a direct branch in *@dest (0 if it is none), and how
 * far to step (0: the text ends inside it).  An s390 instruction's length is in the two top bits of
 * its first byte (2, 4 or 6 bytes), so the text is decoded from the
 * function's start: brasl and brcl (c0x5, c0x4: calls, jumps and
 * conditional tail calls, 32-bit offset) and bras and brc (a7x5, a7x4,
 * 16-bit offset), offsets in halfwords from the instruction.
 */
static inline size_t execns_arch_branch(const u8 *code, size_t len, unsigned long ip,
					unsigned long *dest)
{
	size_t ilen = code[0] < 0x40 ? 2 : code[0] < 0xc0 ? 4 : 6;
	u8 op2 = len > 1 ? code[1] & 0x0f : 0;
	s32 rel32;
	s16 rel16;

	*dest = 0;
	if (ilen > len)
		return 0;
	if (code[0] == 0xc0 && (op2 == 4 || op2 == 5)) {
		memcpy(&rel32, code + 2, sizeof(rel32));
		*dest = ip + 2L * rel32;
	} else if (code[0] == 0xa7 && (op2 == 4 || op2 == 5)) {
		memcpy(&rel16, code + 2, sizeof(rel16));
		*dest = ip + 2L * rel16;
	}
	return ilen;
}

/* No text between _stext and _etext is kept from the text scan here. */
#define EXECNS_ARCH_TEXT_HOLE_START	NULL
#define EXECNS_ARCH_TEXT_HOLE_END	NULL

/*
 * Whether the instruction at @code[@i] (of @len copied from @base) names
 * the kernel object at @target: the text scan (textscan.c) finds the
 * functions that take a file-static lock this way.  An address is loaded
 * by larl (c0x0), relative to the instruction, in halfwords.
 */
static inline bool execns_arch_refers(const struct execns_arch_scan *st, const u8 *code,
				      size_t i, size_t len, unsigned long base,
				      unsigned long target)
{
	s32 rel32;

	if (i + 6 > len || code[i] != 0xc0 || (code[i + 1] & 0x0f))
		return false;
	memcpy(&rel32, code + i + 2, sizeof(rel32));
	return base + i + 2L * rel32 == target;
}

#endif /* _EXECNS_ARCH_H */
