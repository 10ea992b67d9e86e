// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's user_struct lock and cache, found by watching kernel/user.c
 * use them (see observe.h).
 *
 * free_uid() hands &uidhash_lock to refcount_dec_and_lock_irqsave(), out
 * of line in lib/refcount.c and so never inlined into kernel/user.c; a
 * kprobe on it reads the lock from its second argument, on the call whose
 * first argument is the count of the user_struct this module put.  That
 * user_struct comes from the kernel's own alloc_uid() for uid 65534
 * ("nobody"; any uid but 0, whose user_struct is the static root_user,
 * not a slab object), and the slab page it lives on names the cache
 * alloc_uid() made it from.  The hooks are not
 * armed yet (main.c), so both calls are the kernel's own code.
 *
 * Ordering: init only, before the proof and the hooks; the probe's handler
 * runs in this task (it filters on current), between register_kprobe() and
 * unregister_kprobe(), which waits for handlers still running.
 */
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/sched.h>
#include <linux/sched/user.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include "arch.h"
#include "symbols.h"
#include "observe.h"

#define EXECNS_OBSERVE_UID	65534

static const char *execns_observe_failed;
static struct task_struct *execns_observer;
static const refcount_t *execns_observed_count;
static unsigned long execns_observed_lock;

static int execns_observe_pre(struct kprobe *p, struct pt_regs *regs)
{
	if (current == execns_observer &&
	    execns_arch_probe_arg(regs, 0) == (unsigned long)execns_observed_count)
		WRITE_ONCE(execns_observed_lock, execns_arch_probe_arg(regs, 1));
	return 0;
}

NOKPROBE_SYMBOL(execns_observe_pre);

static struct kprobe execns_observe_probe = {
	.symbol_name = "refcount_dec_and_lock_irqsave",
	.pre_handler = execns_observe_pre,
};

/* Put one user_struct of the kernel's with the probe armed. */
static const char *execns_observe_put(struct user_struct *up)
{
	int ret;

	execns_observer = current;
	execns_observed_count = &up->__count;
	ret = register_kprobe(&execns_observe_probe);
	if (ret) {
		execns_free_uid(up);
		return "refcount_dec_and_lock_irqsave() cannot be probed";
	}
	execns_free_uid(up);
	unregister_kprobe(&execns_observe_probe);
	execns_observer = NULL;
	if (!execns_observed_lock)
		return "free_uid() was not seen passing a lock to refcount_dec_and_lock_irqsave()";
	return NULL;
}

/* Either object the symbol table did give must be the one watched. */
static const char *execns_observe_agree(spinlock_t *lock, struct kmem_cache *cache)
{
	if (execns_syms.uidhash_lock && execns_syms.uidhash_lock != lock)
		return "the uidhash_lock symbol is not the lock free_uid() takes";
	if (execns_syms.uid_cache && execns_syms.uid_cache != cache)
		return "the uid_cachep symbol does not hold the cache alloc_uid() uses";
	return NULL;
}

static const char *execns_observe(void)
{
	struct kmem_cache *cache;
	struct user_struct *up;
	const char *why;

	up = execns_call(alloc_uid)(KUIDT_INIT(EXECNS_OBSERVE_UID));
	if (!up)
		return "alloc_uid() failed (out of memory)";
	cache = execns_obj_cache(up);
	why = execns_observe_put(up);
	if (why)
		return why;
	if (!cache)
		return "this kernel's struct page does not name a slab object's cache";
	why = execns_observe_agree((spinlock_t *)execns_observed_lock, cache);
	if (why)
		return why;
	execns_syms.uidhash_lock = (spinlock_t *)execns_observed_lock;
	execns_syms.uid_cache = cache;
	execns_syms.user_objs_observed = true;
	return NULL;
}

void execns_observe_init(void)
{
	if (execns_syms.uidhash_lock && execns_syms.uid_cache)
		return;
	execns_observe_failed = execns_observe();
	if (execns_observe_failed)
		pr_warn("no data symbols (no CONFIG_KALLSYMS_ALL), and uidhash_lock and uid_cachep cannot be found by watching the kernel: %s\n",
			execns_observe_failed);
	else
		pr_info("no data symbols (no CONFIG_KALLSYMS_ALL): uidhash_lock and uid_cachep found by watching alloc_uid() and free_uid()\n");
}

const char *execns_observe_why(void)
{
	return execns_observe_failed;
}
