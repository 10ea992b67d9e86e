// SPDX-License-Identifier: GPL-2.0
/*
 * Per-namespace user_struct tables (see uidtab.h).
 *
 * A table's user_struct is a plain one, made as alloc_uid() makes one: from
 * the kernel's uid_cachep, with its epoll counter and ratelimit set up the
 * same way, linked by its own uidhash_node into the table's uid hash under
 * the kernel's uidhash_lock.  So the kernel's free_uid() would unlink it from
 * our hash (under the lock that guards it) and free it into the right cache.
 * It never has to: the table holds one reference on each user_struct, and
 * only the reaper below frees one, once that reference is the last.  The
 * kernel's own hash never holds a table's user_struct, so a lookup by uid
 * outside the table never finds one.
 *
 * Which table a user_struct belongs to is kept beside it, in a pointer set
 * (struct execns_member, hashed by the user_struct's address), which the
 * hooks read without locks.
 *
 * Locking:
 *  - uidhash_lock (the kernel's, irq-safe) guards every table's uid hash,
 *    the pointer set and nr_users.  The hooks read the pointer set, and
 *    /proc/execns/tables the uid hashes, under RCU, so unlinked objects are
 *    freed after a grace period.
 *  - execns_tables_lock (a mutex) serialises changes to the table list
 *    (made here and by the reaper); readers walk it under RCU.
 * References: a table hands out a reference only under uidhash_lock (a
 * lookup in its hash), and anything else takes one only from a holder's
 * (get_uid()).  So when the reaper, under the lock, sees a count of
 * EXECNS_TABLE_REFS, nobody else holds the object, and nobody can come to.
 *
 * Lifetime: a table lives while any of its objects is held by anything but
 * the table.  A task of the table holds one (its credentials), so a table
 * that has reached "nothing held" stays there: no task can add to it.
 * Each table pins the module; the reaper drops the pin when it frees the
 * table, and module exit waits for the reaper.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/err.h>
#include <linux/hashtable.h>
#include <linux/rculist.h>
#include <linux/seq_file.h>
#include <linux/kprobes.h>
#include <linux/workqueue.h>
#include <linux/sched/user.h>
#include <linux/user_namespace.h>
#include "uidtab.h"
#include "ucounts.h"
#include "uidhooks.h"
#include "symbols.h"
#include "observe.h"
#include "fault.h"
#include "trace.h"
#include "uapi/execns.h"

#define EXECNS_UIDTAB_BITS	5	/* 32 buckets: 256 bytes a table */
#define EXECNS_USERSET_BITS	12	/* 32 KiB; chains stay short up to ~10k users */
#define EXECNS_REAP_BATCH	64	/* objects freed per grace period */

struct execns_uidtab {
	u64 id;
	u64 parent_id;			/* 0: the global table */
	unsigned int nr_users;		/* under uidhash_lock */
	struct list_head node;		/* in execns_tables */
	struct list_head dead;		/* the reaper's, once unlinked */
	DECLARE_HASHTABLE(users, EXECNS_UIDTAB_BITS);	/* by uid, uidhash_node */
	struct execns_uc_set ucounts;
	unsigned int shown_tasks;	/* procfs.c, under execns_tables_show_lock */
};

struct execns_member {
	struct hlist_node set_node;	/* in execns_user_set, by address */
	struct user_struct *up;
	struct execns_uidtab *tab;
};

static DEFINE_MUTEX(execns_tables_lock);
static LIST_HEAD(execns_tables);
static DEFINE_HASHTABLE(execns_user_set, EXECNS_USERSET_BITS);
static atomic_t execns_nr_tables = ATOMIC_INIT(0);
static atomic64_t execns_next_id = ATOMIC64_INIT(0);
static atomic_long_t execns_user_allocs = ATOMIC_LONG_INIT(0);
static atomic_long_t execns_user_frees = ATOMIC_LONG_INIT(0);
static const char *execns_uidtab_why;

static unsigned int execns_reap_ms = 100;
module_param_named(reap_ms, execns_reap_ms, uint, 0644);
MODULE_PARM_DESC(reap_ms, "milliseconds between two passes of the uid-table reaper while tables exist (default 100, at least one jiffy): how soon a table's unused objects, and an unused table, are freed");

/* The reaper's period: never 0, which would make it spin while a table lives. */
static unsigned long execns_reap_delay(void)
{
	return max(msecs_to_jiffies(READ_ONCE(execns_reap_ms)), 1UL);
}

