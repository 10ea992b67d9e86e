// SPDX-License-Identifier: GPL-2.0
/*
 * Objects that carry per-user accounting, made on one side of a uid
 * table's boundary and used, counted and released on the other.  They
 * cross as fd 0 of execns(CLONE_NEWUSER) (fds 0-2 survive it) and over
 * unix sockets (SCM_RIGHTS) between a process in a table and one outside;
 * both directions, by uid 1000 (UT_UID) and, for the notification
 * groups, by root; once from a table into a table inside it.
 *
 *  - inotify and fanotify: instances, watches and marks are counted in the
 *    kernel's own (global) ucounts even inside a table: the kernel looks
 *    them up again by (user namespace, uid) at each watch or mark and
 *    releases them on the group's, so a table must not separate them.
 *    fs.inotify.max_user_watches and max_user_instances bite across the
 *    boundary, and adding and removing across it warns nothing (on a
 *    module that separates them, the first inotify_rm_watch() underflows
 *    the group's ucounts: "WARNING ... dec_ucount").
 *  - epoll (user_struct epoll_watches): counted on the user_struct the
 *    epoll was made by, wherever watches are added from.
 *  - pipe (user_struct pipe_bufs): on its creator's side.
 *  - SCM_RIGHTS in flight (user_struct unix_inflight): on the sender's,
 *    whoever made the socket.
 *  - POSIX mqueue (ucounts MSGQUEUE): on its creator's ucounts, released
 *    there wherever it is unlinked and closed.
 *  - queued signal (ucounts SIGPENDING): on the receiver's.
 *
 * Each check is one result; at the end every table is gone and the kernel
 * log gained no WARNING or BUG.
 */
#include <mqueue.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include "lib/test.h"

#define INO_WATCHES	"/proc/sys/fs/inotify/max_user_watches"
#define INO_INSTANCES	"/proc/sys/fs/inotify/max_user_instances"
#define EP_WATCHES	"/proc/sys/fs/epoll/max_user_watches"
#define PIPE_HARD	"/proc/sys/fs/pipe-user-pages-hard"
#define INO_LIMIT	4
#define EP_LIMIT	8
#define PIPE_PAGES	32		/* two default pipes of 16 pages */
#define MQ_LIMIT	6000		/* RLIMIT_MSGQUEUE: room for one queue of one 4 KiB message */
#define SIG_LIMIT	4
#define INFLIGHT	10		/* the holder's descriptors in flight */
#define NOFILE_LOW	4		/* RLIMIT_NOFILE of a sender: fewer than INFLIGHT */
#define PLAN		25

static const char *const watch_paths[] = {
	"/", "/proc", "/dev", "/sys", "/tmp", "/usr", "/etc", "/usr/local/bin",
};

static const char *const mq_names[] = { "/xc-none", "/xc-in", "/xc-out", "/xc-hold", "/xc-probe" };
enum { MQ_IN = 1, MQ_OUT, MQ_HOLD, MQ_PROBE };

/* ------------------------------------------------------------ the listing */

/*
 * A counter of uid 1000 in table: a user_struct one of its uid line, or
 * the sum of its ucounts lines' (-1: no such line, or no listing).
 */
static long listed(long table, const char *field)
{
	static struct ut_snap s;
	struct ut_user *u;
	long sum = -1;

	if (!ut_listing() || table <= 0)
		return -1;
	ut_snap_read(&s);
	u = ut_find_user(&s, table, UT_UID);
	if (!strcmp(field, "epoll_watches"))
		return u ? u->epoll_watches : -1;
	if (!strcmp(field, "pipe_bufs"))
		return u ? u->pipe_bufs : -1;
	if (!strcmp(field, "unix_inflight"))
		return u ? u->unix_inflight : -1;
	/* 5.10: the user_struct keeps the rlimit counts, and no ucounts line does. */
	if (u && u->rlimits && !strcmp(field, "msgqueue"))
		return u->msgqueue;
	if (u && u->rlimits && !strcmp(field, "sigpending"))
		return u->sigpending;
	for (int i = 0; i < s.nucounts; i++) {
		const struct ut_ucounts *c = &s.c[i];

		if (c->table != table || c->uid != UT_UID)
			continue;
		if (sum < 0)
			sum = 0;
		sum += !strcmp(field, "msgqueue") ? c->msgqueue :
		       !strcmp(field, "sigpending") ? c->sigpending :
		       !strcmp(field, "inotify_watches") ? c->inotify_watches :
		       !strcmp(field, "inotify_instances") ? c->inotify_instances :
		       !strcmp(field, "fanotify_marks") ? c->fanotify_marks : 0;
	}
	return sum;
}

static void put_listing(long table)
{
	static const char *const f[] = {
		"epoll_watches", "pipe_bufs", "unix_inflight", "msgqueue", "sigpending",
		"inotify_watches", "inotify_instances",
	};
	char key[40];

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		snprintf(key, sizeof(key), "t_%s", f[i]);
		child_putl(key, listed(table, f[i]));
	}
}

/* Records of the kernel log that contain s. */
static int log_count(const char *s)
{
	static char rec[8192];
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC), n = 0;
	ssize_t r;

	while (fd >= 0 && ((r = read(fd, rec, sizeof(rec) - 1)) > 0 || (r < 0 && errno == EPIPE)))
		if (r > 0) {
			rec[r] = '\0';
			n += strstr(rec, s) != NULL;
		}
	if (fd >= 0)
		close(fd);
	return n;
}

