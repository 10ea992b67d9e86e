// SPDX-License-Identifier: GPL-2.0
/*
 * The commit_creds() hook that puts a new table's user_struct into the
 * credentials an execns(CLONE_NEWUSER) commits (see handover.h).
 *
 * Locking: execns_swap_lock protects the list of swaps in flight (irq-safe
 * out of caution: the hook runs wherever commit_creds() does).
 * The list is read without the lock first: it is empty unless an execns
 * with CLONE_NEWUSER is running somewhere, and an entry is added by the
 * task itself before the exec, so that task always sees its own entry.
 */
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/cred.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/user_namespace.h>
#include "handover.h"
#include "hook.h"

static LIST_HEAD(execns_swaps);
static DEFINE_SPINLOCK(execns_swap_lock);

void notrace execns_handover_hook(unsigned long ip, unsigned long parent_ip,
				  struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct cred *new = (struct cred *)execns_hook_arg0(fregs);
	struct execns_cred_swap *swap;
	unsigned long flags;

	if (list_empty_careful(&execns_swaps))
		return;
	spin_lock_irqsave(&execns_swap_lock, flags);
	list_for_each_entry(swap, &execns_swaps, node) {
		if (swap->task != current || !swap->user)
			continue;
		swap->replaced = new->user;
		new->user = swap->user;
		swap->user = NULL;
		/* The exec keeps the user namespace and real uid the ucounts are for. */
		if (new->ucounts->ns == swap->ucounts->ns &&
		    uid_eq(new->ucounts->uid, swap->ucounts->uid)) {
			swap->replaced_ucounts = new->ucounts;
			new->ucounts = swap->ucounts;
			swap->ucounts = NULL;
		}
		break;
	}
	spin_unlock_irqrestore(&execns_swap_lock, flags);
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
	spin_lock_irqsave(&execns_swap_lock, flags);
	list_add(&swap->node, &execns_swaps);
	spin_unlock_irqrestore(&execns_swap_lock, flags);
}

struct user_struct *execns_cred_swap_end(struct execns_cred_swap *swap,
					 struct ucounts **uc_drop)
{
	unsigned long flags;

	spin_lock_irqsave(&execns_swap_lock, flags);
	list_del(&swap->node);
	spin_unlock_irqrestore(&execns_swap_lock, flags);
	*uc_drop = swap->ucounts ? swap->ucounts : swap->replaced_ucounts;
	return swap->user ? swap->user : swap->replaced;
}
