// SPDX-License-Identifier: GPL-2.0
/*
 * Kprobes on the kernel's per-user accounting and credential paths.
 *
 * alloc_uid() and find_user() are redirected, for tasks of a module table,
 * into uidtab.c: the pre-handler points regs->ip at a function of the same
 * signature and returns 1.  Redirecting
 * probes have a post_handler so they register as IP-modifying (see
 * Documentation/trace/kprobes.rst): a second IP modifier on the same
 * function then fails to register instead of being silently bypassed.
 *
 * free_uid() follows the user_struct instead, and is hooked through ftrace
 * directly, not through a kprobe: it is called from RCU callbacks, and a
 * softirq that interrupts any kprobe handler on its CPU (ours on
 * commit_creds(), or anyone's) would find a kprobe "running", count a miss
 * and let the kernel's free_uid() free a module user_struct into the
 * kernel's cache.  ftrace's recursion guard is per context, so the softirq
 * still gets the hook.
 *
 * All of these are armed when the first table is created, before its first
 * user is visible, and stay armed until the module is unloaded (when no
 * table can exist): a loaded module that never made a table costs nothing
 * on these paths.  They are not disarmed when the last table goes: that
 * would re-patch free_uid() each time a table comes and goes, while RCU
 * callbacks run it, and under QEMU TCG that code patching crashed guests
 * (int3 left at free_uid+4) when tables were made and dropped in a loop.
 * After the first table the hooks cost a lookup that ends at once on
 * execns_uidtab_count() == 0.
 *
 * commit_creds() is probed (not redirected) while an execns(CLONE_NEWUSER)
 * is in flight, to put the table's user_struct into the new credentials the
 * exec commits; those are private to the exec until then.
 *
 * ksys_unshare() is redirected to EINVAL for CLONE_NEWIPC/CLONE_NEWUSER while
 * forbid_unshare is set, as the seed's patches 6-7 did.
 */
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/ftrace.h>
#include <linux/module.h>
#include <linux/cred.h>
#include <linux/sched.h>
#include <linux/sched/user.h>
#include <linux/workqueue.h>
#include "probes.h"
#include "uidtab.h"
#include "symbols.h"

bool execns_forbid_unshare;
module_param_named(forbid_unshare, execns_forbid_unshare, bool, 0644);
MODULE_PARM_DESC(forbid_unshare, "unshare(2) of CLONE_NEWIPC or CLONE_NEWUSER fails with EINVAL (default 0; 1 is the seed's policy)");

/* --- redirect targets: the signatures of the functions they replace --- */

static struct user_struct *execns_alloc_uid(kuid_t uid)
{
	return execns_uidtab_alloc_uid(execns_uidtab_of(current_user()), uid);
}

static struct user_struct *execns_find_user(kuid_t uid)
{
	return execns_uidtab_find_user(execns_uidtab_of(current_user()), uid);
}

static long execns_unshare_refused(unsigned long flags)
{
	return -EINVAL;
}

/* --- pre-handlers --- */

static int execns_redirect(struct pt_regs *regs, void *target)
{
	instruction_pointer_set(regs, (unsigned long)target);
	return 1;
}
NOKPROBE_SYMBOL(execns_redirect);

/* Both are called in the context of the task whose table is meant. */
static int execns_alloc_uid_pre(struct kprobe *p, struct pt_regs *regs)
{
	if (!execns_uidtab_of(current_user()))
		return 0;
	return execns_redirect(regs, execns_alloc_uid);
}
NOKPROBE_SYMBOL(execns_alloc_uid_pre);

static int execns_find_user_pre(struct kprobe *p, struct pt_regs *regs)
{
	if (!execns_uidtab_of(current_user()))
		return 0;
	return execns_redirect(regs, execns_find_user);
}
NOKPROBE_SYMBOL(execns_find_user_pre);

/* free_uid() follows the user_struct, not the task: RCU callbacks call it. */
static void notrace execns_free_uid_hook(unsigned long ip, unsigned long parent_ip,
					 struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);

	if (execns_uidtab_of((struct user_struct *)regs->di))
		instruction_pointer_set(regs, (unsigned long)execns_uidtab_put_user);
}

/*
 * RECURSION: ftrace guards against recursion per context (task, softirq,
 * irq).  PERMANENT: kernel.ftrace_enabled=0 would otherwise turn the hook
 * into a NOP while module user_structs exist, and the kernel would then free
 * them into its own cache; with it, the sysctl fails with EBUSY while the
 * hook is registered, and registering fails while ftrace is disabled.
 */
