// SPDX-License-Identifier: GPL-2.0
/*
 * make stress, in the guest, in two parts.
 *
 * The disarm proof: TABLES times, a table is made (execns(CLONE_NEWUSER) of
 * a program that exits at once) and dropped, with pauses that let the
 * hooks' disarming race with the next table's arming; every CHECK_EVERY
 * tables the hooks must be disarmed within DISARM_SECS and must have been
 * armed again since the last check (hook_arms grew).
 *
 * The chaos: PROCS processes x ITERS iterations of nested execns chains
 * with random flag sets (uid tables included), setuid churn inside the
 * tables, fork storms up to RLIMIT_NPROC (in a fresh table exactly the
 * limit, nothing from outside counted), failing execns calls mixed in (each
 * must fail with its errno and leave the caller as it was), while another
 * process keeps trying to remove the module (refused: a uid table lives
 * throughout).  Then every table, user_struct and ucounts must be gone, and
 * the module must unload.
 *
 *	stress-execns [PROCS [ITERS [DEPTH [TABLES]]]]
 *
 * KTAP on stdout; the guest's /init checks the kernel log afterwards.
 */
#include <sched.h>
#include <stdint.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include "lib/test.h"

#define SELF		"/usr/local/bin/stress-execns"
#define STORM_NPROC	6	/* RLIMIT_NPROC of a fork storm */
#define DISARM_SECS	30	/* the bound on hooks disarmed after a table ends */

static const int flag_bits[] = {
	CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWNS, CLONE_NEWNET, CLONE_NEWPID,
	CLONE_NEWCGROUP, CLONE_NEWTIME, CLONE_NEWUSER,
};

/*
 * Set when the module's load-time proof refused uid tables on this kernel
 * (/proc/execns/proof): the run then stresses everything else, with no
 * CLONE_NEWUSER, and reports the table phases as skipped.
 */
#define NO_TABLES "uid tables refused by the load-time proof (see /proc/execns/proof)"

/* Read once per process: the chains' links are processes of their own. */
static bool tables_refused(void)
{
	static int refused = -1;
	char verdict[16];

	if (refused < 0) {
		execns_verdict(verdict, sizeof(verdict));
		refused = !strcmp(verdict, EXECNS_VERDICT_REFUSED);
	}
	return refused;
}

static unsigned int rnd(unsigned int *seed)
{
	*seed = *seed * 1103515245 + 12345;
	return (*seed >> 16) & 0x7fff;
}

/*
 * A random flag set; NET less often (the slow one).  As with unshare(2), a
 * second CLONE_NEWPID is EINVAL once pid_for_children differs from the
 * task's own pid namespace, so it is left out then.
 */
static int rand_flags(unsigned int *seed)
{
	int f = 0;

	for (size_t i = 0; i < sizeof(flag_bits) / sizeof(flag_bits[0]); i++)
		if (rnd(seed) % (flag_bits[i] == CLONE_NEWNET ? 6 : 3) == 0)
			f |= flag_bits[i];
	if (ns_inode("pid") != ns_inode("pid_for_children"))
		f &= ~CLONE_NEWPID;
	if (tables_refused())
		f &= ~CLONE_NEWUSER;
	return f;
}

/* A failing execns; returns 0 when it failed as expected, caller intact. */
static int failing_execns(unsigned int *seed)
{
	char *argv[] = { SELF, NULL };
	unsigned long uts = ns_inode("uts");
	long table = read_long(EXECNS_PROC_SELF);
	int want, flags = rand_flags(seed);
	long ret;

	switch (rnd(seed) % 4) {
	case 0:
		want = ENOENT;
		ret = execns(flags, "/nonexistent/program", argv, environ);
		break;
	case 1:
		want = EINVAL;
		ret = execns(flags | CLONE_VM, SELF, argv, environ);
		break;
	case 2:
		want = EFAULT;
		ret = raw_execns(flags, (void *)8, argv, environ);
		break;
	default:
		want = EACCES;
		ret = execns(flags, "/proc/version", argv, environ);
		break;
	}
	if (ret != -1 || errno != want) {
		printf("# failing execns (flags %#x): ret %ld errno %d, want %d\n",
		       flags, ret, errno, want);
		return 1;
	}
	if (ns_inode("uts") != uts || read_long(EXECNS_PROC_SELF) != table) {
		printf("# failing execns (flags %#x) changed the caller\n", flags);
		return 1;
	}
	return 0;
}

