// SPDX-License-Identifier: GPL-2.0
/*
 * Claiming a syscall number without touching the dispatcher.
 *
 * A number without a syscall reaches the architecture's ni_syscall entry
 * with the caller's pt_regs as its only argument (x86_64 since the 2024
 * "don't force indirect calls for system calls" change dispatches through a
 * switch, so patching sys_call_table does nothing there; arm64 and s390
 * still call through their tables, whose holes hold ni_syscall).  A kprobe
 * on that entry whose pre-handler recognises our number points the probed
 * call at a function of the same signature and returns 1: the call
 * "returns" from our entry instead, straight back into the dispatcher.
 * The names, registers and default numbers are the architecture's
 * (execns-arch.h).
 *
 * Where the compiler inlined ni_syscall into x86's switch dispatcher
 * (clang's LTO makes x64_sys_call() return -ENOSYS itself for a number
 * without a syscall), no number reaches ni_syscall.  At load the module
 * therefore calls the dispatcher once for its number (execns_slot_test());
 * where the probe on ni_syscall does not see that call, it moves to the
 * dispatcher's entry, whose first argument is the same pt_regs, and sees
 * every syscall of that ABI from then on.
 *
 * Unload safety: the pre-handler runs with preemption off, so once
 * unregister_kprobe() has returned no new call can enter.  A call already
 * redirected holds a module reference taken in the pre-handler and dropped
 * by the entry on its way out, so delete_module() refuses (EBUSY/EAGAIN)
 * while any execns call is running.
 */
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/stringify.h>
#include <linux/module.h>
#include <linux/thread_info.h>
#include "arch.h"
#include "slot.h"
#include "exec.h"
#include "symbols.h"
#include "hook.h"

unsigned int execns_syscall_nr = EXECNS_ARCH_SYSCALL_NR;
module_param_named(syscall_nr, execns_syscall_nr, uint, 0444);
MODULE_PARM_DESC(syscall_nr, EXECNS_ARCH_NAME " syscall number of execns (default "
		 __stringify(EXECNS_ARCH_SYSCALL_NR) "; must be unused)");

unsigned int execns_compat_syscall_nr = EXECNS_ARCH_COMPAT_SYSCALL_NR;
module_param_named(compat_syscall_nr, execns_compat_syscall_nr, uint, 0444);
MODULE_PARM_DESC(compat_syscall_nr, EXECNS_ARCH_COMPAT_NAME " (compat) syscall number of execns (default "
		 __stringify(EXECNS_ARCH_COMPAT_SYSCALL_NR) "; must be unused)");

/* Entries: same signature as the ni_syscall they stand in for. */
static long execns_native_entry(const struct pt_regs *regs)
{
	long ret = execns_syscall(regs, false);

	module_put(THIS_MODULE);
	return ret;
}

static long execns_compat_entry(const struct pt_regs *regs)
{
	long ret = execns_syscall(regs, true);

	module_put(THIS_MODULE);
	return ret;
}

/*
 * The native and compat ni_syscall entries may be one function (arm64 has
 * one for both tables, s390's are aliases, and x86's share a body that the
 * compiler or linker may fold), in which case both probes see every call:
 * the ABI of the caller decides which slot a call can be, so a number
 * chosen for one ABI never routes a caller of the other into the wrong
 * entry.
 */
static const struct pt_regs *execns_slot_test_regs;	/* set by init only */
static bool execns_slot_test_seen;

/*
 * Whether the probes may redirect: set by execns_slot_open() once module
 * init can no longer fail.  Before that, try_module_get() would succeed
 * (a COMING module is live), and a failed init frees the module's text
 * under a caller still inside it, whatever its reference: so until then
 * the probes answer nothing and the number stays ENOSYS.  Release/acquire:
 * a redirected caller sees everything init set up.
 */
static bool execns_slot_opened __read_mostly;

static int execns_slot_redirect(struct pt_regs *regs, bool compat, unsigned int nr,
				void *entry)
{
	const struct pt_regs *uregs = (const struct pt_regs *)execns_arch_probe_arg(regs, 0);

	/* execns_slot_test()'s call: noted, and left to return -ENOSYS. */
	if (unlikely(uregs == READ_ONCE(execns_slot_test_regs))) {
		WRITE_ONCE(execns_slot_test_seen, true);
		return 0;
	}
	if (execns_arch_in_compat_syscall() != compat || execns_arch_syscall_nr(uregs) != nr)
		return 0;
	/* Pairs with execns_slot_open(): a caller let in sees init done. */
	if (!smp_load_acquire(&execns_slot_opened) || !try_module_get(THIS_MODULE))
		return 0;
	execns_redirect(regs, entry);
	return 1;	/* the IP changed: skip the probed instruction */
}

static int execns_native_pre(struct kprobe *p, struct pt_regs *regs)
{
	return execns_slot_redirect(regs, false, execns_syscall_nr, execns_native_entry);
}

NOKPROBE_SYMBOL(execns_native_pre);

static int execns_compat_pre(struct kprobe *p, struct pt_regs *regs)
{
	return execns_slot_redirect(regs, true, execns_compat_syscall_nr, execns_compat_entry);
}

