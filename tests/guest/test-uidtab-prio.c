// SPDX-License-Identifier: GPL-2.0
/*
 * PRIO_USER and IOPRIO_WHO_USER look a uid up in the caller's table only:
 * in a new table, uid 1000 is ESRCH for getpriority, setpriority,
 * ioprio_get and ioprio_set although a process of the initial table runs
 * as uid 1000 (and is found from there); once a process of the table
 * becomes uid 1000 all four find it, and once that process is gone the
 * uid is ESRCH again.
 */
#include <sys/resource.h>
#include "lib/test.h"

#define IOPRIO_WHO_USER		3
#define IOPRIO_BE_4		((2 << 13) | 4)	/* IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 4) */
#define ABSENT_UID		4242		/* no process anywhere runs as this */

/*
 * For uid: "<prefix>_get" (getpriority's nice value) and "<prefix>_geterr"
 * (its errno, 0 on success: a nice value can be -1), "<prefix>_set" (0 or
 * -errno), "<prefix>_ioget" (the ioprio or -errno), "<prefix>_ioset".
 */
static void lookups(const char *prefix, uid_t uid, int nice)
{
	char key[64];
	long r;

	errno = 0;
	r = getpriority(PRIO_USER, uid);
	snprintf(key, sizeof(key), "%s_get", prefix);
	child_putl(key, r);
	snprintf(key, sizeof(key), "%s_geterr", prefix);
	child_putl(key, r == -1 ? errno : 0);

	r = setpriority(PRIO_USER, uid, nice);
	snprintf(key, sizeof(key), "%s_set", prefix);
	child_putl(key, r ? -errno : 0);

	r = syscall(SYS_ioprio_get, IOPRIO_WHO_USER, uid);
	snprintf(key, sizeof(key), "%s_ioget", prefix);
	child_putl(key, r < 0 ? -errno : r);

	r = syscall(SYS_ioprio_set, IOPRIO_WHO_USER, uid, IOPRIO_BE_4);
	snprintf(key, sizeof(key), "%s_ioset", prefix);
	child_putl(key, r ? -errno : 0);
}

static int global_lookups(void *arg)
{
	(void)arg;
	lookups("g", UT_UID, 3);
	lookups("absent", ABSENT_UID, 3);
	return 0;
}

/*
 * In a new table: "self", lookups of uid 1000 before ("before_*"), while a
 * child of the table runs as uid 1000 ("with_*", then "with_get2" after
 * setpriority 7), and after it is gone ("after_geterr", "after_ioget": the
 * first ESRCH within a few seconds, since credentials go after RCU).
 */
static int act_prio(void)
{
	long r = 0;
	pid_t c;

	child_putl("self", ut_self());
	lookups("before", UT_UID, 5);
	c = child_hold(UT_UID, NULL, NULL);
	child_putl("holder", c > 0);
	lookups("with", UT_UID, 7);
	errno = 0;
	r = getpriority(PRIO_USER, UT_UID);
	child_putl("with_get2", r);
	child_putl("with_get2err", r == -1 ? errno : 0);
	child_kill(c);
	for (int i = 0; i < UT_RCU_SECS * 10; i++) {
		errno = 0;
		r = getpriority(PRIO_USER, UT_UID);
		if (r == -1 && errno == ESRCH)
			break;
		sleep_ms(100);
	}
	child_putl("after_geterr", r == -1 ? errno : 0);
	r = syscall(SYS_ioprio_get, IOPRIO_WHO_USER, UT_UID);
	child_putl("after_ioget", r < 0 ? -errno : r);
	return 0;
}

static const struct child_mode modes[] = {
	UT_MODES,
	CHILD_ACT("prio", act_prio),
};

static int all_esrch(const struct child *o, const char *p)
{
	static const char *const op[] = { "set", "ioget", "ioset" };
	char key[64];

	snprintf(key, sizeof(key), "%s_geterr", p);
	if (child_val(o, key) != ESRCH)
		return 0;
	for (int i = 0; i < 3; i++) {
		snprintf(key, sizeof(key), "%s_%s", p, op[i]);
		if (child_val(o, key) != -ESRCH)
			return 0;
	}
	return 1;
}