/*
 * setuid churn in whatever table we are in: alloc_uid() and alloc_ucounts()
 * (hooked), free_uid() and put_ucounts() (the kernel's own, not hooked).
 */
static int setuid_churn(unsigned int *seed)
{
	for (int i = 0; i < 8; i++) {
		uid_t u = 1000 + rnd(seed) % 16;

		if (setresuid(u, u, 0) || setresuid(0, 0, 0)) {
			printf("# setresuid: %s\n", strerror(errno));
			return 1;
		}
		/* a child that drops to the uid for good and exits */
		if (i % 4 == 0)
			child_as_uid(u);
	}
	return 0;
}

/*
 * A fork storm at RLIMIT_NPROC: a child drops to uid u for good under a
 * limit of STORM_NPROC and forks sleepers until fork fails.  It must fail
 * with EAGAIN after at most STORM_NPROC - 1 sleepers (itself is one); in a
 * table of its own making (fresh) exactly then, since nothing outside the
 * table counts.  Returns 0 when so.
 */
struct storm {
	uid_t u;
	int fresh;
};

static int storm_child(void *arg)
{
	const struct storm *st = arg;
	struct rlimit rl = { STORM_NPROC, STORM_NPROC };
	int p[2], n = 0, err = 0;

	if (pipe(p) || setrlimit(RLIMIT_NPROC, &rl) || setresuid(st->u, st->u, st->u)) {
		printf("# fork storm as uid %u: setup: %s\n", st->u, strerror(errno));
		return 3;
	}
	for (;;) {
		/* fork() by hand: its refusal at RLIMIT_NPROC is what the storm checks */
		pid_t c = fork();

		if (c == 0) {
			char b;

			close(p[1]);
			_exit(read(p[0], &b, 1) < 0);
		}
		if (c < 0) {
			err = errno;
			break;
		}
		if (++n > STORM_NPROC)
			break;
	}
	close(p[1]);	/* the sleepers wake up and exit */
	while (wait(NULL) > 0)
		;
	if (err != EAGAIN || n > STORM_NPROC - 1 || (st->fresh && n != STORM_NPROC - 1)) {
		printf("# fork storm as uid %u (fresh table %d, table %ld): %d forks, then %s\n",
		       st->u, st->fresh, read_long(EXECNS_PROC_SELF), n, strerror(err));
		return 1;
	}
	return 0;
}

static int fork_storm(uid_t u, int fresh)
{
	struct storm st = { u, fresh };
	struct child c;

	if (child_start(&c, 0, 0, storm_child, &st)) {
		/* ENOMEM: a pid namespace (execns(CLONE_NEWPID)) whose init has exited */
		if (errno == ENOMEM)
			return 0;
		printf("# fork storm: fork: %s\n", strerror(errno));
		return 1;
	}
	if (!child_ok(&c)) {
		printf("# fork storm as uid %u: status %#x\n", u, c.status);
		return 1;
	}
	return 0;
}

/* Exit 0: EPERM; 1-127: that errno; 128 + errno: setresuid. */
static int unprivileged_child(void *arg)
{
	char *argv[] = { "/bin/busybox", "false", NULL };

	(void)arg;
	if (setresuid(1000, 1000, 1000))
		return 128 + (errno & 127);
	execns(CLONE_NEWUSER, argv[0], argv, environ);
	/* Refused tables are refused before the privilege check. */
	if (tables_refused() && errno == EOPNOTSUPP)
		return 0;
	return errno == EPERM ? 0 : (errno & 127) ? errno & 127 : 127;
}

/*
 * An unprivileged execns(CLONE_NEWUSER) is EPERM: 0 if so (or if no child
 * can be made here).  Were it to run, busybox false would exit 1.
 */
static int unprivileged_refused(void)
{
	struct child c;

	if (child_start(&c, 0, CHILD_TIMEOUT, unprivileged_child, NULL)) {
		/*
		 * ENOMEM: as in fork_storm(), this link's pid namespace lost
		 * its init.  Unchecked, waitpid(-1) failed with ECHILD and the
		 * check read an unset status: 0 on x86_64 (a silent pass), 0x5
		 * on arm64.
		 */
		if (errno == ENOMEM)
			return 0;
		printf("# unprivileged execns(CLONE_NEWUSER): fork: %s\n", strerror(errno));
		return 1;
	}
	if (!child_ok(&c)) {
		printf("# unprivileged execns(CLONE_NEWUSER) was not EPERM (status 0x%x)\n", c.status);
		return 1;
	}
	return 0;
}