static int bad_log(void)
{
	return log_count("WARNING") + log_count("BUG") + log_count("dec_ucount");
}

/* ------------------------------------------------------------ objects */

static int set_rlimit(int res, rlim_t v)
{
	struct rlimit rl = { v, v };

	return setrlimit(res, &rl) ? errno : 0;
}

static int become(long uid)
{
	return uid >= 0 && setresuid(uid, uid, uid) ? errno : 0;
}

static int open_mq(int idx)
{
	struct mq_attr a = { .mq_maxmsg = 1, .mq_msgsize = 4096 };

	set_rlimit(RLIMIT_MSGQUEUE, MQ_LIMIT);
	return mq_open(mq_names[idx], O_CREAT | O_RDWR | O_CLOEXEC, 0600, &a);
}

static int second_fd = -1;	/* "unix": the other end */

/*
 * Make an object of kind (arg: its size or name), as the caller is:
 * its descriptor, or -errno.
 */
static int make(const char *kind, long arg)
{
	int fd = -1, p[2];

	second_fd = -1;
	if (!strcmp(kind, "inotify")) {
		fd = inotify_init1(0);
	} else if (!strcmp(kind, "inotify-full")) {
		fd = inotify_init1(0);
		for (long i = 0; fd >= 0 && i < arg; i++)
			if (inotify_add_watch(fd, watch_paths[i], IN_CREATE) < 0) {
				printf("# inotify_add_watch %s: %s\n", watch_paths[i], strerror(errno));
				return -errno;
			}
	} else if (!strcmp(kind, "fanotify")) {
		fd = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID, O_RDONLY);
	} else if (!strcmp(kind, "epoll")) {
		fd = epoll_create1(0);
	} else if (!strcmp(kind, "pipe")) {
		if (!pipe(p)) {
			fd = p[0];
			second_fd = p[1];
		}
	} else if (!strcmp(kind, "unix")) {
		if (!socketpair(AF_UNIX, SOCK_DGRAM, 0, p)) {
			fd = p[0];
			second_fd = p[1];
		}
	} else if (!strcmp(kind, "mq")) {
		fd = open_mq(arg);
	} else {
		errno = EINVAL;
	}
	return fd < 0 ? -errno : fd;
}

/* ------------------------------------------------------------ operations */

/* An eventfd, added to epoll ep: 0 or errno. */
static int ep_add(int ep)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int e = eventfd(0, 0);

	return e < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, e, &ev) ? errno : 0;
}

/*
 * Operation op on descriptor fd, as the caller is; arg: a table to list
 * (-1: the caller's, 0: none), a pid or a queue's index.  Prints its
 * results as "key value" lines.
 */
static int do_op(const char *op, int fd, long arg)
{
	long table = arg == -1 ? ut_self() : arg;
	int err, f;

	child_putl("self", ut_self());
	if (!strcmp(op, "ino-addrm")) {
		int wd = inotify_add_watch(fd, "/tmp", IN_CREATE | IN_DELETE);

		child_putl("add_err", wd < 0 ? errno : 0);
		child_putl("rm_err", wd < 0 ? -1 : inotify_rm_watch(fd, wd) ? errno : 0);
	} else if (!strcmp(op, "ino-add")) {
		child_putl("add_err", inotify_add_watch(fd, "/tmp", IN_CREATE) < 0 ? errno : 0);
		f = inotify_init1(0);
		child_putl("fresh_init_err", f < 0 ? errno : 0);
		child_putl("fresh_add_err", f < 0 ? -1 : inotify_add_watch(f, "/proc", IN_CREATE) < 0 ? errno : 0);
	} else if (!strcmp(op, "ino-init")) {
		child_putl("init_err", inotify_init1(0) < 0 ? errno : 0);
	} else if (!strcmp(op, "ino-rm-add")) {
		f = inotify_init1(0);
		child_putl("full_add_err", f < 0 ? -1 : inotify_add_watch(f, "/proc", IN_CREATE) < 0 ? errno : 0);
		child_putl("rm_err", inotify_rm_watch(fd, 1) ? errno : 0);
		child_putl("after_add_err", f < 0 ? -1 : inotify_add_watch(f, "/proc", IN_CREATE) < 0 ? errno : 0);
	} else if (!strcmp(op, "fan-addrm")) {
		err = fanotify_mark(fd, FAN_MARK_ADD, FAN_CLOSE_WRITE, AT_FDCWD, "/tmp") ? errno : 0;
		child_putl("add_err", err);
		child_putl("rm_err", err ? -1 :
			   fanotify_mark(fd, FAN_MARK_REMOVE, FAN_CLOSE_WRITE, AT_FDCWD, "/tmp") ? errno : 0);
		sleep_ms(200);	/* the mark's release, if deferred */
	} else if (!strcmp(op, "ep-add")) {
		child_putl("add_err", ep_add(fd));
		f = epoll_create1(0);
		child_putl("fresh_add_err", f < 0 ? -1 : ep_add(f));
		put_listing(table);
	} else if (!strcmp(op, "pipe-grow")) {
		int p[2];

		child_putl("grow_err", fcntl(fd, F_SETPIPE_SZ, PIPE_PAGES * (int)sysconf(_SC_PAGESIZE)) < 0 ? errno : 0);
		err = pipe(p) ? errno : 0;
		child_putl("fresh_pipe_err", err);
		child_putl("fresh_grow_err", err ? -1 : fcntl(p[0], F_SETPIPE_SZ, PIPE_PAGES * (int)sysconf(_SC_PAGESIZE)) < 0 ? errno : 0);
		put_listing(table);
	} else if (!strcmp(op, "unix-send")) {
		int sp[2];
		struct rlimit rl, low;

		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp))
			return 3;
		getrlimit(RLIMIT_NOFILE, &rl);
		low = rl;
		low.rlim_cur = NOFILE_LOW;	/* the soft limit, what the kernel holds unix_inflight to */
		setrlimit(RLIMIT_NOFILE, &low);
		child_putl("send_err", fd_send(fd, sp[0]) ? errno : 0);
		setrlimit(RLIMIT_NOFILE, &rl);	/* room to read the listing */
		put_listing(table);
	} else if (!strcmp(op, "mq-unlink")) {
		child_putl("unlink_err", mq_unlink(mq_names[arg]) ? errno : 0);
		close(fd);
	} else if (!strcmp(op, "mq-probe")) {
		f = open_mq(MQ_PROBE);
		child_putl("err", f < 0 ? errno : 0);
		mq_unlink(mq_names[MQ_PROBE]);
	} else if (!strcmp(op, "sig-send")) {
		union sigval v = { 0 };
		int sent = 0;

		err = 0;
		while (sent <= SIG_LIMIT && !err) {
			if (sigqueue(arg, SIGRTMIN, v))
				err = errno;
			else
				sent++;
		}
		child_putl("sent", sent);
		child_putl("err", err);
	} else {
		return 3;
	}
	return 0;
}