static void execns_reap_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(execns_reap_work, execns_reap_fn);

static spinlock_t *execns_uid_lock(void)
{
	return execns_syms.uidhash_lock;
}

static struct kmem_cache *execns_uid_cache(void)
{
	return execns_syms.uid_cache;
}

const char *execns_uidtab_unavailable(void)
{
	return execns_uidtab_why;
}

/* notrace: the hooks' callbacks call it through execns_uidtab_of(). */
unsigned int notrace execns_uidtab_count(void)
{
	return atomic_read(&execns_nr_tables);
}

NOKPROBE_SYMBOL(execns_uidtab_count);

/*
 * Lockless; safe from any context: the hooks' callbacks call it.  The
 * read-side section is RCU-sched's notrace one rather than rcu_read_lock(),
 * which is a traceable call (__rcu_read_lock()) on preemptible RCU: a
 * callback calls nothing ftrace can trace (docs/design.md).  Since 5.0
 * synchronize_rcu() waits for preemption-disabled sections too, and the
 * walk is one short hash chain, so it is bounded on PREEMPT_RT as well.
 */
struct execns_uidtab *notrace execns_uidtab_of(const struct user_struct *up)
{
	struct execns_member *m;
	struct execns_uidtab *tab = NULL;

	if (!up || !atomic_read(&execns_nr_tables))
		return NULL;
	rcu_read_lock_sched_notrace();
	hash_for_each_possible_rcu(execns_user_set, m, set_node, (unsigned long)up) {
		if (m->up == up) {
			tab = m->tab;
			break;
		}
	}
	rcu_read_unlock_sched_notrace();
	return tab;
}

NOKPROBE_SYMBOL(execns_uidtab_of);

u64 execns_uidtab_id(const struct execns_uidtab *tab)
{
	return tab ? tab->id : 0;
}

/*
 * As alloc_uid() makes a user_struct, with the table's reference and the
 * caller's, and its entry for the pointer set.
 */
static struct execns_member *execns_user_new(kuid_t uid)
{
	struct user_struct *up;
	struct execns_member *m;

	m = execns_should_fail("user_struct") ? NULL : kmalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return NULL;
	up = kmem_cache_zalloc(execns_uid_cache(), GFP_KERNEL);
	if (!up)
		goto free_member;
	up->uid = uid;
	refcount_set(&up->__count, EXECNS_TABLE_REFS + 1);
	if (execns_user_epoll_init(up))
		goto free_user;
	ratelimit_state_init(&up->ratelimit, HZ, 100);
	ratelimit_set_flags(&up->ratelimit, RATELIMIT_MSG_ON_RELEASE);
	INIT_HLIST_NODE(&up->uidhash_node);
	m->up = up;
	m->tab = NULL;
	atomic_long_inc(&execns_user_allocs);
	return m;

free_user:
	kmem_cache_free(execns_uid_cache(), up);
free_member:
	kfree(m);
	return NULL;
}

/*
 * What free_user() does after the last reference, for a user_struct that
 * was never visible or whose grace period has passed.
 */
static void execns_user_free(struct execns_member *m)
{
	execns_user_epoll_free(m->up);
	kmem_cache_free(execns_uid_cache(), m->up);
	kfree(m);
	atomic_long_inc(&execns_user_frees);
}

/* Caller holds uidhash_lock; takes a reference on a match. */
static struct user_struct *execns_uidtab_lookup(struct execns_uidtab *tab, kuid_t uid)
{
	struct user_struct *up;

	hash_for_each_possible(tab->users, up, uidhash_node, __kuid_val(uid)) {
		if (uid_eq(up->uid, uid)) {
			refcount_inc(&up->__count);
			return up;
		}
	}
	return NULL;
}

/* Caller holds uidhash_lock. */
static void execns_uidtab_insert(struct execns_uidtab *tab, struct execns_member *m)
{
	m->tab = tab;
	tab->nr_users++;
	hash_add_rcu(tab->users, &m->up->uidhash_node, __kuid_val(m->up->uid));
	hash_add_rcu(execns_user_set, &m->set_node, (unsigned long)m->up);
	trace_uid_alloc(m->up, tab->id);
}

struct user_struct *execns_uidtab_find_user(struct execns_uidtab *tab, kuid_t uid)
{
	struct user_struct *up;
	unsigned long flags;

