// SPDX-License-Identifier: GPL-2.0
/*
 * fail_nth: a countdown shared by every fallible step of execns (the
 * private fs_struct, the namespaces, a uid table and its user_structs).
 * Global, not per task: it is meant for one test at a time.
 * fail_unregister: the same for ftrace's unregistering of a hook.
 * fail_init: module init fails at its last step, after the syscall slot
 * is armed and a wait for callers.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/atomic.h>
#include <linux/delay.h>
#include "fault.h"
#include "uapi/execns.h"

static atomic_t execns_fail_nth = ATOMIC_INIT(0);

static int execns_fail_nth_set(const char *val, const struct kernel_param *kp)
{
	int n, ret;

	ret = kstrtoint(val, 0, &n);
	if (ret || n < 0)
		return -EINVAL;
	atomic_set(&execns_fail_nth, n);
	return 0;
}

static int execns_fail_nth_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&execns_fail_nth));
}

static const struct kernel_param_ops execns_fail_nth_ops = {
	.set = execns_fail_nth_set,
	.get = execns_fail_nth_get,
};
module_param_cb(fail_nth, &execns_fail_nth_ops, NULL, 0600);
MODULE_PARM_DESC(fail_nth, "fail the Nth fallible execns step from now with ENOMEM (testing; 0: off)");

/* Count down only from a positive value; the step reaching 0 fails. */
static bool execns_countdown(atomic_t *nth, const char *param, const char *site)
{
	int n = atomic_read(nth);

	while (n > 0) {
		if (atomic_try_cmpxchg(nth, &n, n - 1)) {
			if (n == 1)
				pr_info("%s: failing %s\n", param, site);
			return n == 1;
		}
	}
	return false;
}

bool execns_should_fail(const char *site)
{
	return execns_countdown(&execns_fail_nth, "fail_nth", site);
}

/*
 * Its own countdown: ftrace unregisters happen in the hooks' disarm work,
 * at any time after a table ends, and a fail_nth sweep must never reach one.
 */
static atomic_t execns_fail_unregister = ATOMIC_INIT(0);

static int execns_fail_unregister_set(const char *val, const struct kernel_param *kp)
{
	int n, ret;

	ret = kstrtoint(val, 0, &n);
	if (ret || n < 0)
		return -EINVAL;
	atomic_set(&execns_fail_unregister, n);
	return 0;
}

static int execns_fail_unregister_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&execns_fail_unregister));
}

static const struct kernel_param_ops execns_fail_unregister_ops = {
	.set = execns_fail_unregister_set,
	.get = execns_fail_unregister_get,
};
module_param_cb(fail_unregister, &execns_fail_unregister_ops, NULL, 0600);
MODULE_PARM_DESC(fail_unregister, "fail the Nth ftrace unregister from now as after ftrace_kill() (testing: pins the module until a retry succeeds; 0: off)");

bool execns_should_fail_unregister(const char *func)
{
	return execns_countdown(&execns_fail_unregister, "fail_unregister", func);
}

/*
 * Load-time only.  The wait gives a caller spinning on the number time to
 * reach the armed probes: it must still get ENOSYS, as the slot opens
 * only once init cannot fail (slot.c), or it would run module text that
 * the failed init is about to free.
 */
static bool execns_fail_init;
module_param_named(fail_init, execns_fail_init, bool, 0400);
MODULE_PARM_DESC(fail_init, "fail module init with EAGAIN after arming the syscall slot and waiting 2 s (testing; default off)");

int execns_should_fail_init(void)
{
	if (!execns_fail_init)
		return 0;
	msleep(2000);
	pr_info("fail_init: failing module init after the syscall slot was armed\n");
	return -EAGAIN;
}

/*
 * Load-time only: a smaller capacity for /proc/execns/proof's report, so
 * that a test can fill it as a kernel with many more callers would.
 */
static unsigned int execns_proof_report_max;
module_param_named(proof_report_max, execns_proof_report_max, uint, 0400);
MODULE_PARM_DESC(proof_report_max, "cap " EXECNS_PROC_PROOF
		 "'s report at this many bytes (testing; default 0: its whole buffer)");

size_t execns_fault_report_cap(size_t full)
{
	return execns_proof_report_max && execns_proof_report_max < full ?
	       execns_proof_report_max : full;
}
