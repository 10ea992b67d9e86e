// SPDX-License-Identifier: GPL-2.0
/*
 * Uid tables and the per-user limits the kernel keeps in ucounts (since
 * 5.14).  For each: a uid-1000 holder outside sits at the limit; another
 * uid-1000 process outside is refused; the same process in a fresh table
 * is or is not; outside it is still refused afterwards (nothing leaked
 * back).
 *  - RLIMIT_NPROC, RLIMIT_SIGPENDING, RLIMIT_MSGQUEUE and RLIMIT_MEMLOCK
 *    (SysV shm locking) are counted per table: in a fresh table the same
 *    is allowed.
 *  - inotify's max_user_instances and max_user_watches, fanotify's
 *    max_user_groups and the user namespaces (max_user_namespaces) are
 *    counted in the kernel's ucounts of the uid, which the kernel finds
 *    again by key (inc_ucount()): the module keeps them global, and so does
 *    the twin (upstream/, patch 7), so in a fresh table the global limit
 *    still bites.
 * Root of a table may still create a kernel user namespace; on the module
 * its table's ucounts do not count it (the kernel's do).  When the tables
 * are gone, so are their ucounts.  (Those two counts are the module's
 * listing and stats: the twin has neither.)
 */
#include <mqueue.h>
#include <sched.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/ipc.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include "lib/test.h"

#define MQ_HOLD		"/execns-ucounts-hold"
#define MQ_PROBE	"/execns-ucounts-probe"
#define SHM_BYTES	(64 * 1024)

struct ucase {
	const char *name;
	int (*hold)(void);	/* as uid 1000: build up to the limit; 0 = done */
	int (*probe)(void);	/* as uid 1000: one more; 0 or an errno */
	int want;		/* the errno outside */
	int resource;		/* an rlimit set for both, or -1 */
	rlim_t limit;
	const char *sysctl;	/* a sysctl set for the case, or NULL */
	const char *value;
	int global;		/* the module leaves it global: it bites in a table too */
};

/* A process that only counts: until its parent (the holder) goes. */
__attribute__((noreturn))
static int child_stays(void *arg)
{
	(void)arg;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (;;)
		pause();
}

/* NPROC 3: the holder and two children; the probe forks. */
static int hold_nproc(void)
{
	struct child c;

	for (int i = 0; i < 2; i++)
		if (child_start(&c, CHILD_BACKGROUND, CHILD_TIMEOUT, child_stays, NULL))
			return errno;
	return 0;
}

/* fork() by hand: the probe is fork() itself, refused at RLIMIT_NPROC. */
static int probe_nproc(void)
{
	pid_t c = fork();

	if (c == 0)
		_exit(0);
	if (c < 0)
		return errno;
	waitpid(c, NULL, 0);
	return 0;
}

/* max_user_instances 2. */
static int hold_inotify_instances(void)
{
	return inotify_init1(0) < 0 || inotify_init1(0) < 0 ? errno : 0;
}

static int probe_inotify_instance(void)
{
	return inotify_init1(0) < 0 ? errno : 0;
}

/* max_user_watches 2. */
static int hold_inotify_watches(void)
{
	int fd = inotify_init1(0);

	if (fd < 0 || inotify_add_watch(fd, "/", IN_CREATE) < 0 ||
	    inotify_add_watch(fd, "/tmp", IN_CREATE) < 0)
		return errno;
	return 0;
}

static int probe_inotify_watch(void)
{
	int fd = inotify_init1(0);

	if (fd < 0)
		return errno;
	return inotify_add_watch(fd, "/proc", IN_CREATE) < 0 ? errno : 0;
}

/* RLIMIT_SIGPENDING 4: four blocked real-time signals queued to oneself. */
static int queue_rt(int n)
{
	union sigval v = { 0 };
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	sigprocmask(SIG_BLOCK, &set, NULL);
	for (int i = 0; i < n; i++)
		if (sigqueue(getpid(), SIGRTMIN, v))
			return errno;
	return 0;
}

static int hold_sigpending(void)
{
	return queue_rt(4);
}

static int probe_sigpending(void)
{
	return queue_rt(1);
}

/* RLIMIT_MSGQUEUE: room for one queue of one 4 KiB message. */
static int open_mq(const char *name)
{
	struct mq_attr a = { .mq_maxmsg = 1, .mq_msgsize = 4096 };
	mqd_t q = mq_open(name, O_CREAT | O_RDWR | O_CLOEXEC, 0600, &a);

	return q == (mqd_t)-1 ? errno : 0;
}

static int hold_msgqueue(void)
{
	return open_mq(MQ_HOLD);
}

static int probe_msgqueue(void)
{
	int err = open_mq(MQ_PROBE);

	mq_unlink(MQ_PROBE);
	return err;
}