int main(int argc, char **argv)
{
	struct child g, o;
	int tables0;
	pid_t a;

	CHILD_DISPATCH(modes, argc, argv);

	tables0 = ut_start(11);
	a = child_hold(UT_UID, NULL, NULL);
	child_run(global_lookups, NULL, &g);
	ksft_test_result(a > 0 && child_ok(&g) && child_val(&g, "g_geterr") == 0 && child_val(&g, "g_set") == 0 &&
			 child_val(&g, "g_ioget") >= 0 && child_val(&g, "g_ioset") == 0,
			 "initial table, a uid-1000 process running: PRIO_USER/IOPRIO_WHO_USER find uid 1000 (get errno %ld set %ld ioget %ld ioset %ld)",
			 child_val(&g, "g_geterr"), child_val(&g, "g_set"), child_val(&g, "g_ioget"), child_val(&g, "g_ioset"));
	ksft_test_result(all_esrch(&g, "absent"),
			 "initial table: a uid no process has is ESRCH for all four (get errno %ld set %ld ioget %ld ioset %ld)",
			 child_val(&g, "absent_geterr"), child_val(&g, "absent_set"), child_val(&g, "absent_ioget"),
			 child_val(&g, "absent_ioset"));

	child_in_table("prio", NULL, &o);
	ksft_test_result(child_ok(&o) && child_val(&o, "self") > 0,
			 "the lookups ran in table %ld", child_val(&o, "self"));
	ksft_test_result(child_val(&o, "before_get") == -1 && child_val(&o, "before_geterr") == ESRCH,
			 "in the table, getpriority(PRIO_USER, 1000) is ESRCH though the initial table has uid 1000 (%ld, errno %ld)",
			 child_val(&o, "before_get"), child_val(&o, "before_geterr"));
	ksft_test_result(child_val(&o, "before_set") == -ESRCH,
			 "setpriority(PRIO_USER, 1000) is ESRCH likewise (%ld)", child_val(&o, "before_set"));
	ksft_test_result(child_val(&o, "before_ioget") == -ESRCH && child_val(&o, "before_ioset") == -ESRCH,
			 "ioprio_get/ioprio_set(IOPRIO_WHO_USER, 1000) are ESRCH likewise (%ld, %ld)",
			 child_val(&o, "before_ioget"), child_val(&o, "before_ioset"));
	ksft_test_result(child_val(&o, "holder") == 1 && child_val(&o, "with_geterr") == 0 &&
			 child_val(&o, "with_set") == 0 && child_val(&o, "with_get2") == 7 &&
			 child_val(&o, "with_get2err") == 0,
			 "once a process of the table setresuid(1000)s, getpriority finds it (errno %ld), setpriority works (%ld) and getpriority then reads 7 (%ld)",
			 child_val(&o, "with_geterr"), child_val(&o, "with_set"), child_val(&o, "with_get2"));
	ksft_test_result(child_val(&o, "with_ioget") >= 0 && child_val(&o, "with_ioset") == 0,
			 "and ioprio_get/ioprio_set(IOPRIO_WHO_USER, 1000) find it (%ld, %ld)",
			 child_val(&o, "with_ioget"), child_val(&o, "with_ioset"));
	ksft_test_result(child_val(&o, "after_geterr") == ESRCH && child_val(&o, "after_ioget") == -ESRCH,
			 "once that process is gone, uid 1000 is ESRCH in the table again (errno %ld, ioget %ld)",
			 child_val(&o, "after_geterr"), child_val(&o, "after_ioget"));

	errno = 0;
	ksft_print_msg("A's nice value is now %d (3 before the table's setpriority(PRIO_USER, 1000, 7))\n",
		       getpriority(PRIO_PROCESS, a));
	child_run(global_lookups, NULL, &g);
	ksft_test_result(child_ok(&g) && child_val(&g, "g_geterr") == 0 && child_val(&g, "g_ioget") >= 0,
			 "the initial table still finds its uid 1000 (get errno %ld, ioget %ld)",
			 child_val(&g, "g_geterr"), child_val(&g, "g_ioget"));
	child_kill(a);
	ut_check_gone(tables0, "the table is gone with its processes");
	ksft_finished();
}
