/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hooks on kernel functions through ftrace, and the redirect both they and
 * the syscall slot's kprobes use.
 *
 * A hook is an ftrace_ops filtered on one function's entry, with what
 * the architecture needs to see the arguments and move the call
 * (EXECNS_ARCH_HOOK_FLAGS, execns-arch.h: SAVE_REGS on s390, nothing on
 * x86 and arm64, whose argument-only trampolines carry the arguments and
 * return to an ip the callback changed) and
 * PERMANENT (kernel.ftrace_enabled=0 would silently turn it into a NOP;
 * with it, that sysctl fails with EBUSY while the hook is registered, and
 * registering fails while ftrace is disabled).  A redirecting hook also has
 * IPMODIFY: a second IP modifier on the function (livepatch, another
 * module) then fails to attach instead of being bypassed, or this one
 * fails to arm.
 *
 * No FTRACE_OPS_FL_RECURSION: the callbacks call no hooked function, so
 * they cannot recurse.  Without that flag ftrace calls a callback straight
 * from the function's own trampoline (x86) or from ftrace_caller through
 * the ops stored beside the call site (arm64's CALL_OPS) instead of
 * through ftrace_ops_assist_func(), whose recursion bit and preemption
 * toggling were 40% of a hit that returns at once (docs/bench-notes.md),
 * and which skips the callback when it believes it recursed; on arm64 the
 * flag also sent every hooked call through the list of all ops.  Where
 * ftrace still calls through that list (another ops on the same function,
 * such as a kprobe's; always on s390, which has neither per-ops
 * trampolines nor CALL_OPS), the list sets the same recursion bit and
 * disables preemption, and skips the call only when nested twice in one
 * context.
 *
 * Callbacks run in any context the hooked function runs in, preemptible
 * (x86's preemptible kernels) or not, and must be notrace.  A task
 * preempted inside one is waited for by the tasks-RCU grace period of
 * unregistering a module's ops.
 *
 * Armed, a hook's ops is registered, filtered on its function; disarmed,
 * the function's ftrace site goes back to what it was without the hook (a
 * NOP when nothing else traces it), so an unused hook costs nothing.  Two
 * ways:
 *  - unregistered (x86, arm64): registering an IP-modifying ops is also
 *    what tells a BPF trampoline already on the function (fexit,
 *    fmod_ret) to continue the call where the hook redirects it;
 *  - parked (s390, EXECNS_ARCH_KPROBE_RESETS_IP): registered once, at
 *    load, until unload, its filter pointing at a parking place of its own
 *    (hook.c), a module function nobody calls, while disarmed.  ftrace
 *    calls the ops of one function newest first, and an ops that is never
 *    registered again stays behind every kprobe_ftrace_ops registered
 *    after the load, whose handler, on s390, resets the address a hook
 *    called before it redirected.  Arming refuses (EBUSY) while
 *    kprobe_ftrace_ops is older than the module (kprobes placed before
 *    the load, on any function) or a BPF trampoline is on the function,
 *    which changing a filter does not tell.  kernel.ftrace_enabled=0
 *    then fails for as long as the module is loaded.
 */
#ifndef _EXECNS_HOOK_H
#define _EXECNS_HOOK_H

#include <linux/ftrace.h>
#include <linux/ptrace.h>
#include "arch.h"

struct seq_file;

struct execns_hook {
	const char *name;	/* the kernel function */
	unsigned long addr;	/* its address, after init */
	unsigned long park;	/* the ops' filter while parked */
	struct ftrace_ops ops;
	bool armed;
	bool guard;		/* EXECNS_GUARD_HOOK: absent function is no error */
	int pin_err;		/* unregistering failed with it: the module is pinned */
};

#define EXECNS_HOOK_FLAGS (EXECNS_ARCH_HOOK_FLAGS | FTRACE_OPS_FL_PERMANENT)

/*
 * A hook that may change where the hooked call goes: to @to, the module's
 * function of the same signature, which @cb finds in its ops' private.
 */
#define EXECNS_REDIRECT_HOOK(sym, cb, to) {				\
	.name = sym,							\
	.ops = { .func = cb, .private = to,				\
		 .flags = EXECNS_HOOK_FLAGS | FTRACE_OPS_FL_IPMODIFY },	\
}

/*
 * A guard: an IP-modifying ops with an empty callback on a caller whose
 * text a redirect relies on (alloc_ucounts()'s callers, told by the
 * return address: uidhooks.c).  ftrace lets one IP modifier at a time on a
 * function, so while the guard is armed no livepatch or other module can
 * replace the caller with a copy whose calls come from text the hook does
 * not know, and while one has, arming fails (EBUSY).  A function this
 * kernel does not have is skipped.
 */
#define EXECNS_GUARD_HOOK(sym) {					\
	.name = sym, .guard = true,					\
	.ops = { .func = execns_hook_guard,				\
		 .flags = EXECNS_HOOK_FLAGS | FTRACE_OPS_FL_IPMODIFY },	\
}

void execns_hook_guard(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
		       struct execns_fregs *fregs);

/* A hook that only looks (and may change the arguments' objects). */
#define EXECNS_WATCH_HOOK(sym, cb) {					\
	.name = sym,							\
	.ops = { .func = cb, .flags = EXECNS_HOOK_FLAGS },		\
}

/*
 * Aim @h at its function and register it once, so that a conflict (another
 * IP modifier, ftrace disabled) fails the load rather than a later call.
 * Arming and disarming sleep; callers serialise them per hook.
 */
int execns_hook_init(struct execns_hook *h);
void execns_hook_uninit(struct execns_hook *h);
int execns_hook_arm(struct execns_hook *h);
void execns_hook_disarm(struct execns_hook *h);
/* Armed: any context (disarming can fail, hook.c). */
bool execns_hook_armed(const struct execns_hook *h);

/*
 * Where ftrace refused to unregister @h (hook.c): a "pinned: ..." line for
 * /proc/execns/stats, nothing otherwise.
 */
void execns_hook_show_pin(struct seq_file *m, const struct execns_hook *h);

/*
 * A hook's view of the call (execns-arch.h): execns_hook_arg0(fregs), the
 * hooked function's first argument at its entry, and
 * execns_hook_redirect(fregs, target), which continues the call in
 * @target, a function of the same signature, with the original arguments,
 * returning to the original caller.
 */

/*
 * The same for a kprobe on a function's entry (the syscall slot): the
 * return from the breakpoint handler (iret, eret) or from the ftrace
 * trampoline a kprobe on an ftrace site runs in goes to @target.  On x86
 * that return is not checked by indirect-branch tracking; @target is
 * address-taken, so it keeps its ENDBR anyway.
 */
static inline void execns_redirect(struct pt_regs *regs, void *target)
{
	instruction_pointer_set(regs, (unsigned long)target);
}

#endif /* _EXECNS_HOOK_H */