/* ------------------------------------------------------------ modes */

/* "op UID OP ARG": as UID (-1: as is), OP on fd 0. */
static int mode_op(int argc, char **argv)
{
	(void)argc;
	if (become(atol(argv[2])))
		return 2;
	return do_op(argv[3], 0, atol(argv[4]));
}

/* "make UID KIND ARG": as UID, make KIND and send it (and its other end) over fd 0. */
static int mode_make(int argc, char **argv)
{
	int fd;

	(void)argc;
	if (become(atol(argv[2])))
		return 2;
	child_putl("self", ut_self());
	fd = make(argv[3], atol(argv[4]));
	child_putl("make_err", fd < 0 ? -fd : 0);
	if (fd < 0)
		return 0;
	put_listing(ut_self());
	if (fd_send(0, fd) || (second_fd >= 0 && fd_send(0, second_fd)))
		return 4;
	return 0;
}

/* "sig-recv": SIGRTMIN blocked, RLIMIT_SIGPENDING 4, as uid 1000; "ready", then stays. */
static int mode_sig_recv(int argc, char **argv)
{
	sigset_t set;

	(void)argc;
	(void)argv;
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	sigprocmask(SIG_BLOCK, &set, NULL);
	set_rlimit(RLIMIT_SIGPENDING, SIG_LIMIT);
	if (become(UT_UID))
		return 2;
	child_putl("self", ut_self());
	child_putl("pid", getpid());
	child_put("ready", "1");
	for (;;)
		pause();
}

static int mode_nest(int argc, char **argv);

static const struct child_mode modes[] = {
	UT_MODES,
	CHILD_MODE("op", 3, mode_op),
	CHILD_MODE("make", 3, mode_make),
	CHILD_MODE("sig-recv", 0, mode_sig_recv),
	CHILD_MODE("nest", 0, mode_nest),
};

/* ------------------------------------------------------------ the test's side */

struct into {
	int flags;	/* execns flags; -1: execve */
	int fd0;	/* becomes fd 0 (-1: stays) */
	char *argv[8];
};

static int into_main(void *arg)
{
	struct into *in = arg;

	if (in->fd0 >= 0 && dup2(in->fd0, 0) < 0)
		return 97;
	if (in->flags < 0)
		execv("/proc/self/exe", in->argv);
	else
		execns(in->flags, "/proc/self/exe", in->argv, environ);
	child_putl("execns_errno", errno);
	return 99;
}

/* This program in a mode (args: mode, then up to 4 strings, NULL-ended), fd0 as its fd 0. */
static int go(int flags, int fd0, int how, struct child *c, ...)
{
	struct into in = { flags, fd0, { "/proc/self/exe" } };
	va_list ap;
	char *s;
	int i = 1;

	va_start(ap, c);
	while ((s = va_arg(ap, char *)) && i < 7)
		in.argv[i++] = s;
	va_end(ap);
	in.argv[i] = NULL;
	return child_start(c, CHILD_STDOUT | how, CHILD_TIMEOUT, into_main, &in);
}

/* op in a new table as uid (-1: root), fd0 its fd 0. */
static void op_in_table(long uid, int fd0, const char *op, long arg, struct child *c)
{
	char u[24], a[24];

	snprintf(u, sizeof(u), "%ld", uid);
	snprintf(a, sizeof(a), "%ld", arg);
	go(CLONE_NEWUSER, fd0, 0, c, "op", u, op, a, NULL);
}

