// SPDX-License-Identifier: GPL-2.0
/*
 * execns(CLONE_NEWUSER) from inside a table makes a child table: three
 * levels, each table's parent the one it was made from (the first's: 0),
 * the outer tables still listed while a process keeps them; two calls from
 * the same table make two sibling tables.  The module's ids increase and
 * are not reused.  The twin's ids are inode numbers (/proc/PID/ns/uidtab),
 * neither ordered nor kept from reuse: there each table's is its own while
 * it lives, not its parent's or a live sibling's, and NS_GET_PARENT walks
 * the levels back to the initial table, which has no parent.
 */
#include "lib/test.h"

/* "<prefix>_self" and "<prefix>_parent" of the caller's table. */
static void where(const char *prefix)
{
	char key[64];

	snprintf(key, sizeof(key), "%s_self", prefix);
	child_putl(key, ut_self());
	snprintf(key, sizeof(key), "%s_parent", prefix);
	child_putl(key, ut_parent());
}

/*
 * "<prefix>_listed" and "<prefix>_lparent": is table id still there, and
 * its parent.  The module: listed in /proc/execns/tables; the twin: the
 * table of process keeper, which is in it.
 */
static void listed(const char *prefix, long id, const char *keeper)
{
	static struct ut_snap s;
	struct ut_table *t;
	char key[64];
	long there, parent;

	if (ut_listing()) {
		ut_snap_read(&s);
		t = ut_find_table(&s, id);
		there = t != NULL;
		parent = t ? t->parent : -1;
	} else {
		there = ut_table_of(keeper) == id;
		parent = ut_parent_of(keeper);
	}
	snprintf(key, sizeof(key), "%s_listed", prefix);
	child_putl(key, there);
	snprintf(key, sizeof(key), "%s_lparent", prefix);
	child_putl(key, parent);
}

/*
 * The twin: the caller's table's ancestors, "upN" for N = 1..3 levels up
 * by NS_GET_PARENT, and "up4_err", the errno of the fourth (EPERM: the
 * initial table has no parent).
 */
static void ancestors(void)
{
	char key[16];

	for (int i = 1; i <= 3; i++) {
		snprintf(key, sizeof(key), "up%d", i);
		child_putl(key, ut_ancestor_of("self", i));
	}
	child_putl("up4_err", ut_ancestor_of("self", 4) < 0 ? errno : 0);
}

static int nest_to(const char *mode, const char *a1, const char *a2)
{
	char *argv[] = { "/proc/self/exe", (char *)mode, (char *)a1, (char *)a2, NULL };

	execns(CLONE_NEWUSER, "/proc/self/exe", argv, environ);
	child_putl("nest_err", errno);
	return 1;
}

/*
 * Level 1: a child keeps table 1 alive, then this process makes level 2,
 * which makes level 3; level 3 reports on table 1 (and on the twin the
 * ancestors of its own) and ends the keeper (still its child: exec keeps
 * children).
 */
static int act_level(int level, int argc, char **argv)
{
	char keeper[24], t1[24];
	pid_t k;

	switch (level) {
	case 1:
		where("l1");
		k = child_hold((uid_t)-1, NULL, NULL);
		snprintf(keeper, sizeof(keeper), "%d", (int)k);
		snprintf(t1, sizeof(t1), "%ld", ut_self());
		return nest_to("level2", keeper, t1);
	case 2:
		where("l2");
		return argc > 3 ? nest_to("level3", argv[2], argv[3]) : 1;
	default:
		where("l3");
		if (!ut_listing())
			ancestors();
		if (argc > 3)
			listed("l1", strtol(argv[3], NULL, 10), argv[2]);
		if (argc > 2)
			child_kill(strtol(argv[2], NULL, 10));
		return 0;
	}
}

/*
 * Two children of one table each make a table ("sib1_*", "sib2_*"), the
 * first still in its table while the second is made (the twin may give a
 * table that is gone's inode to the next).
 */
static int act_siblings(void)
{
	static const char *const name[] = { "sib1", "sib2" };
	static struct child o[2];
	char key[64];

	where("outer");
	for (int i = 0; i < 2; i++) {
		if (child_execns(CLONE_NEWUSER, "sleep", NULL, 0, &o[i]))
			o[i].pid = 0;
		snprintf(key, sizeof(key), "%s_self", name[i]);
		child_putl(key, child_val(&o[i], "self"));
		snprintf(key, sizeof(key), "%s_parent", name[i]);
		child_putl(key, child_val(&o[i], "parent"));
	}
	for (int i = 0; i < 2; i++)
		child_kill(o[i].pid);
	return 0;
}

