// SPDX-License-Identifier: GPL-2.0
/*
 * Per-table ucounts (see ucounts.h).
 *
 * A task of a table gets its ucounts from the table: alloc_ucounts() is
 * redirected for it (uidhooks.c), and a new table's first ucounts goes into
 * the exec's credentials with its user_struct (handover.c).  The kernel
 * then counts in them as in its own: the objects have the kernel's layout,
 * the same user namespace and uid, and the limits (rlimits, the user.max_*
 * sysctls of the namespace) stay the kernel's; only the counters are the
 * table's.  A kernel user namespace created in a table points at its
 * creator's ucounts (ns->ucounts), so its chain counts inside the table.
 *
 * Each module ucounts is embedded in an execns_ucounts from the module's
 * own cache, found by (table, ns, uid) in one hash and by address in
 * another (the put_ucounts() hook's lockless test).  Both are written under
 * execns_uc_lock (irq-safe: put_ucounts() runs from RCU callbacks when
 * credentials die) and read under RCU, so objects are freed after a grace
 * period.  A live object holds its table (execns_uidtab_hold()), which pins
 * the module: pending signals, mqueues and user namespaces can keep a
 * table's ucounts after its last task, and with them the table.
 *
 * References: a lookup takes one only while the count is not zero; the
 * release that brings it to zero unlinks the object under the lock (an
 * object found dead meanwhile is skipped, and a new one made).
 */
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/slab.h>
#include <linux/hashtable.h>
#include <linux/rculist.h>
#include <linux/seq_file.h>
#include <linux/user_namespace.h>
#include "ucounts.h"
#include "uidtab.h"
#include "fault.h"
#include "trace.h"

#define EXECNS_UC_BITS	10	/* 8 KiB each; chains stay short up to ~5k objects */

struct execns_ucounts {
	struct ucounts uc;		/* what the kernel sees */
	struct execns_uidtab *tab;
	struct hlist_node key_node;	/* in execns_uc_keys, by (tab, ns, uid) */
	struct hlist_node set_node;	/* in execns_uc_set, by address */
	struct rcu_head rcu;
};

static DEFINE_SPINLOCK(execns_uc_lock);
static DEFINE_HASHTABLE(execns_uc_keys, EXECNS_UC_BITS);
static DEFINE_HASHTABLE(execns_uc_set, EXECNS_UC_BITS);
static atomic_long_t execns_uc_allocs = ATOMIC_LONG_INIT(0);
static atomic_long_t execns_uc_frees = ATOMIC_LONG_INIT(0);
static struct kmem_cache *execns_uc_cache;

static struct execns_ucounts *execns_uc(const struct ucounts *uc)
{
	return container_of(uc, struct execns_ucounts, uc);
}

static unsigned long execns_uc_key(const struct execns_uidtab *tab,
				   const struct user_namespace *ns, kuid_t uid)
{
	return (unsigned long)tab ^ (unsigned long)ns ^ __kuid_val(uid);
}

/* The put_ucounts() hook's test: as execns_uidtab_of(), notrace throughout. */
bool notrace execns_ucounts_ours(const struct ucounts *uc)
{
	struct execns_ucounts *eu;
	bool ours = false;

	if (!uc || !execns_uidtab_count())
		return false;
	rcu_read_lock_sched_notrace();
	hash_for_each_possible_rcu(execns_uc_set, eu, set_node, (unsigned long)uc) {
		if (&eu->uc == uc) {
			ours = true;
			break;
		}
	}
	rcu_read_unlock_sched_notrace();
	return ours;
}
NOKPROBE_SYMBOL(execns_ucounts_ours);

/* Caller holds execns_uc_lock; takes a reference on a live match. */
static struct ucounts *execns_uc_lookup(struct execns_uidtab *tab,
					struct user_namespace *ns, kuid_t uid)
{
	struct execns_ucounts *eu;

	hash_for_each_possible(execns_uc_keys, eu, key_node, execns_uc_key(tab, ns, uid)) {
		if (eu->tab == tab && eu->uc.ns == ns && uid_eq(eu->uc.uid, uid) &&
		    execns_ucounts_ref_get(&eu->uc))
			return &eu->uc;
	}
	return NULL;
}

static struct execns_ucounts *execns_uc_new(struct execns_uidtab *tab,
					    struct user_namespace *ns, kuid_t uid)
{
	struct execns_ucounts *eu;

	eu = execns_should_fail("ucounts") ? NULL :
	     kmem_cache_zalloc(execns_uc_cache, GFP_KERNEL);
	if (!eu)
		return NULL;
	eu->tab = tab;
	eu->uc.ns = ns;
	eu->uc.uid = uid;
	execns_ucounts_ref_init(&eu->uc);
	return eu;
}

/*
 * The user namespace reference goes here, not at release: a
 * /proc/execns/tables reader may still read uc->ns under RCU, and
 * free_user_ns() does not wait for a grace period.  put_user_ns() only
 * queues work, so it is fine in an RCU callback.
 */
