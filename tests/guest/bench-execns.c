// SPDX-License-Identifier: GPL-2.0
/*
 * make bench, in the guest: every benchmark in one run, variants interleaved
 * (A/B/A/B, the order alternating), >= 200 samples each.  For each
 * comparison it prints
 *
 *	result NAME VARIANT MEDIAN_NS Q1_NS Q3_NS SAMPLES
 *	round NAME R B/A		(one per round, see "Rounds" below)
 *	ratio NAME B/A			(of all the rounds' samples pooled)
 *
 * Rounds: every comparison is split into ROUNDS rounds (argv[3], default
 * 3), each with its own interleaving of A and B, so the host can state a
 * ratio's spread within one guest; it boots twice for the spread between
 * boots.  Where a comparison's cost is one kernel hook, "hook OP VARIANT NS"
 * gives the median's difference in ns per operation.
 *
 * and, for the uid-table sweep and the memory count, "tables ..." and
 * "slab ..." lines.  The host (tests/harness/bench.sh) keeps them in
 * tests/bench-results/ and bench-report.sh turns them into
 * docs/evaluation.md.  Timings under QEMU TCG: only the ratios mean much.
 *
 * Exec latency is taken from just before the call (unshare/execve/execns, or
 * fork/clone for the anchors that include one) to the first instruction of
 * the new program's main(), which reports CLOCK_MONOTONIC over fd 1.
 *
 * On the in-tree twin (upstream/: execns(2) and uid tables of the kernel's
 * own, no module; libexecns's execns_in_tree()) the same comparisons run
 * through the kernel's execns(2) and tables, except what only the module
 * has: its loading (bench_module()), its hooks' disarm delay and its
 * counters.  The host joins a twin run with one of the module on the same
 * source without the series (KERNEL=twin-base) into the in-tree column.
 *
 * Modes of the same binary: "t" (the exec target), "loop" (a worker that
 * times syscall loops in whatever uid table it was started in), "chain"
 * (holders that keep uid tables alive through file descriptors, see
 * hold_tables() in lib/child.h).
 */
#include <limits.h>
#include <sched.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include "lib/test.h"

#define FORBID		EXECNS_SYSFS_DIR "/forbid_unshare"
#define FORBID_IN_TREE	"/proc/sys/kernel/forbid_unshare"
#define SELF		"/usr/local/bin/bench-execns"
#define UI		(CLONE_NEWUTS | CLONE_NEWIPC)
#define UINN		(CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNS | CLONE_NEWNET)
#define MAXS		4096
#define MAXR		16

static int nsamples = 200;
static int max_tables = 10000;
static int nrounds = 3;
static int in_tree;	/* the twin: execns(2) of the kernel's own, no module */

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void die(const char *what)
{
	printf("bench: error: %s: %s\n", what, strerror(errno));
	fflush(stdout);
	exit(2);
}

/* --- statistics --- */

struct series {
	double v[MAXS];
	int n;
};

