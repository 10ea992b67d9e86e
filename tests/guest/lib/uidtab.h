/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the uid-table test programs (test-uidtab-*.c), all ut_*.
 *
 *  - /proc/execns: the caller's table id, and a parsed copy of
 *    /proc/execns/tables (every table line, every uid line, and how many
 *    lines did not have the documented form);
 *  - running code somewhere else: ut_run() forks and runs a function with
 *    its stdout on a pipe; ut_spawn() forks and execns()es this very program
 *    into one of its modes (child.h), normally into a new table; UT_MODES
 *    are the modes every such program has ("report" and "sleep").
 *    Either side prints "key value" lines (ut_put) that the test reads back
 *    with ut_val(); lines starting with "# " are passed on as diagnostics;
 *  - ut_hold(): a child that becomes some uid, builds something (watches,
 *    pipes...) and keeps it until killed.
 */
#ifndef EXECNS_LIB_UIDTAB_H
#define EXECNS_LIB_UIDTAB_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <execns.h>
#include "child.h"
#include "ktap.h"
#include "sys.h"

#define UT_SELF		"/proc/execns/self"
#define UT_TABLES	"/proc/execns/tables"
#define UT_STATS	"/proc/execns/stats"
#define UT_NONE		LONG_MIN	/* ut_val(): no such key */
#define UT_UID		1000		/* the unprivileged uid the tests share */
#define UT_RCU_SECS	30		/* seconds to wait for what goes after RCU */
#define UT_TIMEOUT	120		/* seconds, for any one child */

/* ------------------------------------------------------------ /proc/execns */

/* The caller's table id: one decimal line, else -1. */
static inline long ut_self(void)
{
	char buf[64] = "", *end;
	int fd = open(UT_SELF, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	long v;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 2 || buf[n - 1] != '\n')
		return -1;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || end == buf || *end != '\n' || v < 0)
		return -1;
	return v;
}

struct ut_table {
	long id, parent, users;
	long tasks, refs;	/* threads with its real credentials; user_struct references */
	int uid_lines;		/* uid lines listed under it */
};

struct ut_user {
	unsigned long uid;
	long table, refs, epoll_watches, pipe_bufs, unix_inflight, locked_vm, watches;
};

/* A "ucounts ..." line: a table's ucounts for one (user namespace, uid). */
struct ut_ucounts {
	unsigned long uid, ns;
	long table, refs, nproc, sigpending, msgqueue, memlock, inotify_instances,
	     inotify_watches, fanotify_groups, fanotify_marks, user_namespaces;
};

#define UT_MAX_TABLES	128
#define UT_MAX_USERS	512

struct ut_snap {
	int ok;			/* the file was read */
	int ntables, nusers, nucounts;
	int bad;		/* lines of no known form, or a line under a table not listed */
	char first_bad[160];
	struct ut_table t[UT_MAX_TABLES];
	struct ut_user u[UT_MAX_USERS];
	struct ut_ucounts c[UT_MAX_USERS];
};

/* Is table id listed in s? */
static inline int ut_snap_has_table(const struct ut_snap *s, long id)
{
	for (int i = 0; i < s->ntables; i++)
		if (s->t[i].id == id)
			return 1;
	return 0;
}

static inline void ut_snap_bad(struct ut_snap *s, const char *line)
{
	if (!s->bad++)
		snprintf(s->first_bad, sizeof(s->first_bad), "%.*s",
			 (int)sizeof(s->first_bad) - 1, line);
}

