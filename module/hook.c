// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace hooks: set-up, arming and disarming (see hook.h).
 */
#include <linux/kernel.h>
#include <linux/ftrace.h>
#include "hook.h"
#include "symbols.h"

int execns_hook_arm(struct execns_hook *h)
{
	int ret = register_ftrace_function(&h->ops);

	if (ret) {
		pr_warn_ratelimited("cannot hook %s (%d)%s\n", h->name, ret, ret == -EBUSY ?
				    ": is ftrace disabled (sysctl kernel.ftrace_enabled=1) or another IP modifier there?" : "");
		return ret;
	}
	h->armed = true;
	return 0;
}

void execns_hook_disarm(struct execns_hook *h)
{
	if (!h->armed)
		return;
	unregister_ftrace_function(&h->ops);
	h->armed = false;
}

int execns_hook_init(struct execns_hook *h)
{
	unsigned long addr = execns_symbol_addr(h->name);
	int ret;

	if (!addr)
		return -ENOENT;
	ret = ftrace_set_filter_ip(&h->ops, addr, 0, 0);
	if (ret) {
		pr_err("cannot trace %s (%d): is it in available_filter_functions?\n",
		       h->name, ret);
		return ret;
	}
	ret = execns_hook_arm(h);
	if (ret)
		goto free_filter;
	execns_hook_disarm(h);
	return 0;

free_filter:
	ftrace_free_filter(&h->ops);
	return ret;
}

void execns_hook_uninit(struct execns_hook *h)
{
	execns_hook_disarm(h);
	ftrace_free_filter(&h->ops);
}