static void add(struct series *s, double v)
{
	if (s->n < MAXS)
		s->v[s->n++] = v;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The p-quantile (0..1) by linear interpolation; sorts s. */
static double quantile(struct series *s, double p)
{
	double pos, frac;
	int i;

	if (!s->n)
		return 0;
	qsort(s->v, s->n, sizeof(double), cmp_double);
	pos = p * (s->n - 1);
	i = (int)pos;
	frac = pos - i;
	return i + 1 < s->n ? s->v[i] * (1 - frac) + s->v[i + 1] * frac : s->v[i];
}

/* The median of v[from..to) of s, leaving s in its order; optionally of v/null. */
static double range_median(const struct series *s, const struct series *null, int from, int to)
{
	static struct series tmp;

	tmp.n = 0;
	for (int i = from; i < to && i < s->n; i++)
		add(&tmp, null ? s->v[i] / null->v[i] : s->v[i]);
	return quantile(&tmp, 0.5);
}

/*
 * One "round" line per round: mark_a[r]..mark_a[r + 1] are the indices of
 * round r's samples in a (the same for b), in the order they were taken.
 */
static void report_rounds(const char *name, const struct series *a, const struct series *anull,
			  const int *mark_a, const struct series *b, const struct series *bnull,
			  const int *mark_b, int rounds)
{
	for (int r = 0; r < rounds; r++) {
		double ma = range_median(a, anull, mark_a[r], mark_a[r + 1]);
		double mb = range_median(b, bnull, mark_b[r], mark_b[r + 1]);

		if (ma > 0 && mb > 0)
			printf("round %s %d %.4f\n", name, r + 1, mb / ma);
	}
}

static double report(const char *name, const char *variant, struct series *s)
{
	double med = quantile(s, 0.5);

	printf("result %s %s %.0f %.0f %.0f %d\n", name, variant, med,
	       quantile(s, 0.25), quantile(s, 0.75), s->n);
	return med;
}

static void report_pair(const char *name, const char *va, struct series *a,
			const char *vb, struct series *b)
{
	double ma = report(name, va, a), mb = report(name, vb, b);

	printf("ratio %s %.4f\n", name, ma > 0 ? mb / ma : 0);
	fflush(stdout);
}

/*
 * Blocks of A and B alternate, but a block lasts a while and the host's
 * speed drifts (other guests share it): each sample of an op is also divided
 * by the getppid() loop timed right after it (no probe is on that path), and
 * NAME's ratio is of the medians of those quotients; NAME_raw is the plain
 * ratio of medians.
 */
static void normalise(struct series *out, const struct series *s, const struct series *null)
{
	out->n = 0;
	for (int i = 0; i < s->n && i < null->n; i++)
		add(out, s->v[i] / null->v[i]);
}

/*
 * a and b are left in their order (a series may be compared twice); the
 * round lines are of the normalised medians, round r's samples being
 * mark_a[r]..mark_a[r + 1] of a (mark_b of b).
 */
static void report_pair_norm(const char *name, const char *va, struct series *a,
			     struct series *anull, const int *mark_a, const char *vb,
			     struct series *b, struct series *bnull, const int *mark_b)
{
	static struct series na, nb, ca, cb;
	char raw[80], v[80];
	double ma, mb;

	if (!a->n || !b->n)
		return;
	report_rounds(name, a, anull, mark_a, b, bnull, mark_b, nrounds);
	normalise(&na, a, anull);
	normalise(&nb, b, bnull);
	ca = *a;
	cb = *b;
	snprintf(raw, sizeof(raw), "%s_raw", name);
	report_pair(raw, va, &ca, vb, &cb);
	snprintf(v, sizeof(v), "%s/getppid", va);
	ma = report(name, v, &na);
	snprintf(v, sizeof(v), "%s/getppid", vb);
	mb = report(name, v, &nb);
	printf("ratio %s %.4f\n", name, ma > 0 ? mb / ma : 0);
	fflush(stdout);
}

/*
 * "hook NAME VARIANT NS": what b costs over a, in ns per operation, from
 * the normalised medians scaled back by a's getppid loop (so host drift
 * between the blocks cancels).
 */
static void report_hook(const char *name, const char *variant, const struct series *a,
			const struct series *anull, const struct series *b,
			const struct series *bnull)
{
	double qa, qb, nul;

	if (!a->n || !b->n)
		return;
	qa = range_median(a, anull, 0, a->n);
	qb = range_median(b, bnull, 0, b->n);
	nul = range_median(anull, NULL, 0, anull->n);
	printf("hook %s %s %.0f\n", name, variant, (qb - qa) * nul);
}

/* --- exec latency --- */

enum how { EXECVE, EXECNS, UNSHARE_EXECVE, CLONE_EXECVE, FORK_EXECNS };

static volatile int64_t *shared_t0;	/* written by the child before its call */

static double exec_sample(enum how how, int flags)
{
	char *argv[] = { SELF, "t", NULL };
	int64_t t0 = 0, t1 = -1;
	int p[2], status;
	pid_t pid;

	if (pipe(p))
		die("pipe");
	*shared_t0 = 0;
	/*
	 * fork() by hand: two anchors time fork/clone itself, and
	 * child_start()'s pipe and flush would sit inside the others' interval.
	 */
	if (how == CLONE_EXECVE || how == FORK_EXECNS) {
		t0 = now_ns();
		pid = how == CLONE_EXECVE ?
		      syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, NULL) : fork();
	} else {
		pid = fork();
	}
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		switch (how) {
		case EXECVE:
			*shared_t0 = now_ns();
			execve(SELF, argv, environ);
			break;
		case EXECNS:
			*shared_t0 = now_ns();
			execns(flags, SELF, argv, environ);
			break;
		case UNSHARE_EXECVE:
			*shared_t0 = now_ns();
			if (unshare(flags))
				_exit(126);
			execve(SELF, argv, environ);
			break;
		case CLONE_EXECVE:
			execve(SELF, argv, environ);
			break;
		case FORK_EXECNS:
			execns(flags, SELF, argv, environ);
			break;
		}
		_exit(127);
	}
	if (pid < 0)
		die("fork");
	close(p[1]);
	if (read(p[0], &t1, sizeof(t1)) != sizeof(t1))
		t1 = -1;
	close(p[0]);
	waitpid(pid, &status, 0);
	if (t1 < 0) {
		errno = 0;
		printf("bench: exec variant %d flags %#x failed (status %#x)\n", how, flags, status);
		exit(2);
	}
	if (!t0)
		t0 = *shared_t0;
	return (double)(t1 - t0);
}

