// SPDX-License-Identifier: GPL-2.0
/*
 * The hooks' lifecycle and the switches that could turn them off, flipped
 * while a uid table lives and one of its members exits:
 *  - the uid hooks (ftrace callbacks) are armed while a table lives and
 *    disarmed once none is left (/proc/execns/stats "hooks");
 *  - they sit on alloc_uid, alloc_ucounts and find_user (redirects) and
 *    commit_creds (a watch), and on no release: ftrace lists an ops on
 *    neither free_uid nor put_ucounts (enabled_functions), since a
 *    table's objects are the kernel's kind, freed right by the kernel's
 *    own code;
 *  - kernel.ftrace_enabled=0 is refused while they are armed
 *    (FTRACE_OPS_FL_PERMANENT: EBUSY; x86's 7.x refuses the sysctl always),
 *    so a table's tasks never quietly get the kernel's objects instead of
 *    their table's; with no table it is accepted (x86 and arm64 6.x), and
 *    then a new table is EBUSY, the caller intact, until ftrace is on
 *    again; on s390x it is refused then too, as the hooks' ops stay
 *    registered, parked, while the module is loaded (module/hook.h);
 *  - /sys/kernel/debug/kprobes/enabled=0 disarms every kprobe, the syscall
 *    slot's too: execns() is ENOSYS and the caller carries on; a member of
 *    the table that exits meanwhile still lets the table go (the uid hooks
 *    are not kprobes, and the reaper frees what only the table holds): the
 *    table and its users are freed;
 *  - everything on again, a new table works.
 * Whatever happens, kprobes and ftrace are on again when the program ends.
 */
#include "lib/test.h"

#define FTRACE_ENABLED	"/proc/sys/kernel/ftrace_enabled"

#if defined(__s390x__)
#define HOOKS_PARK	1	/* module/arch/s390/execns-arch.h */
#else
#define HOOKS_PARK	0
#endif
#define KPROBES_ENABLED	"/sys/kernel/debug/kprobes/enabled"

/* Until the module's user_structs are all back (after RCU), at most secs. */
static long wait_users_gone(int secs)
{
	long users = execns_stat(EXECNS_STAT_USERS);

	for (int i = 0; users != 0 && i < secs * 10; i++) {
		child_reap_zombies();
		sleep_ms(100);
		users = execns_stat(EXECNS_STAT_USERS);
	}
	return users;
}

static const struct child_mode modes[] = {
	UT_MODES,
};

#define TESTS 10

/* Where ftrace lists the module's ops, ut_ftrace_state()'s answer for each. */
static const struct {
	const char *func;
	int state;
} placed[] = {
	{ "alloc_uid", 1 },		/* redirected (IPMODIFY) */
	{ "alloc_ucounts", 1 },
	{ "find_user", 1 },
	{ "commit_creds", 0 },		/* watched */
	{ "free_uid", -1 },		/* not hooked: the kernel's release */
	{ "put_ucounts", -1 },
};

/* Whether ftrace lists the hooks as placed[] says; what it saw in seen. */
static int hooks_placed(char *seen, size_t len)
{
	int ok = 1;

	seen[0] = '\0';
	for (size_t i = 0; i < sizeof(placed) / sizeof(placed[0]); i++) {
		int state = ut_ftrace_state(placed[i].func);
		size_t n = strlen(seen);
		/* No alloc_ucounts() hook where credentials have no ucounts (5.10). */
		int want = !strcmp(placed[i].func, "alloc_ucounts") && !kernel_cred_ucounts() ?
			   -1 : placed[i].state;

		ok &= state == want;
		snprintf(seen + n, len - n, " %s=%d", placed[i].func, state);
	}
	return ok;
}

