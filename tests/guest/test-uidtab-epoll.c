// SPDX-License-Identifier: GPL-2.0
/*
 * The epoll-watch budget (fs.epoll.max_user_watches, counted in struct
 * user_struct) is per table: with the limit at 16 and uid 1000 of the
 * initial table holding 16 watches, another uid-1000 process there gets
 * ENOSPC at once, while uid 1000 in a new table has 16 of its own (and not
 * more), shared by the processes of that table, and a second table has 16
 * more.
 */
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include "lib/test.h"

#define WATCHES	"/proc/sys/fs/epoll/max_user_watches"
#define LIMIT	16

/* "added N" and "err E" for up to max watches, after becoming uid (unless -1). */
static int try_watches(uid_t uid, int max)
{
	int err, n;

	if (uid != (uid_t)-1 && setresuid(uid, uid, uid))
		return 2;
	n = add_watches(max, &err);
	child_putl("added", n);
	child_putl("err", err);
	return 0;
}

static int try_one(void *arg)
{
	(void)arg;
	return try_watches(UT_UID, 1);
}

static int try_all(void *arg)
{
	(void)arg;
	return try_watches(UT_UID, LIMIT + 1);
}

static int hold_limit(void *arg)
{
	int err;

	(void)arg;
	return add_watches(LIMIT, &err) == LIMIT;
}

/*
 * In a new table: "self", then as uid 1000 "self_uid", "added"/"err" for
 * LIMIT + 1 watches, and "fork_added"/"fork_err"/"fork_self" for one watch
 * from a uid-1000 child in the same table.  With "hold", it then keeps its
 * watches until killed.
 */
static int act_epoll(int hold)
{
	long self = ut_self();
	int err, n, rc;
	struct child o;

	child_putl("self", self);
	if (setresuid(UT_UID, UT_UID, UT_UID))
		return 2;
	child_putl("self_uid", ut_self());
	n = add_watches(LIMIT + 1, &err);
	child_putl("added", n);
	child_putl("err", err);
	rc = child_run(try_one, NULL, &o);
	child_putl("fork_added", rc ? -1 : child_val(&o, "added"));
	child_putl("fork_err", rc ? -1 : child_val(&o, "err"));
	if (!hold)
		return 0;
	child_detach();
	for (;;)
		pause();
}

static int mode_epoll(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return act_epoll(0);
}

static int mode_epoll_hold(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return act_epoll(1);
}

static const struct child_mode modes[] = {
	UT_MODES,
	CHILD_MODE("epoll", 0, mode_epoll),
	CHILD_MODE("epoll-hold", 0, mode_epoll_hold),
};

static int is_enospc_at_once(const struct child *o)
{
	return child_ok(o) && child_val(o, "added") == 0 && child_val(o, "err") == ENOSPC;
}

/* 16 watches, then ENOSPC (o may still be running: "epoll-hold"). */
static int is_full_budget(const struct child *o)
{
	return child_val(o, "added") == LIMIT && child_val(o, "err") == ENOSPC;
}

int main(int argc, char **argv)
{
	char old[64];
	int tables0;
	pid_t a, held = -1;
	struct child o, t1, t2;
	long self1;

	CHILD_DISPATCH(modes, argc, argv);

	tables0 = ut_start(13);
	read_line(WATCHES, old, sizeof(old));
	ksft_test_result(old[0] && !set_knob(WATCHES, "16"), "max_user_watches lowered from %s to 16", old);

	child_run(try_all, NULL, &o);
	ksft_test_result(child_ok(&o) && is_full_budget(&o),
			 "initial table: uid 1000 alone adds 16 watches, the 17th is ENOSPC (added %ld, errno %ld)",
			 child_val(&o, "added"), child_val(&o, "err"));

	a = child_hold(UT_UID, hold_limit, NULL);
	ksft_test_result(a > 0, "process A (uid 1000, initial table) holds 16 watches");

	child_run(try_one, NULL, &o);
	ksft_test_result(is_enospc_at_once(&o),
			 "process B (uid 1000, initial table): first EPOLL_CTL_ADD is ENOSPC (added %ld, errno %ld)",
			 child_val(&o, "added"), child_val(&o, "err"));

	/* A table whose uid 1000 keeps its 16 watches while the rest runs. */
	child_execns(CLONE_NEWUSER, "epoll-hold", NULL, 0, &t1);
	held = t1.pid;
	self1 = child_val(&t1, "self");
	ksft_test_result(self1 > 0 && child_val(&t1, "self_uid") == self1,
			 "execns(CLONE_NEWUSER) as root: the program runs in table %ld, and stays there after setresuid(1000) (%ld)",
			 self1, child_val(&t1, "self_uid"));
	ksft_test_result(is_full_budget(&t1),
			 "uid 1000 in the table: 16 adds succeed, the 17th is ENOSPC, while A holds 16 (added %ld, errno %ld)",
			 child_val(&t1, "added"), child_val(&t1, "err"));
	ksft_test_result(child_val(&t1, "fork_added") == 0 && child_val(&t1, "fork_err") == ENOSPC,
			 "a uid-1000 process forked in that table shares its budget: first add ENOSPC (added %ld, errno %ld)",
			 child_val(&t1, "fork_added"), child_val(&t1, "fork_err"));

	child_in_table("epoll", NULL, &t2);
	ksft_test_result(child_val(&t2, "self") > 0 && child_val(&t2, "self") != self1 &&
			 child_ok(&t2) && is_full_budget(&t2),
			 "uid 1000 in a second table (%ld) has 16 more while A and table %ld hold theirs (added %ld, errno %ld)",
			 child_val(&t2, "self"), self1, child_val(&t2, "added"), child_val(&t2, "err"));

	child_run(try_one, NULL, &o);
	ksft_test_result(is_enospc_at_once(&o),
			 "the tables' watches are not the initial table's: uid 1000 there is still at ENOSPC (added %ld, errno %ld)",
			 child_val(&o, "added"), child_val(&o, "err"));

	child_kill(held);
	child_kill(a);
	/* A's watches go with its descriptors, before waitpid() returns. */
	child_run(try_all, NULL, &o);
	ksft_test_result(child_ok(&o) && is_full_budget(&o),
			 "once A is gone, uid 1000 in the initial table has its 16 again (added %ld, errno %ld)",
			 child_val(&o, "added"), child_val(&o, "err"));

	write_knob(WATCHES, old);
	{
		char now[64];

		read_line(WATCHES, now, sizeof(now));
		ksft_test_result(old[0] && !strcmp(now, old), "max_user_watches restored (%s)", now);
	}
	ut_check_gone(tables0, "the tables are gone with their processes");
	if (ut_listing()) {
		child_in_table("table", NULL, &o);
		ksft_test_result(child_val(&o, "self") > child_val(&t2, "self") && child_val(&t2, "self") > self1,
				 "table ids increase: %ld, %ld, then %ld", self1, child_val(&t2, "self"),
				 child_val(&o, "self"));
	} else {
		ksft_test_result_code(KSFT_SKIP, "table ids increase",
				      "the twin's ids are inodes, not ordered and reused after a table ends (docs/design.md, difference 3)");
	}
	ut_wait_tables(tables0, UT_RCU_SECS);
	ksft_finished();
}