static struct ftrace_ops execns_free_uid_ops = {
	.func = execns_free_uid_hook,
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY |
		 FTRACE_OPS_FL_RECURSION | FTRACE_OPS_FL_PERMANENT,
};

static int execns_unshare_pre(struct kprobe *p, struct pt_regs *regs)
{
	if (!READ_ONCE(execns_forbid_unshare) ||
	    !(regs->di & (CLONE_NEWIPC | CLONE_NEWUSER)))
		return 0;
	return execns_redirect(regs, execns_unshare_refused);
}
NOKPROBE_SYMBOL(execns_unshare_pre);

static void execns_redirect_post(struct kprobe *p, struct pt_regs *regs,
				 unsigned long flags)
{
}
NOKPROBE_SYMBOL(execns_redirect_post);

/* --- commit_creds(): the user_struct hand-over --- */

static LIST_HEAD(execns_swaps);
static DEFINE_SPINLOCK(execns_swap_lock);

static int execns_commit_creds_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct cred *new = (struct cred *)regs->di;
	struct execns_cred_swap *swap;
	unsigned long flags;

	if (list_empty_careful(&execns_swaps))
		return 0;
	spin_lock_irqsave(&execns_swap_lock, flags);
	list_for_each_entry(swap, &execns_swaps, node) {
		if (swap->task != current || !swap->user)
			continue;
		swap->replaced = new->user;
		new->user = swap->user;
		swap->user = NULL;
		break;
	}
	spin_unlock_irqrestore(&execns_swap_lock, flags);
	return 0;
}
NOKPROBE_SYMBOL(execns_commit_creds_pre);

void execns_cred_swap_begin(struct execns_cred_swap *swap, struct user_struct *user)
{
	unsigned long flags;

	swap->task = current;
	swap->user = user;
	swap->replaced = NULL;
	spin_lock_irqsave(&execns_swap_lock, flags);
	list_add(&swap->node, &execns_swaps);
	spin_unlock_irqrestore(&execns_swap_lock, flags);
}

struct user_struct *execns_cred_swap_end(struct execns_cred_swap *swap)
{
	unsigned long flags;

	spin_lock_irqsave(&execns_swap_lock, flags);
	list_del(&swap->node);
	spin_unlock_irqrestore(&execns_swap_lock, flags);
	return swap->user ? swap->user : swap->replaced;
}

/* --- registration --- */

#define EXECNS_REDIRECT(sym, handler) {			\
	.symbol_name = sym,				\
	.pre_handler = handler,				\
	.post_handler = execns_redirect_post,		\
	.flags = KPROBE_FLAG_DISABLED,			\
}

/* Armed while a table exists, after the free_uid() hook. */
static struct kprobe execns_uid_probes[] = {
	EXECNS_REDIRECT("alloc_uid", execns_alloc_uid_pre),
	EXECNS_REDIRECT("find_user", execns_find_user_pre),
	{
		.symbol_name = "commit_creds",
		.pre_handler = execns_commit_creds_pre,
		.flags = KPROBE_FLAG_DISABLED,
	},
};

static struct kprobe execns_unshare_probe = {
	.symbol_name = "ksys_unshare",
	.pre_handler = execns_unshare_pre,
	.post_handler = execns_redirect_post,
};

/* kprobes' global switch (debug/kprobes/enabled), when kallsyms shows it. */
static bool execns_kprobes_all_disarmed(void)
{
	return execns_syms.kprobes_all_disarmed &&
	       READ_ONCE(*execns_syms.kprobes_all_disarmed);
}

/* Serialises arming and disarming; tables are counted in uidtab.c. */
static DEFINE_MUTEX(execns_arm_lock);
static bool execns_armed;

static void execns_uid_probes_disarm(void)
{
	int i;

	for (i = ARRAY_SIZE(execns_uid_probes) - 1; i >= 0; i--)
		disable_kprobe(&execns_uid_probes[i]);
	unregister_ftrace_function(&execns_free_uid_ops);
	execns_armed = false;
}