	spin_lock_irqsave(execns_uid_lock(), flags);
	up = execns_uidtab_lookup(tab, uid);
	spin_unlock_irqrestore(execns_uid_lock(), flags);
	trace_uid_find(uid, tab->id, up);
	return up;
}

/*
 * As alloc_uid(): allocate outside the lock, then recheck, since another
 * task of the table may have added the uid meanwhile.
 */
struct user_struct *execns_uidtab_alloc_uid(struct execns_uidtab *tab, kuid_t uid)
{
	struct execns_member *m;
	struct user_struct *up;
	unsigned long flags;

	up = execns_uidtab_find_user(tab, uid);
	if (up)
		return up;

	m = execns_user_new(uid);
	if (!m)
		return NULL;
	spin_lock_irqsave(execns_uid_lock(), flags);
	up = execns_uidtab_lookup(tab, uid);
	if (!up) {
		execns_uidtab_insert(tab, m);
		up = m->up;
		m = NULL;
	}
	spin_unlock_irqrestore(execns_uid_lock(), flags);
	if (m)
		execns_user_free(m);
	return up;
}

struct ucounts *execns_uidtab_ucounts(struct execns_uidtab *tab,
				      struct user_namespace *ns, kuid_t uid)
{
	return execns_uc_set_get(&tab->ucounts, tab->id, ns, uid);
}

struct user_struct *execns_uidtab_create(struct execns_uidtab *parent, kuid_t uid)
{
	struct execns_uidtab *tab;
	struct execns_member *m;
	unsigned long flags;

	tab = execns_should_fail("uid table") ? NULL : kzalloc(sizeof(*tab), GFP_KERNEL);
	if (!tab)
		return ERR_PTR(-ENOMEM);
	m = execns_user_new(uid);
	if (!m)
		goto free_tab;
	tab->id = atomic64_inc_return(&execns_next_id);
	tab->parent_id = execns_uidtab_id(parent);
	hash_init(tab->users);
	execns_uc_set_init(&tab->ucounts);

	/* The caller armed the hooks (execns_uidhooks_get()) and holds them. */
	mutex_lock(&execns_tables_lock);
	__module_get(THIS_MODULE);
	atomic_inc(&execns_nr_tables);
	trace_table_create(tab->id, tab->parent_id);
	spin_lock_irqsave(execns_uid_lock(), flags);
	execns_uidtab_insert(tab, m);
	spin_unlock_irqrestore(execns_uid_lock(), flags);
	list_add_tail_rcu(&tab->node, &execns_tables);
	mutex_unlock(&execns_tables_lock);
	queue_delayed_work(system_wq, &execns_reap_work, execns_reap_delay());
	return m->up;

free_tab:
	kfree(tab);
	return ERR_PTR(-ENOMEM);
}

/* --- the reaper --- */

/* What one pass unlinked, freed after one grace period. */
struct execns_reaped {
	unsigned int nusers, nucounts;
	struct execns_member *users[EXECNS_REAP_BATCH];
	struct ucounts *ucounts[EXECNS_REAP_BATCH];
	struct list_head tables;
};

static struct execns_reaped execns_reaped;	/* the reaper's only */

static struct execns_member *execns_member_of(const struct user_struct *up)
{
	struct execns_member *m;

	hash_for_each_possible(execns_user_set, m, set_node, (unsigned long)up)
		if (m->up == up)
			return m;
	return NULL;
}

/* Unlink @tab's user_structs that only @tab holds, into @r. */
static void execns_reap_users(struct execns_uidtab *tab, struct execns_reaped *r)
{
	struct execns_member *m;
	struct user_struct *up;
	struct hlist_node *tmp;
	unsigned long flags;
	int bkt;

	spin_lock_irqsave(execns_uid_lock(), flags);
	hash_for_each_safe(tab->users, bkt, tmp, up, uidhash_node) {
		if (r->nusers == EXECNS_REAP_BATCH)
			break;
		/* The table's reference, if it is the last: to zero, as free_uid(). */
		if (!refcount_dec_if_one(&up->__count))
			continue;
		m = execns_member_of(up);
		hash_del_rcu(&up->uidhash_node);
		hash_del_rcu(&m->set_node);
		tab->nr_users--;
		trace_uid_free(up, tab->id);
		r->users[r->nusers++] = m;
	}
	spin_unlock_irqrestore(execns_uid_lock(), flags);
}