/* A against B, interleaved, the order alternating each sample; in rounds. */
static void exec_pair(const char *name, enum how ha, int fa, enum how hb, int fb,
		      const char *va, const char *vb)
{
	static struct series a, b;
	int mark[MAXR + 1], per = (nsamples + nrounds - 1) / nrounds;

	a.n = b.n = 0;
	for (int r = 0; r < nrounds; r++) {
		mark[r] = a.n;
		for (int i = 0; i < per; i++) {
			if (i & 1) {
				add(&b, exec_sample(hb, fb));
				add(&a, exec_sample(ha, fa));
			} else {
				add(&a, exec_sample(ha, fa));
				add(&b, exec_sample(hb, fb));
			}
		}
	}
	mark[nrounds] = a.n;
	report_rounds(name, &a, NULL, mark, &b, NULL, mark, nrounds);
	report_pair(name, va, &a, vb, &b);
}

/* --- syscall loops, timed by a worker in its own uid table (or none) --- */

enum op { OP_FORK, OP_SETUID, OP_GETPRIO, OP_EXEC, OP_NULL, NR_OPS };
static const char *const op_names[NR_OPS] = { "fork", "setuid", "getprio", "exec", "null" };
static const int op_batch[NR_OPS] = { 4, 50, 200, 1, 500 };

/* ns per operation, over one batch. */
static double op_sample(enum op op)
{
	char *argv[] = { SELF, "t", NULL };
	int64_t t0 = now_ns();
	int status;
	pid_t pid;

	for (int i = 0; i < op_batch[op]; i++) {
		switch (op) {
		case OP_FORK:
			/* fork() by hand: it is what this op times */
			pid = fork();
			if (pid == 0)
				_exit(0);
			waitpid(pid, &status, 0);
			break;
		case OP_SETUID:
			/*
			 * a real uid change: alloc_uid() (find_user + insert) and
			 * alloc_ucounts(); free_uid() and put_ucounts() are not hooked
			 */
			if (setresuid(1000, -1, -1) || setresuid(0, -1, -1))
				die("setresuid");
			break;
		case OP_GETPRIO:
			/* uid 4242 has no user_struct: a find_user() miss */
			errno = 0;
			getpriority(PRIO_USER, 4242);
			break;
		case OP_NULL:
			/* the host's speed right now: no probe is on this path */
			syscall(SYS_getppid);
			break;
		case OP_EXEC:
			/* fork() by hand: it is timed with the exec */
			pid = fork();
			if (pid == 0) {
				int fd = open("/dev/null", O_WRONLY);

				dup2(fd, 1);
				execve(SELF, argv, environ);
				_exit(127);
			}
			waitpid(pid, &status, 0);
			break;
		default:
			break;
		}
	}
	return (double)(now_ns() - t0) / op_batch[op];
}