/* One link of a chain: churn, a failing call, then execns the next link. */
static int link_main(int depth, unsigned int seed, int fresh)
{
	char dbuf[16], sbuf[16], fbuf[4];
	char *argv[] = { SELF, "link", dbuf, sbuf, fbuf, NULL };
	int flags;

	if (setuid_churn(&seed) || failing_execns(&seed))
		return 1;
	if (rnd(&seed) % 2 == 0 && fork_storm(2000 + rnd(&seed) % 8, fresh))
		return 1;
	if (depth <= 0)
		return 0;
	if (rnd(&seed) % 8 == 0 && unprivileged_refused())
		return 1;
	snprintf(dbuf, sizeof(dbuf), "%d", depth - 1);
	snprintf(sbuf, sizeof(sbuf), "%u", rnd(&seed));
	flags = rand_flags(&seed);
	snprintf(fbuf, sizeof(fbuf), "%d", !!(flags & CLONE_NEWUSER));
	execns(flags, SELF, argv, environ);
	printf("# execns(%#x) of the next link: %s\n", flags, strerror(errno));
	return 1;
}

struct chain {
	int id, flags;
	char *argv[6];
};

/* A chain's first link: execns into it. */
static int chain_child(void *arg)
{
	struct chain *ch = arg;

	execns(ch->flags, SELF, ch->argv, environ);
	printf("# worker %d: execns(%#x): %s\n", ch->id, ch->flags, strerror(errno));
	return 1;
}

/* One worker: ITERS chains, each in a fresh child. */
static int worker(int id, int iters, int depth)
{
	unsigned int seed = 0x5eed + id * 7919;
	int bad = 0;

	for (int i = 0; i < iters; i++) {
		char dbuf[16], sbuf[16], fbuf[4];
		struct chain ch = { id, rand_flags(&seed), { SELF, "link", dbuf, sbuf, fbuf, NULL } };
		struct child c;

		snprintf(dbuf, sizeof(dbuf), "%u", 1 + rnd(&seed) % depth);
		snprintf(sbuf, sizeof(sbuf), "%u", rnd(&seed));
		snprintf(fbuf, sizeof(fbuf), "%d", !!(ch.flags & CLONE_NEWUSER));
		child_start(&c, 0, 120, chain_child, &ch);
		if (!child_ok(&c)) {
			printf("# worker %d iteration %d: chain status %#x\n", id, i, c.status);
			bad++;
		}
		if (failing_execns(&seed))
			bad++;
	}
	return bad ? 1 : 0;
}

/* Keeps trying rmmod; reports "attempts successes" over fd out. */
/* Until /tmp/stress-stop appears: rmmod tries, then "TRIES OK OTHER" on stdout. */
static int rmmod_pounder(void *arg)
{
	long tries = 0, ok = 0, other = 0;

	for (;;) {
		struct stat sb;

		if (stat("/tmp/stress-stop", &sb) == 0)
			break;
		tries++;
		if (!syscall(SYS_delete_module, "execns", O_NONBLOCK))
			ok++;
		else if (errno != EBUSY && errno != EAGAIN && errno != EWOULDBLOCK)
			other++;
		usleep(20000);
	}
	(void)arg;
	printf("%ld %ld %ld\n", tries, ok, other);
	return 0;
}

