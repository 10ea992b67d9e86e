// SPDX-License-Identifier: GPL-2.0
/*
 * execns(2) from a multi-threaded process, with the other threads running
 * (spinning on a CPU): the new program is single-threaded, has the process's
 * pid, and runs in the new namespaces - CLONE_NEWNS included, since an
 * fs_struct shared only within the thread group is no obstacle.  A failing
 * call from a thread leaves every thread running and the process intact.
 */
#include <pthread.h>
#include <stdatomic.h>
#include "lib/test.h"

#define SPINNERS	3
#define FLAGS		(NS_PREPARED | CLONE_NEWPID)

static atomic_int spinning;
/*
 * Set by the main thread once pthread_create() of the worker has returned:
 * glibc blocks every signal in the creating thread around clone(), and
 * /proc/self/status shows the main thread's SigBlk, so a worker that took
 * its "before" snapshot while the main thread was still inside
 * pthread_create() saw a mask that changed under it (seen on arm64 guests).
 */
static atomic_int worker_created;
static char *report_argv[] = { "/proc/self/exe", "report", NULL };

static void *spinner(void *arg)
{
	(void)arg;
	atomic_fetch_add(&spinning, 1);
	for (;;)
		atomic_signal_fence(memory_order_seq_cst);
	return NULL;
}

static void start_spinners(void)
{
	pthread_t t;

	for (int i = 0; i < SPINNERS; i++)
		if (pthread_create(&t, NULL, spinner, NULL))
			_exit(96);
	while (atomic_load(&spinning) < SPINNERS)
		sched_yield();
}

static void do_execns(void)
{
	fflush(stdout);
	execns(FLAGS, "/proc/self/exe", report_argv, environ);
	printf("errno %d\n", errno);
	fflush(stdout);
	_exit(99);
}

/* A failing call first: everything as before, all threads still there. */
static void fail_then_execns(void)
{
	struct proc_state before, after;
	long ret;

	while (!atomic_load(&worker_created))
		sched_yield();
	snapshot(&before);
	ret = raw_execns(FLAGS, "/no/such/program", report_argv, environ);
	if (ret != -1 || errno != ENOENT) {
		printf("# the failing call returned %ld, errno %d\n", ret, errno);
		_exit(1);
	}
	snapshot(&after);
	if (!same_state(&before, &after, "after ENOENT from a thread"))
		_exit(2);
	if (!strstr(after.status, "Threads:\t5")) {
		printf("# threads after the failure: %s\n", strstr(after.status, "Threads:"));
		_exit(3);
	}
	do_execns();
}

static void *worker(void *arg)
{
	if (arg)
		fail_then_execns();
	do_execns();
	return NULL;
}

enum mode { FROM_THREAD, FROM_MAIN, FAIL_FROM_THREAD };

static void prep(void *arg)
{
	enum mode m = *(enum mode *)arg;
	pthread_t t;

	start_spinners();
	if (m == FROM_MAIN)
		do_execns();
	if (pthread_create(&t, NULL, worker, m == FAIL_FROM_THREAD ? arg : NULL))
		_exit(96);
	atomic_store(&worker_created, 1);
	for (;;)
		pause();
}

static void test_mode(enum mode m, const char *what)
{
	unsigned long ns[NR_NS];
	struct report r;
	pid_t pid = 0;
	int err, st;

	ns_all(ns);
	st = spawn_report_prep(FLAGS, NULL, prep, &m, &r, &err, &pid);
	ksft_test_result(exited_ok(st) && r.ok && r.threads == 1 && r.pid == pid &&
			 !strcmp(r.fds, "0,1,2") && ns_match(r.ns, ns, FLAGS, "new program"),
			 "%s: the new program has 1 thread (%d), pid %d (%d), new namespaces",
			 what, r.threads, r.pid, pid);
}

static const struct child_mode modes[] = { CHILD_MODE_REPORT };

int main(int argc, char **argv)
{
	CHILD_DISPATCH(modes, argc, argv);
	test_start(3, TEST_TIMEOUT);
	test_mode(FROM_THREAD, "from a non-main thread, " "3 other threads spinning");
	test_mode(FROM_MAIN, "from the main thread, 3 other threads spinning");
	test_mode(FAIL_FROM_THREAD, "ENOENT from a thread leaves all 5 threads and the process as they were; then execns");
	ksft_finished();
}
