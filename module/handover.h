/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hand-over of a new uid table's first user_struct and ucounts to the
 * credentials an exec commits.  execns_cred_swap_begin() registers @user
 * and @uc for the current task; the hook on commit_creds() swaps them into
 * the exec's new cred, which is still private to the exec at that point.
 * end() returns the user_struct reference the caller now owns and must
 * drop, and the ucounts one in *@uc_drop: the cred's originals if the swap
 * happened, @user and @uc if it did not.
 */
#ifndef _EXECNS_HANDOVER_H
#define _EXECNS_HANDOVER_H

#include <linux/types.h>

struct user_struct;
struct ucounts;
struct task_struct;
struct ftrace_ops;
struct execns_fregs;

struct execns_cred_swap {
	struct hlist_node node;		/* in its task's bucket */
	struct task_struct *task;
	struct user_struct *user;	/* to install; NULL once installed */
	struct ucounts *ucounts;	/* to install with it */
	struct user_struct *replaced;	/* taken out of the new cred */
	struct ucounts *replaced_ucounts;
};

void execns_cred_swap_begin(struct execns_cred_swap *swap, struct user_struct *user,
			    struct ucounts *uc);
struct user_struct *execns_cred_swap_end(struct execns_cred_swap *swap,
					 struct ucounts **uc_drop);

/* The commit_creds() hook's callback; armed with the uid hooks (uidhooks.c). */
void execns_handover_hook(unsigned long ip, unsigned long parent_ip,
			  struct ftrace_ops *op, struct execns_fregs *fregs);

#endif /* _EXECNS_HANDOVER_H */
