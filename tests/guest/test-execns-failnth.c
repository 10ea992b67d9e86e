// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel fault injection (CONFIG_FAULT_INJECTION with FAILSLAB and
 * FAIL_PAGE_ALLOC): fail the caller's 1st, 2nd, ... slab or page allocation
 * inside execns(2) through /proc/self/task/TID/fail-nth, for each namespace
 * flag alone and for all of them at once, until a call gets through with
 * the injected failure still pending (every allocation on the path has
 * been failed once).  CLONE_NEWUSER's sweep covers the creation of a uid
 * table.  Then, inside a uid table, the same sweep over the kernel's own
 * calls that reach the module's allocations or counts there: setuid() (the
 * table's user_struct and ucounts), fork() and unshare(CLONE_NEWUSER).
 * "test-execns-failnth table" runs those alone.
 *
 * Each failure must be an errno that leaves the caller as it was
 * (namespaces, root and cwd, credentials, uid table, descriptors); a
 * failure past exec's point of no return ends the process with SIGSEGV, as
 * execve(2) does (or the new program's own start-up fails: exit 127), and
 * is counted apart.  Nothing may be left behind (uid tables, module
 * user_structs and ucounts; kmemleak's scan after rmmod covers the rest;
 * on the twin, whose tables are not listed, no namespace inode number
 * held).  Debian's stock kernels have no fault injection: there this skips,
 * and test-execns-faults covers the module's own allocation sites through
 * its fail_nth parameter instead.
 */
#include <sched.h>
#include <time.h>
#include "lib/test.h"

/* CLONE_NEWNET's 500-odd allocations have their own sweep; twice is too slow. */
#define ALL_BUT_NET	(EXECNS_FLAGS & ~CLONE_NEWNET)
#define MAX_NTH		4000
/*
 * Seconds for every sweep.  Only the debug kernel has fail-nth, and there
 * the runner kills a test program at 900 s (stock kernels: 300).
 */
#define DEADLINE	840
/* The name the new program runs under: comm after exec's point of no return. */
#define NEW_NAME	"execns-fnth-new"
#define NEW_PATH	"/tmp/" NEW_NAME
#define TABLE_UID	4242

/* How one try ended. */
enum outcome {
	FAILED,		/* an errno, the caller intact */
	WRONG,		/* anything else */
	PAST_PNR,	/* ended past exec's point of no return (SIGSEGV, or the
			 * new program's own start-up failed) */
	FIRED_OK,	/* the call succeeded, the injected failure was absorbed */
	DONE,		/* the call succeeded with the failure still pending */
};

static const struct {
	unsigned long flag;
	const char *name;
} sweeps[] = {
	/* the module's own paths first; CLONE_NEWNET, the longest, last */
	{ CLONE_NEWUSER, "CLONE_NEWUSER (uid table creation)" },
	{ CLONE_NEWNS, "CLONE_NEWNS" },
	{ CLONE_NEWUTS, "CLONE_NEWUTS" },
	{ CLONE_NEWIPC, "CLONE_NEWIPC" },
	{ CLONE_NEWPID, "CLONE_NEWPID" },
	{ CLONE_NEWCGROUP, "CLONE_NEWCGROUP" },
	{ CLONE_NEWTIME, "CLONE_NEWTIME" },
	{ ALL_BUT_NET, "every flag but CLONE_NEWNET at once" },
	{ CLONE_NEWNET, "CLONE_NEWNET" },
};
#define NR_SWEEPS	(sizeof(sweeps) / sizeof(sweeps[0]))

static time_t start;

/*
 * Fail GFP_KERNEL allocations too (the knobs default to Y).  User pages
 * (__GFP_HIGHMEM) stay exempt: the new program's page faults are not
 * execns's, and they would double the sweeps' length.
 */
static void allow_sleeping_failures(void)
{
	static const char *const knobs[] = {
		"/sys/kernel/debug/failslab/ignore-gfp-wait",
		"/sys/kernel/debug/fail_page_alloc/ignore-gfp-wait",
	};

	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
		if (access(knobs[i], W_OK) == 0)
			write_knob(knobs[i], "N");
	if (access("/sys/kernel/debug/failslab/verbose", W_OK) == 0)
		write_knob("/sys/kernel/debug/failslab/verbose", "0");
	if (access("/sys/kernel/debug/fail_page_alloc/verbose", W_OK) == 0)
		write_knob("/sys/kernel/debug/fail_page_alloc/verbose", "0");
}

/*
 * Open this thread's fail-nth on descriptor 0: execns keeps 0-2, so the new
 * program can read what is left of the count without allocating (a read of
 * an open fail-nth copies from the stack; an open() would itself allocate).
 */
static int open_fail_nth_on_stdin(void)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/fail-nth", gettid());
	fd = open(path, O_RDWR);
	if (fd < 0 || dup2(fd, 0) < 0)
		return -1;
	if (fd != 0)
		close(fd);
	return 0;
}