struct outside {
	long uid;
	const char *op;
	int fd;
	long arg;
};

static int outside_main(void *arg)
{
	struct outside *o = arg;

	if (become(o->uid))
		return 2;
	return do_op(o->op, o->fd, o->arg);
}

/* op outside any table as uid, on fd. */
static void op_outside(long uid, int fd, const char *op, long arg, struct child *c)
{
	struct outside o = { uid, op, fd, arg };

	child_run(outside_main, &o, c);
}

struct maker {
	long uid;
	const char *kind;
	long arg;
	int sock;
};

static int maker_main(void *arg)
{
	struct maker *m = arg;
	int fd;

	if (become(m->uid))
		return 2;
	fd = make(m->kind, m->arg);
	if (fd < 0) {
		child_putl("make_err", -fd);
		return 0;
	}
	return fd_send(m->sock, fd) ? 4 : 0;
}

/* kind made by uid where the caller is (outside, or in its table): its descriptor, or -errno. */
static int make_as(long uid, const char *kind, long arg)
{
	struct maker m = { uid, kind, arg, -1 };
	struct child c;
	int sv[2], fd;

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv))
		return -errno;
	m.sock = sv[0];
	child_run(maker_main, &m, &c);
	close(sv[0]);
	if (child_val(&c, "make_err") > 0)
		fd = -(int)child_val(&c, "make_err");
	else if (!child_ok(&c) || (fd = fd_recv(sv[1])) < 0)
		fd = -EIO;
	close(sv[1]);
	return fd;
}

/* kind made by uid in a new table, sent out: its descriptor (*other: a second one), or -errno. */
static int make_in_table(long uid, const char *kind, long arg, struct child *c, int *other)
{
	char u[24], a[24];
	int sv[2], fd = -EIO;

	if (other)
		*other = -1;
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv))
		return -errno;
	snprintf(u, sizeof(u), "%ld", uid);
	snprintf(a, sizeof(a), "%ld", arg);
	go(CLONE_NEWUSER, sv[0], 0, c, "make", u, kind, a, NULL);
	close(sv[0]);
	if (child_val(c, "make_err") > 0)
		fd = -(int)child_val(c, "make_err");
	else if (!child_ok(c) || (fd = fd_recv(sv[1])) < 0)
		fd = -EIO;
	if (fd >= 0 && other)
		*other = fd_recv(sv[1]);
	close(sv[1]);
	return fd;
}

/* Wait (up to secs) until table is no longer listed: 0, or 1 when it still is. */
static int table_listed_after(long table, int secs)
{
	static struct ut_snap s;

	for (int i = 0; i <= secs * 10; i++) {
		child_reap_zombies();
		ut_snap_read(&s);
		if (!ut_find_table(&s, table))
			return 0;
		sleep_ms(100);
	}
	return 1;
}

#define GONE_SECS	10

/* Table t is no longer listed (within GONE_SECS); always 1 on the twin, which lists none. */
static int gone(long t)
{
	return !ut_listing() || (t > 0 && !table_listed_after(t, GONE_SECS));
}

static void closefd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* ------------------------------------------------------------ holders (uid 1000, outside) */

static int hold_ino_watches(void *arg)
{
	(void)arg;
	return make("inotify-full", INO_LIMIT) >= 0;
}

static int hold_ino_instances(void *arg)
{
	for (long i = 0; i < (long)arg; i++)
		if (inotify_init1(0) < 0)
			return 0;
	return 1;
}

static int hold_epoll(void *arg)
{
	int err;

	(void)arg;
	return add_watches(EP_LIMIT, &err) == EP_LIMIT;
}

static int hold_pipe(void *arg)
{
	int p[2];

	(void)arg;
	return !pipe(p);
}

static int hold_inflight(void *arg)
{
	int sv[2], sp[2];

	(void)arg;
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) || socketpair(AF_UNIX, SOCK_STREAM, 0, sp))
		return 0;
	for (int i = 0; i < INFLIGHT; i++)
		if (fd_send(sv[0], sp[0]))
			return 0;
	return 1;
}

static int hold_mq(void *arg)
{
	(void)arg;
	return open_mq(MQ_HOLD) >= 0;
}

static int hold_sig(void *arg)
{
	union sigval v = { 0 };
	sigset_t set;

	(void)arg;
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	sigprocmask(SIG_BLOCK, &set, NULL);
	set_rlimit(RLIMIT_SIGPENDING, SIG_LIMIT);
	for (int i = 0; i < SIG_LIMIT; i++)
		if (sigqueue(getpid(), SIGRTMIN, v))
			return 0;
	return 1;
}

/* ------------------------------------------------------------ nested */

/*
 * "nest", in table 1 as root: uid 1000 there makes an inotify fd and an
 * epoll, each passed as fd 0 through execns(CLONE_NEWUSER) to uid 1000 in
 * a table inside (table 2): watch added and removed; one epoll watch
 * added, which table 1's uid 1000 counts.
 */
