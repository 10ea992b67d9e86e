// SPDX-License-Identifier: GPL-2.0
/*
 * Hooks on the kernel's per-user accounting (see uidhooks.h), through ftrace
 * (hook.h).
 *
 * Only where an object is made or looked up for the calling task's own
 * credentials: alloc_uid() and find_user() are only called in the context
 * of the task whose table is meant (set_user(), PRIO_USER and
 * IOPRIO_WHO_USER lookups), so they are redirected when current's
 * user_struct belongs to a table.  alloc_ucounts() is redirected only when
 * it makes a table task's new credentials' ucounts: called from
 * set_cred_ucounts() or copy_creds(), told by the return address.  A lookup
 * by an existing object's key (inc_ucount(), from inotify, fanotify and the
 * namespace counts) must find the object whose key it is, and only the
 * kernel's own hash does that for every caller (docs/design.md, "Uid
 * tables and the kernel's invariants").  Nothing that releases an object
 * is hooked.
 *
 * So a hook that a compiler or a patch bypasses costs accounting, never
 * memory: the task gets the kernel's object instead of the table's, and
 * every object keeps its own release.  The load-time proof (proof.c)
 * names the counters that would stay global.
 *
 * Every hook is an ftrace callback rather than a kprobe (kprobes do not
 * nest, and a softirq on a CPU running any kprobe handler would miss), not
 * wrapped in ftrace's per-ops recursion guard (hook.h), and PERMANENT.
 *
 * Arming: the hooks are armed by execns_uidhooks_get() before a table is
 * made and disarmed from a delayed work item once no table is left and no
 * get() is pending: the reaper (uidtab.c) that frees the last table
 * (re)queues that work disarm_delay_ms later, and until it has run the
 * armed hooks hold a module reference (execns_uidhooks_idle()), so rmmod
 * meanwhile is refused ("in use") rather than reaching an unload that
 * must unregister them.  So a make-and-drop loop
 * finds the hooks still armed and never waits for a disarm, and the disarm
 * (six unregisters, each waiting for a tasks-RCU grace period) runs on a
 * worker, never on a caller's path.
 * execns_uidhooks_lock serialises arming, disarming and
 * execns_uidhooks_pending; get() waits for it killably, since a disarm may
 * hold it for that long.  A table counted by uidtab.c keeps the hooks
 * armed: the work checks the count under the lock, and a creator counts as
 * pending from before arming until its table is counted (or has failed),
 * so a pending disarm that runs meanwhile does nothing.
 */
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/cred.h>
#include <linux/sched/user.h>
#include <linux/seq_file.h>
#include <linux/workqueue.h>
#include <linux/user_namespace.h>
#include "uidhooks.h"
#include "hook.h"
#include "handover.h"
#include "uidtab.h"
#include "proof.h"
#include "uapi/execns.h"

/* --- redirect targets: the signatures of the functions they replace --- */

static struct user_struct *execns_alloc_uid(kuid_t uid)
{
	return execns_uidtab_alloc_uid(execns_uidtab_of(current_user()), uid);
}

static struct user_struct *execns_find_user(kuid_t uid)
{
	return execns_uidtab_find_user(execns_uidtab_of(current_user()), uid);
}

static struct ucounts *execns_alloc_ucounts(struct user_namespace *ns, kuid_t uid)
{
	return execns_uidtab_ucounts(execns_uidtab_of(current_user()), ns, uid);
}

/* --- callbacks --- */

/*
 * alloc_uid() and find_user() are called by the task whose table is meant
 * (set_user(), PRIO_USER...): a caller in a table goes to the module's
 * stand-in, the ops' private.
 */
static void notrace execns_caller_table_hook(unsigned long ip, unsigned long parent_ip,
					     struct ftrace_ops *op, struct execns_fregs *fregs)
{
	if (execns_uidtab_of(current_user()))
		execns_hook_redirect(fregs, op->private);
}

NOKPROBE_SYMBOL(execns_caller_table_hook);

/*
 * alloc_ucounts(): only for the credentials a task of a table makes
 * (set_cred_ucounts(), copy_creds(): the caller's text, by the return
 * address), never for inc_ucount(), which looks up an existing object's
 * key and must find that object.
 */
