// SPDX-License-Identifier: GPL-2.0
/*
 * Per-namespace user_struct tables.
 *
 * Each module user_struct is embedded in an execns_user, which also links it
 * into a global pointer set (so free_uid() can tell a module user_struct
 * from a kernel one with a lockless lookup) and into its table's uid hash
 * (through the user_struct's own uidhash_node, unused otherwise).
 *
 * Locking: execns_uid_lock (irq-safe: free_uid() runs from RCU callbacks
 * when credentials die) protects the writers of every table's hash, of the
 * pointer set and of the table list, and nr_users.  Readers of all three
 * use RCU (the hooks look up the pointer set; /proc/execns/tables walks the
 * tables, so that no reader holds the lock every free_uid() takes); users,
 * with their counters, and tables are therefore freed after a grace period.
 *
 * Lifetime: a table lives while it has users (nr_users) or other objects
 * that belong to it hold it (nr_held: its ucounts, which mqueues, pending
 * signals and kernel user namespaces may keep after its last task).  Each
 * table pins the module; the pin is dropped from the RCU callback that
 * frees the table, and module exit waits for those callbacks with
 * rcu_barrier().
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/err.h>
#include <linux/hashtable.h>
#include <linux/rculist.h>
#include <linux/seq_file.h>
#include <linux/kprobes.h>
#include <linux/sched/user.h>
#include <linux/user_namespace.h>
#include "uidtab.h"
#include "fault.h"
#include "trace.h"

#define EXECNS_UIDTAB_BITS	5	/* 32 buckets: 256 bytes a table */
#define EXECNS_USERSET_BITS	12	/* 32 KiB; chains stay short up to ~10k users */

struct execns_uidtab {
	u64 id;
	u64 parent_id;			/* 0: the global table */
	unsigned int nr_users;		/* under execns_uid_lock */
	unsigned int nr_held;		/* other objects of the table (ucounts.c) */
	struct list_head node;		/* in execns_tables */
	struct rcu_head rcu;
	DECLARE_HASHTABLE(users, EXECNS_UIDTAB_BITS);	/* by uid */
};

struct execns_user {
	struct user_struct us;		/* what the kernel sees */
	struct execns_uidtab *tab;
	struct hlist_node set_node;	/* in execns_user_set, by address */
	struct rcu_head rcu;
};

static DEFINE_SPINLOCK(execns_uid_lock);
static LIST_HEAD(execns_tables);
static DEFINE_HASHTABLE(execns_user_set, EXECNS_USERSET_BITS);
static atomic_t execns_nr_tables = ATOMIC_INIT(0);
static atomic64_t execns_next_id = ATOMIC64_INIT(0);
static atomic_long_t execns_user_allocs = ATOMIC_LONG_INIT(0);
static atomic_long_t execns_user_frees = ATOMIC_LONG_INIT(0);
static struct kmem_cache *execns_user_cache;

static struct execns_user *execns_user(const struct user_struct *up)
{
	return container_of(up, struct execns_user, us);
}

/* notrace: the put_ucounts() hook's callback calls it (execns_ucounts_ours()). */
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
 * call_rcu() waits for preemption-disabled sections too, and the walk is
 * one short hash chain, so it is bounded on PREEMPT_RT as well.
 */
struct execns_uidtab *notrace execns_uidtab_of(const struct user_struct *up)
{
	struct execns_user *eu;
	struct execns_uidtab *tab = NULL;

