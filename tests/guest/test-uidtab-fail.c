// SPDX-License-Identifier: GPL-2.0
/*
 * A failing execns(CLONE_NEWUSER) leaves the caller in its table and
 * nothing behind: the same table id, no new table, no new user_struct (as
 * the module lists them: the twin lists none).  Failures at each stage of
 * an exec: the path (ENOENT), unreadable arguments (EFAULT for the file
 * name, argv and envp), a file that may not be executed (EACCES), one no
 * binary format takes (ENOEXEC).  From the initial table and from inside a
 * table; the caller can enter a table afterwards.
 */
#include <sys/stat.h>
#include "lib/test.h"

#define NOEXEC_FILE	"/tmp/uidtab-noexec"
#define JUNK_FILE	"/tmp/uidtab-junk"

struct failure {
	const char *name;
	int err;
};

static const struct failure failures[] = {
	{ "enoent", ENOENT }, { "efault_path", EFAULT }, { "efault_argv", EFAULT },
	{ "efault_envp", EFAULT }, { "eacces", EACCES }, { "enoexec", ENOEXEC },
};
#define NR_FAILURES	((int)(sizeof(failures) / sizeof(failures[0])))

/* Everything of the caller's a failed call must leave: its table, and no new tables or users. */
struct state {
	long self;
	struct ut_snap s;
};

static struct state before, after;

static void state(struct state *st)
{
	st->self = ut_self();
	ut_snap_read(&st->s);
}

/*
 * The same table, and nothing new listed (what went after RCU meanwhile
 * does not count; the twin lists nothing).
 */
static int table_unchanged(struct state *a, struct state *b, int *nt, int *nu)
{
	ut_snap_new(&a->s, &b->s, nt, nu);
	return a->self >= 0 && a->self == b->self &&
	       (!ut_listing() || (a->s.ok && b->s.ok && !*nt && !*nu));
}

static long fail_one(int i)
{
	char *argv[] = { "/proc/self/exe", "table", NULL };

	switch (i) {
	case 0:
		return execns(CLONE_NEWUSER, "/no/such/program", argv, environ);
	case 1:
		return raw_execns(CLONE_NEWUSER, (void *)1, argv, environ);
	case 2:
		return raw_execns(CLONE_NEWUSER, "/proc/self/exe", (void *)1, environ);
	case 3:
		return raw_execns(CLONE_NEWUSER, "/proc/self/exe", argv, (void *)1);
	case 4:
		return execns(CLONE_NEWUSER, NOEXEC_FILE, argv, environ);
	default:
		return execns(CLONE_NEWUSER, JUNK_FILE, argv, environ);
	}
}

/*
 * Each failure in turn: "<name>_ret", "<name>_err" and "<name>_same" (1 when
 * the state after equals the state before); then execns(CLONE_NEWUSER) for
 * real into "table" (whose "self" ends the output).
 */
static int fail_all(void *arg)
{
	char *argv[] = { "/proc/self/exe", "table", NULL };
	char key[64];

	(void)arg;
	for (int i = 0; i < NR_FAILURES; i++) {
		long ret;
		int err, nt, nu, same;

		state(&before);
		ret = fail_one(i);
		err = errno;
		state(&after);
		same = table_unchanged(&before, &after, &nt, &nu);
		snprintf(key, sizeof(key), "%s_ret", failures[i].name);
		child_putl(key, ret);
		snprintf(key, sizeof(key), "%s_err", failures[i].name);
		child_putl(key, err);
		snprintf(key, sizeof(key), "%s_same", failures[i].name);
		child_putl(key, same);
		if (!same)
			printf("# %s: table %ld -> %ld, %d new tables, %d new uid lines\n",
			       failures[i].name, before.self, after.self, nt, nu);
	}
	child_putl("before_entering", ut_self());
	execns(CLONE_NEWUSER, "/proc/self/exe", argv, environ);
	child_putl("enter_err", errno);
	return 1;
}

static int mode_fail(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	child_putl("table", ut_self());
	return fail_all(NULL);
}

static const struct child_mode modes[] = {
	UT_MODES,
	CHILD_MODE("fail", 0, mode_fail),
};

static void check(const struct child *o, const char *where)
{
	char k1[64], k2[64], k3[64];

	for (int i = 0; i < NR_FAILURES; i++) {
		snprintf(k1, sizeof(k1), "%s_ret", failures[i].name);
		snprintf(k2, sizeof(k2), "%s_err", failures[i].name);
		snprintf(k3, sizeof(k3), "%s_same", failures[i].name);
		ksft_test_result(child_val(o, k1) == -1 && child_val(o, k2) == failures[i].err && child_val(o, k3) == 1,
				 "%s: %s (errno %ld, want %d); same table%s after: %s",
				 where, failures[i].name, child_val(o, k2), failures[i].err,
				 ut_listing() ? ", no new table or user" : " (tables and users not listed on the twin)",
				 child_val(o, k3) == 1 ? "yes" : "no");
	}
}

static int make_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	int ok = fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text);

	if (fd >= 0)
		close(fd);
	return ok && !chmod(path, mode) ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct child o;
	int tables0;
	long t;

	CHILD_DISPATCH(modes, argc, argv);

	tables0 = ut_start(2 * NR_FAILURES + 4);
	ksft_test_result(!make_file(NOEXEC_FILE, "#!/bin/sh\nexit 0\n", 0644) &&
			 !make_file(JUNK_FILE, "\x01\x02\x03 not a program\n", 0755),
			 "a script without execute permission and an executable file of no known format");

	child_run(fail_all, NULL, &o);
	check(&o, "initial table");
	/* The module lists the new table's uid 0; the twin lists no uid lines. */
	ksft_test_result(child_val(&o, "before_entering") == 0 && child_val(&o, "self") > 0 &&
			 child_val(&o, "parent") == 0 && (!ut_listing() || child_val(&o, "uid0") > 0),
			 "after those failures the same process enters table %ld (from %ld; errno %ld)",
			 child_val(&o, "self"), child_val(&o, "before_entering"),
			 child_val(&o, "enter_err") == CHILD_NONE ? 0 : child_val(&o, "enter_err"));

	ut_wait_tables(tables0, UT_RCU_SECS);	/* the last one ends after RCU */
	child_in_table("fail", NULL, &o);
	t = child_val(&o, "table");
	check(&o, "inside a table");
	/* A new id: larger on the module; on the twin an inode, not ordered, but not its parent's. */
	ksft_test_result(t > 0 && child_val(&o, "before_entering") == t && child_val(&o, "parent") == t &&
			 (ut_listing() ? child_val(&o, "self") > t : child_val(&o, "self") > 0 && child_val(&o, "self") != t),
			 "after those failures, execns(CLONE_NEWUSER) from table %ld makes table %ld (parent %ld)",
			 t, child_val(&o, "self"), child_val(&o, "parent"));

	ut_check_gone(tables0, "the tables are gone with their processes");
	unlink(NOEXEC_FILE);
	unlink(JUNK_FILE);
	ksft_finished();
}