/* Arm (n > 0) or disarm (n = 0) the failure; nothing allocates after it. */
static int set_fail_nth(int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%d", n);

	return pwrite(0, buf, len, 0) == len ? 0 : -1;
}

/* What is left of the count: 0 once the injected failure happened. */
static long left_fail_nth(void)
{
	char buf[16] = "";

	if (pread(0, buf, sizeof(buf) - 1, 0) <= 0)
		return -1;
	return strtol(buf, NULL, 10);
}

/* The new program: report whether the armed failure happened on the way. */
static int ran(void)
{
	long left = left_fail_nth();

	set_fail_nth(0);
	return left > 0 ? DONE + 40 : left == 0 ? FIRED_OK + 40 : 1;
}

/*
 * The child of one try: arm, execns, and on failure check the caller and
 * print "errno E" (on the test's pipe: the new program writes nothing).
 */
static int try_child(unsigned long flags, int nth)
{
	struct proc_state before, after;
	char *argv[] = { NEW_NAME, "ran", NULL };
	int probe, err;
	long ret;

	if (open_fail_nth_on_stdin())
		return 1;
	/* the new program's start-up complaints (ld.so: ENOMEM) are noise */
	dup2(open("/dev/null", O_WRONLY | O_CLOEXEC), 2);
	probe = open("/", O_RDONLY);
	snapshot(&before);
	if (set_fail_nth(nth))
		return 1;
	ret = execns(flags, NEW_PATH, argv, environ);
	err = errno;
	/* disarm before anything else allocates */
	if (set_fail_nth(0))
		return 1;
	if (ret != -1 || err <= 0 || err >= 4096) {
		ksft_print_msg("fail-nth %d: ret %ld errno %d\n", nth, ret, err);
		return 1;
	}
	snapshot(&after);
	if (!same_state(&before, &after, "caller") || fcntl(probe, F_GETFD) < 0) {
		ksft_print_msg("fail-nth %d: caller changed (errno %d)\n", nth, err);
		return 1;
	}
	child_putl("errno", err);
	return 0;
}

/*
 * Classify a try's ended child (CHILD_COMM: its name tells whether it had
 * passed exec's point of no return); a clean failure's errno into *err.
 */
static enum outcome classify(const struct child *c, int nth, int *err)
{
	bool pnr = !strncmp(c->comm, NEW_NAME, strlen(NEW_NAME));
	long e = child_val(c, "errno");
	int code = WIFEXITED(c->status) ? WEXITSTATUS(c->status) : -1;
	int sig = WIFSIGNALED(c->status) ? WTERMSIG(c->status) : 0;

	*err = e == CHILD_NONE ? 0 : (int)e;
	if (c->status == -1)
		return WRONG;
	if (code == 0 && e != CHILD_NONE)
		return FAILED;
	if (code == FIRED_OK + 40 || code == DONE + 40)
		return code - 40;
	/* execve(2) itself ends a process it cannot finish with SIGSEGV */
	if (pnr && sig == SIGSEGV)
		return PAST_PNR;
	/* a static-pie program whose relocation's mprotect() fails exits 127 */
	if (pnr && code == 127)
		return PAST_PNR;
	ksft_print_msg("fail-nth %d: %s %d%s\n", nth, sig ? "signal" : "exit", sig ? sig : code,
		  pnr ? " (in the new program)" : "");
	return WRONG;
}

struct tally {
	int tries, wrong, pnr, absorbed, errnos[200];
	bool done, late, counts_changed;
};