/* Worker: "loop MASK COUNT": COUNT rounds over the ops in MASK, one line each. */
static int loop_main(int mask, int count)
{
	for (int i = 0; i < count; i++)
		for (int op = 0; op < NR_OPS; op++)
			if (mask & (1 << op))
				printf("%s %.1f\n", op_names[op], op_sample(op));
	fflush(stdout);
	return 0;
}

struct worker_exec {
	int flags;
	char **argv;
};

static int worker_exec(void *arg)
{
	const struct worker_exec *w = arg;

	if (w->flags < 0)
		execve(SELF, w->argv, environ);
	else
		execns(w->flags, SELF, w->argv, environ);
	return 127;
}

/* Run a worker via execve (flags < 0) or execns(flags); add its samples. */
static void run_worker(int flags, int mask, int count, struct series *s)
{
	char cnt[16], msk[16], line[128], name[32];
	char *argv[] = { SELF, "loop", msk, cnt, NULL };
	struct worker_exec w = { flags, argv };
	struct child c;
	double v;
	FILE *f;

	snprintf(msk, sizeof(msk), "%d", mask);
	snprintf(cnt, sizeof(cnt), "%d", count);
	if (child_start(&c, CHILD_STDOUT | CHILD_LIVE, 0, worker_exec, &w))
		die("fork");
	/* more lines than c.text holds: read here, line by line */
	f = fdopen(c.out, "r");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%31s %lf", name, &v) == 2)
			for (int op = 0; op < NR_OPS; op++)
				if (!strcmp(name, op_names[op]))
					add(&s[op], v);
	fclose(f);
	c.out = -1;
	child_finish(&c);
	if (!child_ok(&c))
		printf("bench: worker (flags %d) exited with status %#x\n", flags, c.status);
}

/* --- keeping uid tables alive cheaply --- */

/* Uid tables kept alive by descriptors (child.h's hold_tables()). */
static int *holders;
static int nholders;

/* n more holders: via execns(CLONE_NEWUSER) (tables) or execve (baseline). */
static void make_holders(int n, int flags)
{
	int got = hold_tables(n, flags, holders + nholders);

	nholders += got;
	if (got < n && n > 0)
		printf("bench: only %d of %d holders made\n", got, n);
}

static void drop_holders(void)
{
	while (nholders > 0)
		close(holders[--nholders]);
}

/* Wait for freed tables to be gone and the uid hooks disarmed (5 s at most). */
static void settle_tables(void)
{
	for (int i = 0; i < 100 && (execns_stat(EXECNS_STAT_TABLES) > 0 || hooks_armed() == 1); i++)
		usleep(50000);
	usleep(100000);
}

/* --- slab accounting --- */

struct slab {
	char name[64];
	long objs, size, pages;		/* active objects, object size, pages in slabs */
};
static struct slab slab0[512], slab1[512];

static int slab_read(struct slab *t)
{
	char line[512];
	int n = 0;
	long num, per, pps, active_slabs, num_slabs;
	FILE *f = fopen("/proc/slabinfo", "r");

	while (f && n < 512 && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %ld %ld %ld %ld %ld : tunables %*d %*d %*d : slabdata %ld %ld",
			   t[n].name, &t[n].objs, &num, &t[n].size, &per, &pps,
			   &active_slabs, &num_slabs) == 8) {
			t[n].pages = num_slabs * pps;
			n++;
		}
	}
	if (f)
		fclose(f);
	return n;
}

/* Per-holder slab bytes between two snapshots, and the caches that grew. */
static double slab_delta(const char *what, int n0, int n1, int count)
{
	double total = 0;

	for (int j = 0; j < n1; j++) {
		long objs = 0;

		for (int i = 0; i < n0; i++)
			if (!strcmp(slab0[i].name, slab1[j].name))
				objs = slab0[i].objs;
		double d = (double)(slab1[j].objs - objs) * slab1[j].size / count;

		total += d;
		if (d >= 8 || d <= -8)
			printf("slab %s %s %.0f %ld\n", what, slab1[j].name, d, slab1[j].size);
	}
	printf("slab %s total %.0f 0\n", what, total);
	return total;
}