/* free_uid first: a module user_struct must never be freed by the kernel. */
static int execns_uid_probes_arm(void)
{
	int i, ret;

	ret = register_ftrace_function(&execns_free_uid_ops);
	if (ret) {
		pr_warn_ratelimited("cannot hook free_uid (%d)%s\n", ret, ret == -EBUSY ?
				    ": uid tables need ftrace: sysctl kernel.ftrace_enabled=1" : "");
		return ret;
	}
	for (i = 0; i < ARRAY_SIZE(execns_uid_probes); i++) {
		ret = enable_kprobe(&execns_uid_probes[i]);
		if (ret) {
			pr_err("cannot arm probe on %s: %d\n",
			       execns_uid_probes[i].symbol_name, ret);
			goto disarm;
		}
	}
	execns_armed = true;
	return 0;

disarm:
	while (--i >= 0)
		disable_kprobe(&execns_uid_probes[i]);
	unregister_ftrace_function(&execns_free_uid_ops);
	return ret;
}

/*
 * Every hook a table relies on must really run.  enable_kprobe() succeeds
 * while /sys/kernel/debug/kprobes/enabled is 0 (all probes disarmed), so
 * that switch is read too; the free_uid() hook cannot be switched off
 * while registered (FTRACE_OPS_FL_PERMANENT).  Caller holds execns_arm_lock.
 */
static int execns_uid_probes_live(void)
{
	int i;

	if (execns_kprobes_all_disarmed()) {
		pr_warn_ratelimited("uid tables need kprobes: echo 1 > /sys/kernel/debug/kprobes/enabled\n");
		return -EBUSY;
	}
	for (i = 0; i < ARRAY_SIZE(execns_uid_probes); i++) {
		if (kprobe_disabled(&execns_uid_probes[i])) {
			pr_warn_ratelimited("the probe on %s is disabled; uid tables cannot work\n",
					    execns_uid_probes[i].symbol_name);
			return -EBUSY;
		}
	}
	return 0;
}

int execns_probes_arm(void)
{
	int ret = 0;

	mutex_lock(&execns_arm_lock);
	if (!execns_armed)
		ret = execns_uid_probes_arm();
	if (!ret)
		ret = execns_uid_probes_live();
	mutex_unlock(&execns_arm_lock);
	return ret;
}

static int execns_register(struct kprobe *kp)
{
	int ret = register_kprobe(kp);

	if (ret)
		pr_err("cannot probe %s: %d\n", kp->symbol_name, ret);
	return ret;
}

/*
 * Aim the free_uid() hook and try it once, so that another IP-modifying
 * user of free_uid() (livepatch, ...) fails the load instead of a table.
 */
static int execns_free_uid_hook_init(void)
{
	int ret;

	ret = ftrace_set_filter_ip(&execns_free_uid_ops, (unsigned long)free_uid, 0, 0);
	if (!ret)
		ret = register_ftrace_function(&execns_free_uid_ops);
	if (ret) {
		pr_err("cannot hook free_uid: %d%s\n", ret, ret == -EBUSY ?
		       " (ftrace disabled? sysctl kernel.ftrace_enabled=1)" : "");
		ftrace_free_filter(&execns_free_uid_ops);
		return ret;
	}
	unregister_ftrace_function(&execns_free_uid_ops);
	return 0;
}

int execns_probes_init(void)
{
	int i, ret;

	ret = execns_free_uid_hook_init();
	if (ret)
		return ret;
	for (i = 0; i < ARRAY_SIZE(execns_uid_probes); i++) {
		ret = execns_register(&execns_uid_probes[i]);
		if (ret)
			goto unregister_uid_probes;
	}
	ret = execns_register(&execns_unshare_probe);
	if (ret)
		goto unregister_uid_probes;
	return 0;

unregister_uid_probes:
	while (--i >= 0)
		unregister_kprobe(&execns_uid_probes[i]);
	ftrace_free_filter(&execns_free_uid_ops);
	return ret;
}

/* Tables pin the module, so none exists here. */
void execns_probes_uninit(void)
{
	int i;

	unregister_kprobe(&execns_unshare_probe);
	mutex_lock(&execns_arm_lock);
	if (execns_armed)
		execns_uid_probes_disarm();
	mutex_unlock(&execns_arm_lock);
	for (i = ARRAY_SIZE(execns_uid_probes) - 1; i >= 0; i--) {
		if (execns_uid_probes[i].nmissed)
			pr_warn("probe on %s missed %lu hits\n",
				execns_uid_probes[i].symbol_name,
				execns_uid_probes[i].nmissed);
		unregister_kprobe(&execns_uid_probes[i]);
	}
	ftrace_free_filter(&execns_free_uid_ops);
}