static void execns_uc_free_rcu(struct rcu_head *rcu)
{
	struct execns_ucounts *eu = container_of(rcu, struct execns_ucounts, rcu);

	put_user_ns(eu->uc.ns);
	kmem_cache_free(execns_uc_cache, eu);
	atomic_long_inc(&execns_uc_frees);
}

/*
 * Caller holds execns_uc_lock.  Not inlined, nor execns_uc_release(): the
 * SystemTap tapset's execns.ucounts.alloc and .free.
 */
static noinline void execns_uc_insert(struct execns_ucounts *eu)
{
	struct execns_uidtab *tab = eu->tab;

	get_user_ns(eu->uc.ns);
	execns_uidtab_hold(tab);
	hash_add_rcu(execns_uc_keys, &eu->key_node, execns_uc_key(tab, eu->uc.ns, eu->uc.uid));
	hash_add_rcu(execns_uc_set, &eu->set_node, (unsigned long)&eu->uc);
	atomic_long_inc(&execns_uc_allocs);
	trace_ucounts_alloc(&eu->uc, execns_uidtab_id(tab));
}

static noinline void execns_uc_release(struct execns_ucounts *eu)
{
	struct execns_uidtab *tab = eu->tab;
	unsigned long flags;

	spin_lock_irqsave(&execns_uc_lock, flags);
	hash_del_rcu(&eu->key_node);
	hash_del_rcu(&eu->set_node);
	trace_ucounts_free(&eu->uc, execns_uidtab_id(eu->tab));
	spin_unlock_irqrestore(&execns_uc_lock, flags);

	/*
	 * The object's callback before the table's: the table's drops the
	 * module reference, and module exit's rcu_barrier() must find this
	 * one queued too.
	 */
	call_rcu(&eu->rcu, execns_uc_free_rcu);
	execns_uidtab_unhold(tab);
}

struct ucounts *execns_ucounts_alloc(struct execns_uidtab *tab,
				     struct user_namespace *ns, kuid_t uid)
{
	struct execns_ucounts *eu;
	struct ucounts *uc;
	unsigned long flags;

	spin_lock_irqsave(&execns_uc_lock, flags);
	uc = execns_uc_lookup(tab, ns, uid);
	spin_unlock_irqrestore(&execns_uc_lock, flags);
	if (uc)
		return uc;

	eu = execns_uc_new(tab, ns, uid);
	if (!eu)
		return NULL;

	spin_lock_irqsave(&execns_uc_lock, flags);
	uc = execns_uc_lookup(tab, ns, uid);
	if (!uc) {
		execns_uc_insert(eu);
		uc = &eu->uc;
		eu = NULL;
	}
	spin_unlock_irqrestore(&execns_uc_lock, flags);
	if (eu)
		kmem_cache_free(execns_uc_cache, eu);
	return uc;
}

void execns_ucounts_put(struct ucounts *uc)
{
	if (execns_ucounts_ref_put(uc))
		execns_uc_release(execns_uc(uc));
}

/* Counters are read without locks: the view is a snapshot. */
void execns_ucounts_show(struct seq_file *m)
{
	struct execns_ucounts *eu;
	int bkt;

	hash_for_each_rcu(execns_uc_keys, bkt, eu, key_node) {
		const struct ucounts *uc = &eu->uc;

		seq_printf(m, "ucounts uid %u ns %u table %llu refs %d nproc %ld sigpending %ld msgqueue %ld memlock %ld inotify_instances %ld inotify_watches %ld fanotify_groups %ld fanotify_marks %ld user_namespaces %ld\n",
			   from_kuid_munged(&init_user_ns, uc->uid), uc->ns->ns.inum,
			   execns_uidtab_id(eu->tab), execns_ucounts_ref_read(uc),
			   atomic_long_read(&uc->rlimit[UCOUNT_RLIMIT_NPROC]),
			   atomic_long_read(&uc->rlimit[UCOUNT_RLIMIT_SIGPENDING]),
			   atomic_long_read(&uc->rlimit[UCOUNT_RLIMIT_MSGQUEUE]),
			   atomic_long_read(&uc->rlimit[UCOUNT_RLIMIT_MEMLOCK]),
			   execns_uc_inotify_instances(uc), execns_uc_inotify_watches(uc),
			   execns_uc_fanotify_groups(uc), execns_uc_fanotify_marks(uc),
			   atomic_long_read(&uc->ucount[UCOUNT_USER_NAMESPACES]));
	}
}

void execns_ucounts_stats(struct seq_file *m)
{
	long allocs = atomic_long_read(&execns_uc_allocs);
	long frees = atomic_long_read(&execns_uc_frees);

	seq_printf(m, "ucounts_allocs %ld\nucounts_frees %ld\nucounts %ld\n",
		   allocs, frees, allocs - frees);
}

int execns_ucounts_init(void)
{
	execns_uc_cache = KMEM_CACHE(execns_ucounts, 0);
	return execns_uc_cache ? 0 : -ENOMEM;
}

/* Every live object holds a table, which pins the module: none is left. */
void execns_ucounts_uninit(void)
{
	rcu_barrier();
	kmem_cache_destroy(execns_uc_cache);
}