/* --- module load/unload inside the guest (lib/sys.h) --- */

static void module_unload(void)
{
	if (execns_rmmod(10))
		die("rmmod execns");
}

static void module_load(void)
{
	if (execns_insmod(""))
		die("insmod execns.ko");
	execns_available();	/* refresh libexecns's slot */
}

/* --- the benchmarks --- */

static void bench_exec(void)
{
	const char *knob = in_tree ? FORBID_IN_TREE : FORBID;
	long forbid = read_long(knob);

	write_knob(knob, "0");	/* unshare(CLONE_NEWIPC) is the anchor */
	exec_pair("execns0", EXECVE, 0, EXECNS, 0, "execve", "execns(0)");
	exec_pair("execns_uts_ipc", UNSHARE_EXECVE, UI, EXECNS, UI,
		  "unshare+execve", "execns");
	exec_pair("execns_uts_ipc_ns_net", UNSHARE_EXECVE, UINN, EXECNS, UINN,
		  "unshare+execve", "execns");
	exec_pair("clone_uts_ipc", CLONE_EXECVE, UI, FORK_EXECNS, UI,
		  "clone+execve", "fork+execns");
	exec_pair("clone_uts_ipc_ns_net", CLONE_EXECVE, UINN, FORK_EXECNS, UINN,
		  "clone+execve", "fork+execns");
	/* forbid_unshare=1 arms the ksys_unshare hook: leave it as it was */
	write_knob(knob, forbid == 1 ? "1" : "0");
}

#define DISARM_DELAY	EXECNS_SYSFS_DIR "/disarm_delay_ms"

/*
 * Make-and-drop: execns(CLONE_NEWUSER) of a program that exits at once, the
 * table made before the exec and dropped when the program exits, against
 * execns(0), interleaved.  With the module's hysteresis (disarm_delay_ms,
 * default 1000) the next call finds the hooks still armed; with 0 each
 * call arms them again, after waiting for the disarm the last one's end
 * started (module/uidhooks.c).
 */
static void bench_make_drop(void)
{
	char delay0[32] = "1000";

	long arms;

	settle_tables();
	if (in_tree) {
		/* no hooks to arm, no delay to vary */
		exec_pair("table_make_drop", EXECNS, 0, EXECNS, CLONE_NEWUSER,
			  "execns(0)", "execns(NEWUSER)");
		return;
	}
	read_line(DISARM_DELAY, delay0, sizeof(delay0));
	arms = execns_stat(EXECNS_STAT_HOOK_ARMS);
	exec_pair("table_make_drop", EXECNS, 0, EXECNS, CLONE_NEWUSER,
		  "execns(0)", "execns(NEWUSER)");
	printf("# left table_make_drop: hooks armed %ld times\n", execns_stat(EXECNS_STAT_HOOK_ARMS) - arms);
	write_knob(DISARM_DELAY, "0");
	settle_tables();
	arms = execns_stat(EXECNS_STAT_HOOK_ARMS);
	exec_pair("table_make_drop_nodelay", EXECNS, 0, EXECNS, CLONE_NEWUSER,
		  "execns(0)", "execns(NEWUSER)");
	printf("# left table_make_drop_nodelay: hooks armed %ld times\n", execns_stat(EXECNS_STAT_HOOK_ARMS) - arms);
	write_knob(DISARM_DELAY, delay0);
	settle_tables();
}

/*
 * A table made and dropped, then the uid hooks seen disarmed again: the
 * state of a loaded module after tables have existed.
 */
