// SPDX-License-Identifier: GPL-2.0
/*
 * Kprobes on the functions the uid hooks redirect (alloc_uid,
 * alloc_ucounts, find_user), as perf probe, bpftrace or a SystemTap
 * script place them:
 * kprobe events without a post-handler, which on a traced function's entry
 * are ftrace callbacks that share one ftrace_ops.  On s390 that callback
 * resets the address the hook redirected (module/hook.h), so the hooks
 * must run after it:
 *  - kprobes placed after the module loaded: a table works under them
 *    (setresuid(1000) inside gets a user_struct and ucounts of the table,
 *    freed by the module's reaper once the table's last process exits),
 *    and the kprobes fire meanwhile;
 *  - the module reloaded while they are enabled, so that their ops is
 *    older than the hooks: on s390 execns(CLONE_NEWUSER) is EBUSY with the
 *    caller in no table; elsewhere a table works;
 *  - the kprobes removed, a table works again; placed again, still;
 *  - the module is loaded again with the runner's parameters.
 * The kernel log check after each program catches what a redirect gone
 * wrong under them would break (a slab or refcount report).
 */
#include <sys/resource.h>
#include "lib/test.h"

#define T		"/sys/kernel/tracing/"
#define GROUP		"execns_kp"

#if defined(__s390x__)
#define KPROBE_RESETS_IP 1	/* module/arch/s390/execns-arch.h */
#else
#define KPROBE_RESETS_IP 0
#endif

static const char *funcs[] = { "alloc_uid", "alloc_ucounts", "find_user" };

#define NFUNCS	(int)(sizeof(funcs) / sizeof(funcs[0]))

/* How many of funcs[] this kernel hooks: no alloc_ucounts() before 5.14. */
static int nfuncs = NFUNCS;

static void funcs_for_this_kernel(void)
{
	if (kernel_cred_ucounts())
		return;
	funcs[1] = funcs[2];
	nfuncs = NFUNCS - 1;
}

/* Place and enable a kprobe event on each function: 0 or -1. */
static int kprobes_add(void)
{
	char def[96];

	for (int i = 0; i < nfuncs; i++) {
		snprintf(def, sizeof(def), "p:" GROUP "/%s %s", funcs[i], funcs[i]);
		if (append_knob(T "kprobe_events", def))
			return -1;
	}
	return write_knob(T "events/" GROUP "/enable", "1");
}

/* Disable and remove them: 0 or -1. */
static int kprobes_remove(void)
{
	char def[96];
	int ret = write_knob(T "events/" GROUP "/enable", "0");

	for (int i = 0; i < nfuncs; i++) {
		snprintf(def, sizeof(def), "-:" GROUP "/%s", funcs[i]);
		ret |= append_knob(T "kprobe_events", def);
	}
	return ret;
}

/* kprobe_profile's hit count of the event on func, -1 if not listed. */
static long kprobe_hits(const char *func)
{
	char line[256], name[128];
	unsigned long hits;
	FILE *f = fopen(T "kprobe_profile", "re");
	long v = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%127s %lu", name, &hits) == 2 && !strcmp(name, func))
			v = (long)hits;
	if (f)
		fclose(f);
	return v;
}

/*
 * Mode "work": "self T", setresuid(UT_UID) (alloc_uid(), and
 * alloc_ucounts() from set_cred_ucounts()), getpriority(PRIO_USER) of
 * another uid (find_user()); stays.
 */
__attribute__((noreturn))
static int mode_work(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	child_putl("self", ut_self());
	if (setresuid(UT_UID, UT_UID, UT_UID)) {
		child_putl("setresuid_errno", errno);
	} else {
		/* Another uid than the caller's: a find_user() (answer unused). */
		getpriority(PRIO_USER, UT_UID + 1);
		child_putl("worked", 1);
	}
	child_detach();
	alarm(CHILD_TIMEOUT);
	for (;;)
		pause();
}

static const struct child_mode modes[] = {
	UT_MODES,
	CHILD_MODE("work", 0, mode_work),
};

/*
 * A table is made, its process becomes UT_UID (a user_struct of the table)
 * and exits, and the table goes: 0 when all of that held, else -1 with
 * *table and *err (execns's errno, 0 if it worked) saying what was seen.
 */