static int mode_level1(int argc, char **argv)
{
	return act_level(1, argc, argv);
}

static int mode_level2(int argc, char **argv)
{
	return act_level(2, argc, argv);
}

static int mode_level3(int argc, char **argv)
{
	return act_level(3, argc, argv);
}

static const struct child_mode modes[] = {
	UT_MODES,
	CHILD_MODE("level1", 0, mode_level1),
	CHILD_MODE("level2", 0, mode_level2),
	CHILD_MODE("level3", 0, mode_level3),
	CHILD_ACT("siblings", act_siblings),
};

int main(int argc, char **argv)
{
	struct child o, s, r;
	long l1, l2, l3, s1, s2, outer, sib;
	int tables0;
	pid_t keep;

	CHILD_DISPATCH(modes, argc, argv);

	tables0 = ut_start(8);
	child_in_table("level1", NULL, &o);
	l1 = child_val(&o, "l1_self");
	l2 = child_val(&o, "l2_self");
	l3 = child_val(&o, "l3_self");
	ksft_test_result(l1 > 0 && child_val(&o, "l1_parent") == 0,
			 "level 1: table %ld, parent %ld (the initial table)", l1, child_val(&o, "l1_parent"));
	ksft_test_result(l2 > 0 && l2 != l1 && child_val(&o, "l2_parent") == l1,
			 "level 2: execns(CLONE_NEWUSER) in table %ld makes table %ld, parent %ld",
			 l1, l2, child_val(&o, "l2_parent"));
	ksft_test_result(l3 > 0 && l3 != l2 && l3 != l1 && child_val(&o, "l3_parent") == l2,
			 "level 3: from table %ld, table %ld, parent %ld", l2, l3, child_val(&o, "l3_parent"));
	ksft_test_result(child_val(&o, "l1_listed") == 1 && child_val(&o, "l1_lparent") == 0,
			 "table %ld is still %s (parent %ld) while a process of it lives", l1,
			 ut_listing() ? "listed" : "that process's /proc/PID/ns/uidtab",
			 child_val(&o, "l1_lparent"));
	if (ut_listing())
		ksft_test_result(child_ok(&o) && l1 < l2 && l2 < l3,
				 "ids increase with each level: %ld < %ld < %ld", l1, l2, l3);
	else
		ksft_test_result(child_ok(&o) && child_val(&o, "up1") == l2 && child_val(&o, "up2") == l1 &&
				 child_val(&o, "up3") == 0 && child_val(&o, "up4_err") == EPERM,
				 "ids are inodes on the twin, not ordered: NS_GET_PARENT from table %ld gives %ld, %ld, %ld (the initial table), then errno %ld (want EPERM)",
				 l3, child_val(&o, "up1"), child_val(&o, "up2"), child_val(&o, "up3"),
				 child_val(&o, "up4_err"));

	child_in_table("siblings", NULL, &s);
	outer = child_val(&s, "outer_self");
	s1 = child_val(&s, "sib1_self");
	s2 = child_val(&s, "sib2_self");
	ksft_test_result(outer > 0 && s1 > 0 && s2 > 0 && s1 != s2 && s1 != outer && s2 != outer &&
			 child_val(&s, "sib1_parent") == outer && child_val(&s, "sib2_parent") == outer,
			 "two calls from table %ld make two tables, %ld and %ld, both its children (%ld, %ld)",
			 outer, s1, s2, child_val(&s, "sib1_parent"), child_val(&s, "sib2_parent"));

	ut_check_gone(tables0, "the tables are gone with their processes");
	if (ut_listing()) {
		child_in_table("table", NULL, &r);
		ksft_test_result(child_val(&r, "self") > s2 && child_val(&r, "self") > s1 &&
				 child_val(&r, "self") > l3,
				 "a table made after those are gone has a new id (%ld)", child_val(&r, "self"));
	} else {
		/* The twin keeps an inode from reuse only while its table lives. */
		keep = ut_sleeper(&sib);
		child_in_table("table", NULL, &r);
		ksft_test_result(keep > 0 && child_val(&r, "self") > 0 && child_val(&r, "self") != sib &&
				 child_val(&r, "parent") == 0,
				 "a table made while table %ld lives has an inode of its own (%ld), parent %ld",
				 sib, child_val(&r, "self"), child_val(&r, "parent"));
		child_kill(keep);
	}
	ut_wait_tables(tables0, UT_RCU_SECS);
	ksft_finished();
}