static void table_made_and_dropped(void)
{
	long arms = execns_stat(EXECNS_STAT_HOOK_ARMS);

	make_holders(1, CLONE_NEWUSER);
	drop_holders();
	settle_tables();
	if (execns_stat(EXECNS_STAT_HOOK_ARMS) <= arms || hooks_armed() == 1)
		printf("bench: warning: hook_arms %ld -> %ld, hooks %s after a table\n",
		       arms, execns_stat(EXECNS_STAT_HOOK_ARMS), hooks_armed() == 1 ? "armed" : "disarmed");
}

enum { UNLOADED, LOADED, LOADED_AFTER, NR_MOD };

/* Bring the module into variant v's state (see bench_module()). */
static void module_state(int v, int *had_table)
{
	if (v == UNLOADED || (v == LOADED && *had_table)) {
		if (execns_loaded())
			module_unload();
		*had_table = 0;
	}
	if (v != UNLOADED && !execns_loaded())
		module_load();
	if (v == LOADED_AFTER) {
		table_made_and_dropped();
		*had_table = 1;
	}
}

/*
 * Not loaded / loaded, never a table (fresh insmod) / loaded after a table
 * was made and dropped (hooks disarmed again): in each round two blocks of
 * each, the order U L A, A L U.
 */
static void bench_module(void)
{
	static struct series s[NR_MOD][NR_OPS];
	static const char *const vname[NR_MOD] = { "unloaded", "loaded", "loaded-after-tables" };
	int per = (nsamples + 2 * nrounds - 1) / (2 * nrounds), had_table = 0;
	int mark[NR_MOD][MAXR + 1];
	char name[64];

	for (int r = 0; r < nrounds; r++) {
		for (int v = 0; v < NR_MOD; v++)
			mark[v][r] = s[v][OP_NULL].n;
		for (int b = 0; b < 2 * NR_MOD; b++) {
			int v = b < NR_MOD ? b : 2 * NR_MOD - 1 - b;

			module_state(v, &had_table);
			for (int i = 0; i < per; i++)
				for (int op = 0; op < NR_OPS; op++)
					add(&s[v][op], op_sample(op));
		}
	}
	for (int v = 0; v < NR_MOD; v++)
		mark[v][nrounds] = s[v][OP_NULL].n;
	if (!execns_loaded())
		module_load();
	for (int op = 0; op < OP_NULL; op++) {
		snprintf(name, sizeof(name), "module_loaded_%s", op_names[op]);
		report_pair_norm(name, vname[UNLOADED], &s[UNLOADED][op], &s[UNLOADED][OP_NULL],
				 mark[UNLOADED], vname[LOADED], &s[LOADED][op],
				 &s[LOADED][OP_NULL], mark[LOADED]);
		snprintf(name, sizeof(name), "module_after_tables_%s", op_names[op]);
		report_pair_norm(name, vname[UNLOADED], &s[UNLOADED][op], &s[UNLOADED][OP_NULL],
				 mark[UNLOADED], vname[LOADED_AFTER], &s[LOADED_AFTER][op],
				 &s[LOADED_AFTER][OP_NULL], mark[LOADED_AFTER]);
	}
}

enum { OUTSIDE, ARMED_OUTSIDE, INSIDE, NR_TAB };

/*
 * Workers outside any table (hooks disarmed), outside while another table
 * lives (hooks armed, the task not in a table) and inside a table of their
 * own; in each round two blocks of each, the order O A I, I A O.  The hook
 * lines: inside - outside is what the hooks' redirection costs a task in a
 * table; armed - outside what armed hooks cost everyone else.
 */
