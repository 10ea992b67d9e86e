// SPDX-License-Identifier: GPL-2.0
/*
 * execns: the 2006 execns() proposal as a loadable module.
 *
 * execns(flags, filename, argv, envp) is execve(2) that also unshares the
 * namespaces in flags, switching them when the exec has succeeded.  The
 * module claims a spare syscall number (slot.c), runs the exec path
 * (exec.c) and resolves the kernel internals it needs (symbols.c).
 * Documentation: docs/design.md, docs/execns.2.
 */
#include <linux/module.h>
#include "symbols.h"
#include "slot.h"

static int __init execns_init(void)
{
	int ret;

	ret = execns_symbols_init();
	if (ret)
		return ret;

	ret = execns_slot_init();
	if (ret)
		return ret;

	pr_info("loaded: execns is syscall %u (x86_64) and %u (i386)\n",
		execns_syscall_nr, execns_compat_syscall_nr);
	return 0;
}

static void __exit execns_exit(void)
{
	execns_slot_uninit();
	pr_info("unloaded\n");
}

module_init(execns_init);
module_exit(execns_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("execns(2): execve with namespace unsharing, and per-namespace uid tables");
MODULE_AUTHOR("The execns authors");
MODULE_VERSION("0.1");
