// SPDX-License-Identifier: GPL-2.0
/*
 * Failure injection: make each fallible step of execns fail in turn, through
 * the module's fail_nth parameter (Debian's kernels have no
 * CONFIG_FAULT_INJECTION), and check that every failure is ENOMEM with the
 * caller intact, and that nothing is left behind: no uid table, every
 * user_struct and ucounts allocated freed again (/proc/execns/stats).
 *
 * The kernel's own execns(2) (the twin, upstream/) has no fail_nth and
 * counts nothing per table: there the steps and the counters skip, and
 * what runs without injection runs: every step passing and the exec
 * failing after them (ENOEXEC), caller intact; a call that succeeds; and
 * no uid table or namespace left holding a namespace inode number
 * (lib/ns.h's ns_inums).
 */
#include <sched.h>
#include "lib/test.h"

#define FAIL_NTH	EXECNS_SYSFS_DIR "/fail_nth"
#define FLAGS		(CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET | \
			 CLONE_NEWPID | CLONE_NEWUSER)
#define MAX_STEPS	16

/* Wait (for RCU callbacks) until counter @name reads 0. */
static long settle(const char *name)
{
	long v = -1;

	for (int tries = 0; tries < 50 && v; tries++) {
		v = execns_stat(name);
		if (v)
			usleep(100000);
	}
	return v;
}

struct try_arg {
	int nth;		/* the step fail_nth fails; 0: none injected */
	const char *path;	/* what execns runs (this program's "ran" mode) */
	int want;		/* the errno expected */
};

/* The child of one try: 0 the errno wanted and the caller intact, 1 wrong (or it ran: 42). */
static int try_child(void *arg)
{
	const struct try_arg *t = arg;
	struct proc_state before, after;
	char *argv[] = { (char *)t->path, "ran", NULL };
	char nbuf[16];
	int probe = open("/", O_RDONLY);	/* not close-on-exec */

	snapshot(&before);
	snprintf(nbuf, sizeof(nbuf), "%d", t->nth);
	if (t->nth)
		write_knob(FAIL_NTH, nbuf);
	execns(FLAGS, t->path, argv, environ);
	if (errno != t->want) {
		ksft_print_msg("step %d: errno %d (%s), want %s\n", t->nth, errno, strerror(errno),
			       strerror(t->want));
		return 1;
	}
	snapshot(&after);
	if (!same_state(&before, &after, "caller") || fcntl(probe, F_GETFD) < 0) {
		ksft_print_msg("step %d: caller changed\n", t->nth);
		return 1;
	}
	return 0;
}

/* One try in a child: 0 the errno wanted and intact, 1 wrong, 2 execns succeeded. */
static int one_try(int nth, const char *path, int want)
{
	struct try_arg t = { nth, path, want };
	struct child c;

	if (child_start(&c, CHILD_STDOUT, 30, try_child, &t) || !WIFEXITED(c.status))
		return 1;
	return child_code(&c) == 42 ? 2 : child_code(&c);
}

/* Mode "ran": the new program, so execns succeeded. */
static int ran(void)
{
	return 42;
}

static const struct child_mode modes[] = { CHILD_ACT("ran", ran) };

/* The kernel's own execns(2): what runs without the module's fail_nth. */
static void faults_in_tree(const char *self)
{
	static const char noexec[] = "/tmp/execns-faults-noexec";
	static struct ns_inums before;
	unsigned long first = 0;
	int before_ok = !ns_inums_read(&before), late, ran, taken;

	/* Executable, in no format the kernel knows: the exec fails after every step of execns. */
	late = write_file(noexec, "not a program\n", 0755) ? 1 : one_try(0, noexec, ENOEXEC);
	ran = one_try(0, self, 0);
	taken = before_ok ? ns_inums_settle(&before, 30, &first) : -1;
	unlink(noexec);

	test_start(6, 0);
	ksft_test_result_code(KSFT_SKIP, "each fallible step fails with ENOMEM, caller intact",
			      "module only: the module's fail_nth (%s) picks the step; the kernel's own execns(2) has none (test-execns-failnth injects the kernel's faults where it has CONFIG_FAULT_INJECTION)",
			      FAIL_NTH);
	ksft_test_result(late == 0, "every step passes and the exec fails after them: ENOEXEC, caller intact");
	ksft_test_result(ran == 2, "execns succeeds with nothing injected");
	if (taken < 0)
		ksft_print_msg("a snapshot of the namespace numbers failed\n");
	ksft_test_result(taken == 0,
			 "no uid table or namespace left behind: none holds one of the %d lowest namespace inode numbers free before (%d taken, first %lu)",
			 NS_INUMS, taken, first);
	ksft_test_result_code(KSFT_SKIP, "every user_struct allocated was freed",
			      "module only: the kernel's own uid hash counts no allocations (the module's /proc/execns/stats does)");
	ksft_test_result_code(KSFT_SKIP, "every ucounts allocated was freed",
			      "module only: the kernel's own ucounts hash counts no allocations (the module's /proc/execns/stats does)");
	ksft_finished();
}

int main(int argc, char **argv)
{
	int result[MAX_STEPS + 1];
	char self[256];
	ssize_t n;
	int nth, steps;

	CHILD_DISPATCH(modes, argc, argv);

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = '\0';
	if (execns_in_tree())
		faults_in_tree(self);

	/* Fail step 1, 2, ... until execns gets through; then report. */
	for (nth = 1; nth <= MAX_STEPS; nth++) {
		result[nth] = one_try(nth, self, ENOMEM);
		if (result[nth] == 2)
			break;
	}
	steps = nth - 1;
	write_knob(FAIL_NTH, "0");

	test_start(steps + 4, 0);
	for (nth = 1; nth <= steps; nth++)
		ksft_test_result(result[nth] == 0, "fallible step %d fails with ENOMEM, caller intact", nth);
	ksft_test_result(steps >= 4 && steps < MAX_STEPS,
			 "execns succeeds once past its %d fallible steps", steps);
	ksft_test_result(settle("tables") == 0, "no uid table left behind");
	ksft_test_result(settle("users") == 0, "every user_struct the module allocated was freed (allocs %ld, frees %ld)",
			 execns_stat(EXECNS_STAT_USER_ALLOCS), execns_stat(EXECNS_STAT_USER_FREES));
	ksft_test_result(settle("ucounts") == 0, "every ucounts the module allocated was freed (allocs %ld, frees %ld)",
			 execns_stat(EXECNS_STAT_UCOUNTS_ALLOCS), execns_stat(EXECNS_STAT_UCOUNTS_FREES));
	ksft_finished();
}
