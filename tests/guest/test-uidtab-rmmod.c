// SPDX-License-Identifier: GPL-2.0
/*
 * A live uid table pins the module: rmmod (delete_module, O_NONBLOCK) is
 * refused while a process sleeps in a table, and while the only process
 * left in one is a uid-1000 child whose parent (the program execns
 * started) has exited; it succeeds once the last has gone (after RCU).
 * /proc/execns/tables says what holds the orphan's table (one task).
 * After the last table the armed uid hooks hold the module until their
 * disarm (disarm_delay_ms, 5 s here): rmmod meanwhile is refused and
 * /proc/execns/stats says why, so unload never has to unregister an armed
 * hook (after ftrace_kill() it would wait for that forever).
 * The module is then loaded again, with the runner's parameters, for the
 * test programs that follow, and works: new tables, same syscall slot.
 */
#include "lib/test.h"

#define FORBID	EXECNS_SYSFS_DIR "/forbid_unshare"
#define DELAY	EXECNS_SYSFS_DIR "/disarm_delay_ms"

/* Whether the module's syscall slot is published (it is loaded and set up). */
static int loaded(void)
{
	return access(EXECNS_SYSFS_SYSCALL_NR, R_OK) == 0;
}

/* In a table: a uid-1000 child that stays ("holder PID"), then exit. */
static int act_orphan(void)
{
	pid_t c;

	child_putl("self", ut_self());
	c = child_hold(UT_UID, NULL, NULL);
	child_putl("holder", c);
	return 0;
}

static const struct child_mode modes[] = {
	UT_MODES,
	CHILD_ACT("orphan", act_orphan),
};

int main(int argc, char **argv)
{
	char nr0[32], nr1[32], forbid0[8], forbid1[8];
	struct ut_table *tab;
	struct ut_snap snap;
	struct child o;
	int err, tables0;
	long t1, t2;
	pid_t p1, holder;

	CHILD_DISPATCH(modes, argc, argv);

	ut_start(13);
	read_line(EXECNS_SYSFS_SYSCALL_NR, nr0, sizeof(nr0));
	read_line(FORBID, forbid0, sizeof(forbid0));
	tables0 = ut_wait_tables(0, UT_RCU_SECS);
	ksft_test_result(tables0 == 0 && nr0[0], "the module is loaded (syscall %s) and no table lives (%d)",
			 nr0, tables0);

	p1 = ut_sleeper(&t1);
	err = execns_rmmod(0);
	ksft_test_result(p1 > 0 && t1 > 0 && (err == EWOULDBLOCK || err == EBUSY),
			 "rmmod is refused while a process sleeps in table %ld (errno %d)", t1, err);
	ksft_test_result(loaded() && access(EXECNS_PROC_TABLES, R_OK) == 0 && ut_ntables() == 1,
			 "the module is still there, with its table");

	/* A table whose only process is an orphan (reparented to this subreaper). */
	child_in_table("orphan", NULL, &o);
	t2 = child_val(&o, "self");
	holder = child_val(&o, "holder") > 0 ? (pid_t)child_val(&o, "holder") : -1;
	child_kill(p1);
	ksft_test_result(t2 > 0 && holder > 0 && ut_wait_user(t2, 0, 0, UT_RCU_SECS) == 0 &&
			 ut_wait_user(t2, UT_UID, 1, 0) == 1 && ut_wait_tables(1, UT_RCU_SECS) == 1,
			 "table %ld lives on through its uid-1000 child after its uid 0 has gone", t2);
	err = execns_rmmod(0);
	ksft_test_result(err == EWOULDBLOCK || err == EBUSY,
			 "rmmod is refused while that child lives (errno %d)", err);
	ut_snap_read(&snap);
	tab = ut_find_table(&snap, t2);
	ksft_test_result(tab && tab->tasks == 1 && tab->refs >= tab->tasks,
			 "/proc/execns/tables says what holds table %ld: tasks %ld, refs %ld",
			 t2, tab ? tab->tasks : -1, tab ? tab->refs : -1);

	write_knob(DELAY, "5000");
	child_kill(holder);
	ut_wait_tables(0, UT_RCU_SECS);
	{
		char stats[4096] = "";

		/* The reaper's pass that freed the table takes the hold (a moment after "tables 0"). */
		for (int i = 0; i < 30 && !strstr(stats, EXECNS_STAT_PINNED " the uid hooks"); i++) {
			if (i)
				sleep_ms(100);
			read_text(EXECNS_PROC_STATS, stats, sizeof(stats));
		}
		err = execns_rmmod(0);
		ksft_test_result((err == EWOULDBLOCK || err == EBUSY) && loaded() &&
				 strstr(stats, EXECNS_STAT_HOOKS " " EXECNS_STAT_ARMED) && strstr(stats, EXECNS_STAT_PINNED " the uid hooks are armed"),
				 "with no table left but the hooks still armed (disarm_delay_ms 5000), rmmod is refused (errno %d) and /proc/execns/stats says why",
				 err);
	}
	err = execns_rmmod(UT_RCU_SECS);
	ksft_test_result(!err, "rmmod succeeds once the table's last process has gone (errno %d)", err);
	ksft_test_result(!loaded() && access(EXECNS_PROC_TABLES, F_OK) && execns(0, "/no/such/program", argv, environ) == -1 &&
			 errno == ENOSYS,
			 "unloaded: no sysfs parameters, no /proc/execns, execns() is ENOSYS");

	err = execns_insmod("");
	read_line(EXECNS_SYSFS_SYSCALL_NR, nr1, sizeof(nr1));
	read_line(FORBID, forbid1, sizeof(forbid1));
	ksft_test_result(loaded() && (!err || err == EEXIST),
			 "the module is loaded again (errno %d)", err);
	ksft_test_result(nr1[0] && !strcmp(nr0, nr1) && !strcmp(forbid0, forbid1),
			 "with the same parameters: syscall %s (was %s), forbid_unshare %s (was %s)",
			 nr1, nr0, forbid1, forbid0);
	child_in_table("table", NULL, &o);
	ksft_test_result(child_val(&o, "self") > 0 && child_val(&o, "uid0") > 0 && ut_self() == 0,
			 "and works: execns(CLONE_NEWUSER) makes table %ld", child_val(&o, "self"));
	ksft_test_result(ut_wait_tables(0, UT_RCU_SECS) == 0, "no table is left for the tests that follow");
	ksft_finished();
}