/* RLIMIT_MEMLOCK 64 KiB: one locked SysV segment of 64 KiB. */
static int lock_shm(int keep)
{
	int id = shmget(IPC_PRIVATE, SHM_BYTES, IPC_CREAT | 0600), err = 0;

	if (id < 0)
		return errno;
	if (shmctl(id, SHM_LOCK, NULL))
		err = errno;
	if (!keep || err)
		shmctl(id, IPC_RMID, NULL);
	return err;
}

static int hold_memlock(void)
{
	return lock_shm(1);
}

static int probe_memlock(void)
{
	return lock_shm(0);
}

/* max_user_groups 1 (unprivileged fanotify, FAN_REPORT_FID). */
static int fan_group(void)
{
	return fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID, 0) < 0 ? errno : 0;
}

/* max_user_namespaces 1: the holder unshares one (unprivileged) and stays in it. */
static int new_userns(void)
{
	return unshare(CLONE_NEWUSER) ? errno : 0;
}

static const struct ucase cases[] = {
	{ "RLIMIT_NPROC (fork)", hold_nproc, probe_nproc, EAGAIN, RLIMIT_NPROC, 3, NULL, NULL, 0 },
	{ "inotify max_user_instances", hold_inotify_instances, probe_inotify_instance, EMFILE,
	  -1, 0, "/proc/sys/fs/inotify/max_user_instances", "2", 1 },
	{ "inotify max_user_watches", hold_inotify_watches, probe_inotify_watch, ENOSPC,
	  -1, 0, "/proc/sys/fs/inotify/max_user_watches", "2", 1 },
	{ "RLIMIT_SIGPENDING (sigqueue)", hold_sigpending, probe_sigpending, EAGAIN,
	  RLIMIT_SIGPENDING, 4, NULL, NULL, 0 },
	{ "RLIMIT_MSGQUEUE (mq_open)", hold_msgqueue, probe_msgqueue, EMFILE,
	  RLIMIT_MSGQUEUE, 6000, NULL, NULL, 0 },
	{ "RLIMIT_MEMLOCK (SHM_LOCK)", hold_memlock, probe_memlock, ENOMEM,
	  RLIMIT_MEMLOCK, SHM_BYTES, NULL, NULL, 0 },
	{ "fanotify max_user_groups", fan_group, fan_group, EMFILE,
	  -1, 0, "/proc/sys/fs/fanotify/max_user_groups", "1", 1 },
	{ "max_user_namespaces (unshare)", new_userns, new_userns, ENOSPC,
	  -1, 0, "/proc/sys/user/max_user_namespaces", "1", 1 },
};
#define NR_CASES (sizeof(cases) / sizeof(cases[0]))
#define PER_CASE 3

/* The case's rlimit, then uid 1000 for good. */
static int become(const struct ucase *c)
{
	struct rlimit rl = { c->limit, c->limit };

	if (c->resource >= 0 && setrlimit(c->resource, &rl))
		return errno;
	return setresuid(UT_UID, UT_UID, UT_UID) ? errno : 0;
}

/* child_run() / act "probe N": "self", "err" of one more, as uid 1000. */
static int probe_as_user(void *arg)
{
	const struct ucase *c = &cases[(long)arg];
	int err = become(c);

	child_putl("self", ut_self());
	child_putl("err", err ? -err : c->probe());
	return 0;
}

static int hold_as_user(void *arg)
{
	const struct ucase *c = &cases[(long)arg];
	int err;

	if (c->resource >= 0) {
		struct rlimit rl = { c->limit, c->limit };

		setrlimit(c->resource, &rl);
	}
	err = c->hold();
	if (err)
		printf("# holder: %s\n", strerror(err));
	return !err;
}

/*
 * Act "userns": root of a table unshares a kernel user namespace ("ret",
 * "err"), and reports how many user namespaces its table's uid-0 ucounts
 * of the initial namespace counts ("userns"; -1: the table lists none).
 */
static int act_userns(void)
{
	static struct ut_snap snap;
	long self = ut_self(), n = -1;
	int ret = unshare(CLONE_NEWUSER);

	child_putl("self", self);
	child_putl("ret", ret);
	child_putl("err", ret ? errno : 0);
	ut_snap_read(&snap);
	/*
	 * uid 0 of the table has two ucounts now, the new namespace's and the
	 * initial one's; the kernel counted the namespace in its own ucounts
	 * of the initial namespace's uid 0, which it found by key.
	 */
	for (int i = 0; i < snap.nucounts; i++)
		if (snap.c[i].table == self && snap.c[i].uid == 0 &&
		    snap.c[i].user_namespaces > n)
			n = snap.c[i].user_namespaces;
	child_putl("userns", n);
	return 0;
}

static int mode_probe(int argc, char **argv)
{
	(void)argc;
	return probe_as_user((void *)strtol(argv[2], NULL, 10));
}

static const struct child_mode modes[] = {
	UT_MODES,
	CHILD_ACT("userns", act_userns),
	CHILD_MODE("probe", 1, mode_probe),
};