static int mode_nest(int argc, char **argv)
{
	long self1 = ut_self();
	struct child c;
	int fd;

	(void)argc;
	(void)argv;
	child_putl("self1", self1);
	fd = make_as(UT_UID, "inotify", 0);
	child_putl("ino_make_err", fd < 0 ? -fd : 0);
	if (fd >= 0) {
		op_in_table(UT_UID, fd, "ino-addrm", 0, &c);
		close(fd);
		child_putl("ino_self", child_val(&c, "self"));
		child_putl("ino_add_err", child_val(&c, "add_err"));
		child_putl("ino_rm_err", child_val(&c, "rm_err"));
	}
	fd = make_as(UT_UID, "epoll", 0);
	child_putl("ep_make_err", fd < 0 ? -fd : 0);
	if (fd >= 0) {
		op_in_table(UT_UID, fd, "ep-add", self1, &c);
		child_putl("ep_self", child_val(&c, "self"));
		child_putl("ep_add_err", child_val(&c, "add_err"));
		child_putl("ep_t_epoll", child_val(&c, "t_epoll_watches"));
		close(fd);
	}
	return 0;
}

/* ------------------------------------------------------------ main */

struct knob {
	const char *path, *value;
	char old[64];
};

static struct knob knobs[] = {
	{ .path = INO_WATCHES, .value = "4" }, { .path = INO_INSTANCES, .value = "8" },
	{ .path = EP_WATCHES, .value = "8" }, { .path = PIPE_HARD, .value = "32" },
};
#define NR_KNOBS (sizeof(knobs) / sizeof(knobs[0]))

static void cleanup_mq(void)
{
	for (size_t i = 1; i < sizeof(mq_names) / sizeof(mq_names[0]); i++)
		mq_unlink(mq_names[i]);
}

static int no_new_bad(int before)
{
	return bad_log() == before;
}

static long v(const struct child *c, const char *k)
{
	return child_val(c, k);
}

static void test_inotify(void)
{
	struct child c, m;
	pid_t h;
	int fd, bad, made;
	long t;

	/* 1: the bug: made outside by uid 1000, watch added and removed in a table */
	bad = bad_log();
	fd = make_as(UT_UID, "inotify", 0);
	op_in_table(UT_UID, fd, "ino-addrm", 0, &c);
	closefd(&fd);
	ksft_test_result(v(&c, "self") > 0 && v(&c, "add_err") == 0 && v(&c, "rm_err") == 0 && no_new_bad(bad) &&
			 gone(v(&c, "self")),
			 "inotify fd made by uid 1000 outside, fd 0 of execns(CLONE_NEWUSER): uid 1000 in table %ld adds and removes a watch (errno %ld, %ld), no WARNING (dec_ucount underflow) in the kernel log, the table gone once the fd is closed",
			 v(&c, "self"), v(&c, "add_err"), v(&c, "rm_err"));

	/* 2: the same as root */
	bad = bad_log();
	fd = make_as(-1, "inotify", 0);
	op_in_table(-1, fd, "ino-addrm", 0, &c);
	closefd(&fd);
	ksft_test_result(v(&c, "self") > 0 && v(&c, "add_err") == 0 && v(&c, "rm_err") == 0 && no_new_bad(bad) &&
			 gone(v(&c, "self")),
			 "inotify fd made by root outside, fd 0 of execns(CLONE_NEWUSER): root in table %ld adds and removes a watch (errno %ld, %ld), no WARNING, the table gone once the fd is closed",
			 v(&c, "self"), v(&c, "add_err"), v(&c, "rm_err"));

	/* 3: made in a table by uid 1000, used outside by uid 1000 */
	bad = bad_log();
	fd = make_in_table(UT_UID, "inotify", 0, &m, NULL);
	if (fd >= 0)
		op_outside(UT_UID, fd, "ino-addrm", 0, &c);
	closefd(&fd);
	ksft_test_result(fd != -EIO && v(&m, "self") > 0 && v(&c, "add_err") == 0 && v(&c, "rm_err") == 0 &&
			 no_new_bad(bad) && gone(v(&m, "self")),
			 "inotify fd made by uid 1000 in table %ld, sent out over SCM_RIGHTS: uid 1000 outside adds and removes a watch (errno %ld, %ld), no WARNING, the table gone once the fd is closed",
			 v(&m, "self"), v(&c, "add_err"), v(&c, "rm_err"));

	/* 4: max_user_watches bites in a table when uid 1000 outside holds them all */
	h = child_hold(UT_UID, hold_ino_watches, NULL);
	fd = make_as(UT_UID, "inotify", 0);
	op_in_table(UT_UID, fd, "ino-add", 0, &c);
	closefd(&fd);
	ksft_test_result(h > 0 && v(&c, "self") > 0 && v(&c, "add_err") == ENOSPC && v(&c, "fresh_add_err") == ENOSPC &&
			 gone(v(&c, "self")),
			 "max_user_watches 4, all held by uid 1000 outside: uid 1000 in table %ld gets ENOSPC adding a watch, to an fd from outside (errno %ld) and to its own (errno %ld): counted globally; the table gone after",
			 v(&c, "self"), v(&c, "add_err"), v(&c, "fresh_add_err"));
	child_kill(h);

	/* 5, 6: watches added in a table count for uid 1000 outside; removed from outside */
	bad = bad_log();
	fd = make_in_table(UT_UID, "inotify-full", INO_LIMIT, &m, NULL);
	t = v(&m, "self");
	made = fd >= 0;
	if (made)
		op_outside(UT_UID, fd, "ino-rm-add", 0, &c);
	closefd(&fd);
	ksft_test_result(made && v(&c, "full_add_err") == ENOSPC && v(&c, "rm_err") == 0 &&
			 v(&c, "after_add_err") == 0 && no_new_bad(bad) && gone(t),
			 "uid 1000 in table %ld holds 4 watches (max_user_watches 4), sent out: uid 1000 outside gets ENOSPC (errno %ld), removes one of them (errno %ld), then adds one (errno %ld); no WARNING, the table gone once the fd is closed",
			 t, v(&c, "full_add_err"), v(&c, "rm_err"), v(&c, "after_add_err"));
	if (ut_listing())
		ksft_test_result(made && v(&m, "t_inotify_watches") <= 0 && v(&m, "t_inotify_instances") <= 0,
				 "the table's own ucounts counted none of them (inotify_watches %ld, inotify_instances %ld; -1: no line)",
				 v(&m, "t_inotify_watches"), v(&m, "t_inotify_instances"));
	else
		ksft_test_result_code(KSFT_SKIP, "the table's own ucounts count no inotify watch", UT_NO_LISTING);

	/* 7: max_user_instances bites in a table */
	write_knob(INO_INSTANCES, "2");
	h = child_hold(UT_UID, hold_ino_instances, (void *)2L);
	op_in_table(UT_UID, -1, "ino-init", 0, &c);
	ksft_test_result(h > 0 && v(&c, "self") > 0 && v(&c, "init_err") == EMFILE,
			 "max_user_instances 2, both held by uid 1000 outside: inotify_init1() by uid 1000 in table %ld is EMFILE (errno %ld)",
			 v(&c, "self"), v(&c, "init_err"));
	child_kill(h);
	write_knob(INO_INSTANCES, "8");
}