static void notrace execns_cred_ucounts_hook(unsigned long ip, unsigned long parent_ip,
					     struct ftrace_ops *op, struct execns_fregs *fregs)
{
	if (execns_proof_cred_caller(parent_ip) && execns_uidtab_of(current_user()))
		execns_hook_redirect(fregs, op->private);
}

NOKPROBE_SYMBOL(execns_cred_ucounts_hook);

/*
 * In arming order; disarmed in reverse.  First the guards (hook.h) on the
 * callers alloc_ucounts() is redirected for, by return address: a
 * livepatch's copy of one would call it from text the hook does not know.
 * Without credentials' ucounts (compat.h) there is no such redirect, and
 * the nameless hooks are skipped.
 */
static struct execns_hook execns_uid_hooks[] = {
	EXECNS_GUARD_HOOK(EXECNS_CRED_UCOUNTS ? "set_cred_ucounts" : NULL),
	EXECNS_GUARD_HOOK(EXECNS_CRED_UCOUNTS ? "copy_creds" : NULL),
	EXECNS_REDIRECT_HOOK("alloc_uid", execns_caller_table_hook, execns_alloc_uid),
	/* Only where credentials have ucounts (compat.h); nameless, it is skipped. */
	EXECNS_REDIRECT_HOOK(EXECNS_CRED_UCOUNTS ? "alloc_ucounts" : NULL,
			     execns_cred_ucounts_hook, execns_alloc_ucounts),
	EXECNS_REDIRECT_HOOK("find_user", execns_caller_table_hook, execns_find_user),
	EXECNS_WATCH_HOOK("commit_creds", execns_handover_hook),
};

static DEFINE_MUTEX(execns_uidhooks_lock);
static unsigned int execns_uidhooks_pending;
static bool execns_uidhooks_armed;		/* all of them: tables may be made */
static bool execns_uidhooks_held;		/* a module reference (execns_uidhooks_idle()) */
static unsigned long execns_uidhooks_arms;	/* times armed since load */

/*
 * Whether any hook is armed.  Disarming can fail (hook.c: parking without
 * memory, or ftrace refusing to unregister) and leave a hook armed: then
 * the set is not "armed" for get(), which arms them all again, but the
 * stats say "armed", and the next disarm (after the next table) retries.
 */
static bool execns_uidhooks_any_armed(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(execns_uid_hooks); i++)
		if (execns_hook_armed(&execns_uid_hooks[i]))
			return true;
	return false;
}

/* Caller holds execns_uidhooks_lock. */
static void execns_uidhooks_disarm(void)
{
	int i;

	WRITE_ONCE(execns_uidhooks_armed, false);
	for (i = ARRAY_SIZE(execns_uid_hooks) - 1; i >= 0; i--)
		execns_hook_disarm(&execns_uid_hooks[i]);
}

/* Caller holds execns_uidhooks_lock. */
static int execns_uidhooks_arm(void)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(execns_uid_hooks); i++) {
		ret = execns_hook_arm(&execns_uid_hooks[i]);
		if (ret)
			goto disarm;
	}
	WRITE_ONCE(execns_uidhooks_armed, true);
	WRITE_ONCE(execns_uidhooks_arms, execns_uidhooks_arms + 1);
	return 0;

disarm:
	while (--i >= 0)
		execns_hook_disarm(&execns_uid_hooks[i]);
	return ret;
}

/* Hysteresis: how long the hooks stay armed after the last table. */
static unsigned int execns_disarm_delay_ms = 1000;
module_param_named(disarm_delay_ms, execns_disarm_delay_ms, uint, 0644);
MODULE_PARM_DESC(disarm_delay_ms, "milliseconds the uid hooks stay armed after the last uid table ends (default 1000; 0: disarm at once, from a worker)");

/*
 * The hold's reference goes here whatever happens: the hooks are disarmed,
 * or a table (which holds the module itself) or a creator (inside the
 * syscall, which holds it too) keeps them, or an unregister failed and
 * pinned the module with a reference of its own (hook.c).
 */
static void execns_uidhooks_disarm_work(struct work_struct *work)
{
	bool held;

	mutex_lock(&execns_uidhooks_lock);
	if (!execns_uidhooks_pending && !execns_uidtab_count() && execns_uidhooks_any_armed())
		execns_uidhooks_disarm();
	held = execns_uidhooks_held;
	WRITE_ONCE(execns_uidhooks_held, false);
	mutex_unlock(&execns_uidhooks_lock);
	if (held)
		module_put(THIS_MODULE);
}

