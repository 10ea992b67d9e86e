// SPDX-License-Identifier: GPL-2.0
/*
 * A uid-accounting workload, also the one the SystemTap checks trace
 * (tests/tracing/guest/execns-stap-check.sh): three execns(CLONE_NEWUSER)
 * programs, table i with a child setuid() to 1000+i and one to 2000, and a
 * lookup of 1000+i; one child of the caller setuid() to 5000 in the
 * kernel's global table.
 * Each table is described by a "# table T uids 0 1000+i 2000" line.
 *
 * With "hold", one more table (uids 0 and 3000) stays, in process group
 * /tmp/execns-hold.pid, until that group is sent SIGTERM.
 *
 * The counts of tables and users are the module's /proc/execns/stats.  The
 * twin has none: there the tables' end is checked by namespace inode
 * numbers (lib/uidtab.h's ut_mark()), and the held table is only checked
 * to be one.
 */
#include <sys/resource.h>
#include "lib/test.h"

#define NR_TABLES 3

/* In table i: print its id, then the setuid()s and the lookup. */
static int work(int i)
{
	child_putl("self", ut_self());
	if (child_as_uid(1000 + i) || child_as_uid(2000))
		return 1;
	/* Found or not, depending on whether the child's credentials are gone yet. */
	getpriority(PRIO_USER, 1000 + i);
	return 0;
}

/* The held table's uid-3000 process, until SIGTERM. */
static int hold_3000(void *arg)
{
	(void)arg;
	if (setresuid(3000, 3000, 3000))
		return 1;
	pause();
	return 0;
}

/*
 * In the held table: its own process group, and a uid-3000 child, both
 * waiting for SIGTERM, however long the tracing check takes (no alarm).
 */
__attribute__((noreturn))
static int hold(void)
{
	struct child c;

	alarm(0);
	setpgid(0, 0);
	child_putl("self", ut_self());
	child_detach();
	child_start(&c, CHILD_BACKGROUND, 0, hold_3000, NULL);
	for (;;)
		pause();
}

/* Run MODE ARG in a new table (wait: until it ends); its table's id, 0 on failure. */
static long in_table(const char *mode, const char *arg, int wait, struct child *c)
{
	const char *args[] = { arg, NULL };
	long t;

	if (child_execns(CLONE_NEWUSER, mode, args, wait, c))
		return 0;
	t = child_val(c, "self");
	return t == CHILD_NONE ? 0 : t;
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
	struct child c;
	int ok = 1;

	CHILD_DISPATCH(modes, argc, argv);

	test_start(held ? 4 : 3, 0);
	ut_mark();
	for (int i = 0; i < NR_TABLES; i++) {
		char arg[16];

		snprintf(arg, sizeof(arg), "%d", i);
		t = in_table("work", arg, 1, &c);
		ok &= t > 0 && child_ok(&c);
		ksft_print_msg("table %ld uids 0 %d 2000\n", t, 1000 + i);
	}
	ksft_test_result(ok, "%d tables: setuid() to two uids and a lookup in each", NR_TABLES);
	ksft_test_result(!child_as_uid(5000), "setuid(5000) in the global table");
	if (ut_listing()) {
		for (int i = 0; i < 100 && execns_stat(EXECNS_STAT_TABLES) > 0; i++)
			usleep(50000);
		tables_left = execns_stat(EXECNS_STAT_TABLES);
		ksft_test_result(tables_left == 0, "every table ended with its processes (%ld left)", tables_left);
	} else {
		ut_check_gone(-1, "every table ended with its processes");
	}
	if (held) {
		char s[32];

		t = in_table("holder", NULL, 0, &c);
		/* users counts frees after RCU: earlier tables' may still be due. */
		for (int i = 0; ut_listing() && i < 300 && execns_stat(EXECNS_STAT_USERS) != 2; i++)
			usleep(50000);
		snprintf(s, sizeof(s), "%d\n", c.pid);
		write_file("/tmp/execns-hold.pid", s, 0644);
		ksft_print_msg("held table %ld uids 0 3000\n", t);
		ksft_test_result(t > 0 && (!ut_listing() || execns_stat(EXECNS_STAT_USERS) == 2),
				 "table %ld held by process group %d", t, c.pid);
	}
	ksft_finished();
}
