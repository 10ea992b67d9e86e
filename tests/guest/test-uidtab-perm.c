// SPDX-License-Identifier: GPL-2.0
/*
 * execns(CLONE_NEWUSER) needs CAP_SYS_ADMIN, not uid 0: uid 65534 without
 * capabilities, and root without CAP_SYS_ADMIN, get EPERM and stay where
 * they were (same table, same number of tables, and still running); root
 * with CAP_SYS_ADMIN alone, and uid 1000 that kept CAP_SYS_ADMIN, enter a
 * new table.  The table's first user_struct is for the caller's real uid.
 * An unprivileged process inside a table gets EPERM too and stays there.
 * What /proc/execns/tables lists (new tables and users, the table's uid
 * lines) the module's rows check too; the twin lists nothing of that.
 */
#include <linux/capability.h>
#include "lib/test.h"

#define NOBODY	65534

/*
 * Effective and permitted sets: only CAP_SYS_ADMIN (only), or everything
 * they hold now but CAP_SYS_ADMIN (!only).  Nothing inheritable.
 */
static int cap_sys_admin(int only)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	const __u32 bit = 1u << CAP_SYS_ADMIN;	/* in d[0]: CAP_SYS_ADMIN is 21 */

	if (syscall(SYS_capget, &h, d))
		return -1;
	if (only) {
		d[0].effective = d[0].permitted = bit;
		d[1].effective = d[1].permitted = 0;
	} else {
		d[0].effective &= ~bit;
		d[0].permitted &= ~bit;
	}
	d[0].inheritable = d[1].inheritable = 0;
	return syscall(SYS_capset, &h, d);
}

/* Has CAP_SYS_ADMIN in its effective set. */
static int has_sys_admin(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	return !syscall(SYS_capget, &h, d) && (d[0].effective & (1u << CAP_SYS_ADMIN));
}

/*
 * Try execns(CLONE_NEWUSER) into "table"; if it fails, print "ret", "err",
 * the table before and after ("self0", "self1"), the tables and uid lines
 * that appeared meanwhile ("new_tables", "new_users") and "alive 1", and
 * exit 0.
 */
static int try_enter(void)
{
	char *argv[] = { "/proc/self/exe", "table", NULL };
	static struct ut_snap a, b;
	long self0 = ut_self();
	int ret, err, nt, nu;

	child_putl("sysadmin", has_sys_admin());
	ut_snap_read(&a);
	ret = execns(CLONE_NEWUSER, "/proc/self/exe", argv, environ);
	err = errno;
	ut_snap_read(&b);
	ut_snap_new(&a, &b, &nt, &nu);
	child_putl("ret", ret);
	child_putl("err", err);
	child_putl("self0", self0);
	child_putl("self1", ut_self());
	child_putl("new_tables", a.ok && b.ok ? nt : -1);
	child_putl("new_users", a.ok && b.ok ? nu : -1);
	child_putl("alive", 1);
	return 0;
}

static int as_nobody(void *arg)
{
	(void)arg;
	if (setresuid(NOBODY, NOBODY, NOBODY))
		return 2;
	return try_enter();
}

static int root_without_sys_admin(void *arg)
{
	(void)arg;
	if (cap_sys_admin(0))
		return 2;
	return try_enter();
}

static int root_with_sys_admin_only(void *arg)
{
	(void)arg;
	if (cap_sys_admin(1))
		return 2;
	return try_enter();
}

/* uid 1000 (real, effective, saved) that kept CAP_SYS_ADMIN over setresuid. */
static int uid_with_sys_admin(void *arg)
{
	(void)arg;
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) || setresuid(UT_UID, UT_UID, UT_UID) ||
	    cap_sys_admin(1))
		return 2;
	return try_enter();
}

/* Real uid 1000, effective and saved uid 0 (so still privileged). */
static int real_uid_only(void *arg)
{
	(void)arg;
	if (setresuid(UT_UID, 0, 0))
		return 2;
	return try_enter();
}

/* In a table: an unprivileged child tries again ("in_*" keys). */
static int act_inside(void)
{
	struct child o;

	child_putl("self", ut_self());
	child_run(as_nobody, NULL, &o);
	child_putl("in_ret", child_val(&o, "ret"));
	child_putl("in_err", child_val(&o, "err"));
	child_putl("in_self0", child_val(&o, "self0"));
	child_putl("in_self1", child_val(&o, "self1"));
	child_putl("in_new_tables", child_val(&o, "new_tables"));
	child_putl("in_new_users", child_val(&o, "new_users"));
	return 0;
}

static const struct child_mode modes[] = {
	UT_MODES,
	CHILD_ACT("inside", act_inside),
};