/* Parse /proc/execns/tables; s->ok is 0 when it cannot be read. */
static inline void ut_snap_read(struct ut_snap *s)
{
	char line[512];
	FILE *f = fopen(UT_TABLES, "re");
	struct ut_table *cur = NULL;

	memset(s, 0, sizeof(*s));
	if (!f)
		return;
	s->ok = 1;
	while (fgets(line, sizeof(line), f)) {
		struct ut_table t = { 0 };
		struct ut_user u = { 0 };
		struct ut_ucounts c = { 0 };
		int end = -1;

		if (sscanf(line, "table %ld parent %ld users %ld tasks %ld refs %ld%n",
			   &t.id, &t.parent, &t.users, &t.tasks, &t.refs, &end) == 5 &&
		    line[end] == '\n') {
			if (s->ntables < UT_MAX_TABLES) {
				cur = &s->t[s->ntables++];
				*cur = t;
			} else {
				ut_snap_bad(s, line);
			}
		} else if (sscanf(line, "uid %lu table %ld refs %ld epoll_watches %ld pipe_bufs %ld "
				  "unix_inflight %ld locked_vm %ld watches %ld%n",
				  &u.uid, &u.table, &u.refs, &u.epoll_watches, &u.pipe_bufs,
				  &u.unix_inflight, &u.locked_vm, &u.watches, &end) == 8 &&
			   line[end] == '\n') {
			if (!cur || cur->id != u.table || s->nusers >= UT_MAX_USERS) {
				ut_snap_bad(s, line);
				continue;
			}
			cur->uid_lines++;
			s->u[s->nusers++] = u;
		} else if (sscanf(line, "ucounts uid %lu ns %lu table %ld refs %ld nproc %ld sigpending %ld "
				  "msgqueue %ld memlock %ld inotify_instances %ld inotify_watches %ld "
				  "fanotify_groups %ld fanotify_marks %ld user_namespaces %ld%n",
				  &c.uid, &c.ns, &c.table, &c.refs, &c.nproc, &c.sigpending,
				  &c.msgqueue, &c.memlock, &c.inotify_instances, &c.inotify_watches,
				  &c.fanotify_groups, &c.fanotify_marks, &c.user_namespaces, &end) == 13 &&
			   line[end] == '\n') {
			if (!ut_snap_has_table(s, c.table) || s->nucounts >= UT_MAX_USERS) {
				ut_snap_bad(s, line);
				continue;
			}
			s->c[s->nucounts++] = c;
		} else {
			ut_snap_bad(s, line);
		}
	}
	fclose(f);
}

static inline struct ut_table *ut_find_table(struct ut_snap *s, long id)
{
	for (int i = 0; i < s->ntables; i++)
		if (s->t[i].id == id)
			return &s->t[i];
	return NULL;
}

static inline struct ut_user *ut_find_user(struct ut_snap *s, long table, unsigned long uid)
{
	for (int i = 0; i < s->nusers; i++)
		if (s->u[i].table == table && s->u[i].uid == uid)
			return &s->u[i];
	return NULL;
}

/* How many tables list uid. */
static inline int ut_tables_with_uid(struct ut_snap *s, unsigned long uid)
{
	int n = 0;

	for (int i = 0; i < s->nusers; i++)
		n += s->u[i].uid == uid;
	return n;
}

/* Every table's "users N" equals the uid lines under it. */
static inline int ut_users_consistent(struct ut_snap *s)
{
	for (int i = 0; i < s->ntables; i++)
		if (s->t[i].users != s->t[i].uid_lines)
			return 0;
	return 1;
}

/*
 * What b lists that a does not: tables (by id) and uid lines (by uid and
 * table).  Tables and lines that went in between (after RCU) do not count.
 */
static inline void ut_snap_new(struct ut_snap *a, struct ut_snap *b, int *tables, int *users)
{
	*tables = *users = 0;
	for (int i = 0; i < b->ntables; i++)
		*tables += !ut_find_table(a, b->t[i].id);
	for (int i = 0; i < b->nusers; i++)
		*users += !ut_find_user(a, b->u[i].table, b->u[i].uid);
}

/* The number of live tables, -1 when /proc/execns/tables cannot be read. */
static inline int ut_ntables(void)
{
	static struct ut_snap s;

	ut_snap_read(&s);
	return s.ok ? s.ntables : -1;
}

/*
 * Wait (up to secs) until at most max tables are left: credentials, hence
 * user_structs and tables, go after an RCU grace period.  Returns the count.
 */
static inline void ut_reap_zombies(void);

static inline int ut_wait_tables(int max, int secs)
{
	int n = ut_ntables();

	for (int i = 0; i < secs * 10 && n > max; i++) {
		ut_reap_zombies();	/* orphans of ours: a zombie pins its credentials */
		sleep_ms(100);
		n = ut_ntables();
	}
	return n;
}

