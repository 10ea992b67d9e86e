// SPDX-License-Identifier: GPL-2.0
/*
 * Per-namespace uid tables (execns(CLONE_NEWUSER)): per-user limits bite in
 * the global table and not in a fresh one; PRIO_USER/IOPRIO_WHO_USER see only
 * the table's users; membership follows cred->user through setuid(); nested
 * tables; failures leave nothing; /proc/execns agrees; forbid_unshare.
 *
 * The program re-executes itself into a table as "act NAME ARGS...", which
 * does one check there and exits 0 when it holds (diagnostics as "# ").
 */
#include <sched.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include "guest-util.h"
#include "ktap.h"

#define IOPRIO_WHO_USER 3
#define WATCHES_SYSCTL "/proc/sys/fs/epoll/max_user_watches"
#define PIPE_SOFT_SYSCTL "/proc/sys/fs/pipe-user-pages-soft"
#define FORBID "/sys/module/execns/parameters/forbid_unshare"

/* Add up to max epoll watches; returns how many, *err the errno that stopped it. */
static int add_watches(int max, int *err)
{
	int ep = epoll_create1(0), n;

	*err = 0;
	for (n = 0; n < max; n++) {
		struct epoll_event ev = { .events = EPOLLIN };
		int p[2];

		if (pipe(p) || epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev)) {
			*err = errno;
			break;
		}
	}
	return n;
}

static int new_pipe_size(void)
{
	int p[2];

	if (pipe(p))
		return -errno;
	return fcntl(p[0], F_GETPIPE_SZ);
}

/* The "uid U table T ..." line's value of KEY, or -1. */
static long table_user_field(long table, unsigned int uid, const char *key)
{
	char line[512], want[64], *k;
	FILE *f = fopen("/proc/execns/tables", "r");
	long v = -1;

	snprintf(want, sizeof(want), "uid %u table %ld ", uid, table);
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, want, strlen(want)))
			continue;
		k = strstr(line, key);
		if (k)
			v = strtol(k + strlen(key) + 1, NULL, 10);
	}
	if (f)
		fclose(f);
	return v;
}

static long table_parent(long table)
{
	char line[256];
	long id, parent, v = -1;
	FILE *f = fopen("/proc/execns/tables", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "table %ld parent %ld", &id, &parent) == 2 && id == table)
			v = parent;
	if (f)
		fclose(f);
	return v;
}

/* A child that becomes uid and holds what hold() builds until killed. */
static pid_t hold_as(uid_t uid, int (*hold)(void))
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		if (setresuid(uid, uid, uid))
			_exit(1);
		c = hold() ? 'y' : 'n';
		if (write(p[1], &c, 1) < 0)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1 || c != 'y') {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(p[0]);
	return pid;
}

static void unhold(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

static int hold_16_watches(void)
{
	int err;

	return add_watches(16, &err) == 16;
}

static int hold_pipes(void)
{
	static int fds[64][2];

	for (int i = 0; i < 64; i++)
		if (pipe(fds[i]))
			return 0;
	return 1;
}

static int hold_nothing(void)
{
	return 1;
}

/* Run a check in a child, as uid (0: stay root); exit status 0 = holds. */
static int as_uid(uid_t uid, int (*check)(void))
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		alarm(20);
		if (uid && setresuid(uid, uid, uid))
			_exit(2);
		_exit(check() ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	return WIFEXITED(status) && !WEXITSTATUS(status);
}

/* Run "act NAME ARG" in a new uid table; true when it exits 0. */
static int in_table(const char *name, const char *arg)
{
	char *argv[] = { "/proc/self/exe", "act", (char *)name, (char *)arg, NULL };
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		alarm(30);
		execns(CLONE_NEWUSER, "/proc/self/exe", argv, environ);
		printf("# execns(CLONE_NEWUSER): %s\n", strerror(errno));
		_exit(99);
	}
	waitpid(pid, &status, 0);
	return WIFEXITED(status) && !WEXITSTATUS(status);
}

/* ---- checks run inside a table ("act" mode) ---- */

static long my_table(void)
{
	return read_long("/proc/execns/self");
}

