// SPDX-License-Identifier: GPL-2.0
/*
 * Claiming a syscall number on a switch-dispatched kernel.
 *
 * Since the 2024 "don't force indirect calls for system calls" change
 * (backported to 6.1.85), x86 dispatches through a switch in x64_sys_call()
 * and ia32_sys_call(); sys_call_table is no longer read, so patching it does
 * nothing.  A number without a syscall reaches __x64_sys_ni_syscall (or
 * __ia32_sys_ni_syscall) with the caller's pt_regs as its only argument.  A
 * kprobe there whose pre-handler recognises our number points regs->ip at a
 * function of the same signature and returns 1: the call "returns" from our
 * entry instead, straight back into the dispatcher.
 *
 * Unload safety: the pre-handler runs with preemption off, so once
 * unregister_kprobe() has returned no new call can enter.  A call already
 * redirected holds a module reference taken in the pre-handler and dropped
 * by the entry on its way out, so delete_module() refuses (EBUSY/EAGAIN)
 * while any execns call is running.
 */
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/thread_info.h>
#include "slot.h"
#include "exec.h"
#include "symbols.h"
#include "hook.h"

/* 400 lies in x86_64's unused 335-423 hole (kept free for the shared numbering). */
unsigned int execns_syscall_nr = 400;
module_param_named(syscall_nr, execns_syscall_nr, uint, 0444);
MODULE_PARM_DESC(syscall_nr, "x86_64 syscall number of execns (default 400; must be unused)");

/* 285 was reserved for sys_setaltroot and never used on i386. */
unsigned int execns_compat_syscall_nr = 285;
module_param_named(compat_syscall_nr, execns_compat_syscall_nr, uint, 0444);
MODULE_PARM_DESC(compat_syscall_nr, "i386 (compat) syscall number of execns (default 285; must be unused)");

/* Entries: same signature as the ni_syscall they stand in for. */
static long execns_x64_entry(const struct pt_regs *regs)
{
	long ret = execns_syscall(regs, false);

	module_put(THIS_MODULE);
	return ret;
}

static long execns_ia32_entry(const struct pt_regs *regs)
{
	long ret = execns_syscall(regs, true);

	module_put(THIS_MODULE);
	return ret;
}

/*
 * __x64_sys_ni_syscall and __ia32_sys_ni_syscall may be one function (they
 * share a body, and the compiler or linker may fold them), in which case
 * both probes see every call: the ABI of the caller decides which slot a
 * call can be, so a number chosen for one ABI never routes a caller of the
 * other into the wrong entry.  The dispatcher passes the number truncated
 * to 32 bits; compare the same way, so a value with stray upper bits
 * matches exactly when it would have been dispatched to this slot.
 */
static int execns_slot_redirect(struct pt_regs *regs, bool ia32, unsigned int nr,
				void *entry)
{
	const struct pt_regs *uregs = (const struct pt_regs *)regs->di;

	if (in_ia32_syscall() != ia32 || (u32)uregs->orig_ax != nr ||
	    !try_module_get(THIS_MODULE))
		return 0;
	execns_redirect(regs, entry);
	return 1;	/* regs->ip changed: skip the probed instruction */
}

static int execns_x64_pre(struct kprobe *p, struct pt_regs *regs)
{
	return execns_slot_redirect(regs, false, execns_syscall_nr, execns_x64_entry);
}
NOKPROBE_SYMBOL(execns_x64_pre);

static int execns_ia32_pre(struct kprobe *p, struct pt_regs *regs)
{
	return execns_slot_redirect(regs, true, execns_compat_syscall_nr, execns_ia32_entry);
}
NOKPROBE_SYMBOL(execns_ia32_pre);

/*
 * Never called (the pre-handlers return 1 when they redirect), but its
 * presence registers the probe as IP-modifying, so a second IP modifier on
 * the same function (livepatch, another redirecting probe) fails to register
 * instead of being silently bypassed.
 */
static void execns_slot_post(struct kprobe *p, struct pt_regs *regs,
			     unsigned long flags)
{
}
NOKPROBE_SYMBOL(execns_slot_post);

static struct kprobe execns_x64_probe = {
	.symbol_name = "__x64_sys_ni_syscall",
	.pre_handler = execns_x64_pre,
	.post_handler = execns_slot_post,
};

static struct kprobe execns_ia32_probe = {
	.symbol_name = "__ia32_sys_ni_syscall",
	.pre_handler = execns_ia32_pre,
	.post_handler = execns_slot_post,
};

/*
 * The numbers this kernel's dispatchers hand to ni_syscall, from the very
 * lists their switches are generated from (compat-probe.sh).
 */
static const u16 execns_x64_free_nrs[] = { EXECNS_X64_FREE_NRS };
static const u16 execns_ia32_free_nrs[] = { EXECNS_IA32_FREE_NRS };

static bool execns_nr_listed(unsigned int nr, const u16 *nrs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (nrs[i] == nr)
			return true;
	return false;
}

/*
 * A number is ours to take when the dispatcher would hand it to ni_syscall:
 * listed as such in the kernel's generated syscall list, and (where the
 * kernel still has the table, which mirrors the switch) ni_syscall there.
 */
static int execns_slot_check(const char *abi, unsigned int nr, const u16 *free_nrs,
			     size_t nr_free, const void *const *table, const void *ni)
{
	if (!execns_nr_listed(nr, free_nrs, nr_free)) {
		pr_err("%s syscall number %u is not a free one on this kernel (its dispatcher does not send it to ni_syscall); choose another\n",
		       abi, nr);
		return -EBUSY;
	}
	if (table && table[nr] != ni) {
		pr_err("%s syscall number %u is in use (%ps); choose a free one\n",
		       abi, nr, table[nr]);
		return -EBUSY;
	}
	return 0;
}

static int execns_slot_register(struct kprobe *kp)
{
	int ret = register_kprobe(kp);

	if (ret)
		pr_err("cannot probe %s: %d\n", kp->symbol_name, ret);
	return ret;
}

int execns_slot_init(void)
{
	int ret;

	ret = execns_slot_check("x86_64", execns_syscall_nr, execns_x64_free_nrs,
				ARRAY_SIZE(execns_x64_free_nrs),
				execns_syms.sys_call_table,
				execns_syms.x64_sys_ni_syscall);
	if (ret)
		return ret;
	ret = execns_slot_check("i386", execns_compat_syscall_nr, execns_ia32_free_nrs,
				ARRAY_SIZE(execns_ia32_free_nrs),
				execns_syms.ia32_sys_call_table,
				execns_syms.ia32_sys_ni_syscall);
	if (ret)
		return ret;

	ret = execns_slot_register(&execns_x64_probe);
	if (ret)
		return ret;
	ret = execns_slot_register(&execns_ia32_probe);
	if (ret)
		goto unregister_x64;
	return 0;

unregister_x64:
	unregister_kprobe(&execns_x64_probe);
	return ret;
}

void execns_slot_uninit(void)
{
	unregister_kprobe(&execns_ia32_probe);
	unregister_kprobe(&execns_x64_probe);
}