static void bench_table(void)
{
	static struct series s[NR_TAB][NR_OPS];
	static const char *const vname[NR_TAB] = { "outside", "outside-armed", "inside" };
	int per = (nsamples + 2 * nrounds - 1) / (2 * nrounds);
	int mark[NR_TAB][MAXR + 1];
	char name[64];

	for (int r = 0; r < nrounds; r++) {
		for (int v = 0; v < NR_TAB; v++)
			mark[v][r] = s[v][OP_NULL].n;
		for (int b = 0; b < 2 * NR_TAB; b++) {
			int v = b < NR_TAB ? b : 2 * NR_TAB - 1 - b;

			settle_tables();
			if (v == ARMED_OUTSIDE)
				make_holders(1, CLONE_NEWUSER);
			run_worker(v == INSIDE ? CLONE_NEWUSER : -1, (1 << NR_OPS) - 1, per, s[v]);
			drop_holders();
		}
	}
	for (int v = 0; v < NR_TAB; v++)
		mark[v][nrounds] = s[v][OP_NULL].n;
	settle_tables();
	for (int op = 0; op < OP_NULL; op++) {
		snprintf(name, sizeof(name), "table_inside_%s", op_names[op]);
		report_pair_norm(name, vname[OUTSIDE], &s[OUTSIDE][op], &s[OUTSIDE][OP_NULL],
				 mark[OUTSIDE], vname[INSIDE], &s[INSIDE][op],
				 &s[INSIDE][OP_NULL], mark[INSIDE]);
		snprintf(name, sizeof(name), "table_armed_outside_%s", op_names[op]);
		report_pair_norm(name, vname[OUTSIDE], &s[OUTSIDE][op], &s[OUTSIDE][OP_NULL],
				 mark[OUTSIDE], vname[ARMED_OUTSIDE], &s[ARMED_OUTSIDE][op],
				 &s[ARMED_OUTSIDE][OP_NULL], mark[ARMED_OUTSIDE]);
		report_hook(op_names[op], "inside", &s[OUTSIDE][op], &s[OUTSIDE][OP_NULL],
			    &s[INSIDE][op], &s[INSIDE][OP_NULL]);
		report_hook(op_names[op], "outside-armed", &s[OUTSIDE][op], &s[OUTSIDE][OP_NULL],
			    &s[ARMED_OUTSIDE][op], &s[ARMED_OUTSIDE][OP_NULL]);
	}
}

/*
 * The tables sweep cannot interleave (10,000 tables are not rebuilt per
 * sample), so each sample of an op is divided by the getppid() sample
 * taken right after it in the same worker: host-speed drift cancels.
 */
static double print_point(const char *count, struct series *s, int op)
{
	static struct series norm;
	double med;

	norm.n = 0;
	for (int i = 0; i < s[op].n && i < s[OP_NULL].n; i++)
		add(&norm, s[op].v[i] / s[OP_NULL].v[i]);
	med = quantile(&norm, 0.5);
	printf("tables %s %s %.0f %.0f %.0f %.4f\n", count, op_names[op],
	       quantile(&s[op], 0.5), quantile(&s[op], 0.25), quantile(&s[op], 0.75), med);
	return med;
}