static DECLARE_DELAYED_WORK(execns_uidhooks_work, execns_uidhooks_disarm_work);

/*
 * No table is left, so the hooks may go once disarm_delay_ms passed
 * without a new one.  Each call moves the deadline, so the delay counts
 * from the last table's end.  Until the work has run, the armed hooks
 * hold the module; the work drops that reference whatever it finds, so a
 * table made meanwhile (which holds the module itself) ends it too.
 */
void execns_uidhooks_idle(void)
{
	mutex_lock(&execns_uidhooks_lock);
	if (!execns_uidhooks_held && execns_uidhooks_any_armed()) {
		__module_get(THIS_MODULE);
		WRITE_ONCE(execns_uidhooks_held, true);
	}
	mutex_unlock(&execns_uidhooks_lock);
	mod_delayed_work(system_wq, &execns_uidhooks_work,
			 msecs_to_jiffies(READ_ONCE(execns_disarm_delay_ms)));
}

/*
 * -EINTR on a fatal signal while a disarm holds the lock: the caller has
 * made nothing yet and returns as it came.
 */
int execns_uidhooks_get(void)
{
	int ret;

	ret = mutex_lock_killable(&execns_uidhooks_lock);
	if (ret)
		return ret;
	if (!execns_uidhooks_armed)
		ret = execns_uidhooks_arm();
	if (!ret)
		execns_uidhooks_pending++;
	mutex_unlock(&execns_uidhooks_lock);
	return ret;
}

/*
 * Not killable: it must balance get().  No disarm can hold the lock long
 * while this caller is pending (the work leaves armed hooks alone then),
 * only another get() arming them.
 */
void execns_uidhooks_put(void)
{
	mutex_lock(&execns_uidhooks_lock);
	execns_uidhooks_pending--;
	mutex_unlock(&execns_uidhooks_lock);
	if (!execns_uidtab_count())
		execns_uidhooks_idle();
}

void execns_uidhooks_stats(struct seq_file *m)
{
	int i;

	seq_printf(m, EXECNS_STAT_HOOKS " %s\n" EXECNS_STAT_HOOK_ARMS " %lu\n",
		   execns_uidhooks_any_armed() ? EXECNS_STAT_ARMED : EXECNS_STAT_DISARMED,
		   READ_ONCE(execns_uidhooks_arms));
	if (READ_ONCE(execns_uidhooks_held))
		seq_puts(m, EXECNS_STAT_PINNED " the uid hooks are armed with no table: rmmod works once they are disarmed, disarm_delay_ms after the last table\n");
	for (i = 0; i < ARRAY_SIZE(execns_uid_hooks); i++)
		execns_hook_show_pin(m, &execns_uid_hooks[i]);
}

int execns_uidhooks_init(void)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(execns_uid_hooks); i++) {
		ret = execns_hook_init(&execns_uid_hooks[i]);
		if (ret)
			goto uninit_hooks;
	}
	return 0;

uninit_hooks:
	while (--i >= 0)
		execns_hook_uninit(&execns_uid_hooks[i]);
	return ret;
}

/*
 * After the reaper has stopped (execns_uidtab_uninit()): the pass that
 * freed the last table may have queued the work after
 * execns_uidhooks_uninit() cancelled it.
 */
void execns_uidhooks_flush(void)
{
	cancel_delayed_work_sync(&execns_uidhooks_work);
}

/*
 * Tables pin the module, so none exists here, and no get() is pending;
 * armed hooks hold it too (execns_uidhooks_idle()), so they are disarmed
 * already, except on a failed load.
 */
void execns_uidhooks_uninit(void)
{
	int i;

	cancel_delayed_work_sync(&execns_uidhooks_work);
	mutex_lock(&execns_uidhooks_lock);
	execns_uidhooks_disarm();
	mutex_unlock(&execns_uidhooks_lock);
	for (i = ARRAY_SIZE(execns_uid_hooks) - 1; i >= 0; i--)
		execns_hook_uninit(&execns_uid_hooks[i]);
}
