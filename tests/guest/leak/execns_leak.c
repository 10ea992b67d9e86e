// SPDX-License-Identifier: GPL-2.0
/*
 * A test-only module that leaks on purpose, for the kmemleak self-test
 * (tests/harness/kmemleak-selftest.sh): it shows that post-rmmod-kmemleak,
 * the check that the suite leaves nothing behind, fails when something is
 * left behind, and names the leak's backtrace.  Built against the debug
 * kernel only; never part of execns.ko or the suite's own boot.
 *
 * Loading it allocates EXECNS_LEAK_OBJECTS objects and drops every pointer.
 * A stale copy of the last pointer may survive in a stack slot that
 * kmemleak scans, so several objects are leaked and the self-test asks for
 * one report.  The allocating function is not __init: init text is freed
 * after loading, and the backtrace could no longer name it.
 */
#include <linux/module.h>
#include <linux/slab.h>

#define EXECNS_LEAK_OBJECTS	8
#define EXECNS_LEAK_SIZE	192

static noinline int execns_leak_one(void)
{
	/* the pointer is dropped here: that is the leak */
	return kmalloc(EXECNS_LEAK_SIZE, GFP_KERNEL) ? 0 : -ENOMEM;
}

static int execns_leak_init(void)
{
	int i, err;

	for (i = 0; i < EXECNS_LEAK_OBJECTS; i++) {
		err = execns_leak_one();
		if (err)
			return err;
	}
	pr_info("leaked %d objects of %d bytes on purpose (kmemleak self-test)\n",
		EXECNS_LEAK_OBJECTS, EXECNS_LEAK_SIZE);
	return 0;
}

static void execns_leak_exit(void)
{
}

module_init(execns_leak_init);
module_exit(execns_leak_exit);
MODULE_DESCRIPTION("execns test helper: leaks objects for the kmemleak self-test");
MODULE_LICENSE("GPL");