static void test_fanotify(long uid, const char *who)
{
	char name[160];
	struct child c;
	int fd, bad = bad_log();

	snprintf(name, sizeof(name),
		 "fanotify group made by %s outside, fd 0 of execns(CLONE_NEWUSER): %s in a table adds and removes an inode mark, no WARNING", who, who);
	fd = make_as(uid, "fanotify", 0);
	if (fd < 0) {
		if (uid >= 0 && (fd == -EPERM || fd == -EINVAL))
			ksft_test_result_code(KSFT_SKIP, name, "unprivileged fanotify_init(FAN_REPORT_FID) refused here (errno %d)", -fd);
		else
			ksft_test_result(0, "%s (fanotify_init errno %d)", name, -fd);
		return;
	}
	op_in_table(uid, fd, "fan-addrm", 0, &c);
	closefd(&fd);
	if (v(&c, "add_err") == ENODEV || v(&c, "add_err") == EOPNOTSUPP || v(&c, "add_err") == EXDEV) {
		ksft_test_result_code(KSFT_SKIP, name, "FAN_REPORT_FID marks on tmpfs refused by this kernel (errno %ld)",
				      v(&c, "add_err"));
		return;
	}
	ksft_test_result(v(&c, "self") > 0 && v(&c, "add_err") == 0 && v(&c, "rm_err") == 0 && no_new_bad(bad) &&
			 gone(v(&c, "self")),
			 "%s, the table gone once the fd is closed (table %ld, errno %ld, %ld)", name, v(&c, "self"), v(&c, "add_err"), v(&c, "rm_err"));
}

static void test_epoll(void)
{
	struct child c, m;
	pid_t h;
	int fd;

	h = child_hold(UT_UID, hold_epoll, NULL);
	fd = make_as(UT_UID, "epoll", 0);
	op_in_table(UT_UID, fd, "ep-add", 0, &c);
	closefd(&fd);
	ksft_test_result(h > 0 && v(&c, "self") > 0 && v(&c, "add_err") == ENOSPC && v(&c, "fresh_add_err") == 0,
			 "epoll max_user_watches 8, all held by uid 1000 outside: an epoll made by uid 1000 outside, fd 0 in table %ld: EPOLL_CTL_ADD there is ENOSPC (errno %ld, counted on its creator), on an epoll made in the table it is not (errno %ld)",
			 v(&c, "self"), v(&c, "add_err"), v(&c, "fresh_add_err"));

	fd = make_in_table(UT_UID, "epoll", 0, &m, NULL);
	if (fd >= 0)
		op_outside(UT_UID, fd, "ep-add", v(&m, "self"), &c);
	ksft_test_result(fd >= 0 && v(&c, "add_err") == 0 && v(&c, "fresh_add_err") == ENOSPC &&
			 (!ut_listing() || v(&c, "t_epoll_watches") == 1),
			 "an epoll made by uid 1000 in table %ld, sent out: uid 1000 outside (at its limit, errno %ld on its own) adds a watch to it (errno %ld), counted on the table's uid 1000 (epoll_watches %ld)",
			 v(&m, "self"), v(&c, "fresh_add_err"), v(&c, "add_err"), v(&c, "t_epoll_watches"));
	closefd(&fd);
	child_kill(h);
}

