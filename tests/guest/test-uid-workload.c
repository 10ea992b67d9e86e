// SPDX-License-Identifier: GPL-2.0
/*
 * A uid-accounting workload, also the one the SystemTap checks trace
 * (tracing/guest/execns-stap-check.sh): three execns(CLONE_NEWUSER)
 * programs, table i with a child setuid() to 1000+i and one to 2000, and a
 * lookup of 1000+i; one child of the caller setuid() to 5000 in the
 * kernel's global table.
 * Each table is described by a "# table T uids 0 1000+i 2000" line.
 *
 * With "hold", one more table (uids 0 and 3000) stays, in process group
 * /tmp/execns-hold.pid, until that group is sent SIGTERM.
 */
#include <sys/resource.h>
#include "lib/test.h"

#define NR_TABLES 3

static int set_uid(uid_t uid)
{
	pid_t c = fork();
	int st;

	if (c == 0)
		_exit(setresuid(uid, uid, uid) ? 1 : 0);
	return c > 0 && waitpid(c, &st, 0) == c && WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -1;
}

/* In table i: print its id, then the setuid()s and the lookup. */
static int work(int i)
{
	printf("%ld\n", read_long("/proc/execns/self"));
	fflush(stdout);
	if (set_uid(1000 + i) || set_uid(2000))
		return 1;
	/* Found or not, depending on whether the child's credentials are gone yet. */
	getpriority(PRIO_USER, 1000 + i);
	return 0;
}

/* In the held table: a uid-3000 child, both waiting for SIGTERM. */
static int hold(void)
{
	pid_t c;

	printf("%ld\n", read_long("/proc/execns/self"));
	fflush(stdout);
	c = fork();
	if (c == 0) {
		if (setresuid(3000, 3000, 3000))
			_exit(1);
		pause();
		_exit(0);
	}
	pause();
	return 0;
}

/* Run MODE ARG in a new table; returns the table id, 0 on failure. */
static long in_table(const char *self, const char *mode, const char *arg, pid_t *pid, int group)
{
	char *argv[] = { (char *)self, (char *)mode, (char *)arg, NULL };
	char buf[32] = "";
	int p[2];

	if (pipe(p))
		return 0;
	*pid = fork();
	if (*pid == 0) {
		if (group)
			setpgid(0, 0);
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execns(CLONE_NEWUSER, "/proc/self/exe", argv, environ);
		_exit(99);
	}
	close(p[1]);
	if (read(p[0], buf, sizeof(buf) - 1) <= 0)
		buf[0] = '\0';
	close(p[0]);
	return atol(buf);
}

/* Mode "work I": the workload of table I. */
static int mode_work(int argc, char **argv)
{
	(void)argc;
	return work(atoi(argv[2]));
}

static const struct child_mode modes[] = {
	CHILD_MODE("work", 1, mode_work),
	CHILD_ACT("holder", hold),	/* a table that stays */
};

int main(int argc, char **argv)
{
	int held = argc > 1 && !strcmp(argv[1], "hold");
	long t, tables_left;
	pid_t pid;
	int st, ok = 1;

	CHILD_DISPATCH(modes, argc, argv);

	test_start(held ? 4 : 3, 0);
	for (int i = 0; i < NR_TABLES; i++) {
		char arg[16];

		snprintf(arg, sizeof(arg), "%d", i);
		t = in_table(argv[0], "work", arg, &pid, 0);
		ok &= t > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st);
		ksft_print_msg("table %ld uids 0 %d 2000\n", t, 1000 + i);
	}
	ksft_test_result(ok, "%d tables: setuid() to two uids and a lookup in each", NR_TABLES);
	ksft_test_result(!set_uid(5000), "setuid(5000) in the global table");
	for (int i = 0; i < 100 && execns_stat("tables") > 0; i++)
		usleep(50000);
	tables_left = execns_stat("tables");
	ksft_test_result(tables_left == 0, "every table ended with its processes (%ld left)", tables_left);
	if (held) {
		char s[32];

		t = in_table(argv[0], "holder", NULL, &pid, 1);
		/* users counts frees after RCU: earlier tables' may still be due. */
		for (int i = 0; i < 300 && execns_stat("users") != 2; i++)
			usleep(50000);
		snprintf(s, sizeof(s), "%d\n", pid);
		write_file("/tmp/execns-hold.pid", s, 0644);
		ksft_print_msg("held table %ld uids 0 3000\n", t);
		ksft_test_result(t > 0 && execns_stat("users") == 2,
				 "table %ld held by process group %d", t, pid);
	}
	ksft_finished();
}