int main(int argc, char **argv)
{
	char v[16], seen[256];
	struct child o;
	int slot_off;
	long table, arms, users;
	int ret, err, left, armed;
	pid_t member;

	CHILD_DISPATCH(modes, argc, argv);

	ut_start(TESTS);
	if (access(KPROBES_ENABLED, W_OK) || access(FTRACE_ENABLED, W_OK)) {
		for (int i = 0; i < TESTS; i++) {
			char name[32];

			snprintf(name, sizeof(name), "switch %d", i + 1);
			ksft_test_result_code(KSFT_SKIP, name, "no " KPROBES_ENABLED " or "
					      FTRACE_ENABLED " to flip");
		}
		ksft_finished();
	}
	member = ut_sleeper(&table);
	ksft_test_result(member > 0 && table > 0 && hooks_armed() == 1,
			 "a member sleeps in table %ld, the uid hooks are armed (%ld)", table, hooks_armed());
	ret = hooks_placed(seen, sizeof(seen));
	ksft_test_result(ret, "%s lists the hooks on alloc_uid, alloc_ucounts, find_user (IPMODIFY) and commit_creds, none on free_uid or put_ucounts (1 IPMODIFY, 0 not, -1 absent:%s)",
			 UT_ENABLED_FUNCS, seen);

	ret = write_knob(FTRACE_ENABLED, "0");
	err = errno;
	read_line(FTRACE_ENABLED, v, sizeof(v));
	ksft_test_result(ret && (err == EBUSY || err == EOPNOTSUPP) && !strcmp(v, "1"),
			 "kernel.ftrace_enabled=0 is refused while the hooks are armed (errno %d, still %s)",
			 ret ? err : 0, v);
	if (!ret)
		write_knob(FTRACE_ENABLED, "1");

	ret = set_knob(KPROBES_ENABLED, "0");
	ksft_test_result(!ret, "kprobes disabled through %s", KPROBES_ENABLED);
	child_execns(CLONE_NEWUSER, "table", NULL, 1, &o);
	ksft_test_result(child_val(&o, "execns_errno") == ENOSYS && ut_self() == 0,
			 "with kprobes off, execns(CLONE_NEWUSER) is ENOSYS (the slot is a kprobe) and the caller is where it was (errno %ld)",
			 child_val(&o, "execns_errno"));

	child_kill(member);
	left = ut_wait_tables(0, UT_RCU_SECS);
	users = wait_users_gone(UT_RCU_SECS);
	ksft_test_result(left == 0 && users == 0,
			 "the member exits with kprobes off: its table and user_structs are freed by the reaper (tables %d, users %ld)",
			 left, users);
	armed = wait_disarmed(UT_RCU_SECS);
	ksft_test_result(armed == 0, "with no table left the uid hooks are disarmed (%d)", armed);

	ret = set_knob(KPROBES_ENABLED, "1");
	ksft_test_result(!ret, "kprobes enabled again");

	arms = execns_stat(EXECNS_STAT_HOOK_ARMS);
	ret = write_knob(FTRACE_ENABLED, "0");
	err = errno;
	read_line(FTRACE_ENABLED, v, sizeof(v));
	if (HOOKS_PARK) {
		ksft_test_result(ret && err == EBUSY && !strcmp(v, "1"),
				 "with no table, kernel.ftrace_enabled=0 is still refused: the hooks stay registered, parked, while the module is loaded (errno %d, still %s)",
				 ret ? err : 0, v);
	} else if (ret && err == EOPNOTSUPP) {
		ksft_test_result_code(KSFT_SKIP, "ftrace off with no table: a new table is EBUSY",
				      "this kernel refuses kernel.ftrace_enabled=0 always (EOPNOTSUPP)");
	} else {
		/*
		 * Where the slot's kprobe sits on an ftrace site (the clang
		 * LTO kernel's sys_ni_syscall has one), ftrace off takes
		 * execns itself away: ENOSYS for any flags, which a plain
		 * execns(0) shows first.  Elsewhere only the hooks go: EBUSY.
		 */
		child_execns(0, "table", NULL, 1, &o);
		slot_off = child_val(&o, "execns_errno") == ENOSYS;
		child_execns(CLONE_NEWUSER, "table", NULL, 1, &o);
		ksft_test_result(!ret && child_val(&o, "execns_errno") == (slot_off ? ENOSYS : EBUSY) &&
				 ut_self() == 0 && ut_ntables() == 0,
				 "with no table, ftrace_enabled=0 is accepted, and then a new table is %s, the caller where it was (write errno %d, execns errno %ld)",
				 slot_off ? "ENOSYS (the slot's kprobe is on an ftrace site here: execns(0) is ENOSYS too)" : "EBUSY",
				 ret ? err : 0, child_val(&o, "execns_errno"));
	}
	write_knob(FTRACE_ENABLED, "1");

	child_in_table("table", NULL, &o);
	ksft_test_result(child_val(&o, "self") > 0 && execns_stat(EXECNS_STAT_HOOK_ARMS) > arms &&
			 ut_wait_tables(0, UT_RCU_SECS) == 0,
			 "with everything on, execns(CLONE_NEWUSER) makes a table again (%ld), arming the hooks again (%ld > %ld)",
			 child_val(&o, "self"), execns_stat(EXECNS_STAT_HOOK_ARMS), arms);
	write_knob(KPROBES_ENABLED, "1");
	ksft_finished();
}
