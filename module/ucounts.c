// SPDX-License-Identifier: GPL-2.0
/*
 * A uid table's ucounts (see ucounts.h).
 *
 * Each is a plain struct ucounts, made as alloc_ucounts() makes one: from
 * kmalloc, holding a reference on its user namespace, linked by its own node
 * into a list of the kernel's kind, under the kernel's ucounts_lock.  So
 * the kernel's put_ucounts() would unlink and free one correctly, under the
 * lock that guards our lists.  It never has to: the set holds one
 * reference on each object (EXECNS_TABLE_REFS), and only the reaper
 * (uidtab.c) frees an object, once that reference is the last.  The kernel's
 * own hash never holds a table's object, so no lookup by key outside the
 * table finds one.
 *
 * Locking: ucounts_lock (the kernel's, irq-safe) for every change to a
 * set's lists; /proc/execns/tables reads them under RCU, so an unlinked
 * object is freed after a grace period (the reaper waits for one).
 * References: a reference is taken from the set's own only under the lock,
 * and the reaper tests for "the set's is the last" under the lock, so no
 * reference can appear on an object it is unlinking.
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/hash.h>
#include <linux/rculist.h>
#include <linux/rculist_nulls.h>
#include <linux/seq_file.h>
#include <linux/user_namespace.h>
#include "ucounts.h"
#include "uidtab.h"
#include "symbols.h"
#include "fault.h"
#include "trace.h"
#include "uapi/execns.h"

static atomic_long_t execns_uc_allocs = ATOMIC_LONG_INIT(0);
static atomic_long_t execns_uc_frees = ATOMIC_LONG_INIT(0);

bool execns_ucounts_available(void)
{
	/* A table needs no ucounts where credentials have none (compat.h). */
	return !EXECNS_CRED_UCOUNTS || execns_syms.ucounts_lock;
}

static struct execns_uc_head *execns_uc_bucket(struct execns_uc_set *set,
					       const struct user_namespace *ns, kuid_t uid)
{
	return &set->heads[hash_long((unsigned long)ns ^ __kuid_val(uid), EXECNS_UC_BITS)];
}

void execns_uc_set_init(struct execns_uc_set *set)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(set->heads); i++)
		execns_uc_head_init(&set->heads[i]);
}

/* Caller holds ucounts_lock; takes a reference on a match. */
static struct ucounts *execns_uc_lookup(struct execns_uc_set *set,
					struct user_namespace *ns, kuid_t uid)
{
	struct execns_uc_node *pos;
	struct ucounts *uc;

	execns_uc_for_each_rcu(uc, pos, execns_uc_bucket(set, ns, uid)) {
		if (uc->ns == ns && uid_eq(uc->uid, uid) && execns_ucounts_ref_get(uc))
			return uc;
	}
	return NULL;
}

/* As alloc_ucounts() makes one, with the set's reference and the caller's. */
static struct ucounts *execns_uc_new(struct user_namespace *ns, kuid_t uid)
{
	struct ucounts *uc;

	uc = execns_should_fail("ucounts") ? NULL : kzalloc(sizeof(*uc), GFP_KERNEL);
	if (!uc)
		return NULL;
	uc->ns = ns;
	uc->uid = uid;
	execns_ucounts_ref_init(uc, EXECNS_TABLE_REFS + 1);
	return uc;
}

/*
 * Caller holds ucounts_lock.  Not inlined, nor execns_uc_unlinked(): a
 * place for a kprobe beside the ucounts_alloc and ucounts_free tracepoints.
 */
static noinline void execns_uc_insert(struct execns_uc_set *set, u64 table,
				      struct ucounts *uc)
{
	get_user_ns(uc->ns);
	execns_uc_link(uc, execns_uc_bucket(set, uc->ns, uc->uid));
	atomic_long_inc(&execns_uc_allocs);
	trace_ucounts_alloc(uc, table);
}

struct ucounts *execns_uc_set_get(struct execns_uc_set *set, u64 table,
				  struct user_namespace *ns, kuid_t uid)
{
	spinlock_t *lock = execns_syms.ucounts_lock;
	struct ucounts *uc, *new;
	unsigned long flags;

	spin_lock_irqsave(lock, flags);
	uc = execns_uc_lookup(set, ns, uid);
	spin_unlock_irqrestore(lock, flags);
	if (uc)
		return uc;