static void test_pipe(void)
{
	struct child c, m;
	pid_t h;
	int fd, other;

	/* uid 1000 outside: 16 pages in fd's pipe, 16 in the holder's: at the hard limit */
	fd = make_as(UT_UID, "pipe", 0);
	h = child_hold(UT_UID, hold_pipe, NULL);
	op_in_table(UT_UID, fd, "pipe-grow", 0, &c);
	closefd(&fd);
	ksft_test_result(h > 0 && v(&c, "self") > 0 && v(&c, "grow_err") == EPERM && v(&c, "fresh_pipe_err") == 0 &&
			 v(&c, "fresh_grow_err") == 0,
			 "pipe-user-pages-hard 32, uid 1000 outside at it: a pipe made outside, grown to 32 pages by uid 1000 in table %ld, is EPERM (errno %ld, counted on its creator); a pipe made there grows (errno %ld, %ld)",
			 v(&c, "self"), v(&c, "grow_err"), v(&c, "fresh_pipe_err"), v(&c, "fresh_grow_err"));

	fd = make_in_table(UT_UID, "pipe", 0, &m, &other);
	if (fd >= 0)
		op_outside(UT_UID, fd, "pipe-grow", v(&m, "self"), &c);
	ksft_test_result(fd >= 0 && v(&c, "grow_err") == 0 && v(&c, "fresh_pipe_err") == ENFILE &&
			 (!ut_listing() || (v(&m, "t_pipe_bufs") == 16 && v(&c, "t_pipe_bufs") == 32)),
			 "a pipe made by uid 1000 in table %ld, sent out: uid 1000 outside (pipe() there ENFILE: errno %ld) grows it to 32 pages (errno %ld), counted on the table's uid 1000 (pipe_bufs %ld, then %ld)",
			 v(&m, "self"), v(&c, "fresh_pipe_err"), v(&c, "grow_err"), v(&m, "t_pipe_bufs"),
			 v(&c, "t_pipe_bufs"));
	closefd(&fd);
	closefd(&other);
	child_kill(h);
}

static void test_unix(void)
{
	struct child c, m;
	pid_t h;
	int fd, other, sv[2], got;

	h = child_hold(UT_UID, hold_inflight, NULL);
	fd = make_in_table(UT_UID, "unix", 0, &m, &other);
	if (fd >= 0)
		op_outside(UT_UID, fd, "unix-send", 0, &c);
	ksft_test_result(h > 0 && fd >= 0 && other >= 0 && v(&c, "send_err") == ETOOMANYREFS,
			 "uid 1000 outside with 10 descriptors in flight, RLIMIT_NOFILE 4: sending one over a socket made in table %ld is ETOOMANYREFS (errno %ld): counted on the sender",
			 v(&m, "self"), v(&c, "send_err"));
	closefd(&fd);
	closefd(&other);

	got = -1;
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) == 0) {
		op_in_table(UT_UID, sv[0], "unix-send", -1, &c);
		got = fd_recv(sv[1]);
		close(sv[0]);
		close(sv[1]);
	}
	ksft_test_result(v(&c, "send_err") == 0 && got >= 0 && (!ut_listing() || v(&c, "t_unix_inflight") == 1),
			 "uid 1000 in table %ld, RLIMIT_NOFILE 4, sends a descriptor over a socket made outside (errno %ld), counted on the table's uid 1000 (unix_inflight %ld), received outside",
			 v(&c, "self"), v(&c, "send_err"), v(&c, "t_unix_inflight"));
	closefd(&got);
	child_kill(h);
}

static void test_mq(void)
{
	struct child c, m, p0, p1;
	pid_t h;
	int fd, left = -1;
	long t;

	h = child_hold(UT_UID, hold_mq, NULL);
	op_outside(UT_UID, -1, "mq-probe", 0, &p0);
	fd = make_in_table(UT_UID, "mq", MQ_IN, &m, NULL);
	t = v(&m, "self");
	if (fd >= 0)
		op_outside(UT_UID, fd, "mq-unlink", MQ_IN, &c);
	closefd(&fd);
	if (ut_listing())
		left = table_listed_after(t, UT_RCU_SECS);
	ksft_test_result(h > 0 && v(&p0, "err") == EMFILE && v(&m, "make_err") == 0 && v(&c, "unlink_err") == 0 &&
			 (!ut_listing() || (v(&m, "t_msgqueue") > 0 && left == 0)),
			 "RLIMIT_MSGQUEUE: uid 1000 outside full (mq_open errno %ld), uid 1000 in table %ld makes a queue (errno %ld, the table's msgqueue %ld), unlinked and closed outside (errno %ld): the table goes with it (still listed: %d)",
			 v(&p0, "err"), t, v(&m, "make_err"), v(&m, "t_msgqueue"), v(&c, "unlink_err"), left);
	child_kill(h);
	mq_unlink(mq_names[MQ_HOLD]);

	fd = make_as(UT_UID, "mq", MQ_OUT);
	op_outside(UT_UID, -1, "mq-probe", 0, &p0);
	op_in_table(UT_UID, fd, "mq-unlink", MQ_OUT, &c);
	closefd(&fd);
	op_outside(UT_UID, -1, "mq-probe", 0, &p1);
	ksft_test_result(v(&p0, "err") == EMFILE && v(&c, "self") > 0 && v(&c, "unlink_err") == 0 && v(&p1, "err") == 0,
			 "a queue made by uid 1000 outside (full: errno %ld), unlinked and closed by uid 1000 in table %ld (errno %ld): released on its creator's ucounts, uid 1000 outside makes one again (errno %ld)",
			 v(&p0, "err"), v(&c, "self"), v(&c, "unlink_err"), v(&p1, "err"));
	cleanup_mq();
}

