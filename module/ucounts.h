/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A uid table's ucounts: since 5.14 the kernel keeps RLIMIT_NPROC,
 * SIGPENDING, MSGQUEUE and MEMLOCK in the struct ucounts of a task's
 * credentials, keyed by user namespace and uid.  A task of a uid table gets
 * its credentials' ucounts from the table (set_cred_ucounts(), hooked in
 * uidhooks.c, and the hand-over at exec), so those counts start from zero in
 * a new table and never meet the outside's.
 *
 * Only credentials get a table's ucounts.  Counts that the kernel finds by
 * key (inc_ucount(): the user.max_* namespace counts, inotify, fanotify)
 * stay in the kernel's own objects, inside a table too: inotify, for one,
 * looks a watch's counter up again by the key of the object its group
 * holds and drops it on that object, so a lookup that answered by the
 * caller's table would increment one object and decrement another.
 */
#ifndef _EXECNS_UCOUNTS_H
#define _EXECNS_UCOUNTS_H

#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/list.h>
#include <linux/list_nulls.h>

struct ucounts;
struct user_namespace;
struct seq_file;

#define EXECNS_UC_BITS	3	/* a table has few (one per user namespace and uid) */

/* One table's ucounts, in lists of the kernel's kind (compat.h). */
struct execns_uc_set {
	struct execns_uc_head heads[1 << EXECNS_UC_BITS];
};

bool execns_ucounts_available(void);
void execns_uc_set_init(struct execns_uc_set *set);

/*
 * The set's ucounts for (@ns, @uid), with a new reference (the set holds
 * one of its own on each), made the kernel's way if needed; NULL when that
 * fails.  Process context.
 */
struct ucounts *execns_uc_set_get(struct execns_uc_set *set, u64 table,
				  struct user_namespace *ns, kuid_t uid);

/*
 * Unlink the set's ucounts that only the set still holds, up to @max, into
 * @dead; they are freed with execns_uc_free() after a grace period.
 * Returns how many.  Empty tells whether any is left.
 */
unsigned int execns_uc_set_reap(struct execns_uc_set *set, u64 table,
				struct ucounts **dead, unsigned int max);
bool execns_uc_set_empty(struct execns_uc_set *set);
void execns_uc_free(struct ucounts *uc);

/* The "ucounts ..." lines of /proc/execns/tables (under rcu_read_lock()). */
void execns_uc_set_show(struct seq_file *m, struct execns_uc_set *set, u64 table);
void execns_ucounts_stats(struct seq_file *m);

#endif /* _EXECNS_UCOUNTS_H */
