// SPDX-License-Identifier: GPL-2.0
/*
 * forbid_unshare: a hook on ksys_unshare() that answers EINVAL for
 * CLONE_NEWIPC and CLONE_NEWUSER, as the seed's patches 6-7 did; clone(2)
 * is not affected.  Off by default, and the hook is armed only while the
 * parameter is 1, so a loaded module changes nothing for unshare(2) and
 * costs it nothing.
 *
 * Writes to the parameter and the module's init serialise on
 * execns_unshare_lock.  A value given at insmod is set before init: it is
 * recorded, and init arms the hook.
 *
 * While armed, the hooks hold a module reference, so rmmod is refused
 * ("in use"; /proc/execns/stats says why) until the parameter is 0 again.
 * Unload never has to unregister an armed hook: after ftrace_kill() an
 * unregister fails for good, and unload, which can no longer refuse,
 * would have to wait for it forever (hook.c).
 */
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include "unshare.h"
#include "hook.h"
#include "proof.h"
#include "uapi/execns.h"

static bool execns_forbid_unshare;
static bool execns_unshare_ready;
static bool execns_unshare_pinned;	/* a module reference while any hook is armed */
static DEFINE_MUTEX(execns_unshare_lock);

static int execns_unshare_refused(unsigned long flags)
{
	return -EINVAL;
}

static void notrace execns_unshare_hook_cb(unsigned long ip, unsigned long parent_ip,
					   struct ftrace_ops *op, struct execns_fregs *fregs)
{
	/* init arms the hook once to test it, whatever the parameter says. */
	if (READ_ONCE(execns_forbid_unshare) &&
	    (execns_hook_arg0(fregs) & (CLONE_NEWIPC | CLONE_NEWUSER)))
		execns_hook_redirect(fregs, op->private);
}

NOKPROBE_SYMBOL(execns_unshare_hook_cb);

/*
 * In arming order, disarmed in reverse: guards on the syscall wrappers,
 * into which ksys_unshare()'s one caller, __do_sys_unshare(), is inlined
 * (kernel/fork.c), so that no livepatch replaces one with a copy holding
 * its own ksys_unshare() while the hook is armed (hook.h); then the hook.
 */
static struct execns_hook execns_unshare_hooks[] = {
	EXECNS_GUARD_HOOK(EXECNS_ARCH_SYS_UNSHARE),
	EXECNS_GUARD_HOOK(EXECNS_ARCH_COMPAT_SYS_UNSHARE),
	EXECNS_REDIRECT_HOOK("ksys_unshare", execns_unshare_hook_cb, execns_unshare_refused),
};

/* Caller holds execns_unshare_lock (or is init, alone). */
static void execns_unshare_pin(void)
{
	bool armed = false;
	int i;

	for (i = 0; i < ARRAY_SIZE(execns_unshare_hooks); i++)
		armed |= execns_hook_armed(&execns_unshare_hooks[i]);
	if (armed && !execns_unshare_pinned)
		__module_get(THIS_MODULE);
	else if (!armed && execns_unshare_pinned)
		module_put(THIS_MODULE);
	WRITE_ONCE(execns_unshare_pinned, armed);
}

/* Caller holds execns_unshare_lock. */
static int execns_unshare_apply(bool forbid)
{
	int i, ret;

	if (!forbid) {
		for (i = ARRAY_SIZE(execns_unshare_hooks) - 1; i >= 0; i--)
			execns_hook_disarm(&execns_unshare_hooks[i]);
		execns_unshare_pin();
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(execns_unshare_hooks); i++) {
		ret = execns_hook_arm(&execns_unshare_hooks[i]);
		if (ret)
			goto disarm;
	}
	execns_unshare_pin();
	return 0;

disarm:
	while (--i >= 0)
		execns_hook_disarm(&execns_unshare_hooks[i]);
	execns_unshare_pin();
	return ret;
}

static void execns_unshare_uninit_hooks(int n)
{
	while (--n >= 0)
		execns_hook_uninit(&execns_unshare_hooks[n]);
}

static int execns_forbid_unshare_set(const char *val, const struct kernel_param *kp)
{
	bool forbid;
	int ret;

	ret = kstrtobool(val, &forbid);
	if (ret)
		return ret;
	mutex_lock(&execns_unshare_lock);
	/* Before init (insmod's value) the proof has not run: init decides. */
	if (execns_unshare_ready && forbid && !execns_proof_forbid()) {
		pr_warn("forbid_unshare refused: the load-time proof failed ("
			EXECNS_PROC_PROOF ")\n");
		ret = -EOPNOTSUPP;
	}
	if (!ret && execns_unshare_ready && forbid != execns_forbid_unshare)
		ret = execns_unshare_apply(forbid);
	if (!ret)
		execns_forbid_unshare = forbid;
	mutex_unlock(&execns_unshare_lock);
	return ret;
}

static const struct kernel_param_ops execns_forbid_unshare_ops = {
	.set = execns_forbid_unshare_set,
	.get = param_get_bool,
};
module_param_cb(forbid_unshare, &execns_forbid_unshare_ops, &execns_forbid_unshare, 0644);
MODULE_PARM_DESC(forbid_unshare, "1: unshare(2) of CLONE_NEWIPC or CLONE_NEWUSER fails with EINVAL, the seed's policy (default 0)");

void execns_unshare_stats(struct seq_file *m)
{
	int i;

	if (READ_ONCE(execns_unshare_pinned))
		seq_puts(m, EXECNS_STAT_PINNED " forbid_unshare is armed: write 0 to "
			 EXECNS_SYSFS_DIR "/forbid_unshare before rmmod\n");
	for (i = 0; i < ARRAY_SIZE(execns_unshare_hooks); i++)
		execns_hook_show_pin(m, &execns_unshare_hooks[i]);
}

int execns_unshare_init(void)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(execns_unshare_hooks); i++) {
		ret = execns_hook_init(&execns_unshare_hooks[i]);
		if (ret) {
			execns_unshare_uninit_hooks(i);
			return ret;
		}
	}
	mutex_lock(&execns_unshare_lock);
	/* insmod forbid_unshare=1 on a kernel that failed the proof: load without it. */
	if (execns_forbid_unshare && !execns_proof_forbid()) {
		pr_warn("forbid_unshare=1 ignored: the load-time proof failed ("
			EXECNS_PROC_PROOF ")\n");
		execns_forbid_unshare = false;
	}
	ret = execns_forbid_unshare ? execns_unshare_apply(true) : 0;
	if (!ret)
		execns_unshare_ready = true;
	mutex_unlock(&execns_unshare_lock);
	if (ret)
		execns_unshare_uninit_hooks(ARRAY_SIZE(execns_unshare_hooks));
	return ret;
}

void execns_unshare_uninit(void)
{
	int i;

	mutex_lock(&execns_unshare_lock);
	execns_unshare_ready = false;
	/*
	 * Armed here only after a failed init, or when a write to the
	 * parameter won the lock between rmmod's refcount check and this
	 * exit: the hooks are disarmed and that reference goes too.
	 */
	for (i = ARRAY_SIZE(execns_unshare_hooks) - 1; i >= 0; i--)
		execns_hook_disarm(&execns_unshare_hooks[i]);
	execns_unshare_pin();
	mutex_unlock(&execns_unshare_lock);
	execns_unshare_uninit_hooks(ARRAY_SIZE(execns_unshare_hooks));
}