static void summarise(const struct tally *t, char *buf, size_t len)
{
	int off = snprintf(buf, len, "%d failed",
			   t->tries - t->done - t->wrong - t->pnr - t->absorbed);
	const char *sep = ": ";

	for (int e = 1; e < 200 && off < (int)len; e++) {
		if (!t->errnos[e])
			continue;
		off += snprintf(buf + off, len - off, "%s%s x%d", sep,
				strerrorname_np(e) ?: "?", t->errnos[e]);
		sep = ", ";
	}
	if (off < (int)len)
		snprintf(buf + off, len - off, "; %d absorbed, %d past exec's point of no return (SIGSEGV), %d wrong",
			 t->absorbed, t->pnr, t->wrong);
}

/* Add one try's outcome; true when the sweep is over. */
static bool count(struct tally *t, enum outcome o, int err)
{
	t->tries++;
	switch (o) {
	case FAILED:
		t->errnos[err > 0 && err < 200 ? err : 0]++;
		break;
	case WRONG:
		t->wrong++;
		break;
	case PAST_PNR:
		t->pnr++;
		break;
	case FIRED_OK:
		t->absorbed++;
		break;
	case DONE:
		t->done = true;
		return true;
	}
	if (time(NULL) - start > DEADLINE) {
		t->late = true;
		return true;
	}
	return false;
}

static void report(const char *what, const struct tally *t)
{
	char sum[512];

	summarise(t, sum, sizeof(sum));
	ksft_test_result(t->done && !t->wrong && !t->counts_changed,
		    "%s: allocations 1..%d failed one by one, then the call went through (%s)%s%s",
		    what, t->tries - 1, sum,
		    t->done ? "" : t->late ? "; out of time" : "; never went through",
		    t->counts_changed ? "; the table's counts changed" : "");
}

/* One try: the sweep's function, its argument and the nth allocation to fail. */
struct try {
	int (*fn)(const void *arg, int nth);
	const void *arg;
	int nth;
};

static int try_main(void *arg)
{
	const struct try *t = arg;

	return t->fn(t->arg, t->nth);
}

/*
 * The sweep: fn(arg, nth) in a child for nth = 1, 2, ... until a call gets
 * through with the failure still pending, or time is up.
 */
static void sweep(int (*fn)(const void *arg, int nth), const void *arg, struct tally *t)
{
	for (int nth = 1; nth <= MAX_NTH; nth++) {
		struct try tr = { fn, arg, nth };
		struct child c;
		enum outcome o;
		int err = 0;

		if (child_start(&c, CHILD_STDOUT | CHILD_COMM, 30, try_main, &tr))
			o = WRONG;
		else
			o = classify(&c, nth, &err);
		if (count(t, o, err))
			break;
	}
}

static int try_execns(const void *arg, int nth)
{
	return try_child(*(const unsigned long *)arg, nth);
}

static void sweep_execns(unsigned long flags, const char *name)
{
	struct tally t = { 0 };

	sweep(try_execns, &flags, &t);
	report(name, &t);
}

/*
 * Inside a uid table (started by execns(CLONE_NEWUSER, self, "intable")),
 * the kernel's own calls whose allocations the module takes over or counts:
 * setuid() to a uid the table lacks (alloc_uid() and alloc_ucounts(), both
 * the module's there), fork() (the child's credentials, counted in the
 * table's ucounts, dropped again on every error path), and
 * unshare(CLONE_NEWUSER) (the new namespace is counted in the kernel's
 * ucounts of the creator's uid, which inc_ucount() finds by key, and gets
 * the table's ucounts for its own uid).  Each failure must be one of the
 * errnos the kernel gives for it, with the caller unchanged: its uids, its
 * user namespace, its table; and after each sweep the table's counts
 * (nproc, and user_namespaces, which a namespace never adds to) are where
 * they were.
 * unshare(2)'s manual page lists ENOMEM and ENOSPC (inc_user_namespaces()
 * failing), but not EAGAIN, which ksys_unshare() passes on from
 * set_cred_ucounts() when the new namespace's ucounts cannot be allocated:
 * the kernel's answer with or without the module, so it is accepted.
 */
