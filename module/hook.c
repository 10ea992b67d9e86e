// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace hooks: set-up, arming and disarming (see hook.h).
 */
#include <linux/kernel.h>
#include <linux/ftrace.h>
#include <linux/rcupdate.h>
#include "hook.h"
#include "symbols.h"

/*
 * Parking places: where a disarmed hook's filter points.  One per hook,
 * because two IP-modifying ops cannot share a function.  Never called;
 * not notrace, since a filter can only name an ftrace site; and each
 * stores its own constant, so that the compiler cannot fold them into one.
 */
static int execns_parked_at;

#define EXECNS_PARKING_PLACE(n)					\
	static noinline void execns_parking_##n(void)		\
	{							\
		WRITE_ONCE(execns_parked_at, n);		\
	}

EXECNS_PARKING_PLACE(0)
EXECNS_PARKING_PLACE(1)
EXECNS_PARKING_PLACE(2)
EXECNS_PARKING_PLACE(3)
EXECNS_PARKING_PLACE(4)
EXECNS_PARKING_PLACE(5)
EXECNS_PARKING_PLACE(6)
EXECNS_PARKING_PLACE(7)

static void (*const execns_parking[])(void) = {
	execns_parking_0, execns_parking_1, execns_parking_2, execns_parking_3,
	execns_parking_4, execns_parking_5, execns_parking_6, execns_parking_7,
};

/* Hooks are initialised one after the other by the module's init. */
static unsigned int execns_parking_used;

/*
 * Whether ftrace calls @h after every kprobe that could undo its redirect
 * (EXECNS_ARCH_KPROBE_RESETS_IP).  Kprobes without a post-handler share
 * kprobe_ftrace_ops, registered while any exists; a kprobe with one uses
 * an IP-modifying ops, which cannot share a function with a redirect.
 * ftrace adds an ops at the head of ftrace_ops_list and calls a
 * function's ops in list order, so the redirect holds unless
 * kprobe_ftrace_ops comes after @h: registered before the module loaded
 * and never unregistered since.  Once ahead of @h it can only stay there
 * (to fall behind it would have to be registered before @h, which is
 * registered for the module's life), so a check passed at arming holds
 * until the hook is disarmed.
 *
 * The list is read with preemption disabled: ftrace unlinks an ops, leaving
 * its next pointer intact, and waits for such sections before one may be
 * freed (synchronize_rcu_tasks_rude() in ftrace_shutdown()).
 */
static bool execns_hook_after_kprobes(const struct execns_hook *h)
{
	const struct ftrace_ops *op;
	bool passed_hook = false;

	preempt_disable();
	for (op = rcu_dereference_sched(*execns_syms.ftrace_ops_list); op;
	     op = rcu_dereference_sched(op->next)) {
		if (op == execns_syms.kprobe_ftrace_ops)
			break;
		if (op == &h->ops)
			passed_hook = true;
	}
	preempt_enable();
	return !(passed_hook && op);
}

/* Point @h's filter at @ip alone; @h keeps its old filter on failure. */
static int execns_hook_point(struct execns_hook *h, unsigned long ip)
{
	int ret = ftrace_set_filter_ip(&h->ops, ip, 0, 1);

	if (ret && ip == h->addr)
		pr_warn_ratelimited("cannot hook %s (%d)%s\n", h->name, ret,
				    ret == -EBUSY ? ": another IP modifier (livepatch, a module) is on it" :
				    ret == -EINVAL ? ": is it in available_filter_functions?" : "");
	else if (ret)
		pr_warn_ratelimited("cannot disarm the hook on %s (%d): it stays armed\n",
				    h->name, ret);
	return ret;
}

int execns_hook_arm(struct execns_hook *h)
{
	int ret;

	if (h->armed)
		return 0;
	if (EXECNS_ARCH_KPROBE_RESETS_IP && (h->ops.flags & FTRACE_OPS_FL_IPMODIFY) &&
	    !execns_hook_after_kprobes(h)) {
		pr_warn_ratelimited("cannot hook %s: kprobes older than the execns module would undo its redirect on this architecture; remove them all (perf probe -d, kprobe_events, bpftrace, stap) and retry\n",
				    h->name);
		return -EBUSY;
	}
	ret = execns_hook_point(h, h->addr);
	if (ret)
		return ret;
	h->armed = true;
	return 0;
}

/*
 * Parking only replaces the filter: a callback already running finishes
 * (callers keep what it reads alive), and the next call of the function
 * does not reach the hook.  Only an allocation can fail here, and then the
 * hook stays armed, which costs time but loses nothing.
 */
void execns_hook_disarm(struct execns_hook *h)
{
	if (!h->armed || execns_hook_point(h, h->park))
		return;
	h->armed = false;
}

static int execns_hook_park_init(struct execns_hook *h)
{
	if (WARN_ON(execns_parking_used == ARRAY_SIZE(execns_parking)))
		return -ENOSPC;
	h->park = (unsigned long)execns_parking[execns_parking_used++];
	return ftrace_set_filter_ip(&h->ops, h->park, 0, 1);
}

int execns_hook_init(struct execns_hook *h)
{
	int ret;

	h->addr = execns_symbol_addr(h->name);
	if (!h->addr)
		return -ENOENT;
	ret = execns_hook_park_init(h);
	if (ret) {
		pr_err("cannot park the hook on %s (%d)\n", h->name, ret);
		goto free_filter;
	}
	ret = register_ftrace_function(&h->ops);
	if (ret) {
		pr_err("cannot register the hook on %s (%d)%s\n", h->name, ret, ret == -EBUSY ?
		       ": is ftrace disabled (sysctl kernel.ftrace_enabled=1)?" : "");
		goto free_filter;
	}
	/* Once armed, without the kprobe check: that one is for arming time. */
	ret = execns_hook_point(h, h->addr);
	if (ret)
		goto unregister;
	ret = execns_hook_point(h, h->park);
	if (ret)
		goto unregister;
	return 0;

unregister:
	unregister_ftrace_function(&h->ops);
free_filter:
	ftrace_free_filter(&h->ops);
	return ret;
}

/* Unregistering waits for callbacks in flight (ftrace_shutdown()). */
void execns_hook_uninit(struct execns_hook *h)
{
	unregister_ftrace_function(&h->ops);
	h->armed = false;
	ftrace_free_filter(&h->ops);
}