/* Lookup latency inside a table vs live tables; memory per table. */
static void bench_tables(void)
{
	static const int points[] = { 1, 10, 100, 1000, 3000, 10000, 30000, 100000 };
	static struct series start[NR_OPS], cur[NR_OPS], end[NR_OPS];
	int mask = (1 << OP_SETUID) | (1 << OP_GETPRIO) | (1 << OP_NULL);
	int n0, n1, base = 1000, count;
	double per_plain, per_table, norm1[NR_OPS] = { 0 }, normn[NR_OPS] = { 0 };
	int64_t t0;
	char name[64];

	/* Memory: holders without tables (execve) first, as the baseline. */
	settle_tables();
	n0 = slab_read(slab0);
	make_holders(base, -1);
	usleep(200000);
	n1 = slab_read(slab1);
	per_plain = slab_delta("plain", n0, n1, base);
	drop_holders();

	run_worker(CLONE_NEWUSER, mask, nsamples, start);
	for (int op = OP_SETUID; op <= OP_GETPRIO; op++)
		norm1[op] = print_point("1", start, op);

	settle_tables();
	n0 = slab_read(slab0);
	t0 = now_ns();
	for (size_t p = 1; p < sizeof(points) / sizeof(points[0]) && points[p] <= max_tables; p++) {
		/* The worker's own table is one of them. */
		make_holders(points[p] - 1 - nholders, CLONE_NEWUSER);
		/* the twin lists no tables: each holder keeps one */
		count = in_tree ? nholders + 1 : execns_stat(EXECNS_STAT_TABLES) + 1;
		for (int op = 0; op < NR_OPS; op++)
			cur[op].n = 0;
		run_worker(CLONE_NEWUSER, mask, nsamples, cur);
		snprintf(name, sizeof(name), "%d", count);
		for (int op = OP_SETUID; op <= OP_GETPRIO; op++)
			normn[op] = print_point(name, cur, op);
		fflush(stdout);
	}
	printf("# %d tables made in %.1f s\n", nholders, (now_ns() - t0) / 1e9);
	n1 = slab_read(slab1);
	count = nholders;
	per_table = slab_delta("table", n0, n1, count);
	drop_holders();
	settle_tables();
	sleep(1);
	/* What is left once every table is gone: should be noise. */
	n1 = slab_read(slab1);
	slab_delta("left", n0, n1, count);
	if (!in_tree)
		printf("# left: tables %ld, user_structs %ld (/proc/execns/stats)\n",
		       execns_stat(EXECNS_STAT_TABLES), execns_stat(EXECNS_STAT_USERS));

	run_worker(CLONE_NEWUSER, mask, nsamples, end);
	for (int op = OP_SETUID; op <= OP_GETPRIO; op++) {
		double m1 = (norm1[op] + print_point("1end", end, op)) / 2;

		snprintf(name, sizeof(name), "tables_%d_vs_1_%s", count + 1, op_names[op]);
		printf("ratio %s %.4f\n", name, m1 > 0 ? normn[op] / m1 : 0);
	}
	printf("ratio mem_per_table_bytes %.0f\n", per_table - per_plain);
	printf("ratio mem_per_table_with_holder_bytes %.0f\n", per_table);
	fflush(stdout);
}

/* Mode "t": the new program's first timestamp, on fd 1. */
static int mode_stamp(int argc, char **argv)
{
	int64_t t1 = now_ns();

	(void)argc;
	(void)argv;
	return write(1, &t1, sizeof(t1)) == sizeof(t1) ? 0 : 1;
}

static int mode_loop(int argc, char **argv)
{
	(void)argc;
	return loop_main(atoi(argv[2]), atoi(argv[3]));
}

static const struct child_mode modes[] = {
	CHILD_MODE("t", 0, mode_stamp),
	CHILD_MODE("loop", 2, mode_loop),
	CHILD_MODE_CHAIN,
};

int main(int argc, char **argv)
{
	struct rlimit rl = { 1 << 20, 1 << 20 };
	const char *only = getenv("BENCH_ONLY");

	CHILD_DISPATCH(modes, argc, argv);

	if (argc > 1)
		nsamples = atoi(argv[1]);
	if (argc > 2)
		max_tables = atoi(argv[2]);
	if (argc > 3)
		nrounds = atoi(argv[3]);
	if (nrounds < 1 || nrounds > MAXR)
		nrounds = 3;
	if (nsamples < 4 || nsamples > MAXS / 2)
		nsamples = 200;
	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		rl.rlim_cur = rl.rlim_max = 65536;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	shared_t0 = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared_t0 == MAP_FAILED)
		die("mmap");
	holders = calloc(max_tables + 1016, sizeof(int));
	if (!holders)
		die("calloc");
	if (!execns_available()) {
		printf("bench: neither the execns module nor the kernel's execns(2) is there\n");
		return 2;
	}
	in_tree = execns_in_tree();
	printf("# bench-execns: %d samples per variant in %d rounds, up to %d tables%s\n",
	       nsamples, nrounds, max_tables, in_tree ? ", in-tree execns(2)" : "");
	fflush(stdout);
	if (!only || strstr(only, "tables"))
		bench_tables();
	if (!only || strstr(only, "exec"))
		bench_exec();
	if (!only || strstr(only, "make_drop"))
		bench_make_drop();
	if (!only || strstr(only, "table_in"))
		bench_table();
	/* loading the module is the module's own row: n/a on the twin */
	if (!in_tree && (!only || strstr(only, "module")))
		bench_module();
	printf("bench: done\n");
	return 0;
}
