// SPDX-License-Identifier: GPL-2.0
/*
 * uid 0: each table has a uid-0 user_struct of its own, listed under it
 * from the start, with counters at zero; two tables, two uid-0 lines; the
 * initial table is not listed.  And it is a budget of its own: with
 * max_user_watches at 16 and root of the initial table holding all it can,
 * root in a new table still adds 16.
 * It is not the kernel's INIT_USER, though, so RLIMIT_NPROC treats it as
 * any uid, as it treats root in a kernel user namespace: an execve after
 * the real uid came back to 0 over the limit (three processes of the
 * table's uid 0; the table counts only its own) fails with EAGAIN
 * (PF_NPROC_EXCEEDED), where the initial table's root is exempt; fork
 * still passes on root's capabilities.
 * The uid-0 lines and their counters are the module's listing; on the twin
 * the tables are checked by /proc/PID/ns/uidtab and NS_GET_PARENT.
 */
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/eventfd.h>
#include "lib/test.h"

#define WATCHES	"/proc/sys/fs/epoll/max_user_watches"
#define LIMIT	16

/* Root of the initial table: hold as many watches as it may ("held"). */
static int hold_all(void *arg)
{
	int err, n = add_watches(LIMIT + 1, &err);

	(void)arg;
	ksft_print_msg("the initial table's root holds %d watches\n", n);
	return n >= 0 && err == ENOSPC;
}

static int try_watches(void *arg)
{
	int err, n = add_watches((int)(long)arg, &err);

	child_putl("self", ut_self());
	child_putl("added", n);
	child_putl("err", err);
	return 0;
}

/* A process that only counts, until killed (off the test's pipe). */
__attribute__((noreturn))
static int stay(void *arg)
{
	(void)arg;
	child_detach();
	for (;;)
		pause();
}

/*
 * RLIMIT_NPROC 1 (root has more processes than that; in a table, arg
 * forks two more first), the real uid to 1000 and back to 0, then
 * exec /bin/true: "exec_errno" only when the exec
 * failed, and then "fork_errno" of a fork (a successful fork clears
 * PF_NPROC_EXCEEDED, so it must come second).
 */
static int try_nproc(void *arg)
{
	struct rlimit rl = { 1, 1 };
	struct child other[2] = { { .pid = 0 }, { .pid = 0 } };
	pid_t c;
	int fork_err = 0;

	child_putl("self", ut_self());
	/*
	 * Two more uid-0 processes of the table (a table counts only its own):
	 * over the limit even while this one's count is with uid 1000.
	 */
	for (int i = 0; arg && i < 2; i++)
		child_start(&other[i], CHILD_BACKGROUND, CHILD_TIMEOUT, stay, NULL);
	if (setrlimit(RLIMIT_NPROC, &rl) || setresuid(UT_UID, -1, -1) || setresuid(0, -1, -1)) {
		child_putl("setup_errno", errno);
		goto out;
	}
	child_putl("table_after", ut_self());
	fflush(stdout);
	execl("/bin/true", "true", (char *)NULL);
	child_putl("exec_errno", errno);
	/* fork() by hand: what fork() itself does over RLIMIT_NPROC is the test */
	c = fork();
	if (c == 0)
		_exit(0);
	if (c < 0)
		fork_err = errno;
	else
		waitpid(c, NULL, 0);
	child_putl("fork_errno", fork_err);
out:
	for (int i = 0; i < 2; i++)
		if (other[i].pid > 0)
			child_kill(other[i].pid);
	return 0;
}

static int mode_watches(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return try_watches((void *)(long)(LIMIT + 1));
}

static int mode_nproc(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return try_nproc((void *)1L);
}

static const struct child_mode modes[] = {
	UT_MODES,
	CHILD_MODE("watches", 0, mode_watches),
	CHILD_MODE("nproc", 0, mode_nproc),
};

/* Tables id1 and id2 (of the sleepers p1 and p2) as /proc/execns/tables lists them. */
static void listed_tables(pid_t p1, long id1, pid_t p2, long id2)
{
	static struct ut_snap s;
	struct ut_user *u1, *u2;
	struct ut_table *t1, *t2;
	int zero0 = 0;

	ut_snap_read(&s);
	t1 = ut_find_table(&s, id1);
	t2 = ut_find_table(&s, id2);
	u1 = ut_find_user(&s, id1, 0);
	u2 = ut_find_user(&s, id2, 0);
	ksft_test_result(p1 > 0 && t1 && t1->parent == 0 && u1 && u1->refs > 0,
			 "root's execns(CLONE_NEWUSER): table %ld (parent %ld) lists its own uid 0 (refs %ld)",
			 id1, t1 ? t1->parent : -1, u1 ? u1->refs : -1);
	ksft_test_result(p2 > 0 && id2 != id1 && t2 && u2 && u2->refs > 0,
			 "a second table (%ld) has its own uid-0 line too (refs %ld)", id2, u2 ? u2->refs : -1);
	ksft_test_result(u1 && !u1->epoll_watches && !u1->pipe_bufs && !u1->unix_inflight &&
			 !u1->locked_vm && !u1->watches,
			 "the new uid 0 starts with every counter at 0 (%ld %ld %ld %ld %ld)",
			 u1 ? u1->epoll_watches : -1, u1 ? u1->pipe_bufs : -1,
			 u1 ? u1->unix_inflight : -1, u1 ? u1->locked_vm : -1, u1 ? u1->watches : -1);
	for (int i = 0; i < s.nusers; i++)
		zero0 += s.u[i].table == 0;
	ksft_test_result(s.ok && !ut_find_table(&s, 0) && !zero0,
			 "the initial table is not listed (no \"table 0\" line, %d \"table 0\" uid lines)", zero0);
	ksft_test_result(s.ok && !s.bad && ut_users_consistent(&s),
			 "every line has the documented form and each \"users N\" counts the uid lines under it (%d bad%s%s)",
			 s.bad, s.bad ? ": " : "", s.first_bad);
}

