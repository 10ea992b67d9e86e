// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/execns.  Its file names and the keywords of their formats are user
 * space's facts too: uapi/execns.h has both, and says each format;
 * docs/design.md shows them with examples.
 */
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/rcupdate.h>
#include <linux/cred.h>
#include <linux/sched/signal.h>
#include "procfs.h"
#include "uidtab.h"
#include "uidhooks.h"
#include "ucounts.h"
#include "proof.h"
#include "unshare.h"
#include "uapi/execns.h"

static struct proc_dir_entry *execns_proc_dir;

/*
 * Serialises the readers of /proc/execns/tables, which count tasks in the
 * tables themselves (execns_uidtab_tasks_add()).
 */
static DEFINE_MUTEX(execns_tables_show_lock);

/*
 * World-readable, so bounded for any reader: one walk over the threads
 * (under RCU, as execns_pids_show()), each counted in its table, then one
 * over the tables: O(threads + tables) per read, as ps(1) costs, never a
 * walk of every thread per table.  No cond_resched() can go inside an RCU
 * walk of the task list; a table the reaper unlinks meanwhile is freed
 * only after this read-side section, so counting in it is safe.  No count
 * is stale: a new table starts at 0 (kzalloc) and is listed before its
 * first user_struct reaches anyone, and a table some cred still uses is
 * never unlinked.
 */
static int execns_tables_show(struct seq_file *m, void *v)
{
	struct execns_uidtab *tab;
	struct task_struct *g, *t;

	if (mutex_lock_killable(&execns_tables_show_lock))
		return -EINTR;
	rcu_read_lock();
	for (tab = execns_uidtab_first(); tab; tab = execns_uidtab_next(tab))
		execns_uidtab_tasks_clear(tab);
	if (execns_uidtab_count()) {
		for_each_process_thread(g, t) {
			tab = execns_uidtab_of(__task_cred(t)->user);
			if (tab)
				execns_uidtab_tasks_add(tab);
		}
	}
	for (tab = execns_uidtab_first(); tab; tab = execns_uidtab_next(tab))
		execns_uidtab_show(m, tab);
	for (tab = execns_uidtab_first(); tab; tab = execns_uidtab_next(tab))
		execns_uidtab_show_ucounts(m, tab);
	rcu_read_unlock();
	mutex_unlock(&execns_tables_show_lock);
	return 0;
}

static int execns_stats_show(struct seq_file *m, void *v)
{
	execns_uidtab_stats(m);
	execns_ucounts_stats(m);
	execns_uidhooks_stats(m);
	execns_unshare_stats(m);
	return 0;
}

static int execns_proof_file_show(struct seq_file *m, void *v)
{
	execns_proof_show(m);
	return 0;
}

static int execns_self_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%llu\n", execns_uidtab_id(execns_uidtab_of(current_user())));
	return 0;
}

/*
 * Every thread, not only group leaders: threads may hold different
 * credentials.  Tasks and their credentials are freed after an RCU grace
 * period, and execns_uidtab_of() is lockless, so RCU is all this needs;
 * the list may miss tasks forked or exiting meanwhile, as /proc does.
 */
static int execns_pids_show(struct seq_file *m, void *v)
{
	struct task_struct *g, *t;
	struct execns_uidtab *tab;
	pid_t nr;

	if (!execns_uidtab_count())
		return 0;
	rcu_read_lock();
	for_each_process_thread(g, t) {
		tab = execns_uidtab_of(__task_cred(t)->user);
		nr = tab ? task_pid_vnr(t) : 0;
		if (nr)
			seq_printf(m, "%d %llu\n", nr, execns_uidtab_id(tab));
	}
	rcu_read_unlock();
	return 0;
}

int execns_procfs_init(void)
{
	execns_proc_dir = proc_mkdir(EXECNS_PROC_NAME, NULL);
	if (!execns_proc_dir)
		return -ENOMEM;
	if (!proc_create_single(EXECNS_PROC_TABLES_NAME, 0444, execns_proc_dir,
				execns_tables_show) ||
	    !proc_create_single(EXECNS_PROC_SELF_NAME, 0444, execns_proc_dir,
				execns_self_show) ||
	    !proc_create_single(EXECNS_PROC_STATS_NAME, 0444, execns_proc_dir,
				execns_stats_show) ||
	    !proc_create_single(EXECNS_PROC_PIDS_NAME, 0444, execns_proc_dir,
				execns_pids_show) ||
	    !proc_create_single(EXECNS_PROC_PROOF_NAME, 0444, execns_proc_dir,
				execns_proof_file_show)) {
		proc_remove(execns_proc_dir);
		return -ENOMEM;
	}
	return 0;
}

void execns_procfs_uninit(void)
{
	proc_remove(execns_proc_dir);
}