/* A table kept alive by a file its first user opened (child.h's hold_tables()). */
static int make_holder(void)
{
	int fd = -1;

	return hold_tables(1, CLONE_NEWUSER, &fd) == 1 ? fd : -1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Wait (DISARM_SECS at most) for no table and the hooks disarmed; returns
 * how long it took, or -1 when they were not.
 */
static double time_disarmed(void)
{
	double t = now_s();

	while ((execns_stat(EXECNS_STAT_TABLES) || hooks_armed() == 1) && now_s() - t < DISARM_SECS)
		usleep(2000);
	if (execns_stat(EXECNS_STAT_TABLES) || hooks_armed() == 1)
		return -1;
	return now_s() - t;
}

/*
 * The disarm proof: n tables made and dropped, one after the other, each by
 * a child that execns(CLONE_NEWUSER)s a program that exits at once.  After
 * most, the next table comes at once (the last one's user_struct may still
 * wait for RCU, so the hooks stay armed); after about one in 64 a pause of
 * 0-300 ms lets the disarm work start, so the next table's arming races
 * with it or follows it; every CHECK_EVERY tables the proof waits for the hooks to be
 * disarmed (within DISARM_SECS) and checks that they were armed again since
 * the last such point (hook_arms grew).  A full disarm costs a tasks-RCU
 * grace period (ftrace's trampolines), about a second under TCG, so waiting
 * for one after every table would take hours.
 */
#define CHECK_EVERY	200

static void disarm_proof(int n, unsigned int seed)
{
	long arms0 = execns_stat(EXECNS_STAT_HOOK_ARMS), arms = arms0, bad_make = 0, bad_disarm = 0, checks = 0;
	long bad_rearm = 0;
	double t0 = now_s(), worst = 0, total = 0;
	struct child c;

	if (tables_refused())
		n = 0;
	for (int i = 1; i <= n; i++) {
		double t;

		child_in_table("nop", NULL, &c);
		if (!child_ok(&c)) {
			if (bad_make++ < 5)
				printf("# table %d: the child's status %#x\n", i, c.status);
			continue;
		}
		if (i % CHECK_EVERY && i != n) {
			if (rnd(&seed) % 64 == 0)
				usleep(rnd(&seed) % 300 * 1000);
			continue;
		}
		checks++;
		t = time_disarmed();
		if (t < 0) {
			if (bad_disarm++ < 5)
				printf("# after table %d: hooks %sarmed, %ld tables, %d s on\n", i,
				       hooks_armed() == 1 ? "" : "dis", execns_stat(EXECNS_STAT_TABLES), DISARM_SECS);
		} else {
			total += t;
			if (t > worst)
				worst = t;
		}
		if (execns_stat(EXECNS_STAT_HOOK_ARMS) <= arms && bad_rearm++ < 5)
			printf("# after table %d: hook_arms %ld, as at the last check\n", i, arms);
		arms = execns_stat(EXECNS_STAT_HOOK_ARMS);
		if (i % (CHECK_EVERY * 8) == 0)
			printf("# %d tables, hook_arms %ld, %.0f s\n", i, arms, now_s() - t0);
	}
	if (!n) {
		ksft_test_result_code(KSFT_SKIP, "tables made and dropped",
				      tables_refused() ? NO_TABLES : "TABLES is 0");
		ksft_test_result_code(KSFT_SKIP, "hooks disarmed at each check",
				      tables_refused() ? NO_TABLES : "TABLES is 0");
		return;
	}
	ksft_test_result(!bad_make && !bad_rearm,
			 "%d tables made and dropped; the hooks re-armed between each of %ld checks (hook_arms %ld -> %ld: %ld arm-disarm cycles); %ld failures",
			 n, checks, arms0, arms, arms - arms0, bad_make + bad_rearm);
	ksft_test_result(!bad_disarm,
			 "at each check, no table and hooks disarmed within %d s (worst %.2f s, mean %.2f s; %ld late); %.0f s in all",
			 DISARM_SECS, worst, checks ? total / checks : 0, bad_disarm, now_s() - t0);
}

static int mode_link(int argc, char **argv)
{
	(void)argc;
	return link_main(atoi(argv[2]), strtoul(argv[3], NULL, 10), atoi(argv[4]));
}

/* Mode "nop": a program that only starts and ends. */
static int nop(void)
{
	return 0;
}

static const struct child_mode modes[] = {
	CHILD_MODE_CHAIN,
	CHILD_MODE("link", 3, mode_link),
	CHILD_ACT("nop", nop),
};

struct work {
	int id, iters, depth;
};

static int worker_main(void *arg)
{
	const struct work *w = arg;

	return worker(w->id, w->iters, w->depth);
}

int main(int argc, char **argv)
{
	bool no_tables;
	int procs = 8, iters = 30, depth = 3, ntables = 10000, holder, bad = 0;
	long tries = 0, ok = 0, other = 0, tables = -1, users = -1, ucounts = -1;
	struct child pounder, *workers;
	char line[128];

	/* the links' diagnostics must not sit in a buffer an _exit() drops */
	setvbuf(stdout, NULL, _IOLBF, 0);
	CHILD_DISPATCH(modes, argc, argv);
	if (argc > 1)
		procs = atoi(argv[1]);
	if (argc > 2)
		iters = atoi(argv[2]);
	if (argc > 3)
		depth = atoi(argv[3]);
	if (argc > 4)
		ntables = atoi(argv[4]);
	if (procs < 1 || iters < 1 || depth < 1 || ntables < 0)
		return 2;

	test_start(8, 0);
	no_tables = tables_refused();
	if (no_tables)
		ksft_print_msg("%s: no CLONE_NEWUSER in this run\n", NO_TABLES);
	if (!ksft_test_result(execns_stat(EXECNS_STAT_TABLES) == 0 && execns_stat(EXECNS_STAT_USERS) == 0 &&
			      execns_stat(EXECNS_STAT_HOOKS) == 0,
			      "no table or module user_struct before the run, hooks disarmed"))
		ksft_print_msg("tables %ld users %ld hooks %d\n", execns_stat(EXECNS_STAT_TABLES),
			       execns_stat(EXECNS_STAT_USERS), hooks_armed() == 1);
	disarm_proof(ntables, 0xd15a);
	ksft_print_msg("%d processes x %d chains of up to %d execns each\n", procs, iters, depth);

	/* Without a table nothing keeps rmmod from succeeding: no pounder. */
	holder = no_tables ? -1 : make_holder();
	unlink("/tmp/stress-stop");
	if (!no_tables && child_start(&pounder, CHILD_STDOUT | CHILD_LIVE, 0, rmmod_pounder, NULL))
		return 2;

	workers = calloc(procs, sizeof(*workers));
	for (int i = 0; i < procs; i++) {
		struct work w = { i, iters, depth };

		if (child_start(&workers[i], CHILD_LIVE, 0, worker_main, &w))
			workers[i].pid = -1;
	}
	for (int i = 0; i < procs; i++) {
		if (workers[i].pid > 0)
			child_finish(&workers[i]);
		if (!child_ok(&workers[i]))
			bad++;
	}
	ksft_test_result(!bad, "%d workers: every chain ran and every failing execns failed as it should (%d workers with errors)",
			 procs, bad);

	write_file("/tmp/stress-stop", "1", 0644);
	if (no_tables) {
		ksft_test_result_code(KSFT_SKIP, "concurrent rmmod attempts refused while a table lived",
				      NO_TABLES);
	} else {
		child_finish(&pounder);
		sscanf(pounder.text, "%ld %ld %ld", &tries, &ok, &other);
		ksft_test_result(holder >= 0 && tries > 0 && ok == 0 && other == 0 &&
				 access(EXECNS_SYSFS_MODULE, F_OK) == 0,
				 "%ld concurrent rmmod attempts all refused while a table lived (%ld succeeded, %ld odd errnos)",
				 tries, ok, other);
	}

	if (holder >= 0)
		close(holder);
	for (int i = 0; i < 200; i++) {
		tables = execns_stat(EXECNS_STAT_TABLES);
		users = execns_stat(EXECNS_STAT_USERS);
		ucounts = execns_stat(EXECNS_STAT_UCOUNTS);
		if (!tables && !users && !ucounts && hooks_armed() != 1)
			break;
		usleep(100000);
	}
	ksft_test_result(tables == 0 && users == 0 && ucounts == 0 && execns_stat(EXECNS_STAT_HOOKS) == 0,
			 "no table, user_struct or ucounts left behind, hooks disarmed (tables %ld, users %ld, ucounts %ld, hook_arms %ld)",
			 tables, users, ucounts, execns_stat(EXECNS_STAT_HOOK_ARMS));

	for (int i = 0; i < 100 && access(EXECNS_SYSFS_MODULE, F_OK) == 0; i++)
		if (syscall(SYS_delete_module, "execns", O_NONBLOCK))
			usleep(100000);
	ksft_test_result(access(EXECNS_SYSFS_MODULE, F_OK) != 0, "the module unloads afterwards");

	{
		FILE *f = popen("dmesg | grep -E 'Oops|(^|[^A-Z_])BUG|WARNING:|Call Trace|refcount_t:|corruption|Poison|Redzone|general protection|double free|use-after-free|Object padding'", "r");
		int n = 0;

		while (f && fgets(line, sizeof(line), f)) {
			printf("# %s", line);
			n++;
		}
		if (f)
			pclose(f);
		ksft_test_result(n == 0, "kernel log clean under slub_debug (%d suspicious lines)", n);
	}
	ksft_finished();
}