/*
 * The same five on the twin: the two tables as their processes'
 * /proc/PID/ns/uidtab and NS_GET_PARENT show them; what only the listing
 * shows (uid lines, counters, its form) is a skip.
 */
static void twin_tables(pid_t p1, long id1, pid_t p2, long id2)
{
	char pid1[16], pid2[16];

	snprintf(pid1, sizeof(pid1), "%d", (int)p1);
	snprintf(pid2, sizeof(pid2), "%d", (int)p2);
	ksft_test_result(p1 > 0 && id1 > 0 && ut_table_of(pid1) == id1 && ut_parent_of(pid1) == 0,
			 "root's execns(CLONE_NEWUSER): table %ld (its process's uidtab %ld, parent %ld; uid lines not listed on the twin)",
			 id1, ut_table_of(pid1), ut_parent_of(pid1));
	ksft_test_result(p2 > 0 && id2 > 0 && id2 != id1 && ut_table_of(pid2) == id2 && ut_parent_of(pid2) == 0,
			 "a second table (%ld, parent %ld) is another while the first lives", id2, ut_parent_of(pid2));
	ksft_test_result_code(KSFT_SKIP, "the new uid 0 starts with every counter at 0", UT_NO_LISTING);
	ksft_test_result_code(KSFT_SKIP, "the initial table is not listed", UT_NO_LISTING);
	ksft_test_result_code(KSFT_SKIP, "every line of the listing has the documented form", UT_NO_LISTING);
}

int main(int argc, char **argv)
{
	static struct ut_snap s;
	struct child o;
	char old[64], now[64];
	long id1, id2;
	pid_t p1, p2, a;
	int tables0;

	CHILD_DISPATCH(modes, argc, argv);

	tables0 = ut_start(12);
	p1 = ut_sleeper(&id1);
	p2 = ut_sleeper(&id2);
	if (ut_listing())
		listed_tables(p1, id1, p2, id2);
	else
		twin_tables(p1, id1, p2, id2);
	child_kill(p1);
	child_kill(p2);

	read_line(WATCHES, old, sizeof(old));
	set_knob(WATCHES, "16");
	a = child_hold((uid_t)-1, hold_all, NULL);
	child_run(try_watches, (void *)1L, &o);
	ksft_test_result(a > 0 && child_val(&o, "self") == 0 && child_val(&o, "added") == 0 &&
			 child_val(&o, "err") == ENOSPC,
			 "max_user_watches=16, initial table's root at its limit: another root process gets ENOSPC at once (added %ld, errno %ld)",
			 child_val(&o, "added"), child_val(&o, "err"));
	child_in_table("watches", NULL, &o);
	ksft_test_result(child_val(&o, "self") > 0 && child_val(&o, "added") == LIMIT && child_val(&o, "err") == ENOSPC,
			 "root in table %ld has its own budget: 16 adds, then ENOSPC (added %ld, errno %ld)",
			 child_val(&o, "self"), child_val(&o, "added"), child_val(&o, "err"));
	child_kill(a);
	write_knob(WATCHES, old);
	read_line(WATCHES, now, sizeof(now));
	ksft_test_result(old[0] && !strcmp(now, old), "max_user_watches restored (%s)", now);

	child_run(try_nproc, NULL, &o);
	/* No "exec_errno" line (CHILD_NONE) is the exec that worked. */
	ksft_test_result(child_val(&o, "self") == 0 && child_val(&o, "setup_errno") == CHILD_NONE &&
			 child_val(&o, "exec_errno") == CHILD_NONE && child_ok(&o),
			 "RLIMIT_NPROC 1, real uid 1000 and back to 0 in the initial table: exec works (INIT_USER is exempt; exec errno %ld)",
			 child_val(&o, "exec_errno") == CHILD_NONE ? 0 : child_val(&o, "exec_errno"));
	child_in_table("nproc", NULL, &o);
	ksft_test_result(child_val(&o, "self") > 0 && child_val(&o, "table_after") == child_val(&o, "self") &&
			 child_val(&o, "exec_errno") == EAGAIN && child_val(&o, "fork_errno") == 0,
			 "the same in table %ld with three uid-0 processes: exec is EAGAIN, the table's uid 0 is not INIT_USER; fork works on root's capabilities (exec errno %ld, fork errno %ld)",
			 child_val(&o, "self"), child_val(&o, "exec_errno"), child_val(&o, "fork_errno"));

	ut_check_gone(tables0, "the tables are gone with their processes");
	if (ut_listing()) {
		ut_snap_read(&s);
		ksft_test_result(s.ok && !ut_find_user(&s, id1, 0) && !ut_find_user(&s, id2, 0),
				 "and so are their uid-0 lines");
	} else {
		ksft_test_result_code(KSFT_SKIP, "and so are their uid-0 lines", UT_NO_LISTING);
	}
	ksft_finished();
}