static void test_signal(void)
{
	struct child c, r;
	pid_t h;
	long pending;

	h = child_hold(UT_UID, hold_sig, NULL);
	go(CLONE_NEWUSER, -1, CHILD_LIVE, &r, "sig-recv", NULL);
	child_read_until(&r, "ready");
	op_outside(UT_UID, -1, "sig-send", v(&r, "pid"), &c);
	pending = listed(v(&r, "self"), "sigpending");
	ksft_test_result(h > 0 && v(&r, "pid") > 0 && v(&c, "sent") == SIG_LIMIT && v(&c, "err") == EAGAIN &&
			 (!ut_listing() || pending == SIG_LIMIT),
			 "uid 1000 outside (its own 4 pending, RLIMIT_SIGPENDING 4) queues to uid 1000 in table %ld: 4 taken, the 5th EAGAIN (%ld, errno %ld), counted on the receiver's table (sigpending %ld)",
			 v(&r, "self"), v(&c, "sent"), v(&c, "err"), pending);
	if (r.pid > 0)
		kill(r.pid, SIGKILL);
	child_finish(&r);

	op_in_table(UT_UID, -1, "sig-send", h, &c);
	ksft_test_result(h > 0 && v(&c, "self") > 0 && v(&c, "sent") == 0 && v(&c, "err") == EAGAIN,
			 "uid 1000 in table %ld queues to uid 1000 outside, which has 4 pending (RLIMIT_SIGPENDING 4): EAGAIN at once (%ld taken, errno %ld), counted on the receiver",
			 v(&c, "self"), v(&c, "sent"), v(&c, "err"));
	child_kill(h);
}

static void test_nest(void)
{
	struct child c;
	int bad = bad_log();

	go(CLONE_NEWUSER, -1, 0, &c, "nest", NULL);
	ksft_test_result(child_ok(&c) && v(&c, "self1") > 0 && v(&c, "ino_self") > 0 &&
			 v(&c, "ino_self") != v(&c, "self1") &&
			 v(&c, "ino_add_err") == 0 && v(&c, "ino_rm_err") == 0 && no_new_bad(bad) &&
			 gone(v(&c, "ino_self")) && gone(v(&c, "self1")),
			 "nested: inotify fd made by uid 1000 in table %ld, fd 0 of execns(CLONE_NEWUSER) into table %ld: uid 1000 adds and removes a watch (errno %ld, %ld), no WARNING, both tables gone after",
			 v(&c, "self1"), v(&c, "ino_self"), v(&c, "ino_add_err"), v(&c, "ino_rm_err"));
	ksft_test_result(child_ok(&c) && v(&c, "ep_self") > 0 &&
			 v(&c, "ep_self") != v(&c, "self1") && v(&c, "ep_add_err") == 0 &&
			 (!ut_listing() || v(&c, "ep_t_epoll") == 1),
			 "nested: epoll made by uid 1000 in table %ld, a watch added in table %ld inside it (errno %ld), counted on table %ld's uid 1000 (epoll_watches %ld)",
			 v(&c, "self1"), v(&c, "ep_self"), v(&c, "ep_add_err"), v(&c, "self1"), v(&c, "ep_t_epoll"));
}

int main(int argc, char **argv)
{
	int tables0, bad0, ok = 1;
	char now[64];

	CHILD_DISPATCH(modes, argc, argv);

	tables0 = ut_start(PLAN);
	bad0 = bad_log();
	cleanup_mq();
	for (size_t i = 0; i < NR_KNOBS; i++) {
		read_line(knobs[i].path, knobs[i].old, sizeof(knobs[i].old));
		ok &= knobs[i].old[0] && !set_knob(knobs[i].path, knobs[i].value);
	}
	ksft_test_result(ok, "limits lowered: inotify max_user_watches 4, max_user_instances 8, epoll max_user_watches 8, pipe-user-pages-hard 32");

	test_inotify();				/* 7 */
	test_fanotify(UT_UID, "uid 1000");	/* 1 */
	test_fanotify(-1, "root");		/* 1 */
	test_epoll();				/* 2 */
	test_pipe();				/* 2 */
	test_unix();				/* 2 */
	test_mq();			/* 2 */
	test_signal();				/* 2 */
	test_nest();				/* 2 */

	ok = 1;
	for (size_t i = 0; i < NR_KNOBS; i++) {
		write_knob(knobs[i].path, knobs[i].old);
		read_line(knobs[i].path, now, sizeof(now));
		ok &= knobs[i].old[0] && !strcmp(now, knobs[i].old);
	}
	ksft_test_result(ok, "limits restored");
	cleanup_mq();
	ut_check_gone(tables0, "every table made is gone with its processes and descriptors");
	ksft_test_result(bad_log() == bad0,
			 "the kernel log gained no WARNING, BUG or dec_ucount line (%d before, %d now)", bad0, bad_log());
	ksft_finished();
}
