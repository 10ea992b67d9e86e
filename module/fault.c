// SPDX-License-Identifier: GPL-2.0
/*
 * fail_nth: a countdown shared by every fallible step of execns (the
 * private fs_struct, the namespaces, a uid table and its user_structs).
 * Global, not per task: it is meant for one test at a time.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/atomic.h>
#include "fault.h"

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

bool execns_should_fail(const char *site)
{
	int n = atomic_read(&execns_fail_nth);

	/* Count down only from a positive value; the step reaching 0 fails. */
	while (n > 0) {
		if (atomic_try_cmpxchg(&execns_fail_nth, &n, n - 1)) {
			if (n == 1)
				pr_info("fail_nth: failing %s\n", site);
			return n == 1;
		}
	}
	return false;
}