static int act(int argc, char **argv)
{
	const char *name = argv[2];
	long t = my_table();
	int err, n;

	if (t <= 0) {
		printf("# not in a table (%ld)\n", t);
		return 1;
	}
	if (!strcmp(name, "epoll")) {	/* uid 1000 gets a full budget of 16 */
		if (setresuid(1000, 1000, 1000))
			return 1;
		n = add_watches(17, &err);
		printf("# in table %ld, uid 1000 added %d watches, then errno %d\n", t, n, err);
		return !(n == 16 && err == ENOSPC);
	}
	if (!strcmp(name, "pipe")) {	/* uid 1000's first pipe is full size */
		if (setresuid(1000, 1000, 1000))
			return 1;
		n = new_pipe_size();
		printf("# in table %ld, uid 1000's new pipe holds %d bytes\n", t, n);
		return n != 65536;
	}
	if (!strcmp(name, "prio")) {	/* uid 2000 exists globally, not here */
		pid_t holder;
		int ok;

		errno = 0;
		ok = getpriority(PRIO_USER, 2000) == -1 && errno == ESRCH;
		ok &= setpriority(PRIO_USER, 2000, 5) == -1 && errno == ESRCH;
		ok &= syscall(SYS_ioprio_get, IOPRIO_WHO_USER, 2000) == -1 && errno == ESRCH;
		printf("# uid 2000 absent from table %ld: %s\n", t, ok ? "ESRCH for all three" : "found");
		holder = hold_as(2000, hold_nothing);
		errno = 0;
		ok &= getpriority(PRIO_USER, 2000) != -1 || errno == 0;
		ok &= setpriority(PRIO_USER, 2000, 5) == 0;
		ok &= syscall(SYS_ioprio_get, IOPRIO_WHO_USER, 2000) >= 0;
		printf("# after a process of the table became uid 2000: %s\n", ok ? "found" : "not found");
		unhold(holder);
		return !ok;
	}
	if (!strcmp(name, "setuid")) {	/* root in a table setuid()s into the table */
		int ok = table_user_field(t, 0, "refs") > 0;

		if (setresuid(1000, 1000, 1000))
			return 1;
		ok &= my_table() == t && table_user_field(t, 1000, "refs") > 0;
		printf("# table %ld after setuid(1000): self %ld, uid 0 and 1000 listed: %s\n",
		       t, my_table(), ok ? "yes" : "no");
		return !ok;
	}
	if (!strcmp(name, "counters")) {	/* /proc/execns/tables counts what we hold */
		int p[2];
		long w, b0, b1;

		if (setresuid(1000, 1000, 1000))
			return 1;
		add_watches(5, &err);
		w = table_user_field(t, 1000, "epoll_watches");
		b0 = table_user_field(t, 1000, "pipe_bufs");
		if (pipe(p))
			return 1;
		b1 = table_user_field(t, 1000, "pipe_bufs");
		printf("# epoll_watches %ld (want 5), pipe_bufs %ld -> %ld (want +16)\n", w, b0, b1);
		return !(w == 5 && b1 - b0 == 16);
	}
	if (!strcmp(name, "nest")) {	/* a call from a table makes a child table */
		char self[24];
		char *nargv[] = { "/proc/self/exe", "act", "child-of", self, NULL };

		snprintf(self, sizeof(self), "%ld", t);
		execns(CLONE_NEWUSER, "/proc/self/exe", nargv, environ);
		return 1;
	}
	if (!strcmp(name, "child-of")) {
		long parent = strtol(argv[3], NULL, 10);

		printf("# table %ld, parent %ld (want %ld)\n", t, table_parent(t), parent);
		return !(t != parent && table_parent(t) == parent);
	}
	if (!strcmp(name, "fail")) {	/* a failing nested call changes nothing */
		long before = execns_stat("tables");
		int ok;

		ok = execns(CLONE_NEWUSER, "/no/such/program", argv, environ) == -1 && errno == ENOENT;
		ok &= raw_execns(CLONE_NEWUSER, (void *)1, argv, environ) == -1 && errno == EFAULT;
		/* Earlier tests' tables may still be ending (RCU): no growth is the test. */
		ok &= my_table() == t && execns_stat("tables") <= before;
		printf("# after ENOENT and EFAULT: table %ld, %ld tables (was %ld)\n",
		       my_table(), execns_stat("tables"), before);
		return !ok;
	}
	(void)argc;
	return 1;
}

/* ---- the tests ---- */

static int try_one_watch(void)
{
	int err;

	return add_watches(1, &err) == 0 && err == ENOSPC;
}

static void test_epoll(void)
{
	char old[32] = "";
	FILE *f = fopen(WATCHES_SYSCTL, "r");
	pid_t a;

	if (f) {
		if (!fgets(old, sizeof(old), f))
			old[0] = '\0';
		fclose(f);
	}
	write_file(WATCHES_SYSCTL, "16");
	a = hold_as(1000, hold_16_watches);
	ktap_result(a > 0 && as_uid(1000, try_one_watch),
		    "max_user_watches=16: uid 1000 holds 16, a second uid-1000 process gets ENOSPC");
	ktap_result(a > 0 && in_table("epoll", NULL),
		    "uid 1000 in a new table gets the full budget of 16 meanwhile");
	ktap_result(a > 0 && as_uid(1000, try_one_watch),
		    "and the initial table's uid 1000 is still exhausted");
	unhold(a);
	write_file(WATCHES_SYSCTL, old);
}

