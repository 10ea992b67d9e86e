// SPDX-License-Identifier: GPL-2.0
/*
 * The pipe-buffer budget (fs.pipe-user-pages-soft/-hard, counted in struct
 * user_struct) is per table.  With the soft limit at 32 pages, an
 * unprivileged uid's third default (16-page) pipe is shrunk to the minimum
 * (PIPE_MIN_DEF_BUFFERS: 2 pages since 5.14); uid 1000 holding 36 pages in
 * the initial table gets only minimum pipes there, while uid 1000 in a new
 * table starts again with full 64 KiB pipes, and has its own soft limit.
 * With the hard limit at 32 pages as well, pipe() there fails (ENFILE, as
 * pipe(2) documents for the hard limit), and not in a new table.
 */
#include "lib/test.h"

#define SOFT	"/proc/sys/fs/pipe-user-pages-soft"
#define HARD	"/proc/sys/fs/pipe-user-pages-hard"
/* Pipe sizes are in this kernel's pages (4 KiB, or 16 KiB on arm64-16k). */
#define PAGE	((int)sysconf(_SC_PAGESIZE))
#define FULL	(16 * PAGE)	/* PIPE_DEF_BUFFERS */
#define MIN	(2 * PAGE)
#define NPIPES	4

/* Open n pipes; "p1".."pn" their sizes (-errno for a failed pipe()). */
static int open_pipes(int n)
{
	char key[16];

	for (int i = 1; i <= n; i++) {
		int p[2];

		snprintf(key, sizeof(key), "p%d", i);
		if (pipe(p))
			child_putl(key, -errno);
		else
			child_putl(key, fcntl(p[0], F_GETPIPE_SZ));
	}
	return 0;
}

static int uid_pipes(void *arg)
{
	if (setresuid(UT_UID, UT_UID, UT_UID))
		return 2;
	return open_pipes((int)(long)arg);
}

/* A's share: 16 + 16 + 2 + 2 = 36 pages, over the soft limit. */
static int hold_pipes(void *arg)
{
	static int fds[NPIPES][2];

	(void)arg;
	for (int i = 0; i < NPIPES; i++)
		if (pipe(fds[i]))
			return 0;
	return 1;
}

/* In a new table: "self", then as uid 1000 "self_uid" and the sizes of n pipes. */
static int act_pipes(int n)
{
	child_putl("self", ut_self());
	if (setresuid(UT_UID, UT_UID, UT_UID))
		return 2;
	child_putl("self_uid", ut_self());
	return open_pipes(n);
}

static int mode_pipes3(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return act_pipes(3);
}

static int mode_pipes1(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return act_pipes(1);
}

static const struct child_mode modes[] = {
	UT_MODES,
	CHILD_MODE("pipes3", 0, mode_pipes3),
	CHILD_MODE("pipes1", 0, mode_pipes1),
};

static int sizes_are(const struct child *o, long a, long b, long c)
{
	return child_ok(o) && child_val(o, "p1") == a &&
	       (b == CHILD_NONE || child_val(o, "p2") == b) && (c == CHILD_NONE || child_val(o, "p3") == c);
}

int main(int argc, char **argv)
{
	char soft[64], hard[64], now_soft[64], now_hard[64];
	struct child o;
	int tables0;
	long t;
	pid_t a;

	CHILD_DISPATCH(modes, argc, argv);

	tables0 = ut_start(12);
	read_line(SOFT, soft, sizeof(soft));
	read_line(HARD, hard, sizeof(hard));
	ksft_test_result(soft[0] && hard[0] && !set_knob(SOFT, "32"),
			 "pipe-user-pages-soft lowered from %s to 32 (hard: %s)", soft, hard);

	child_run(uid_pipes, (void *)3L, &o);
	ksft_test_result(sizes_are(&o, FULL, FULL, MIN),
			 "initial table: uid 1000's pipes hold %ld, %ld, then %ld bytes (want %d, %d, %d)",
			 child_val(&o, "p1"), child_val(&o, "p2"), child_val(&o, "p3"), FULL, FULL, MIN);

	a = child_hold(UT_UID, hold_pipes, NULL);
	ksft_test_result(a > 0, "process A (uid 1000, initial table) holds %d pipes", NPIPES);

	child_run(uid_pipes, (void *)1L, &o);
	ksft_test_result(sizes_are(&o, MIN, CHILD_NONE, CHILD_NONE),
			 "process B (uid 1000, initial table): its first pipe holds %ld bytes (want %d)",
			 child_val(&o, "p1"), MIN);

	child_in_table("pipes3", NULL, &o);
	t = child_val(&o, "self");
	ksft_test_result(t > 0 && child_val(&o, "self_uid") == t,
			 "execns(CLONE_NEWUSER): table %ld, still after setresuid(1000) (%ld)",
			 t, child_val(&o, "self_uid"));
	ksft_test_result(sizes_are(&o, FULL, FULL, CHILD_NONE),
			 "uid 1000 in the table, while A holds 36 pages: its pipes hold %ld and %ld bytes (want %d)",
			 child_val(&o, "p1"), child_val(&o, "p2"), FULL);
	ksft_test_result(sizes_are(&o, FULL, FULL, MIN),
			 "and the table's soft limit applies: its third pipe holds %ld bytes (want %d)",
			 child_val(&o, "p3"), MIN);

	child_run(uid_pipes, (void *)1L, &o);
	ksft_test_result(sizes_are(&o, MIN, CHILD_NONE, CHILD_NONE),
			 "the table's pipes were not charged to the initial table, whose uid 1000 still gets %ld bytes",
			 child_val(&o, "p1"));

	/* The hard limit too: over it, pipe() fails for an unprivileged uid. */
	if (set_knob(HARD, "32"))
		ksft_print_msg("could not set pipe-user-pages-hard\n");
	child_run(uid_pipes, (void *)1L, &o);
	ksft_test_result(child_ok(&o) && child_val(&o, "p1") == -ENFILE,
			 "pipe-user-pages-hard=32: uid 1000's pipe() in the initial table fails (%ld, want -ENFILE)",
			 child_val(&o, "p1"));
	child_in_table("pipes1", NULL, &o);
	ksft_test_result(child_val(&o, "self") > 0 && sizes_are(&o, FULL, CHILD_NONE, CHILD_NONE),
			 "and uid 1000 in a new table (%ld) gets a %ld-byte pipe",
			 child_val(&o, "self"), child_val(&o, "p1"));
	write_knob(HARD, hard);
	write_knob(SOFT, soft);

	child_kill(a);
	read_line(SOFT, now_soft, sizeof(now_soft));
	read_line(HARD, now_hard, sizeof(now_hard));
	ksft_test_result(soft[0] && hard[0] && !strcmp(now_soft, soft) && !strcmp(now_hard, hard),
			 "pipe-user-pages-soft/-hard restored (%s, %s)", now_soft, now_hard);
	ut_check_gone(tables0, "the tables are gone with their processes");
	ksft_finished();
}