/*
 * Not inlined: a place for a kprobe beside table_destroy.  Caller holds
 * execns_tables_lock; @tab has no object left, so no task is in it and
 * none can enter it.
 */
static noinline void execns_uidtab_unlink(struct execns_uidtab *tab, struct execns_reaped *r)
{
	list_del_rcu(&tab->node);
	list_add(&tab->dead, &r->tables);
	atomic_dec(&execns_nr_tables);
	trace_table_destroy(tab->id, tab->parent_id);
}

/* One pass over every table; true when it filled a batch (more to do). */
static bool execns_reap_pass(struct execns_reaped *r)
{
	struct execns_uidtab *tab, *next;
	unsigned int i;

	r->nusers = 0;
	r->nucounts = 0;
	INIT_LIST_HEAD(&r->tables);
	mutex_lock(&execns_tables_lock);
	list_for_each_entry_safe(tab, next, &execns_tables, node) {
		r->nucounts += execns_uc_set_reap(&tab->ucounts, tab->id,
						  r->ucounts + r->nucounts,
						  EXECNS_REAP_BATCH - r->nucounts);
		execns_reap_users(tab, r);
		if (!READ_ONCE(tab->nr_users) && execns_uc_set_empty(&tab->ucounts))
			execns_uidtab_unlink(tab, r);
	}
	mutex_unlock(&execns_tables_lock);

	if (!r->nusers && !r->nucounts && list_empty(&r->tables))
		return false;
	/* Readers of the pointer set, the hashes and the table list. */
	synchronize_rcu();
	for (i = 0; i < r->nucounts; i++)
		execns_uc_free(r->ucounts[i]);
	for (i = 0; i < r->nusers; i++)
		execns_user_free(r->users[i]);
	/* Before the last table lets go of the module, the armed hooks hold it. */
	if (!list_empty(&r->tables) && !execns_uidtab_count())
		execns_uidhooks_idle();
	list_for_each_entry_safe(tab, next, &r->tables, dead) {
		kfree(tab);
		module_put(THIS_MODULE);	/* module exit waits for this work */
	}
	return r->nusers == EXECNS_REAP_BATCH || r->nucounts == EXECNS_REAP_BATCH;
}

/*
 * Runs every reap_ms while tables exist.  It is the only path that frees a
 * table's objects; no hook is needed for that, so a release path that no
 * hook sees costs nothing.
 */
static void execns_reap_fn(struct work_struct *work)
{
	bool more = execns_reap_pass(&execns_reaped);

	/*
	 * queue_, not mod_: a pass that execns_uidtab_reap_now() asked for
	 * meanwhile is pending already and must not be put off.
	 */
	if (execns_uidtab_count())
		queue_delayed_work(system_wq, &execns_reap_work,
				   more ? 0 : execns_reap_delay());
	else
		execns_uidhooks_idle();
}

/*
 * A reaper pass now, waited for: after a failed execns(CLONE_NEWUSER), so
 * that the caller finds nothing left of the table it never entered.
 * Process context, no lock held.  The pass queued here runs after the
 * caller dropped its references, and nothing re-arms it later meanwhile
 * (every other queueing is queue_delayed_work(), which leaves a pending
 * one alone), so the flush waits for a pass that sees them gone.
 */
void execns_uidtab_reap_now(void)
{
	mod_delayed_work(system_wq, &execns_reap_work, 0);
	flush_delayed_work(&execns_reap_work);
}

/* --- /proc/execns --- */

/*
 * Counters are read without locks: the view is a snapshot.  A user_struct
 * that only its table holds is left out, as are its references: it is
 * gone for every purpose but the reaper's.
 */
static void execns_user_show(struct seq_file *m, struct execns_uidtab *tab,
			     struct user_struct *up, unsigned int refs)
{
	seq_printf(m, EXECNS_TABLES_UID " %u table %llu refs %u epoll_watches %lld pipe_bufs %ld unix_inflight %lu locked_vm %ld watches %d",
		   from_kuid_munged(&init_user_ns, up->uid), tab->id, refs,
		   (long long)execns_user_epoll_read(up),
		   atomic_long_read(&up->pipe_bufs),
		   READ_ONCE(up->unix_inflight),
		   (long)execns_user_locked_vm(up),
		   (int)execns_user_nr_watches(up));
	/* Where the user_struct keeps them (compat.h): no ucounts line does. */
	if (EXECNS_USER_RLIMITS)
		seq_printf(m, " nproc %ld sigpending %ld msgqueue %ld memlock %ld",
			   execns_user_nproc(up), execns_user_sigpending(up),
			   execns_user_msgqueue(up), execns_user_memlock(up));
	seq_putc(m, '\n');
}