NOKPROBE_SYMBOL(execns_compat_pre);

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

static struct kprobe execns_native_probe = {
	.symbol_name = EXECNS_ARCH_SYS_NI_SYSCALL,
	.pre_handler = execns_native_pre,
	.post_handler = execns_slot_post,
};

static struct kprobe execns_compat_probe = {
	.symbol_name = EXECNS_ARCH_COMPAT_SYS_NI_SYSCALL,
	.pre_handler = execns_compat_pre,
	.post_handler = execns_slot_post,
};

/*
 * The numbers this kernel's dispatchers hand to ni_syscall, from the very
 * lists their switches (x86) or tables (arm64, s390) are generated from
 * (compat-probe.sh).  A kernel without compat callers has an empty list.
 */
static const u16 execns_native_free_nrs[] = { EXECNS_NATIVE_FREE_NRS };
static const u16 execns_compat_free_nrs[] = { EXECNS_COMPAT_FREE_NRS };

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
 * kernel has the table: what arm64 and s390 dispatch through, a mirror of
 * x86's switch) ni_syscall there.
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

/*
 * Whether a probe sees a call of the (@compat) dispatcher for number @nr:
 * one call with a pt_regs of our own, which the pre-handler recognises and
 * lets through (the number is free: ni_syscall, or the dispatcher's own
 * default, returns -ENOSYS).  Init only, so the two statics need no lock; other
 * CPUs' syscalls pass the pre-handler's pointer compare.
 */
static bool execns_slot_test(bool compat, unsigned int nr)
{
	struct pt_regs regs = { };

	WRITE_ONCE(execns_slot_test_seen, false);
	WRITE_ONCE(execns_slot_test_regs, &regs);
	if (compat)	/* static calls: direct, as everything the module calls */
		execns_call(compat_dispatch)(&regs, nr);
	else
		execns_call(dispatch)(&regs, nr);
	WRITE_ONCE(execns_slot_test_regs, NULL);
	return READ_ONCE(execns_slot_test_seen);
}

/*
 * Register @kp on ni_syscall; where the ABI's switch dispatcher exists
 * (@have; x86: @name) and its call for @nr does not reach the probe there,
 * move the probe to the dispatcher, with one line saying so, and check it.
 */
static int execns_slot_arm(struct kprobe *kp, const char *abi, bool compat, bool have,
			   const char *name, unsigned int nr)
{
	const char *ni = kp->symbol_name;
	int ret;

	ret = execns_slot_register(kp);
	if (ret || !have || execns_slot_test(compat, nr))
		return ret;
	unregister_kprobe(kp);
	pr_notice("%s syscall %u: %s never calls %s (the compiler inlined it: LTO); probing %s, which every %s syscall passes\n",
		  abi, nr, name, ni, name, abi);
	kp->symbol_name = name;		/* registered afresh */
	kp->addr = NULL;
	kp->flags = 0;
	ret = execns_slot_register(kp);
	if (ret || execns_slot_test(compat, nr))
		return ret;
	unregister_kprobe(kp);
	pr_err("%s syscall %u reaches neither %s nor a probe on %s: no number would reach execns\n",
	       abi, nr, ni, name);
	return -EOPNOTSUPP;
}

int execns_slot_init(void)
{
	int ret;

	ret = execns_slot_check(EXECNS_ARCH_NAME, execns_syscall_nr, execns_native_free_nrs,
				ARRAY_SIZE(execns_native_free_nrs),
				execns_syms.sys_call_table,
				execns_syms.sys_ni_syscall);
	if (ret)
		return ret;
	if (EXECNS_ARCH_HAS_COMPAT) {
		ret = execns_slot_check(EXECNS_ARCH_COMPAT_NAME, execns_compat_syscall_nr,
					execns_compat_free_nrs,
					ARRAY_SIZE(execns_compat_free_nrs),
					execns_syms.compat_sys_call_table,
					execns_syms.compat_sys_ni_syscall);
		if (ret)
			return ret;
	}

	ret = execns_slot_arm(&execns_native_probe, EXECNS_ARCH_NAME, false,
			      execns_have(dispatch), EXECNS_ARCH_DISPATCH, execns_syscall_nr);
	if (ret || !EXECNS_ARCH_HAS_COMPAT)
		return ret;
	ret = execns_slot_arm(&execns_compat_probe, EXECNS_ARCH_COMPAT_NAME, true,
			      execns_have(compat_dispatch), EXECNS_ARCH_COMPAT_DISPATCH,
			      execns_compat_syscall_nr);
	if (ret)
		goto unregister_native;
	return 0;

unregister_native:
	unregister_kprobe(&execns_native_probe);
	return ret;
}

void execns_slot_open(void)
{
	/* Pairs with execns_slot_redirect(): init's stores before the flag. */
	smp_store_release(&execns_slot_opened, true);
}

void execns_slot_uninit(void)
{
	if (EXECNS_ARCH_HAS_COMPAT)
		unregister_kprobe(&execns_compat_probe);
	unregister_kprobe(&execns_native_probe);
}