	new = execns_uc_new(ns, uid);
	if (!new)
		return NULL;
	spin_lock_irqsave(lock, flags);
	uc = execns_uc_lookup(set, ns, uid);
	if (!uc) {
		execns_uc_insert(set, table, new);
		uc = new;
		new = NULL;
	}
	spin_unlock_irqrestore(lock, flags);
	kfree(new);
	return uc;
}

static noinline void execns_uc_unlinked(struct ucounts *uc, u64 table)
{
	trace_ucounts_free(uc, table);
}

unsigned int execns_uc_set_reap(struct execns_uc_set *set, u64 table,
				struct ucounts **dead, unsigned int max)
{
	spinlock_t *lock = execns_syms.ucounts_lock;
	struct execns_uc_node *pos;
	struct ucounts *uc;
	unsigned long flags;
	unsigned int i, n = 0;

	/*
	 * Where credentials have no ucounts, nothing fills a set, and the
	 * kernel's ucounts_lock may not be known (no data symbols: observe.h).
	 */
	if (!EXECNS_CRED_UCOUNTS)
		return 0;
	spin_lock_irqsave(lock, flags);
	for (i = 0; i < ARRAY_SIZE(set->heads) && n < max; i++) {
		execns_uc_for_each_safe(uc, pos, &set->heads[i]) {
			/* The set's reference, if it is the last: to zero, as put_ucounts(). */
			if (execns_ucounts_ref_read(uc) > EXECNS_TABLE_REFS ||
			    !execns_ucounts_ref_drop_last(uc))
				continue;
			execns_uc_unlink(uc);
			execns_uc_unlinked(uc, table);
			dead[n++] = uc;
			if (n == max)
				break;
		}
	}
	spin_unlock_irqrestore(lock, flags);
	return n;
}

bool execns_uc_set_empty(struct execns_uc_set *set)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(set->heads); i++)
		if (!execns_uc_head_empty(&set->heads[i]))
			return false;
	return true;
}

/*
 * After a grace period (the reaper waits for one): what put_ucounts()
 * would do after its last reference.  put_user_ns() only queues work.
 */
void execns_uc_free(struct ucounts *uc)
{
	put_user_ns(uc->ns);
	kfree(uc);
	atomic_long_inc(&execns_uc_frees);
}

/*
 * Counters are read without locks: the view is a snapshot.  An object
 * that only its table still holds is left out: it is gone for every
 * purpose but the reaper's.
 */
void execns_uc_set_show(struct seq_file *m, struct execns_uc_set *set, u64 table)
{
	struct execns_uc_node *pos;
	struct ucounts *uc;
	unsigned int i;
	int refs;

	for (i = 0; i < ARRAY_SIZE(set->heads); i++) {
		execns_uc_for_each_rcu(uc, pos, &set->heads[i]) {
			refs = execns_ucounts_ref_read(uc) - EXECNS_TABLE_REFS;
			if (refs <= 0)
				continue;
			seq_printf(m, EXECNS_TABLES_UCOUNTS " uid %u ns %u table %llu refs %d nproc %ld sigpending %ld msgqueue %ld memlock %ld inotify_instances %ld inotify_watches %ld fanotify_groups %ld fanotify_marks %ld user_namespaces %ld\n",
				   from_kuid_munged(&init_user_ns, uc->uid), uc->ns->ns.inum,
				   table, refs,
				   execns_uc_rlimit(uc, NPROC),
				   execns_uc_rlimit(uc, SIGPENDING),
				   execns_uc_rlimit(uc, MSGQUEUE),
				   execns_uc_rlimit(uc, MEMLOCK),
				   execns_uc_inotify_instances(uc), execns_uc_inotify_watches(uc),
				   execns_uc_fanotify_groups(uc), execns_uc_fanotify_marks(uc),
				   execns_uc_count(uc, UCOUNT_USER_NAMESPACES));
		}
	}
}

void execns_ucounts_stats(struct seq_file *m)
{
	long allocs = atomic_long_read(&execns_uc_allocs);
	long frees = atomic_long_read(&execns_uc_frees);

	seq_printf(m, EXECNS_STAT_UCOUNTS_ALLOCS " %ld\n" EXECNS_STAT_UCOUNTS_FREES " %ld\n"
		   EXECNS_STAT_UCOUNTS " %ld\n",
		   allocs, frees, allocs - frees);
}
