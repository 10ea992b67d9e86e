/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-namespace user_struct tables: the seed's "user namespace".
 *
 * A table holds the user_structs of the processes that execns(CLONE_NEWUSER)
 * started, and of everything they fork or setuid() into.  Membership follows
 * cred->user: a task is in the table its cred->user belongs to, so every
 * table has its own uid-0 user_struct too.  Table 0 is the kernel's own
 * global table and is never represented here.
 */
#ifndef _EXECNS_UIDTAB_H
#define _EXECNS_UIDTAB_H

#include <linux/types.h>
#include <linux/uidgid.h>

struct user_struct;
struct seq_file;
struct execns_uidtab;

int execns_uidtab_init(void);
void execns_uidtab_uninit(void);

/* Number of live tables; zero means no task is in a module table. */
unsigned int execns_uidtab_count(void);

/* The table @up belongs to, or NULL for the kernel's global table. */
struct execns_uidtab *execns_uidtab_of(const struct user_struct *up);
u64 execns_uidtab_id(const struct execns_uidtab *tab);

/*
 * A new table, child of @parent's (NULL: the global table), holding one
 * user_struct for @uid, which is returned with the caller's reference.
 * Dropping that reference (execns_uidtab_put_user) ends the table again,
 * once no ucounts of it is left either.
 * ERR_PTR(-ENOMEM) on failure.  The caller holds the uid hooks armed
 * (execns_uidhooks_get()) across the call.
 */
struct user_struct *execns_uidtab_create(struct execns_uidtab *parent, kuid_t uid);

/* alloc_uid(), find_user() and free_uid() for users of a module table. */
struct user_struct *execns_uidtab_alloc_uid(struct execns_uidtab *tab, kuid_t uid);
struct user_struct *execns_uidtab_find_user(struct execns_uidtab *tab, kuid_t uid);
void execns_uidtab_put_user(struct user_struct *up);

/*
 * Objects other than user_structs that belong to @tab (its ucounts) keep it
 * alive: hold() when one is made (by a task of @tab, which keeps @tab alive
 * meanwhile), unhold() when it goes (any context; may end @tab).
 */
void execns_uidtab_hold(struct execns_uidtab *tab);
void execns_uidtab_unhold(struct execns_uidtab *tab);

/* The tables, under rcu_read_lock(), and one table's lines of /proc/execns/tables. */
struct execns_uidtab *execns_uidtab_first(void);
struct execns_uidtab *execns_uidtab_next(struct execns_uidtab *tab);
/* @tasks: threads whose real credentials are in @tab (procfs.c counts them). */
void execns_uidtab_show(struct seq_file *m, struct execns_uidtab *tab, unsigned int tasks);
void execns_uidtab_stats(struct seq_file *m);

#endif /* _EXECNS_UIDTAB_H */