/*
 * No new table or uid line listed: o's "<prefix>new_tables" and
 * "<prefix>new_users" (0 and 0), or the twin, which lists none.
 */
static int nothing_new(const struct child *o, const char *prefix)
{
	char nt[32], nu[32];

	snprintf(nt, sizeof(nt), "%snew_tables", prefix);
	snprintf(nu, sizeof(nu), "%snew_users", prefix);
	return !ut_listing() || (child_val(o, nt) == 0 && child_val(o, nu) == 0);
}

/* How a check's name ends: the listing's numbers, or that the twin has none. */
static const char *listed_new(const struct child *o, const char *prefix)
{
	static char buf[96];
	char nt[32], nu[32];

	if (!ut_listing())
		return "new tables and users not listed on the twin";
	snprintf(nt, sizeof(nt), "%snew_tables", prefix);
	snprintf(nu, sizeof(nu), "%snew_users", prefix);
	snprintf(buf, sizeof(buf), "no new table (%ld) or user (%ld)", child_val(o, nt), child_val(o, nu));
	return buf;
}

/* EPERM, and the caller is where it was and still running. */
static void refused(int (*fn)(void *), const char *who)
{
	struct child o;

	child_run(fn, NULL, &o);
	ksft_test_result(child_ok(&o) && child_val(&o, "sysadmin") == 0 && child_val(&o, "ret") == -1 &&
			 child_val(&o, "err") == EPERM && child_val(&o, "alive") == 1,
			 "%s: execns(CLONE_NEWUSER) is EPERM (ret %ld, errno %ld)",
			 who, child_val(&o, "ret"), child_val(&o, "err"));
	ksft_test_result(child_val(&o, "self0") == 0 && child_val(&o, "self1") == 0 && nothing_new(&o, ""),
			 "%s: still in table %ld (was %ld), %s", who,
			 child_val(&o, "self1"), child_val(&o, "self0"), listed_new(&o, ""));
}

/*
 * The new program reports a new table, a child of the initial one, with
 * uid as its real uid; the module lists uid under it.
 */
static void admitted(int (*fn)(void *), const char *who, long uid)
{
	char key[32], lists[64];
	struct child o;

	snprintf(key, sizeof(key), "uid%ld", uid);
	child_run(fn, NULL, &o);
	if (ut_listing())
		snprintf(lists, sizeof(lists), "lists uid %ld (refs %ld)", uid, child_val(&o, key));
	else
		snprintf(lists, sizeof(lists), "runs as uid %ld (uid lines not listed on the twin)",
			 child_val(&o, "ruid"));
	ksft_test_result(child_ok(&o) && child_val(&o, "ret") == CHILD_NONE && child_val(&o, "self") > 0 &&
			 child_val(&o, "parent") == 0 && child_val(&o, "ruid") == uid &&
			 (!ut_listing() || child_val(&o, key) > 0),
			 "%s: execns(CLONE_NEWUSER) runs the program in table %ld (errno %ld, parent %ld), which %s",
			 who, child_val(&o, "self"), child_val(&o, "err") == CHILD_NONE ? 0 : child_val(&o, "err"),
			 child_val(&o, "parent"), lists);
}

int main(int argc, char **argv)
{
	struct child o;
	int tables0;

	CHILD_DISPATCH(modes, argc, argv);

	tables0 = ut_start(10);
	refused(as_nobody, "uid 65534, no capabilities");
	refused(root_without_sys_admin, "uid 0 without CAP_SYS_ADMIN");
	admitted(root_with_sys_admin_only, "uid 0 with CAP_SYS_ADMIN alone", 0);
	admitted(uid_with_sys_admin, "uid 1000 with CAP_SYS_ADMIN", UT_UID);
	admitted(real_uid_only, "real uid 1000, effective uid 0", UT_UID);

	child_in_table("inside", NULL, &o);
	ksft_test_result(child_val(&o, "self") > 0 && child_val(&o, "in_ret") == -1 && child_val(&o, "in_err") == EPERM,
			 "inside table %ld, uid 65534 gets EPERM too (ret %ld, errno %ld)",
			 child_val(&o, "self"), child_val(&o, "in_ret"), child_val(&o, "in_err"));
	ksft_test_result(child_val(&o, "self") > 0 && child_val(&o, "in_self0") == child_val(&o, "self") &&
			 child_val(&o, "in_self1") == child_val(&o, "self") && nothing_new(&o, "in_"),
			 "and stays in table %ld (%ld), %s", child_val(&o, "self"),
			 child_val(&o, "in_self1"), listed_new(&o, "in_"));
	ut_check_gone(tables0, "the tables are gone with their processes");
	ksft_finished();
}