/* Wait (up to secs) until table lists uid (want 1) or does not (want 0). */
static inline int ut_wait_user(long table, unsigned long uid, int want, int secs)
{
	static struct ut_snap s;
	int has = 0;

	for (int i = 0; i <= secs * 10; i++) {
		ut_snap_read(&s);
		has = ut_find_user(&s, table, uid) != NULL;
		if (has == want)
			break;
		sleep_ms(100);
	}
	return has;
}

/* ------------------------------------------------------------ output */

/* One "key value" line, flushed at once (an exec may follow). */
__attribute__((format(printf, 2, 3)))
static inline void ut_put(const char *key, const char *fmt, ...)
{
	va_list ap;

	printf("%s ", key);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static inline void ut_putl(const char *key, long v)
{
	ut_put(key, "%ld", v);
}

struct ut_out {
	int status;		/* wait status, -1 if none */
	pid_t pid;		/* the child (ut_spawn in the background) */
	char text[8192];
};

/* The value of the first "key N" line, or UT_NONE. */
static inline long ut_val(const struct ut_out *o, const char *key)
{
	size_t k = strlen(key);
	const char *p = o->text;

	while (p && *p) {
		if (!strncmp(p, key, k) && p[k] == ' ')
			return strtol(p + k + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return UT_NONE;
}

/* The child exited 0. */
static inline int ut_exited_ok(const struct ut_out *o)
{
	return o->status != -1 && WIFEXITED(o->status) && WEXITSTATUS(o->status) == 0;
}

/* Read a child's output to EOF; pass "# " lines on as diagnostics. */
static inline void ut_collect(int fd, struct ut_out *o)
{
	child_collect(fd, o->text, sizeof(o->text));
}

static inline void ut_reap(pid_t pid, struct ut_out *o)
{
	o->status = -1;
	while (waitpid(pid, &o->status, 0) < 0 && errno == EINTR)
		;
}

/* Run fn(arg) in a child with stdout on a pipe; its exit status is fn's. */
static inline int ut_run(int (*fn)(void *), void *arg, struct ut_out *o)
{
	int p[2];
	pid_t pid;

	memset(o, 0, sizeof(*o));
	o->status = -1;
	fflush(stdout);
	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		alarm(UT_TIMEOUT);
		dup2(p[1], 1);
		_exit(fn(arg));
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return -1;
	}
	ut_collect(p[0], o);
	close(p[0]);
	ut_reap(pid, o);
	return 0;
}

/*
 * Fork; in the child, execns(flags, this program, mode args...) with stdout
 * on a pipe.
 * A failed execns prints "execns_errno E" and exits 99.  Reads the output
 * to EOF, then, when wait, reaps the child (else o->pid is left running: an
 * act that stays must close its stdout first, see ut_detach()).
 */
static inline int ut_spawn(int flags, const char *mode, const char *const *args, int wait,
			   struct ut_out *o)
{
	char *argv[16] = { "/proc/self/exe", (char *)mode };
	int p[2], i = 2;
	pid_t pid;

	while (args && *args && i < 15)
		argv[i++] = (char *)*args++;
	argv[i] = NULL;
	memset(o, 0, sizeof(*o));
	o->status = -1;
	fflush(stdout);
	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		alarm(UT_TIMEOUT);
		dup2(p[1], 1);
		execns(flags, "/proc/self/exe", argv, environ);
		ut_putl("execns_errno", errno);
		_exit(99);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return -1;
	}
	o->pid = pid;
	ut_collect(p[0], o);
	close(p[0]);
	if (wait)
		ut_reap(pid, o);
	return 0;
}

/* ut_spawn into a new table, waiting for the act to finish. */
static inline int ut_in_table(const char *mode, const char *const *args, struct ut_out *o)
{
	return ut_spawn(CLONE_NEWUSER, mode, args, 1, o);
}

/* In an act that stays: stop writing to the test's pipe (so it sees EOF). */
static inline void ut_detach(void)
{
	int fd = open("/dev/null", O_RDWR);

	fflush(stdout);
	if (fd >= 0) {
		dup2(fd, 1);
		if (fd > 2)
			close(fd);
	}
}

/* End a background child (ut_spawn without wait, ut_hold). */
static inline void ut_kill(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
}

/*
 * A child that becomes uid (setresuid; (uid_t)-1: stays as it is), runs
 * fn(arg) (nonzero = it worked), then keeps what it built until killed (or
 * UT_TIMEOUT).  Returns its pid, or -1 when any step failed (it is gone).
 * fn may print on stdout; the child stops writing there once it holds.
 */
static inline pid_t ut_hold(uid_t uid, int (*fn)(void *), void *arg)
{
	int p[2];
	pid_t pid;
	char c = 'n';

	fflush(stdout);
	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		alarm(UT_TIMEOUT);
		if ((uid == (uid_t)-1 || !setresuid(uid, uid, uid)) && (!fn || fn(arg)))
			c = 'y';
		ut_detach();
		if (write(p[1], &c, 1) != 1 || c != 'y')
			_exit(1);
		close(p[1]);
		for (;;)
			pause();
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &c, 1) != 1 || c != 'y') {
		if (pid > 0)
			ut_kill(pid);
		pid = -1;
	}
	close(p[0]);
	return pid;
}

