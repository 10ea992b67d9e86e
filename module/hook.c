// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace hooks: set-up, arming and disarming (see hook.h).
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include "hook.h"
#include "fault.h"
#include "symbols.h"
#include "uapi/execns.h"

/*
 * Whether hooks are parked rather than unregistered when disarmed: where a
 * kprobe on a hooked function resets the address (hook.h).
 */
#define EXECNS_HOOKS_PARK	EXECNS_ARCH_KPROBE_RESETS_IP

/*
 * Parking places: where a parked hook's filter points.  One per hook,
 * because two IP-modifying ops cannot share a function.  Never called;
 * not notrace, since a filter can only name an ftrace site; each stores
 * its own constant, so that the compiler cannot fold them into one; and
 * NOKPROBE, so that no IP-modifying kprobe can sit where a hook parks.
 */
static int execns_parked_at;

#define EXECNS_PARKING_PLACE(n)					\
	static noinline void execns_parking_##n(void)		\
	{							\
		WRITE_ONCE(execns_parked_at, n);		\
	}							\
	NOKPROBE_SYMBOL(execns_parking_##n)

EXECNS_PARKING_PLACE(0);
EXECNS_PARKING_PLACE(1);
EXECNS_PARKING_PLACE(2);
EXECNS_PARKING_PLACE(3);
EXECNS_PARKING_PLACE(4);
EXECNS_PARKING_PLACE(5);
EXECNS_PARKING_PLACE(6);
EXECNS_PARKING_PLACE(7);

static void (*const execns_parking[])(void) = {
	execns_parking_0, execns_parking_1, execns_parking_2, execns_parking_3,
	execns_parking_4, execns_parking_5, execns_parking_6, execns_parking_7,
};

/*
 * Guards never park: an empty callback has no redirect for a kprobe to
 * undo, so they are registered to arm and unregistered to disarm
 * everywhere.
 */
static bool execns_hook_parks(const struct execns_hook *h)
{
	return EXECNS_HOOKS_PARK && !h->guard;
}

/* Hooks are initialised one after the other by the module's init. */
static unsigned int execns_parking_used;

/* What an EBUSY from registering or aiming an IP-modifying ops means. */
#define EXECNS_HOOK_BUSY \
	": another IP modifier (livepatch, a module) is on it, or ftrace is disabled (sysctl kernel.ftrace_enabled=1)"
#define EXECNS_GUARD_BUSY \
	": another IP modifier (livepatch, a module) is on it, and its copy of the function may hold a copy of a hooked one, or call one from text the hook does not know: what the hook serves is refused until it is gone"

static const char *execns_hook_busy(const struct execns_hook *h, int ret)
{
	if (ret != -EBUSY)
		return "";
	return h->guard ? EXECNS_GUARD_BUSY : EXECNS_HOOK_BUSY;
}

/* A guard's callback: holding the function's one IP-modifier place is all it does. */
void notrace execns_hook_guard(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
			       struct execns_fregs *fregs)
{
}

NOKPROBE_SYMBOL(execns_hook_guard);

/*
 * Whether ftrace calls @h after every kprobe that could undo its redirect.
 * Kprobes without a post-handler share kprobe_ftrace_ops, registered
 * while any is armed; a kprobe with one uses an IP-modifying ops, which
 * cannot share a function with a redirect.  ftrace adds an ops at the head
 * of ftrace_ops_list and calls a function's ops in list order, so the
 * redirect holds unless kprobe_ftrace_ops comes after @h: registered
 * before the module loaded and never unregistered since.  Once ahead of
 * @h it stays there (to fall behind it would have to be registered before
 * @h, which stays registered while the module is loaded), so a check
 * passed at arming holds until the hook is disarmed.
 *
 * The list is read as ftrace's callers read it, with preemption disabled:
 * ftrace unlinks an ops, leaving its next pointer intact, and waits for
 * such sections before one may be freed (ftrace_shutdown()).
 */
static bool execns_hook_after_kprobes(const struct execns_hook *h)
{
	const struct ftrace_ops *op;
	bool passed_hook = false, after = true;

	rcu_read_lock_sched();
	for (op = rcu_dereference_sched(*execns_syms.ftrace_ops_list); op;
	     op = rcu_dereference_sched(op->next)) {
		if (op == &h->ops) {
			passed_hook = true;
		} else if (op == execns_syms.kprobe_ftrace_ops) {
			after = !passed_hook;
			break;
		}
	}
	rcu_read_unlock_sched();
	return after;
}

/*
 * Whether a direct call (the BPF trampoline of an fentry, fexit or
 * fmod_ret program) sits on @h's function.  Registering an IP-modifying
 * ops tells such a trampoline to call the function through the address
 * the hook left (ftrace's prepare_direct_functions_for_ipmodify());
 * changing a registered ops' filter does not, and the trampoline would go
 * on calling the function's body itself, past the redirect.  The ftrace
 * site of an s390 function is its first instruction.
 */
/*
 * ftrace_find_rec_direct() reads the direct-call hash as ftrace's own
 * callers do, with preemption disabled and without direct_mutex, which
 * only ftrace can take.
 */
static bool execns_hook_has_direct(const struct execns_hook *h)
{
	return EXECNS_HAVE_FTRACE_DIRECT && execns_call(ftrace_find_rec_direct)(h->addr);
}

/*
 * Point @h's filter at the function at @ip alone; @h keeps its old filter
 * on failure.  ftrace_set_filter_ip() maps a function's address to its
 * ftrace site since 5.18 (and in the stable releases that took it);
 * before, on an architecture whose site is not the symbol (arm64's second
 * NOP, ftrace_call_adjust()), only the site itself is found, so that is
 * tried when the symbol is refused.
 */
static int execns_hook_point(struct execns_hook *h, unsigned long ip)
{
	unsigned long site = execns_ftrace_site(ip);
	int ret = ftrace_set_filter_ip(&h->ops, ip, 0, 1);

	if (ret == -EINVAL && site != ip)
		ret = ftrace_set_filter_ip(&h->ops, site, 0, 1);
	return ret;
}

static int execns_hook_unpark(struct execns_hook *h)
{
	bool redirects = h->ops.flags & FTRACE_OPS_FL_IPMODIFY;
	int ret;

	if (redirects && !execns_hook_after_kprobes(h)) {
		pr_warn_ratelimited("cannot hook %s: kprobes placed before execns was loaded would undo its redirect on this architecture; remove them all (perf probe -d, kprobe_events, bpftrace, SystemTap) and retry\n",
				    h->name);
		return -EBUSY;
	}
	if (redirects && execns_hook_has_direct(h))
		goto direct;
	ret = execns_hook_point(h, h->addr);
	if (ret) {
		pr_warn_ratelimited("cannot hook %s (%d)%s\n", h->name, ret,
				    execns_hook_busy(h, ret));
		return ret;
	}
	/*
	 * One that came meanwhile may not have been told: refuse it too.  If
	 * parking fails (no memory), the hook stays aimed but unarmed, which
	 * redirects nothing: its owner switches on what it redirects (uid
	 * tables, forbid_unshare) only once arming succeeded, and arming
	 * keeps refusing while the trampoline is there.
	 */
	if (redirects && execns_hook_has_direct(h)) {
		execns_hook_point(h, h->park);
		goto direct;
	}
	return 0;

direct:
	pr_warn_ratelimited("cannot hook %s: a BPF trampoline (fentry, fexit) is on it; detach it and retry\n",
			    h->name);
	return -EBUSY;
}

/*
 * Unregistering can fail: ftrace_shutdown() answers ENODEV for good once
 * ftrace_kill() has run (after an anomaly while patching text), and the
 * ops stays on the function, its callback in this module's text.  Then
 * the hook stays armed and holds a module reference, so that rmmod is
 * refused (EAGAIN, "in use") instead of freeing text that ftrace still
 * calls; /proc/execns/stats says why.  A later attempt that succeeds (the
 * next disarm, for an injected failure) drops the reference.
 * Callers serialise unregistering per hook, as arming.  noinline: the
 * WARN names this function, which test-uidtab-pin declares to the log check.
 */
static noinline void execns_hook_pin(struct execns_hook *h, int err)
{
	WARN_ONCE(1, "execns: ftrace cannot unregister the hook on %s (%d): it stays armed and pins the module, so rmmod is refused until an unregister succeeds (never after ftrace_kill(): until reboot)\n",
		  h->name, err);
	if (!h->pin_err)
		__module_get(THIS_MODULE);
	WRITE_ONCE(h->pin_err, err);
}

static void execns_hook_unpin(struct execns_hook *h)
{
	if (!h->pin_err)
		return;
	WRITE_ONCE(h->pin_err, 0);
	pr_info("the hook on %s is unregistered at last: it no longer pins the module\n",
		h->name);
	module_put(THIS_MODULE);
}

/*
 * Whether ftrace is dead (ftrace_kill() ran).  ftrace_shutdown() returns 0
 * even when updating the code failed while it ran: ftrace_bug() then kills
 * ftrace, and the list function (ftrace_call) may still point at this
 * ops's callback.  So 0 with ftrace dead counts as a failure, and the
 * module stays.  Without ftrace_is_dead() in the symbol table (an LTO
 * kernel may drop it) there is nothing to ask.
 */
static bool execns_ftrace_dead(void)
{
	return execns_have(ftrace_is_dead) && execns_call(ftrace_is_dead)();
}

static int execns_hook_unregister(struct execns_hook *h)
{
	int ret;

	ret = execns_should_fail_unregister(h->name) ? -ENODEV :
	      unregister_ftrace_function(&h->ops);
	if (!ret && execns_ftrace_dead())
		ret = -ENODEV;
	if (ret)
		execns_hook_pin(h, ret);
	else
		execns_hook_unpin(h);
	return ret;
}

/*
 * Unload and a failed load, past the point where a module reference can
 * refuse anything: the module's text is freed when the caller returns, so
 * wait for ftrace to let the ops go, however long that takes, rather than
 * free a callback it may still call.  TASK_IDLE: rmmod (or insmod) then
 * sleeps without tripping the hung-task detector.
 */
static void execns_hook_unregister_final(struct execns_hook *h)
{
	if (!execns_hook_unregister(h))
		return;
	pr_err("ftrace cannot let go of the hook on %s: waiting for it (for good once ftrace is dead) rather than free text it may still call\n",
	       h->name);
	do
		schedule_timeout_idle(HZ);
	while (execns_hook_unregister(h));
}

void execns_hook_show_pin(struct seq_file *m, const struct execns_hook *h)
{
	int err = READ_ONCE(h->pin_err);

	if (err)
		seq_printf(m, EXECNS_STAT_PINNED " ftrace unregister failed (%d) for %s\n",
			   err, h->name);
}

int execns_hook_arm(struct execns_hook *h)
{
	int ret;

	if (h->armed || !h->addr)
		return 0;
	if (execns_hook_parks(h)) {
		ret = execns_hook_unpark(h);
	} else {
		ret = register_ftrace_function(&h->ops);
		if (ret)
			pr_warn_ratelimited("cannot hook %s (%d)%s\n", h->name, ret,
					    execns_hook_busy(h, ret));
	}
	if (ret)
		return ret;
	WRITE_ONCE(h->armed, true);
	return 0;
}

/*
 * Unregistering waits for callbacks in flight (ftrace_shutdown()); parking
 * only changes the filter, so a callback already running finishes (callers
 * keep what it reads alive).  Parking needs memory for the new filter, and
 * if it fails the hook stays armed, which costs time but loses nothing.
 * If unregistering fails, the hook stays armed and pins the module
 * (execns_hook_pin()).
 */
void execns_hook_disarm(struct execns_hook *h)
{
	int ret;

	if (!h->armed)
		return;
	if (execns_hook_parks(h)) {
		ret = execns_hook_point(h, h->park);
		if (ret) {
			pr_warn_ratelimited("cannot disarm the hook on %s (%d): it stays armed\n",
					    h->name, ret);
			return;
		}
	} else if (execns_hook_unregister(h)) {
		return;
	}
	WRITE_ONCE(h->armed, false);
}

bool execns_hook_armed(const struct execns_hook *h)
{
	return READ_ONCE(h->armed);
}

/*
 * Registered once, aimed at the function, without the checks of arming:
 * no table exists yet, and forbid_unshare given at insmod applies only
 * once init arms its hook.
 */
int execns_hook_init(struct execns_hook *h)
{
	int ret;

	/* A hook without a name is one this kernel does not need (compat.h). */
	if (!h->name)
		return 0;
	h->addr = execns_symbol_addr(h->name);
	if (!h->addr)
		return h->guard ? 0 : -ENOENT;
	ret = execns_hook_point(h, h->addr);
	if (ret && h->guard) {
		/* Untraceable, it cannot be livepatched either: nothing to guard. */
		pr_info("not guarding %s (%d): ftrace cannot trace it, so no livepatch can replace it\n",
			h->name, ret);
		execns_ftrace_free_filter(&h->ops);
		h->addr = 0;
		return 0;
	}
	if (ret) {
		pr_err("cannot trace %s (%d): is it in available_filter_functions?\n",
		       h->name, ret);
		goto free_filter;
	}
	/* A guard's conflict refuses tables when they arm it, not the load. */
	if (h->guard)
		return 0;
	ret = register_ftrace_function(&h->ops);
	if (ret) {
		pr_err("cannot hook %s (%d)%s\n", h->name, ret, execns_hook_busy(h, ret));
		goto free_filter;
	}
	if (!execns_hook_parks(h)) {
		/* Still registered, it is armed, and pins the module. */
		if (execns_hook_unregister(h))
			WRITE_ONCE(h->armed, true);
		return 0;
	}
	ret = -ENOSPC;
	if (WARN_ON(execns_parking_used == ARRAY_SIZE(execns_parking)))
		goto unregister;
	h->park = (unsigned long)execns_parking[execns_parking_used++];
	ret = execns_hook_point(h, h->park);
	if (ret) {
		pr_err("cannot park the hook on %s (%d)\n", h->name, ret);
		goto unregister;
	}
	return 0;

unregister:
	execns_hook_unregister_final(h);
free_filter:
	execns_ftrace_free_filter(&h->ops);
	return ret;
}

/*
 * A hook pinned by a failed unregister holds the module, so unload never
 * gets here with one; a failure here is the first, and is waited out.
 */
void execns_hook_uninit(struct execns_hook *h)
{
	if (!h->addr)
		return;
	if (execns_hook_parks(h) || h->armed)
		execns_hook_unregister_final(h);
	WRITE_ONCE(h->armed, false);
	execns_ftrace_free_filter(&h->ops);
}