enum table_op { OP_SETUID, OP_FORK, OP_UNSHARE };

static const struct {
	const char *what;
	int errnos[3];		/* the ones the kernel gives (0: none) */
} table_ops[] = {
	[OP_SETUID] = { "setuid() inside a uid table (the table's user_struct and ucounts)",
			{ EAGAIN, ENOMEM } },
	[OP_FORK] = { "fork() inside a uid table (the child's credentials and counts)",
		      { EAGAIN, ENOMEM } },
	[OP_UNSHARE] = { "unshare(CLONE_NEWUSER) inside a uid table (the new namespace's ucounts in the table)",
			 { ENOMEM, ENOSPC, EAGAIN } },
};
#define NR_TABLE_OPS	(sizeof(table_ops) / sizeof(table_ops[0]))

struct table_caller {
	uid_t uid, euid;
	unsigned long userns;
	long table;
};

static void table_caller(struct table_caller *c)
{
	c->uid = getuid();
	c->euid = geteuid();
	c->userns = ns_inode("user");
	c->table = ut_self();
}

/* The table's counts of this process's uid: processes, user namespaces. */
struct table_counts {
	long nproc, userns;
};

static bool table_counts(struct table_counts *c)
{
	char line[512], want[128], want_user[64];
	FILE *f = fopen(EXECNS_PROC_TABLES, "r");
	bool found = false;

	snprintf(want, sizeof(want), EXECNS_TABLES_UCOUNTS " uid %u ns %lu table %ld ",
		 getuid(), ns_inode("user"), read_long(EXECNS_PROC_SELF));
	snprintf(want_user, sizeof(want_user), EXECNS_TABLES_UID " %u table %ld ", getuid(),
		 read_long(EXECNS_PROC_SELF));
	while (f && fgets(line, sizeof(line), f)) {
		char *np = strstr(line, " nproc "), *un = strstr(line, " user_namespaces ");

		/*
		 * Where credentials have no ucounts (5.10), the user's own line
		 * has nproc, and the kernel keeps the namespace count (0 here).
		 */
		if (!strncmp(line, want_user, strlen(want_user)) && np && !un) {
			c->nproc = strtol(np + 7, NULL, 10);
			c->userns = 0;
			found = true;
			continue;
		}
		if (strncmp(line, want, strlen(want)) || !np || !un)
			continue;
		c->nproc = strtol(np + 7, NULL, 10);
		c->userns = strtol(un + 17, NULL, 10);
		found = true;
	}
	if (f)
		fclose(f);
	return found;
}

/*
 * After a sweep, the counts are back where they were: a failed fork() or
 * unshare() that kept a count would show here.  A dead user namespace is
 * uncounted from a workqueue, so give it a moment.
 */
static bool same_counts(const struct table_counts *before)
{
	struct table_counts now = { -1, -1 };

	for (int i = 0; i < 50; i++) {
		if (table_counts(&now) && now.nproc == before->nproc &&
		    now.userns == before->userns)
			return true;
		usleep(100000);
	}
	ksft_print_msg("the table's counts: nproc %ld -> %ld, user_namespaces %ld -> %ld\n",
		  before->nproc, now.nproc, before->userns, now.userns);
	return false;
}

/* Run OP once; 0 or -1 with errno.  Nothing here allocates but OP itself. */
static int table_op_run(enum table_op op, int nth, pid_t *child)
{
	switch (op) {
	case OP_SETUID:
		/* a uid per try: the last one's user_struct may outlive it (RCU) */
		return setuid(TABLE_UID + nth);
	case OP_FORK:
		/* fork() by hand: its allocations are the ones this sweep fails */
		*child = fork();
		if (*child == 0)
			_exit(0);
		return *child < 0 ? -1 : 0;
	case OP_UNSHARE:
		return unshare(CLONE_NEWUSER);
	}
	errno = EINVAL;
	return -1;
}

