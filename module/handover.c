// SPDX-License-Identifier: GPL-2.0
/*
 * The commit_creds() hook that puts a new table's user_struct into the
 * credentials an execns(CLONE_NEWUSER) commits (see handover.h).
 *
 * Swaps in flight are kept in a small hash keyed by their task, so that the
 * hook only ever looks at the swaps of tasks that share current's bucket.
 *
 * Locking: execns_swap_lock, a raw spinlock, protects the buckets' lists.
 * The hook is an ftrace callback, which runs wherever commit_creds() does,
 * so it may only take raw spinlocks (a spinlock_t sleeps on PREEMPT_RT),
 * with interrupts off, and must keep the section short: it holds the lock
 * only to walk one bucket (one entry per task inside execns(CLONE_NEWUSER)
 * whose pointer hashes there) and to move four pointers.  begin() and end()
 * hold it for one list operation.
 * A bucket is read without the lock first: it is empty unless an execns
 * with CLONE_NEWUSER is running in a task of that bucket, and an entry is
 * added by the task itself before the exec, so that task always sees its
 * own entry.
 */
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/cred.h>
#include <linux/hash.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/user_namespace.h>
#include "handover.h"
#include "hook.h"

#define EXECNS_SWAP_BITS	6

static struct hlist_head execns_swaps[1 << EXECNS_SWAP_BITS];
static DEFINE_RAW_SPINLOCK(execns_swap_lock);

/* notrace and inline: the hook calls it (docs/design.md, "Callbacks"). */
static __always_inline struct hlist_head *execns_swap_bucket(const struct task_struct *task)
{
	return &execns_swaps[hash_ptr(task, EXECNS_SWAP_BITS)];
}

/* Caller holds execns_swap_lock; @swap is current's. */
static __always_inline void execns_swap_install(struct execns_cred_swap *swap, struct cred *new)
{
	swap->replaced = new->user;
	new->user = swap->user;
	swap->user = NULL;
	/*
	 * The exec keeps the user namespace and real uid the ucounts are for.
	 * None where credentials have no ucounts (compat.h).
	 */
	if (swap->ucounts && execns_cred_ucounts(new)->ns == swap->ucounts->ns &&
	    uid_eq(execns_cred_ucounts(new)->uid, swap->ucounts->uid)) {
		swap->replaced_ucounts = execns_cred_ucounts(new);
		execns_cred_set_ucounts(new, swap->ucounts);
		swap->ucounts = NULL;
	}
}

void notrace execns_handover_hook(unsigned long ip, unsigned long parent_ip,
				  struct ftrace_ops *op, struct execns_fregs *fregs)
{
	struct cred *new = (struct cred *)execns_hook_arg0(fregs);
	struct hlist_head *bucket = execns_swap_bucket(current);
	struct execns_cred_swap *swap;
	unsigned long flags;

	if (hlist_empty(bucket))
		return;
	raw_spin_lock_irqsave(&execns_swap_lock, flags);
	hlist_for_each_entry(swap, bucket, node) {
		if (swap->task == current && swap->user) {
			execns_swap_install(swap, new);
			break;
		}
	}
	raw_spin_unlock_irqrestore(&execns_swap_lock, flags);
}

NOKPROBE_SYMBOL(execns_handover_hook);

void execns_cred_swap_begin(struct execns_cred_swap *swap, struct user_struct *user,
			    struct ucounts *uc)
{
	unsigned long flags;

	swap->task = current;
	swap->user = user;
	swap->ucounts = uc;
	swap->replaced = NULL;
	swap->replaced_ucounts = NULL;
	raw_spin_lock_irqsave(&execns_swap_lock, flags);
	hlist_add_head(&swap->node, execns_swap_bucket(current));
	raw_spin_unlock_irqrestore(&execns_swap_lock, flags);
}

struct user_struct *execns_cred_swap_end(struct execns_cred_swap *swap,
					 struct ucounts **uc_drop)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&execns_swap_lock, flags);
	hlist_del(&swap->node);
	raw_spin_unlock_irqrestore(&execns_swap_lock, flags);
	*uc_drop = swap->ucounts ? swap->ucounts : swap->replaced_ucounts;
	return swap->user ? swap->user : swap->replaced;
}