/* ------------------------------------------------------------ common modes */

/*
 * Mode "report": "self T", "ruid U", "euid U", "parent P" and "users N" of
 * its table, and "uidU REFS" for each uid line under it.
 */
static inline int ut_mode_report(int argc, char **argv)
{
	static struct ut_snap s;
	long self = ut_self();
	struct ut_table *t;
	char key[32];

	(void)argc;
	(void)argv;
	ut_putl("self", self);
	ut_putl("ruid", getuid());
	ut_putl("euid", geteuid());
	ut_snap_read(&s);
	t = ut_find_table(&s, self);
	ut_putl("parent", t ? t->parent : -1);
	ut_putl("users", t ? t->users : -1);
	for (int i = 0; i < s.nusers; i++) {
		if (s.u[i].table != self)
			continue;
		snprintf(key, sizeof(key), "uid%lu", s.u[i].uid);
		ut_putl(key, s.u[i].refs);
	}
	return 0;
}

/* Mode "sleep": "self T", then stays (in its table) until killed. */
__attribute__((noreturn))
static inline int ut_mode_sleep(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	ut_putl("self", ut_self());
	ut_detach();
	alarm(UT_TIMEOUT);
	for (;;)
		pause();
}

/* The modes every uid-table program has, for its child_mode table. */
#define UT_MODES \
	{ "report", 0, ut_mode_report }, \
	{ "sleep", 0, ut_mode_sleep }

/* A table to stay in: a background "sleep" act; its pid, its table in *table. */
static inline pid_t ut_sleeper(long *table)
{
	struct ut_out o;

	*table = -1;
	if (ut_spawn(CLONE_NEWUSER, "sleep", NULL, 0, &o))
		return -1;
	*table = ut_val(&o, "self");
	if (*table == UT_NONE || *table <= 0) {
		ut_kill(o.pid);
		return -1;
	}
	return o.pid;
}

/* ------------------------------------------------------------ the program */

/* Become the reaper of orphaned descendants (so their zombies, which pin credentials, go). */
static inline void ut_subreaper(void)
{
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

/*
 * Start a test program: its KTAP plan, an alarm for the whole of it (a hang
 * fails in minutes, not at the runner's limit), and the subreaper role.
 */
static inline void ut_start(unsigned int tests)
{
	ksft_print_header();
	ksft_set_plan(tests);
	alarm(2 * UT_TIMEOUT);
	ut_subreaper();
}

/* Reap any exited descendants without blocking. */
static inline void ut_reap_zombies(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

/* Add up to max watches (on fresh eventfds) to a new epoll instance. */
static inline int add_watches(int max, int *err)
{
	int ep = epoll_create1(0), n;

	*err = 0;
	if (ep < 0) {
		*err = errno;
		return -1;
	}
	for (n = 0; n < max; n++) {
		struct epoll_event ev = { .events = EPOLLIN };
		int fd = eventfd(0, 0);

		if (fd < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev)) {
			*err = errno;
			break;
		}
	}
	return n;
}

#endif /* EXECNS_LIB_UIDTAB_H */