static int table_works(long *table, long *err)
{
	struct child o;
	int ok;

	*err = 0;
	if (child_execns(CLONE_NEWUSER, "work", NULL, 0, &o))
		return -1;
	*table = child_val(&o, "self");
	if (child_val(&o, "execns_errno") != CHILD_NONE) {
		*err = child_val(&o, "execns_errno");
		child_reap(o.pid, &o);
		return -1;
	}
	ok = *table > 0 && child_val(&o, "worked") == 1 && ut_wait_user(*table, UT_UID, 1, UT_RCU_SECS) == 1;
	child_kill(o.pid);
	ok &= ut_wait_tables(0, UT_RCU_SECS) == 0;
	return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
	long hits0[NFUNCS], table = 0, err = 0;
	char fired[128] = "";
	int ok, ret;

	CHILD_DISPATCH(modes, argc, argv);

	ut_start(9);
	funcs_for_this_kernel();
	if (access(T "kprobe_events", W_OK)) {
		for (int i = 0; i < 9; i++)
			ksft_test_result_code(KSFT_SKIP, "kprobes", "no %skprobe_events (CONFIG_KPROBE_EVENTS, tracefs)", T);
		ksft_finished();
	}
	ut_wait_tables(0, UT_RCU_SECS);

	ret = kprobes_add();
	for (int i = 0; i < nfuncs; i++)
		hits0[i] = kprobe_hits(funcs[i]);
	for (int i = 0; i < nfuncs; i++)
		ret |= hits0[i] < 0;
	ksft_test_result(!ret, "kprobe events on alloc_uid, %sfind_user, placed after the module loaded, are enabled",
			 nfuncs == NFUNCS ? "alloc_ucounts and " : "");

	ret = table_works(&table, &err);
	ksft_test_result(!ret, "under them a table works: setresuid(%d) in table %ld gets the table's user_struct, which the module's reaper frees with the table (errno %ld)",
			 UT_UID, table, err);

	ok = 1;
	for (int i = 0; i < nfuncs; i++) {
		long hits = kprobe_hits(funcs[i]);
		size_t len = strlen(fired);

		ok &= hits > hits0[i];
		snprintf(fired + len, sizeof(fired) - len, " %s %ld", funcs[i], hits - hits0[i]);
	}
	ksft_test_result(ok, "the kprobes fired meanwhile:%s", fired);

	/*
	 * forbid_unshare=1 would make this load arm its hook, which on s390
	 * is refused under kprobes older than the module.
	 */
	ret = execns_rmmod(UT_RCU_SECS);
	ret = ret ? ret : execns_insmod("forbid_unshare=0");
	ksft_test_result(!ret && execns_loaded(), "the module is reloaded while the kprobes stay enabled (errno %d)", ret);

	if (KPROBE_RESETS_IP) {
		struct child o;

		child_execns(CLONE_NEWUSER, "table", NULL, 1, &o);
		err = child_val(&o, "execns_errno");
		ksft_test_result(err == EBUSY && ut_self() == 0 && ut_ntables() == 0 && execns_stat(EXECNS_STAT_HOOKS) == 0,
				 "s390: kprobes older than the module would undo the redirects: execns(CLONE_NEWUSER) is EBUSY, the caller in no table, no table made (errno %ld, tables %d)",
				 err == CHILD_NONE ? 0 : err, ut_ntables());
	} else {
		ret = table_works(&table, &err);
		ksft_test_result(!ret, "kprobes older than the module: a table still works (table %ld, errno %ld)",
				 table, err);
	}

	ret = kprobes_remove();
	ksft_test_result(!ret && kprobe_hits(funcs[0]) == -1, "the kprobe events are removed");

	ret = table_works(&table, &err);
	ksft_test_result(!ret, "without them a table works (table %ld, errno %ld)", table, err);

	ret = kprobes_add();
	ret = ret ? ret : table_works(&table, &err);
	ksft_test_result(!ret, "kprobes placed again, now after the module: a table works (table %ld, errno %ld)",
			 table, err);
	kprobes_remove();
	ret = execns_rmmod(UT_RCU_SECS);
	ret = ret ? ret : execns_insmod("");
	ksft_test_result(!ret && execns_loaded(),
			 "the module is loaded again with the runner's parameters, for the programs that follow (errno %d)",
			 ret);
	ksft_finished();
}