	if (!up || !atomic_read(&execns_nr_tables))
		return NULL;
	rcu_read_lock_sched_notrace();
	hash_for_each_possible_rcu(execns_user_set, eu, set_node, (unsigned long)up) {
		if (&eu->us == up) {
			tab = eu->tab;
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

/* The kernel's alloc_uid() initialisation, for a user_struct of ours. */
static struct execns_user *execns_user_new(kuid_t uid)
{
	struct execns_user *eu;

	eu = execns_should_fail("user_struct") ? NULL :
	     kmem_cache_zalloc(execns_user_cache, GFP_KERNEL);
	if (!eu)
		return NULL;
	eu->us.uid = uid;
	refcount_set(&eu->us.__count, 1);
	if (execns_user_epoll_init(&eu->us)) {
		kmem_cache_free(execns_user_cache, eu);
		return NULL;
	}
	ratelimit_state_init(&eu->us.ratelimit, HZ, 100);
	ratelimit_set_flags(&eu->us.ratelimit, RATELIMIT_MSG_ON_RELEASE);
	INIT_HLIST_NODE(&eu->us.uidhash_node);
	atomic_long_inc(&execns_user_allocs);
	return eu;
}

/* The counters too: a /proc/execns/tables reader may still be summing them. */
static void execns_user_free_rcu(struct rcu_head *rcu)
{
	struct execns_user *eu = container_of(rcu, struct execns_user, rcu);

	execns_user_epoll_free(&eu->us);
	kmem_cache_free(execns_user_cache, eu);
	atomic_long_inc(&execns_user_frees);
}

/* Only for a user never published in a table. */
static void execns_user_discard(struct execns_user *eu)
{
	execns_user_epoll_free(&eu->us);
	kmem_cache_free(execns_user_cache, eu);
	atomic_long_inc(&execns_user_frees);
}

/* Caller holds execns_uid_lock; takes a reference on a match. */
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

/* Caller holds execns_uid_lock. */
static void execns_uidtab_insert(struct execns_uidtab *tab, struct execns_user *eu)
{
	eu->tab = tab;
	tab->nr_users++;
	hash_add_rcu(tab->users, &eu->us.uidhash_node, __kuid_val(eu->us.uid));
	hash_add_rcu(execns_user_set, &eu->set_node, (unsigned long)&eu->us);
	trace_uid_alloc(&eu->us, tab->id);
}

struct user_struct *execns_uidtab_find_user(struct execns_uidtab *tab, kuid_t uid)
{
	struct user_struct *up;
	unsigned long flags;

	spin_lock_irqsave(&execns_uid_lock, flags);
	up = execns_uidtab_lookup(tab, uid);
	spin_unlock_irqrestore(&execns_uid_lock, flags);
	trace_uid_find(uid, tab->id, up);
	return up;
}

/*
 * As alloc_uid(): allocate outside the lock, then recheck, since another
 * task of the table may have added the uid meanwhile.  The caller's own
 * reference on a user of @tab keeps @tab alive throughout.
 */
struct user_struct *execns_uidtab_alloc_uid(struct execns_uidtab *tab, kuid_t uid)
{
	struct user_struct *up;
	struct execns_user *eu;
	unsigned long flags;

	up = execns_uidtab_find_user(tab, uid);
	if (up)
		return up;

	eu = execns_user_new(uid);
	if (!eu)
		return NULL;

	spin_lock_irqsave(&execns_uid_lock, flags);
	up = execns_uidtab_lookup(tab, uid);
	if (!up) {
		execns_uidtab_insert(tab, eu);
		up = &eu->us;
		eu = NULL;
	}
	spin_unlock_irqrestore(&execns_uid_lock, flags);
	if (eu)
		execns_user_discard(eu);
	return up;
}

static void execns_uidtab_free_rcu(struct rcu_head *rcu)
{
	kfree(container_of(rcu, struct execns_uidtab, rcu));
	/* Last: module exit's rcu_barrier() waits for this callback. */
	module_put(THIS_MODULE);
}

/*
 * @tab has neither users nor held objects left: unlink it under the lock,
 * then (after the caller dropped it) uncount it and free it after a grace
 * period.  Not inlined: the SystemTap tapset's execns.table.destroy.
 */
static noinline void execns_uidtab_unlink(struct execns_uidtab *tab)
{
	list_del_rcu(&tab->node);
	trace_table_destroy(tab->id, tab->parent_id);
}

static void execns_uidtab_free(struct execns_uidtab *tab)
{
	atomic_dec(&execns_nr_tables);
	call_rcu(&tab->rcu, execns_uidtab_free_rcu);
}

/*
 * The last reference to @eu is gone: unlink it, and its table if that was
 * the table's last object, then free both after a grace period.
 */
static void execns_user_release(struct execns_user *eu, unsigned long flags)
	__releases(&execns_uid_lock)
{
	struct execns_uidtab *tab = eu->tab;
	bool last;

	hash_del_rcu(&eu->us.uidhash_node);
	hash_del_rcu(&eu->set_node);
	last = !--tab->nr_users && !tab->nr_held;
	trace_uid_free(&eu->us, tab->id);
	if (last)
		execns_uidtab_unlink(tab);
	spin_unlock_irqrestore(&execns_uid_lock, flags);

	call_rcu(&eu->rcu, execns_user_free_rcu);
	if (last)
		execns_uidtab_free(tab);
}

void execns_uidtab_hold(struct execns_uidtab *tab)
{
	unsigned long flags;

	spin_lock_irqsave(&execns_uid_lock, flags);
	tab->nr_held++;
	spin_unlock_irqrestore(&execns_uid_lock, flags);
}

void execns_uidtab_unhold(struct execns_uidtab *tab)
{
	unsigned long flags;
	bool last;

	spin_lock_irqsave(&execns_uid_lock, flags);
	last = !--tab->nr_held && !tab->nr_users;
	if (last)
		execns_uidtab_unlink(tab);
	spin_unlock_irqrestore(&execns_uid_lock, flags);
	if (last)
		execns_uidtab_free(tab);
}

/*
 * As free_uid().  May run in softirq context (RCU callbacks freeing creds),
 * so nothing here sleeps.
 */
void execns_uidtab_put_user(struct user_struct *up)
{
	unsigned long flags;

	if (!refcount_dec_and_lock_irqsave(&up->__count, &execns_uid_lock, &flags))
		return;
	__acquire(&execns_uid_lock);	/* for sparse: taken by the call above */
	execns_user_release(execns_user(up), flags);
}

struct user_struct *execns_uidtab_create(struct execns_uidtab *parent, kuid_t uid)
{
	struct execns_uidtab *tab;
	struct execns_user *eu;
	unsigned long flags;

	tab = execns_should_fail("uid table") ? NULL : kzalloc(sizeof(*tab), GFP_KERNEL);
	if (!tab)
		return ERR_PTR(-ENOMEM);
	eu = execns_user_new(uid);
	if (!eu)
		goto free_tab;
	/* The caller armed the hooks (execns_uidhooks_get()) and holds them. */
	atomic_inc(&execns_nr_tables);
	__module_get(THIS_MODULE);
	tab->id = atomic64_inc_return(&execns_next_id);
	tab->parent_id = execns_uidtab_id(parent);
	hash_init(tab->users);

	spin_lock_irqsave(&execns_uid_lock, flags);
	trace_table_create(tab->id, tab->parent_id);
	execns_uidtab_insert(tab, eu);
	list_add_tail_rcu(&tab->node, &execns_tables);
	spin_unlock_irqrestore(&execns_uid_lock, flags);
	return &eu->us;

free_tab:
	kfree(tab);
	return ERR_PTR(-ENOMEM);
}

/* Counters are read without locks: the view is a snapshot. */
static void execns_user_show(struct seq_file *m, struct execns_uidtab *tab,
			     struct user_struct *up)
{
	seq_printf(m, "uid %u table %llu refs %u epoll_watches %lld pipe_bufs %ld unix_inflight %lu locked_vm %ld watches %d\n",
		   from_kuid_munged(&init_user_ns, up->uid), tab->id,
		   refcount_read(&up->__count),
		   (long long)execns_user_epoll_read(up),
		   atomic_long_read(&up->pipe_bufs),
		   READ_ONCE(up->unix_inflight),
		   (long)execns_user_locked_vm(up),
		   (int)execns_user_nr_watches(up));
}

/*
 * The /proc/execns/tables view (procfs.c walks it; format in docs/design.md):
 * a snapshot under RCU, not the lock: any user may read it, and as often
 * and as slowly as it likes, while free_uid() on every CPU needs the lock.
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

void execns_uidtab_show(struct seq_file *m, struct execns_uidtab *tab, unsigned int tasks)
{
	struct user_struct *up;
	unsigned int refs = 0;
	int bkt;

	/*
	 * What holds the table: its user_structs' references, of which
	 * @tasks are running tasks' real credentials; docs/security.md lists
	 * the other holders (open files, pipes, epoll, io_uring, ...).
	 */
	hash_for_each_rcu(tab->users, bkt, up, uidhash_node)
		refs += refcount_read(&up->__count);
	seq_printf(m, "table %llu parent %llu users %u tasks %u refs %u\n",
		   tab->id, tab->parent_id, READ_ONCE(tab->nr_users), tasks, refs);
	hash_for_each_rcu(tab->users, bkt, up, uidhash_node)
		execns_user_show(m, tab, up);
}

/*
 * The /proc/execns/stats view: user_structs allocated and freed since load
 * (freed means returned to the slab, after RCU), and live tables.
 */
void execns_uidtab_stats(struct seq_file *m)
{
	long allocs = atomic_long_read(&execns_user_allocs);
	long frees = atomic_long_read(&execns_user_frees);

	seq_printf(m, "tables %u\nuser_allocs %ld\nuser_frees %ld\nusers %ld\n",
		   execns_uidtab_count(), allocs, frees, allocs - frees);
}

int execns_uidtab_init(void)
{
	execns_user_cache = KMEM_CACHE(execns_user, 0);
	return execns_user_cache ? 0 : -ENOMEM;
}

/* Every table pins the module, so none is left when this runs. */
void execns_uidtab_uninit(void)
{
	rcu_barrier();
	kmem_cache_destroy(execns_user_cache);
}
