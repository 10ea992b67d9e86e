/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-namespace user_struct tables: the seed's "user namespace".
 *
 * A table holds the user_structs of the processes that execns(CLONE_NEWUSER)
 * started, and of everything they fork or setuid() into, and the ucounts
 * of their credentials (ucounts.h).  Membership follows cred->user: a task
 * is in the table its cred->user belongs to, so every table has its own
 * uid-0 user_struct too.  Table 0 is the kernel's own global table and is
 * never represented here.
 *
 * Safe by construction (docs/design.md, "Uid tables and the kernel's
 * invariants"): a table's objects are the kernel's own kind, made the
 * kernel's way, so that the kernel's release code is right for them, and
 * the table holds one reference on each (EXECNS_TABLE_REFS), so that no
 * release path, hooked or not, ever frees one while the table lives.  A
 * reaper, not a hook on free_uid() or put_ucounts(), frees the objects only
 * the table still holds, and the table once it has none.
 */
#ifndef _EXECNS_UIDTAB_H
#define _EXECNS_UIDTAB_H

#include <linux/types.h>
#include <linux/uidgid.h>

struct user_struct;
struct seq_file;
struct execns_uidtab;

/*
 * The references a table holds on each object it handed out: one (the
 * reaper drops it with refcount_dec_if_one() and its ucounts twin).
 */
#define EXECNS_TABLE_REFS	1

int execns_uidtab_init(void);
void execns_uidtab_uninit(void);

/* Why uid tables cannot be made on this kernel, or NULL (after init). */
const char *execns_uidtab_unavailable(void);

/* Number of live tables; zero means no task is in a module table. */
unsigned int execns_uidtab_count(void);

/* The table @up belongs to, or NULL for the kernel's global table. */
struct execns_uidtab *execns_uidtab_of(const struct user_struct *up);
u64 execns_uidtab_id(const struct execns_uidtab *tab);

/*
 * A new table, child of @parent's (NULL: the global table), holding one
 * user_struct for @uid, which is returned with the caller's reference: the
 * caller drops it with the kernel's free_uid().  The table ends once
 * nothing but itself holds its objects.  ERR_PTR(-ENOMEM) on failure.  The
 * caller holds the uid hooks armed (execns_uidhooks_get()) across the call.
 */
struct user_struct *execns_uidtab_create(struct execns_uidtab *parent, kuid_t uid);

/*
 * alloc_uid() and find_user() within @tab, for a task of @tab (which keeps
 * @tab alive).  The reference returned is dropped with free_uid().
 */
struct user_struct *execns_uidtab_alloc_uid(struct execns_uidtab *tab, kuid_t uid);
struct user_struct *execns_uidtab_find_user(struct execns_uidtab *tab, kuid_t uid);

/*
 * The ucounts of @tab for (@ns, @uid), with a new reference (NULL when
 * making one fails), dropped with put_ucounts().  For a holder of an
 * object of @tab.
 */
struct ucounts *execns_uidtab_ucounts(struct execns_uidtab *tab,
				      struct user_namespace *ns, kuid_t uid);

/* Free what only the tables hold now, and wait for it (process context). */
void execns_uidtab_reap_now(void);

/* The tables, under rcu_read_lock(), and one table's lines of /proc/execns/tables. */
struct execns_uidtab *execns_uidtab_first(void);
struct execns_uidtab *execns_uidtab_next(struct execns_uidtab *tab);
/*
 * The threads whose real credentials are in @tab, as /proc/execns/tables
 * shows them: procfs.c clears every table's count, adds each thread to its
 * table's in one walk, then shows them, all under its lock and one
 * rcu_read_lock().
 */
void execns_uidtab_tasks_clear(struct execns_uidtab *tab);
void execns_uidtab_tasks_add(struct execns_uidtab *tab);
void execns_uidtab_show(struct seq_file *m, struct execns_uidtab *tab);
void execns_uidtab_show_ucounts(struct seq_file *m, struct execns_uidtab *tab);
void execns_uidtab_stats(struct seq_file *m);

#endif /* _EXECNS_UIDTAB_H */
