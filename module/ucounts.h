/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-table ucounts: since 5.14 the kernel keeps RLIMIT_NPROC, SIGPENDING,
 * MSGQUEUE and MEMLOCK, and the per-user ucount limits (inotify, fanotify,
 * max_*_namespaces), in struct ucounts keyed by user namespace and uid.
 * Tasks of a uid table get theirs from the table, so those counts start
 * from zero in a new table and never meet the outside's.
 */
#ifndef _EXECNS_UCOUNTS_H
#define _EXECNS_UCOUNTS_H

#include <linux/types.h>
#include <linux/uidgid.h>

struct ucounts;
struct user_namespace;
struct execns_uidtab;
struct seq_file;

int execns_ucounts_init(void);
void execns_ucounts_uninit(void);

/* Is @uc one of the module's?  Lockless; any context. */
bool execns_ucounts_ours(const struct ucounts *uc);

/*
 * alloc_ucounts() within @tab: its ucounts for (@ns, @uid), with a new
 * reference, made if needed (NULL when that fails).  Called by a task of
 * @tab, which keeps @tab alive meanwhile.
 */
struct ucounts *execns_ucounts_alloc(struct execns_uidtab *tab,
				     struct user_namespace *ns, kuid_t uid);

/* put_ucounts() for the module's ucounts; any context. */
void execns_ucounts_put(struct ucounts *uc);

/* The "ucounts ..." lines of /proc/execns/tables (under rcu_read_lock()). */
void execns_ucounts_show(struct seq_file *m);
void execns_ucounts_stats(struct seq_file *m);

#endif /* _EXECNS_UCOUNTS_H */
