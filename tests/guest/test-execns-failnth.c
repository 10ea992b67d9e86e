// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel fault injection (CONFIG_FAULT_INJECTION with FAILSLAB and/or
 * FAIL_PAGE_ALLOC): fail the caller's 1st, 2nd, ... slab/page allocation
 * inside execns(2) through /proc/self/task/TID/fail-nth, until the call
 * gets through.  Each failure must be an errno, leave the caller as it was
 * (namespaces, uid table, descriptors) and leak nothing (no uid table or
 * module user_struct left).  Debian's stock kernels are built without
 * fault injection: there this skips, and test-execns-faults covers the
 * module's own allocation sites through its fail_nth parameter instead.
 */
#include <sched.h>
#include "guest-util.h"
#include "ktap.h"

#define FLAGS	(CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET | \
		 CLONE_NEWPID | CLONE_NEWUSER)
#define MAX_NTH	2000

/* Fail GFP_KERNEL allocations too (both default to ignoring them). */
static void allow_sleeping_failures(void)
{
	static const char *const knobs[] = {
		"/sys/kernel/debug/failslab/ignore-gfp-wait",
		"/sys/kernel/debug/fail_page_alloc/ignore-gfp-wait",
		"/sys/kernel/debug/fail_page_alloc/ignore-gfp-highmem",
	};

	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
		if (access(knobs[i], W_OK) == 0)
			write_file(knobs[i], "N");
	if (access("/sys/kernel/debug/failslab/verbose", W_OK) == 0)
		write_file("/sys/kernel/debug/failslab/verbose", "0");
	if (access("/sys/kernel/debug/fail_page_alloc/verbose", W_OK) == 0)
		write_file("/sys/kernel/debug/fail_page_alloc/verbose", "0");
}

/* One try in a child: 0 failed cleanly, 1 wrong, 2 execns succeeded. */
static int one_try(int nth, const char *self)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		struct caller_state before, after;
		char *argv[] = { (char *)self, "ran", NULL };
		char path[64], nbuf[16];
		int probe = open("/", O_RDONLY), fd, err;
		long ret;

		alarm(30);
		snapshot(&before, probe);
		snprintf(path, sizeof(path), "/proc/self/task/%d/fail-nth", gettid());
		snprintf(nbuf, sizeof(nbuf), "%d", nth);
		fd = open(path, O_WRONLY);
		if (fd < 0 || write(fd, nbuf, strlen(nbuf)) < 0)
			_exit(1);
		ret = execns(FLAGS, self, argv, environ);
		err = errno;
		/* disarm before anything else allocates */
		if (write(fd, "0", 1) < 0)
			_exit(1);
		close(fd);
		if (ret != -1 || err <= 0 || err >= 4096) {
			ktap_diag("fail-nth %d: ret %ld errno %d", nth, ret, err);
			_exit(1);
		}
		snapshot(&after, probe);
		if (!same_state(&before, &after) || fcntl(probe, F_GETFD) < 0) {
			ktap_diag("fail-nth %d: caller changed (errno %d)", nth, err);
			_exit(1);
		}
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return 1;
	return WEXITSTATUS(status) == 42 ? 2 : WEXITSTATUS(status) ? 1 : 0;
}

int main(int argc, char **argv)
{
	char self[256], path[64];
	int nth, bad = 0, r = 0;
	long tables = -1, users = -1;
	ssize_t n;

	if (argc > 1 && !strcmp(argv[1], "ran"))
		return 42;

	ktap_plan(2);
	snprintf(path, sizeof(path), "/proc/self/task/%d/fail-nth", gettid());
	if (access(path, F_OK) != 0) {
		ktap_skip("kernel built without CONFIG_FAULT_INJECTION (no /proc/self/task/TID/fail-nth); the module's fail_nth covers execns's own allocations (test-execns-faults)",
			  "every failed allocation in execns(2) is an errno with the caller intact");
		ktap_skip("kernel built without CONFIG_FAULT_INJECTION",
			  "no uid table or user_struct leaked by failed allocations");
		return ktap_finish();
	}
	allow_sleeping_failures();
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = '\0';

	for (nth = 1; nth <= MAX_NTH; nth++) {
		r = one_try(nth, self);
		if (r == 2)
			break;
		bad += r;
	}
	ktap_result(!bad && r == 2,
		    "allocations 1..%d in execns(2) failed one by one: each an errno, caller intact (%d wrong)%s",
		    nth - 1, bad, r == 2 ? "" : "; never got through");

	for (int i = 0; i < 50; i++) {
		tables = execns_stat("tables");
		users = execns_stat("users");
		if (!tables && !users)
			break;
		usleep(100000);
	}
	ktap_result(tables == 0 && users == 0,
		    "nothing leaked: tables %ld, module user_structs %ld", tables, users);
	return ktap_finish();
}
