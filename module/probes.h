/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kprobes that route per-user accounting into module tables, carry a
 * table's user_struct into an execns'd program's credentials, and filter
 * unshare(2).
 */
#ifndef _EXECNS_PROBES_H
#define _EXECNS_PROBES_H

#include <linux/types.h>

struct user_struct;

extern bool execns_forbid_unshare;

int execns_probes_init(void);
void execns_probes_uninit(void);

/*
 * Arm the uid hooks (idempotent; process context; may fail).  Called before
 * the first table is published; they stay armed until unload.
 */
int execns_probes_arm(void);

/*
 * Hand-over of a table's user_struct to the credentials an exec commits.
 * execns_cred_swap_begin() registers @user for the current task; the
 * commit_creds() probe swaps it into the exec's new cred.  end() returns
 * the user_struct reference the caller now owns and must drop: the cred's
 * original one if the swap happened, @user if it did not.
 */
struct execns_cred_swap {
	struct list_head node;
	struct task_struct *task;
	struct user_struct *user;	/* to install; NULL once installed */
	struct user_struct *replaced;	/* taken out of the new cred */
};

void execns_cred_swap_begin(struct execns_cred_swap *swap, struct user_struct *user);
struct user_struct *execns_cred_swap_end(struct execns_cred_swap *swap);

#endif /* _EXECNS_PROBES_H */