/* One try's child: arm, run OP, disarm, then judge a failure. */
static int table_try_child(enum table_op op, int nth)
{
	struct table_caller before, after;
	pid_t child = -1;
	long left;
	int r, e, status;

	table_caller(&before);
	if (open_fail_nth_on_stdin() || set_fail_nth(nth))
		return 1;
	r = table_op_run(op, nth, &child);
	e = errno;
	left = left_fail_nth();
	set_fail_nth(0);
	if (child > 0 && (waitpid(child, &status, 0) != child || status)) {
		ksft_print_msg("fail-nth %d: fork()'s child ended with status %#x\n", nth, status);
		return 1;
	}
	if (r == 0)
		return left > 0 ? DONE + 40 : FIRED_OK + 40;
	if (!e || (e != table_ops[op].errnos[0] && e != table_ops[op].errnos[1] &&
		   e != table_ops[op].errnos[2])) {
		ksft_print_msg("fail-nth %d: errno %d (%s), not one the call may give\n", nth, e,
			  strerrorname_np(e) ?: "?");
		return 1;
	}
	table_caller(&after);
	if (memcmp(&before, &after, sizeof(before)) || after.table <= 0) {
		ksft_print_msg("fail-nth %d: caller changed: uid %d/%d euid %d/%d userns %lu/%lu table %ld/%ld\n",
			  nth, before.uid, after.uid, before.euid, after.euid,
			  before.userns, after.userns, before.table, after.table);
		return 1;
	}
	child_putl("errno", e);
	return 0;
}

static int try_table_op(const void *arg, int nth)
{
	return table_try_child(*(const enum table_op *)arg, nth);
}

static void sweep_table_op(enum table_op op)
{
	struct table_counts counts = { -1, -1 };
	struct tally t = { 0 };

	if (ut_listing() && !table_counts(&counts))
		ksft_print_msg("no ucounts line of this uid in /proc/execns/tables\n");
	sweep(try_table_op, &op, &t);
	/* The twin's counts are not listed: the caller checks stand alone. */
	t.counts_changed = ut_listing() && !same_counts(&counts);
	report(table_ops[op].what, &t);
}

/* In the table: one result per operation, numbered from NUMBER on. */
static int in_table(int number)
{
	ksft_set_test_num(number);	/* results in the parent's KTAP document */
	for (size_t op = 0; op < NR_TABLE_OPS; op++)
		sweep_table_op(op);
	return ksft_get_fail_cnt();
}

/* Exit status of the table's program when execns() itself failed. */
#define NO_TABLE	100

static int into_table(void *argv)
{
	execns(CLONE_NEWUSER, ((char **)argv)[0], argv, environ);
	return NO_TABLE;
}

static void sweep_in_table(const char *self)
{
	char number[16];
	char *argv[] = { (char *)self, "intable", number, NULL };
	struct child c;
	int code;

	snprintf(number, sizeof(number), "%u", ksft_test_num() + 1);
	/* its results go straight into our output; no alarm: the sweeps keep DEADLINE */
	child_start(&c, 0, 0, into_table, argv);
	code = WIFEXITED(c.status) ? WEXITSTATUS(c.status) : -1;
	if (code < 0 || code > (int)NR_TABLE_OPS) {
		for (size_t op = 0; op < NR_TABLE_OPS; op++)
			ksft_test_result(false, "%s: the sweep did not run (status %#x)",
				    table_ops[op].what, c.status);
		return;
	}
	/* in_table() printed its results in our output: count them here */
	for (size_t op = 0; op < NR_TABLE_OPS; op++) {
		if (op < (size_t)code)
			ksft_inc_fail_cnt();
		else
			ksft_inc_pass_cnt();
	}
}

/* Mode "intable NUMBER": the sweeps inside a uid table, results numbered from NUMBER. */
static int mode_intable(int argc, char **argv)
{
	(void)argc;
	start = time(NULL);
	return in_table(atoi(argv[2]));
}

static const struct child_mode modes[] = {
	CHILD_ACT("ran", ran),		/* the new program of a try that got through */
	CHILD_MODE("intable", 1, mode_intable),
};

/*
 * The kernel's own execns(2) (the twin): no table or namespace made by the
 * sweeps holds a namespace inode number of the snapshot taken before them;
 * its user_structs and ucounts are not counted per table.
 */
