// SPDX-License-Identifier: GPL-2.0
/*
 * CLONE_NEWNS when the caller's fs_struct (root, cwd, umask) is shared with
 * another process - a clone(CLONE_FS) child that is still alive: execns(2)
 * cannot move that process too, so it refuses with EINVAL and leaves both
 * as they were.  The other namespace flags are not affected, and once the
 * sharer has gone CLONE_NEWNS works again.
 */
#include <sys/prctl.h>
#include "lib/test.h"

static char *report_argv[] = { "/proc/self/exe", "report", NULL };

static int sharer(void *arg)
{
	(void)arg;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	alarm(30);
	for (;;)
		pause();
	return 0;
}

static pid_t start_sharer(void)
{
	static char stack[64 * 1024] __attribute__((aligned(16)));

	return clone(sharer, stack + sizeof(stack), CLONE_FS | SIGCHLD, NULL);
}

/* EINVAL for CLONE_NEWNS, caller intact; then execns without CLONE_NEWNS. */
static void refused(void *arg)
{
	struct proc_state before, after;
	pid_t s = start_sharer();
	long ret;

	(void)arg;
	if (s < 0)
		_exit(96);
	snapshot(&before);
	ret = raw_execns(NS_PREPARED, "/proc/self/exe", report_argv, environ);
	if (ret != -1 || errno != EINVAL) {
		printf("# execns(%s) returned %ld, errno %d, want EINVAL\n",
		       flags_str(NS_PREPARED), ret, errno);
		_exit(1);
	}
	snapshot(&after);
	if (!same_state(&before, &after, "caller after EINVAL"))
		_exit(2);
	/* The sharer is alive and goes on with the same root and cwd. */
	if (kill(s, 0) || ns_inode_of("self", "mnt") != before.ns[NS_MNT]) {
		printf("# the sharer is gone\n");
		_exit(3);
	}
	/* spawn_report_prep's execns follows: the other flags, sharer still alive. */
}

/* The sharer has exited and been reaped: the fs_struct is private again. */
static void sharer_gone(void *arg)
{
	pid_t s = start_sharer();

	(void)arg;
	if (s < 0 || kill(s, SIGKILL) || waitpid(s, NULL, 0) != s)
		_exit(96);
}

static const struct child_mode modes[] = { CHILD_MODE_REPORT };

int main(int argc, char **argv)
{
	const int others = NS_PREPARED & ~CLONE_NEWNS;
	unsigned long ns[NR_NS];
	struct report r;
	int err, st;

	CHILD_DISPATCH(modes, argc, argv);

	ns_all(ns);
	test_start(2, TEST_TIMEOUT);
	st = spawn_report_prep(others, NULL, refused, NULL, &r, &err, NULL);
	ksft_test_result(exited_ok(st) && r.ok && ns_match(r.ns, ns, others, "new program"),
			 "fs_struct shared with a live clone(CLONE_FS) child: CLONE_NEWNS is EINVAL, caller intact; %s still works",
			 flags_str(others));

	st = spawn_report_prep(NS_PREPARED, NULL, sharer_gone, NULL, &r, &err, NULL);
	ksft_test_result(exited_ok(st) && r.ok && ns_match(r.ns, ns, NS_PREPARED, "new program"),
			 "once that child has exited, CLONE_NEWNS works again (errno %d)", err);
	ksft_finished();
}