/*
 * The /proc/execns/tables view (procfs.c walks it; format in docs/design.md):
 * a snapshot under RCU, not the lock: any user may read it, and as often
 * and as slowly as it likes, while every alloc_uid() needs uidhash_lock.
 * Callers hold rcu_read_lock().
 */
struct execns_uidtab *execns_uidtab_first(void)
{
	return list_first_or_null_rcu(&execns_tables, struct execns_uidtab, node);
}

struct execns_uidtab *execns_uidtab_next(struct execns_uidtab *tab)
{
	return list_next_or_null_rcu(&execns_tables, &tab->node, struct execns_uidtab, node);
}

static unsigned int execns_user_refs(const struct user_struct *up)
{
	unsigned int refs = refcount_read(&up->__count);

	return refs > EXECNS_TABLE_REFS ? refs - EXECNS_TABLE_REFS : 0;
}

void execns_uidtab_tasks_clear(struct execns_uidtab *tab)
{
	tab->shown_tasks = 0;
}

void execns_uidtab_tasks_add(struct execns_uidtab *tab)
{
	tab->shown_tasks++;
}

void execns_uidtab_show(struct seq_file *m, struct execns_uidtab *tab)
{
	struct user_struct *up;
	unsigned int refs = 0, users = 0, r;
	int bkt;

	/*
	 * What holds the table: its user_structs' references, of which
	 * shown_tasks are running tasks' real credentials; docs/security.md lists
	 * the other holders (open files, pipes, epoll, io_uring, ...).
	 */
	hash_for_each_rcu(tab->users, bkt, up, uidhash_node) {
		r = execns_user_refs(up);
		refs += r;
		users += !!r;
	}
	seq_printf(m, EXECNS_TABLES_TABLE " %llu parent %llu users %u tasks %u refs %u\n",
		   tab->id, tab->parent_id, users, tab->shown_tasks, refs);
	hash_for_each_rcu(tab->users, bkt, up, uidhash_node) {
		r = execns_user_refs(up);
		if (r)
			execns_user_show(m, tab, up, r);
	}
}

void execns_uidtab_show_ucounts(struct seq_file *m, struct execns_uidtab *tab)
{
	execns_uc_set_show(m, &tab->ucounts, tab->id);
}

/*
 * The /proc/execns/stats view: user_structs allocated and freed since load
 * (freed means returned to the slab, after RCU), and live tables.
 */
void execns_uidtab_stats(struct seq_file *m)
{
	long allocs = atomic_long_read(&execns_user_allocs);
	long frees = atomic_long_read(&execns_user_frees);

	seq_printf(m, EXECNS_STAT_TABLES " %u\n" EXECNS_STAT_USER_ALLOCS " %ld\n"
		   EXECNS_STAT_USER_FREES " %ld\n" EXECNS_STAT_USERS " %ld\n",
		   execns_uidtab_count(), allocs, frees, allocs - frees);
}

/*
 * The kernel's own lock and cache, and its ucounts lock: without them a
 * table's objects could not be the kernel's kind.  The cache must hold a
 * user_struct as this module's headers lay it out.
 */
static const char *execns_uidtab_check(void)
{
	struct kmem_cache *cache;

	if (!execns_syms.uidhash_lock || !execns_syms.uid_cache)
		return execns_observe_why() ?:
		       "kernel/user.c's uidhash_lock or uid_cachep is not in the symbol table";
	if (!execns_ucounts_available())
		return "kernel/ucount.c's ucounts_lock is not in the symbol table";
	cache = execns_uid_cache();
	if (!cache || kmem_cache_size(cache) < sizeof(struct user_struct))
		return "uid_cachep does not hold a struct user_struct of this module's headers";
	return NULL;
}

int execns_uidtab_init(void)
{
	execns_uidtab_why = execns_uidtab_check();
	if (execns_uidtab_why)
		pr_warn("uid tables refused: %s\n", execns_uidtab_why);
	return 0;
}

/* Every table pins the module, so none is left when this runs. */
void execns_uidtab_uninit(void)
{
	cancel_delayed_work_sync(&execns_reap_work);
}