static void left_in_tree(const struct ns_inums *before, int before_ok)
{
	unsigned long first = 0;
	int taken = before_ok ? ns_inums_settle(before, UT_RCU_SECS, &first) : -1;

	if (taken < 0)
		ksft_print_msg("a snapshot of the namespace numbers failed (%s)\n",
			       before_ok ? "after the sweeps" : "before them");
	ksft_test_result(taken == 0,
			 "nothing leaked: no uid table or namespace holds one of the %d lowest namespace inode numbers free before the sweeps (%d taken, first %lu)",
			 NS_INUMS, taken, first);
	ksft_test_result_code(KSFT_SKIP, "nothing leaked: user_structs and ucounts",
			      "%s", UT_NO_LISTING);
}

int main(int argc, char **argv)
{
	static struct ns_inums inums;
	char self[256], path[64];
	long tables = -1, users = -1, ucounts = -1;
	/* "table": only the sweeps inside a uid table (a quicker run by hand) */
	bool table_only = argc > 1 && !strcmp(argv[1], "table");
	size_t nr_sweeps = table_only ? 0 : NR_SWEEPS;
	/* the twin: the leak check in two parts (left_in_tree) */
	bool in_tree = execns_in_tree();
	int inums_ok;
	ssize_t n;

	CHILD_DISPATCH(modes, argc, argv);

	test_start(nr_sweeps + NR_TABLE_OPS + 1 + in_tree, 0);
	snprintf(path, sizeof(path), "/proc/self/task/%d/fail-nth", gettid());
	if (access(path, F_OK) != 0) {
		for (size_t i = 0; i < nr_sweeps; i++) {
			char name[160];

			snprintf(name, sizeof(name),
				 "%s: every failed allocation in execns(2) is an errno with the caller intact",
				 sweeps[i].name);
			ksft_test_result_code(KSFT_SKIP, name, "%s", i ?
					      "kernel built without CONFIG_FAULT_INJECTION" :
					      "kernel built without CONFIG_FAULT_INJECTION (no /proc/self/task/TID/fail-nth); the module's fail_nth covers execns's own allocations (test-execns-faults)");
		}
		for (size_t op = 0; op < NR_TABLE_OPS; op++) {
			char name[160];

			snprintf(name, sizeof(name), "%s: every failed allocation is a documented errno",
				 table_ops[op].what);
			ksft_test_result_code(KSFT_SKIP, name, "%s",
					      "kernel built without CONFIG_FAULT_INJECTION");
		}
		for (int i = 0; i < 1 + in_tree; i++)
			ksft_test_result_code(KSFT_SKIP,
					      "no uid table, user_struct or ucounts leaked by failed allocations",
					      "kernel built without CONFIG_FAULT_INJECTION");
		ksft_finished();
	}
	allow_sleeping_failures();
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = '\0';
	unlink(NEW_PATH);
	if (symlink(self, NEW_PATH)) {
		ksft_print_msg("symlink %s: %s\n", NEW_PATH, strerror(errno));
		return 1;
	}

	/*
	 * libexecns reads its syscall slot from sysfs once and caches it: read
	 * it here, so the children's injected failures hit execns(2), not
	 * that open() (which libexecns reports as ENOSYS).
	 */
	if (!execns_available()) {
		ksft_print_msg("execns_available(): the module is not loaded\n");
		return 1;
	}
	inums_ok = in_tree && !ns_inums_read(&inums);
	start = time(NULL);
	for (size_t i = 0; i < nr_sweeps; i++)
		sweep_execns(sweeps[i].flag, sweeps[i].name);
	fflush(stdout);
	sweep_in_table(self);
	ksft_print_msg("the sweeps took %ld s\n", (long)(time(NULL) - start));

	if (in_tree) {
		left_in_tree(&inums, inums_ok);
		unlink(NEW_PATH);
		ksft_finished();
	}
	for (int i = 0; i < 50; i++) {
		tables = execns_stat(EXECNS_STAT_TABLES);
		users = execns_stat(EXECNS_STAT_USERS);
		ucounts = execns_stat(EXECNS_STAT_UCOUNTS);
		if (!tables && !users && !ucounts)
			break;
		usleep(100000);
	}
	ksft_test_result(tables == 0 && users == 0 && ucounts == 0,
		    "nothing leaked: tables %ld, module user_structs %ld, module ucounts %ld",
		    tables, users, ucounts);
	unlink(NEW_PATH);
	ksft_finished();
}