static void cleanup_ipc(void)
{
	struct shmid_ds ds;
	int max = shmctl(0, SHM_INFO, (struct shmid_ds *)&ds);

	mq_unlink(MQ_HOLD);
	mq_unlink(MQ_PROBE);
	for (int i = 0; i <= max; i++) {
		int id = shmctl(i, SHM_STAT, &ds);

		if (id >= 0 && ds.shm_perm.uid == UT_UID)
			shmctl(id, IPC_RMID, NULL);
	}
}

static void run_case(long i)
{
	const struct ucase *c = &cases[i];
	char old[64] = "", idx[16], name[128];
	const char *args[] = { idx, NULL };
	struct child o;
	pid_t holder;
	long err;

	snprintf(idx, sizeof(idx), "%ld", i);
	if (c->sysctl) {
		read_line(c->sysctl, old, sizeof(old));
		if (!old[0] || set_knob(c->sysctl, c->value)) {
			for (int k = 0; k < PER_CASE; k++) {
				snprintf(name, sizeof(name), "%s: check %d", c->name, k + 1);
				ksft_test_result_code(KSFT_SKIP, name, "no writable sysctl");
			}
			return;
		}
	}
	holder = child_hold(UT_UID, hold_as_user, (void *)i);
	child_run(probe_as_user, (void *)i, &o);
	err = child_val(&o, "err");
	if (holder < 0 && (c->probe == fan_group || c->probe == new_userns) && err == EPERM) {
		for (int k = 0; k < PER_CASE; k++) {
			snprintf(name, sizeof(name), "%s: check %d", c->name, k + 1);
			ksft_test_result_code(KSFT_SKIP, name, c->probe == fan_group ?
					      "unprivileged fanotify is not available" :
					      "unprivileged user namespaces are not available");
		}
		goto restore;
	}
	ksft_test_result(holder > 0 && err == c->want,
			 "%s: a uid-1000 holder at the limit outside, one more uid-1000 process is refused (errno %ld, want %d)",
			 c->name, err, c->want);

	child_execns(CLONE_NEWUSER, "probe", args, 1, &o);
	err = child_val(&o, "err");
	if (c->global)
		ksft_test_result(child_val(&o, "self") > 0 && err == c->want,
				 "%s: in a fresh table (%ld) the global limit still bites: the kernel finds this count by key, in its own ucounts (errno %ld, want %d)",
				 c->name, child_val(&o, "self"), err, c->want);
	else
		ksft_test_result(child_val(&o, "self") > 0 && err == 0,
				 "%s: in a fresh table (%ld) the same is allowed (errno %ld)",
				 c->name, child_val(&o, "self"), err);

	child_run(probe_as_user, (void *)i, &o);
	err = child_val(&o, "err");
	ksft_test_result(err == c->want,
			 "%s: outside it is still refused: nothing came back from the table (errno %ld)",
			 c->name, err);
restore:
	child_kill(holder);
	cleanup_ipc();
	if (c->sysctl)
		write_knob(c->sysctl, old);
}

int main(int argc, char **argv)
{
	struct child o;
	long left;

	CHILD_DISPATCH(modes, argc, argv);

	ut_start(NR_CASES * PER_CASE + 2);
	cleanup_ipc();
	for (long i = 0; i < (long)NR_CASES; i++)
		run_case(i);

	child_in_table("userns", NULL, &o);
	if (ut_listing())
		ksft_test_result(child_val(&o, "self") > 0 && child_val(&o, "ret") == 0 &&
				 child_val(&o, "userns") != CHILD_NONE && child_val(&o, "userns") <= 0,
				 "root of table %ld unshares a kernel user namespace (errno %ld), counted in the kernel's ucounts, not the table's (its uid 0 of the initial namespace: user_namespaces %ld, -1 not listed)",
				 child_val(&o, "self"), child_val(&o, "err"), child_val(&o, "userns"));
	else
		ksft_test_result(child_val(&o, "self") > 0 && child_val(&o, "ret") == 0,
				 "root of table %ld unshares a kernel user namespace (errno %ld; the twin lists no ucounts to count it in)",
				 child_val(&o, "self"), child_val(&o, "err"));

	if (!ut_listing()) {
		ut_check_gone(-1, "the tables are gone (the twin counts no ucounts per table)");
		ksft_finished();
	}
	ut_wait_tables(0, UT_RCU_SECS);
	left = execns_stat(EXECNS_STAT_UCOUNTS);
	for (int i = 0; left && i < UT_RCU_SECS * 10; i++) {
		child_reap_zombies();
		sleep_ms(100);
		left = execns_stat(EXECNS_STAT_UCOUNTS);
	}
	ksft_test_result(left == 0 && ut_ntables() == 0,
			 "the tables are gone, and with them every module ucounts (%ld left, allocated %ld)",
			 left, execns_stat(EXECNS_STAT_UCOUNTS_ALLOCS));
	ksft_finished();
}
