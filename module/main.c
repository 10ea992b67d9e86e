// SPDX-License-Identifier: GPL-2.0
/*
 * execns: the 2006 execns() proposal as a loadable module.
 *
 * execns(flags, filename, argv, envp) is execve(2) that also unshares the
 * namespaces in flags, switching them when the exec has succeeded.  The
 * module claims a spare syscall number (slot.c), runs the exec path
 * (exec.c), keeps per-namespace user_struct tables (uidtab.c), with their
 * ucounts (ucounts.c), that ftrace
 * hooks (hook.c) on the kernel's accounting paths route into (uidhooks.c),
 * hands a new table's user_struct to the exec's credentials (handover.c),
 * can refuse unshare(2) as the seed did (unshare.c), shows the tables in
 * /proc/execns (procfs.c), resolves the kernel internals it needs
 * (symbols.c), or watches the kernel use them where it cannot
 * (observe.c), proves at load that nothing bypasses the uid hooks
 * (proof.c) and can fail its own steps on purpose (fault.c).
 * Documentation: docs/design.md, docs/execns.2.
 */
#include <linux/module.h>
#include <linux/rcupdate.h>
#include "arch.h"
#include "symbols.h"
#include "observe.h"
#include "proof.h"
#include "slot.h"
#include "uidtab.h"
#include "uidhooks.h"
#include "unshare.h"
#include "procfs.h"
#include "fault.h"

static int __init execns_init(void)
{
	int ret;

	ret = execns_symbols_init();
	if (ret)
		return ret;
	/* Calls alloc_uid() and free_uid(): before their hooks. */
	execns_observe_init();
	/* Before any hook: its verdict decides which of them may ever arm. */
	execns_proof_init();

	ret = execns_uidtab_init();
	if (ret)
		return ret;
	ret = execns_uidhooks_init();
	if (ret)
		goto uninit_uidtab;
	ret = execns_unshare_init();
	if (ret)
		goto uninit_uidhooks;
	ret = execns_procfs_init();
	if (ret)
		goto uninit_unshare;
	/* Last: the syscall is reachable only once everything behind it is. */
	ret = execns_slot_init();
	if (ret)
		goto uninit_procfs;
	ret = execns_should_fail_init();	/* fail_init (testing) */
	if (ret)
		goto uninit_slot;
	/* Nothing can fail from here: callers may enter the module's text. */
	execns_slot_open();

	if (EXECNS_ARCH_HAS_COMPAT)
		pr_info("loaded: execns is syscall %u (%s) and %u (%s)\n",
			execns_syscall_nr, EXECNS_ARCH_NAME,
			execns_compat_syscall_nr, EXECNS_ARCH_COMPAT_NAME);
	else	/* an insmod user who set compat_syscall_nr learns why nothing uses it */
		pr_info("loaded: execns is syscall %u (%s; this kernel has no compat callers%s)\n",
			execns_syscall_nr, EXECNS_ARCH_NAME,
			execns_compat_syscall_nr == EXECNS_ARCH_COMPAT_SYSCALL_NR ?
			"" : ", so compat_syscall_nr is ignored");
	return 0;

uninit_slot:
	execns_slot_uninit();
uninit_procfs:
	execns_procfs_uninit();
uninit_unshare:
	execns_unshare_uninit();
uninit_uidhooks:
	execns_uidhooks_uninit();
uninit_uidtab:
	execns_uidtab_uninit();
	return ret;
}

static void __exit execns_exit(void)
{
	execns_slot_uninit();
	execns_procfs_uninit();
	execns_unshare_uninit();
	execns_uidhooks_uninit();
	/*
	 * A task redirected just before its probe went away may have been
	 * preempted at the first instruction of a redirect target, or just
	 * after the slot entry's module_put().  It cannot have switched
	 * voluntarily there, so a tasks-RCU grace period waits for it.
	 */
	synchronize_rcu_tasks();
	execns_uidtab_uninit();
	/* The reaper's last pass may have queued the hooks' disarm work. */
	execns_uidhooks_flush();
	pr_info("unloaded\n");
}

module_init(execns_init);
module_exit(execns_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("execns(2): execve with namespace unsharing, and per-namespace uid tables");
MODULE_AUTHOR("The execns authors");
MODULE_VERSION(EXECNS_VERSION);