static int small_pipe(void)
{
	int n = new_pipe_size();

	printf("# global uid 1000's new pipe holds %d bytes\n", n);
	return n > 0 && n < 65536;
}

static void test_pipes(void)
{
	char old[32] = "";
	FILE *f = fopen(PIPE_SOFT_SYSCTL, "r");
	pid_t a;

	if (f) {
		if (!fgets(old, sizeof(old), f))
			old[0] = '\0';
		fclose(f);
	}
	write_file(PIPE_SOFT_SYSCTL, "32");
	a = hold_as(1000, hold_pipes);
	ktap_result(a > 0 && as_uid(1000, small_pipe),
		    "pipe-user-pages-soft=32: uid 1000 over the limit gets shrunk pipes");
	ktap_result(a > 0 && in_table("pipe", NULL), "uid 1000 in a new table gets a full 64 KiB pipe");
	unhold(a);
	write_file(PIPE_SOFT_SYSCTL, old);
}

static void test_prio(void)
{
	pid_t holder = hold_as(2000, hold_nothing);

	ktap_result(holder > 0 && in_table("prio", NULL),
		    "PRIO_USER and IOPRIO_WHO_USER: ESRCH for a uid only the global table has, found once the table has it");
	unhold(holder);
}

static int unshare_fails(void)
{
	int ok = unshare(CLONE_NEWIPC) == -1 && errno == EINVAL;

	return ok && unshare(CLONE_NEWUSER) == -1 && errno == EINVAL;
}

static int unshare_ipc_works(void)
{
	return unshare(CLONE_NEWIPC) == 0;
}

static int child_fn(void *arg)
{
	(void)arg;
	return 0;
}

static int clone_ipc_works(void)
{
	static char stack[64 * 1024];
	int status;
	pid_t pid = clone(child_fn, stack + sizeof(stack), CLONE_NEWIPC | SIGCHLD, NULL);

	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status);
}

static void test_forbid_unshare(void)
{
	char v[8] = "";
	FILE *f = fopen(FORBID, "r");

	if (f) {
		if (!fgets(v, sizeof(v), f))
			v[0] = '\0';
		fclose(f);
	}
	ktap_result(v[0] == 'Y', "forbid_unshare defaults to 1 (reads %c)", v[0] ? v[0] : '-');
	ktap_result(as_uid(0, unshare_fails), "forbid_unshare=1: unshare(CLONE_NEWIPC) and unshare(CLONE_NEWUSER) fail with EINVAL");
	ktap_result(as_uid(0, clone_ipc_works), "forbid_unshare=1: clone(CLONE_NEWIPC) is not affected");
	write_file(FORBID, "0");
	ktap_result(as_uid(0, unshare_ipc_works), "forbid_unshare=0: unshare(CLONE_NEWIPC) works again");
	write_file(FORBID, "1");
}

int main(int argc, char **argv)
{
	long tables;

	if (argc > 2 && !strcmp(argv[1], "act"))
		return act(argc, argv);

	ktap_plan(16);
	tables = execns_stat("tables");
	ktap_result(tables == 0 && my_table() == 0, "no table to begin with; this process is in the global one");
	test_epoll();
	test_pipes();
	test_prio();
	ktap_result(in_table("setuid", NULL),
		    "a root process in a table setuid()s into that table; the table has its own uid 0");
	ktap_result(in_table("counters", NULL), "/proc/execns/tables counts the watches and pipe pages held");
	ktap_result(in_table("nest", NULL), "execns(CLONE_NEWUSER) inside a table makes a child table");
	ktap_result(in_table("fail", NULL), "failing execns(CLONE_NEWUSER) calls leave the caller and the tables as they were");
	test_forbid_unshare();
	/* Credentials die in RCU callbacks, which a loaded TCG guest may delay. */
	for (int i = 0; i < 300 && execns_stat("users"); i++)
		usleep(100000);
	if (!ktap_result(execns_stat("tables") == 0 && execns_stat("users") == 0,
			 "every table and user_struct is gone after its processes (allocs %ld, frees %ld)",
			 execns_stat("user_allocs"), execns_stat("user_frees")))
		system("cat /proc/execns/tables; ps");
	return ktap_finish();
}
