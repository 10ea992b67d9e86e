// SPDX-License-Identifier: GPL-2.0
/*
 * The switches that turn hooks off, flipped while a uid table lives and one
 * of its members exits:
 *  - kernel.ftrace_enabled=0 is refused while the free_uid() hook is
 *    registered (FTRACE_OPS_FL_PERMANENT: EBUSY; 7.x refuses the sysctl
 *    always, EOPNOTSUPP), so the kernel can never free a module user_struct
 *    into its own cache;
 *  - /sys/kernel/debug/kprobes/enabled=0 disarms every kprobe, the syscall
 *    slot's too: execns() is ENOSYS and the caller carries on; a member of
 *    the table that exits meanwhile still goes back to the module (free_uid
 *    is hooked through ftrace, not a kprobe): the table and its users are
 *    freed, none is left;
 *  - enabled again, a new table works.
 * Whatever happens, kprobes are enabled again before the program ends.
 */
#include "uidtab-util.h"

#define FTRACE_ENABLED	"/proc/sys/kernel/ftrace_enabled"
#define KPROBES_ENABLED	"/sys/kernel/debug/kprobes/enabled"
#define STATS		"/proc/execns/stats"

/* "key N" from /proc/execns/stats, -1 if absent. */
static long stat_val(const char *key)
{
	char line[128], k[64];
	long v, found = -1;
	FILE *f = fopen(STATS, "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %ld", k, &v) == 2 && !strcmp(k, key))
			found = v;
	fclose(f);
	return found;
}

/* Until the module's user_structs are all back (after RCU), at most secs. */
static long wait_users_gone(int secs)
{
	long users = stat_val("users");

	for (int i = 0; users != 0 && i < secs * 10; i++) {
		ut_reap_zombies();
		ut_sleep_ms(100);
		users = stat_val("users");
	}
	return users;
}

static int act(const char *mode)
{
	int rc = ut_act_common(mode);

	return rc >= 0 ? rc : 3;
}

int main(int argc, char **argv)
{
	char v[16];
	struct ut_out o;
	long table;
	pid_t member;
	int ret, err;

	if (argc > 2 && !strcmp(argv[1], UT_ACT))
		return act(argv[2]);

	ut_start(7);
	if (access(KPROBES_ENABLED, W_OK) || access(FTRACE_ENABLED, W_OK)) {
		for (int i = 0; i < 7; i++)
			ktap_skip("no " KPROBES_ENABLED " or " FTRACE_ENABLED " to flip",
				  "switch %d", i + 1);
		return ktap_finish();
	}
	member = ut_sleeper(&table);
	ktap_result(member > 0 && table > 0, "a member sleeps in table %ld", table);

	ret = ut_write(FTRACE_ENABLED, "0");
	err = errno;
	ut_read_line(FTRACE_ENABLED, v, sizeof(v));
	ktap_result(ret && (err == EBUSY || err == EOPNOTSUPP) && !strcmp(v, "1"),
		    "kernel.ftrace_enabled=0 is refused while the hook lives (errno %d, still %s)",
		    ret ? err : 0, v);
	if (!ret)
		ut_write(FTRACE_ENABLED, "1");

	ret = ut_set(KPROBES_ENABLED, "0");
	ktap_result(!ret, "kprobes disabled through %s", KPROBES_ENABLED);
	ut_spawn(CLONE_NEWUSER, "report", NULL, 1, &o);
	ktap_result(ut_val(&o, "execns_errno") == ENOSYS && ut_self() == 0,
		    "with kprobes off, execns(CLONE_NEWUSER) is ENOSYS (the slot is a kprobe) and the caller is where it was (errno %ld)",
		    ut_val(&o, "execns_errno"));

	ut_kill(member);
	ktap_result(ut_wait_tables(0, UT_RCU_SECS) == 0 && wait_users_gone(UT_RCU_SECS) == 0,
		    "the member exits with kprobes off: its table and user_structs go back to the module (tables %d, users %ld)",
		    ut_ntables(), stat_val("users"));

	ret = ut_set(KPROBES_ENABLED, "1");
	ktap_result(!ret, "kprobes enabled again");
	ut_in_table("report", NULL, &o);
	ktap_result(ut_val(&o, "self") > 0 && ut_wait_tables(0, UT_RCU_SECS) == 0,
		    "and execns(CLONE_NEWUSER) makes a table again (%ld)", ut_val(&o, "self"));
	ut_write(KPROBES_ENABLED, "1");
	return ktap_finish();
}
