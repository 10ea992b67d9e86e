// SPDX-License-Identifier: GPL-2.0
/*
 * Membership follows cred->user: inside a table, fork, execve, execns
 * without CLONE_NEWUSER, and setuid()/setreuid()/setresuid() to a new uid
 * all stay in the table, and the new uids get user_structs of that table
 * (listed under it, under no other).  A root process of the table that
 * setuid(1000)s stays in it.  A uid's line goes once its last process in
 * the table has exited.
 * The twin lists no uid lines: there a uid of the table is one that
 * getpriority(PRIO_USER) finds from inside it (the lookup is in the
 * caller's table only, then it needs a process of that uid); what only the
 * listing shows is a skip.
 */
#include <sys/resource.h>
#include "lib/test.h"

enum { SETUID = 1001, SETREUID = 1002, SETRESUID = 1003 };

/* Become uid through setuid(), setreuid() or setresuid(). */
static int become(void *arg)
{
	long uid = (long)arg;
	int r;

	if (uid == SETUID)
		r = setuid(uid);
	else if (uid == SETREUID)
		r = setreuid(uid, uid);
	else
		r = setresuid(uid, uid, uid);
	if (r)
		return 0;
	printf("self_%ld %ld\n", uid, ut_self());
	fflush(stdout);
	return 1;
}

static int report_self(void *arg)
{
	(void)arg;
	child_putl("fork_self", ut_self());
	return 0;
}

/* Plain execve() into "table" (reports "self"). */
static int plain_exec(void *arg)
{
	char *argv[] = { "/proc/self/exe", "table", NULL };

	(void)arg;
	execve("/proc/self/exe", argv, environ);
	return 1;
}

/* execns(CLONE_NEWUTS) into "table". */
static int execns_uts(void *arg)
{
	char *argv[] = { "/proc/self/exe", "table", NULL };

	(void)arg;
	execns(CLONE_NEWUTS, "/proc/self/exe", argv, environ);
	child_putl("execns_err", errno);
	return 1;
}

/*
 * "<prefix>_in" (listed under table t), "<prefix>_elsewhere" (tables
 * listing it elsewhere).  On the twin (t the caller's table, uid not the
 * caller's) "<prefix>_in" is whether getpriority(PRIO_USER, uid) finds it,
 * and "<prefix>_elsewhere" is not known (-1).
 */
static void listing(const char *prefix, long t, long uid)
{
	static struct ut_snap s;
	char key[64];
	int in, elsewhere = -1;

	if (ut_listing()) {
		ut_snap_read(&s);
		in = ut_find_user(&s, t, uid) != NULL;
		elsewhere = ut_tables_with_uid(&s, uid) - in;
	} else {
		errno = 0;
		in = getpriority(PRIO_USER, uid) != -1 || errno != ESRCH;
	}
	snprintf(key, sizeof(key), "%s_in", prefix);
	child_putl(key, in);
	snprintf(key, sizeof(key), "%s_elsewhere", prefix);
	child_putl(key, elsewhere);
}

static int act_membership(void)
{
	static const long uids[] = { SETUID, SETREUID, SETRESUID };
	long t = ut_self();
	struct child o;
	pid_t h[3];
	char key[32];

	child_putl("self", t);
	child_run(report_self, NULL, &o);
	child_putl("fork_self", child_val(&o, "fork_self"));
	child_run(plain_exec, NULL, &o);
	child_putl("execve_self", child_val(&o, "self"));
	child_run(execns_uts, NULL, &o);
	child_putl("execns_self", child_val(&o, "self"));

	for (int i = 0; i < 3; i++) {
		snprintf(key, sizeof(key), "u%ld", uids[i]);
		listing(key, t, uids[i]);	/* before: absent */
		h[i] = child_hold((uid_t)-1, become, (void *)uids[i]);
	}
	for (int i = 0; i < 3; i++) {
		snprintf(key, sizeof(key), "held%ld", uids[i]);
		listing(key, t, uids[i]);
	}
	for (int i = 0; i < 3; i++)
		child_kill(h[i]);
	if (ut_listing())
		child_putl("gone1001", !ut_wait_user(t, SETUID, 0, UT_RCU_SECS));

	/* This root process itself: its own uid, which getpriority never looks up. */
	if (ut_listing())
		listing("pre1000", t, UT_UID);
	if (setuid(UT_UID))
		return 2;
	child_putl("self_after_setuid", ut_self());
	if (ut_listing())
		listing("own1000", t, UT_UID);
	return 0;
}

