// SPDX-License-Identifier: GPL-2.0
/*
 * A test-only module that stands for another IP modifier (livepatch, a
 * second hooking module) on one kernel function: its init registers an
 * ftrace_ops with FTRACE_OPS_FL_IPMODIFY, filtered on the function named
 * by the "func" parameter, and returns what the registration returned;
 * exit unregisters it.  ftrace lets one IPMODIFY ops at a time on a
 * function, so while execns's redirecting hooks are armed there (a uid
 * table lives) loading this fails with EBUSY, and while this is loaded
 * execns cannot arm them.  test-uidtab-ipmodify asserts both; never part
 * of execns.ko.
 *
 * The callback is empty: only the registration matters.  The flags are
 * what a real IP modifier needs to move a call, livepatch's rule:
 * SAVE_REGS on a kernel whose trampolines do not carry the arguments and
 * the ip without it (no DYNAMIC_FTRACE_WITH_ARGS).
 */
#include <linux/module.h>
#include <linux/ftrace.h>
#include <linux/string.h>

static char *execns_ipmod_func;
module_param_named(func, execns_ipmod_func, charp, 0444);
MODULE_PARM_DESC(func, "the kernel function to hold with an IPMODIFY ftrace_ops");

static void notrace execns_ipmod_callback(unsigned long ip, unsigned long parent_ip,
					  struct ftrace_ops *op, struct execns_fregs *fregs)
{
}

static struct ftrace_ops execns_ipmod_ops = {
	.func = execns_ipmod_callback,
	.flags = FTRACE_OPS_FL_IPMODIFY |
		 (IS_ENABLED(CONFIG_HAVE_DYNAMIC_FTRACE_WITH_ARGS) ? 0 : FTRACE_OPS_FL_SAVE_REGS),
};

static int __init execns_ipmod_init(void)
{
	int ret;

	if (!execns_ipmod_func || !*execns_ipmod_func)
		return -EINVAL;
	ret = ftrace_set_filter(&execns_ipmod_ops, execns_ipmod_func,
				strlen(execns_ipmod_func), 0);
	if (ret) {
		pr_info("%s is not a traceable function (%d)\n", execns_ipmod_func, ret);
		goto free_filter;
	}
	/* EBUSY here is the conflict the test looks for: no pr_err. */
	ret = register_ftrace_function(&execns_ipmod_ops);
	if (ret) {
		pr_info("IPMODIFY ops on %s refused (%d)\n", execns_ipmod_func, ret);
		goto free_filter;
	}
	return 0;

free_filter:
	execns_free_filter(&execns_ipmod_ops);
	return ret;
}

static void __exit execns_ipmod_exit(void)
{
	unregister_ftrace_function(&execns_ipmod_ops);
	execns_free_filter(&execns_ipmod_ops);
}

module_init(execns_ipmod_init);
module_exit(execns_ipmod_exit);
MODULE_DESCRIPTION("execns test helper: an IPMODIFY ftrace_ops on one function");
MODULE_LICENSE("GPL");