static const struct child_mode modes[] = {
	UT_MODES,
	CHILD_ACT("membership", act_membership),
};

int main(int argc, char **argv)
{
	static const struct {
		long uid;
		const char *call;
	} calls[] = { { SETUID, "setuid" }, { SETREUID, "setreuid" }, { SETRESUID, "setresuid" } };
	struct child o;
	int tables0;
	long t;

	CHILD_DISPATCH(modes, argc, argv);

	tables0 = ut_start(11);
	child_in_table("membership", NULL, &o);
	t = child_val(&o, "self");
	ksft_test_result(t > 0 && child_val(&o, "fork_self") == t,
			 "a child forked in table %ld is in it (%ld)", t, child_val(&o, "fork_self"));
	ksft_test_result(t > 0 && child_val(&o, "execve_self") == t,
			 "a plain execve() stays in the table (%ld)", child_val(&o, "execve_self"));
	ksft_test_result(t > 0 && child_val(&o, "execns_self") == t,
			 "execns(CLONE_NEWUTS) (no CLONE_NEWUSER) stays in the table (%ld)",
			 child_val(&o, "execns_self"));
	for (int i = 0; i < 3; i++) {
		char k[4][64];

		snprintf(k[0], sizeof(k[0]), "self_%ld", calls[i].uid);
		snprintf(k[1], sizeof(k[1]), "u%ld_in", calls[i].uid);
		snprintf(k[2], sizeof(k[2]), "held%ld_in", calls[i].uid);
		snprintf(k[3], sizeof(k[3]), "held%ld_elsewhere", calls[i].uid);
		if (ut_listing())
			ksft_test_result(t > 0 && child_val(&o, k[0]) == t && child_val(&o, k[1]) == 0 &&
					 child_val(&o, k[2]) == 1 && child_val(&o, k[3]) == 0,
					 "%s(%ld) in table %ld: stays in it (%ld), and uid %ld is listed under it (before %ld, after %ld, under other tables %ld)",
					 calls[i].call, calls[i].uid, t, child_val(&o, k[0]), calls[i].uid,
					 child_val(&o, k[1]), child_val(&o, k[2]), child_val(&o, k[3]));
		else
			ksft_test_result(t > 0 && child_val(&o, k[0]) == t && child_val(&o, k[1]) == 0 &&
					 child_val(&o, k[2]) == 1,
					 "%s(%ld) in table %ld: stays in it (%ld), and getpriority(PRIO_USER, %ld) in the table finds it (before %ld, after %ld; other tables not listed on the twin)",
					 calls[i].call, calls[i].uid, t, child_val(&o, k[0]), calls[i].uid,
					 child_val(&o, k[1]), child_val(&o, k[2]));
	}
	if (ut_listing())
		ksft_test_result(child_val(&o, "gone1001") == 1,
				 "the uid-1001 line goes once its process has exited");
	else
		ksft_test_result_code(KSFT_SKIP, "the uid-1001 line goes once its process has exited",
				      UT_NO_LISTING);
	ksft_test_result(t > 0 && child_val(&o, "self_after_setuid") == t,
			 "the table's root process setuid(1000)s and stays in table %ld (%ld)",
			 t, child_val(&o, "self_after_setuid"));
	if (ut_listing())
		ksft_test_result(child_val(&o, "pre1000_in") == 0 && child_val(&o, "own1000_in") == 1 &&
				 child_val(&o, "own1000_elsewhere") == 0,
				 "a \"uid 1000 table %ld\" line appears (before %ld, after %ld, under other tables %ld)",
				 t, child_val(&o, "pre1000_in"), child_val(&o, "own1000_in"),
				 child_val(&o, "own1000_elsewhere"));
	else
		ksft_test_result_code(KSFT_SKIP, "a \"uid 1000\" line appears under the table", UT_NO_LISTING);
	ksft_test_result(child_ok(&o), "the act finished (status %#x)", o.status);
	ut_check_gone(tables0, "the table is gone with its processes");
	ksft_finished();
}
