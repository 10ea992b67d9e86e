/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the uid-table test programs (test-uidtab-*.c), all ut_*.
 *
 *  - the module or the twin (upstream/, execns(2) in the kernel): whether
 *    the module's listing is there to read (ut_listing()), a table's id
 *    and parent on both (ut_self(), ut_parent(); on the twin of any
 *    process, ut_table_of(), ut_parent_of()), the forbid_unshare knob;
 *  - /proc/execns: the caller's table id, and a parsed copy of
 *    /proc/execns/tables (every table line, every uid line, and how many
 *    lines did not have the documented form);
 *  - the modes every uid-table program has (UT_MODES: "table" and
 *    "sleep"), run with child.h's child_execns()/child_in_table();
 *  - the uid hooks: armed or not (/proc/execns/stats), and which functions
 *    ftrace lists an ops on (enabled_functions);
 *  - add_watches(), for the epoll budget.
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
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <execns.h>
#include <linux/nsfs.h>
#include "child.h"
#include "ktap.h"
#include "ns.h"
#include "sys.h"

#define UT_UID		1000		/* the unprivileged uid the tests share */
#define UT_RCU_SECS	30		/* seconds to wait for what goes after RCU */

/* ------------------------------------------------------------ module or twin */

/*
 * Whether the module's listing is there to read: /proc/execns/tables and
 * /proc/execns/stats, the module's own bookkeeping of tables, their users,
 * counters and ucounts.  The twin (upstream/) has no such files: a check
 * that only reads them is a skip there (UT_NO_LISTING), and a check of
 * behaviour both show reads it another way.  Decided by whose execns(2)
 * this is, not by the file: on a module row a listing gone missing fails.
 */
static inline int ut_listing(void)
{
	return !execns_in_tree();
}

#define UT_NO_LISTING	"the twin lists no tables: /proc/execns/tables and stats are the module's (docs/design.md, difference 4)"

/*
 * The initial uid table's inode on the twin (upstream/, patch 8: a fixed
 * proc inode number, as init_user_ns's 0xEFFFFFFD).
 */
#define UT_INIT_UIDTAB_INO	0xEFFFFFF9UL

/*
 * forbid_unshare: the module's parameter (N or Y), or the twin's sysctl
 * kernel.forbid_unshare (0 or 1); both take 0 and 1.
 */
static inline const char *ut_forbid_unshare(void)
{
	return execns_in_tree() ? "/proc/sys/kernel/forbid_unshare" : EXECNS_SYSFS_DIR "/forbid_unshare";
}

/*
 * Whether the module's load-time proof refuses forbid_unshare here: a
 * FAIL line of /proc/execns/proof ending "(refuses forbid_unshare)" or
 * "(refuses uid tables)" (module/proof.c; writing 1 is then EOPNOTSUPP).
 * 0 on the twin, whose sysctl nothing refuses.
 */
static inline int ut_forbid_refused(void)
{
	static const char *const tails[] = { EXECNS_PROOF_REFUSES_FORBID "\n",
					     EXECNS_PROOF_REFUSES_TABLES "\n" };
	char line[512];
	FILE *f;
	int refused = 0;

	if (execns_in_tree())
		return 0;
	f = fopen(EXECNS_PROC_PROOF, "re");
	while (f && fgets(line, sizeof(line), f)) {
		size_t n = strlen(line);

		if (!execns_after(line, EXECNS_PROOF_FAIL))
			continue;
		for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++)
			if (n >= strlen(tails[i]) && !strcmp(line + n - strlen(tails[i]), tails[i]))
				refused = 1;
	}
	if (f)
		fclose(f);
	return refused;
}

/* A table's id on the twin: its nsfs inode, 0 for the initial table, as the module's ids. */
static inline long ut_ino_id(unsigned long ino)
{
	return ino == UT_INIT_UIDTAB_INO ? 0 : (long)ino;
}

/*
 * The table of process pid ("self" or a number) on the twin: its
 * /proc/PID/ns/uidtab as ut_ino_id() gives it; -1 when the file is not
 * there (the module's kernels).
 */
static inline long ut_table_of(const char *pid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%s/ns/uidtab", pid);
	if (stat(path, &st))
		return -1;
	return ut_ino_id(st.st_ino);
}

/*
 * An ancestor of process pid's table on the twin: NS_GET_PARENT up times
 * from its /proc/PID/ns/uidtab (1: the parent), as ut_ino_id() gives it;
 * -1 with errno when there is none (EPERM: above the initial table) or no
 * such file.
 */
static inline long ut_ancestor_of(const char *pid, int up)
{
	char path[64];
	struct stat st;
	long id = -1;
	int fd, next, err;

	snprintf(path, sizeof(path), "/proc/%s/ns/uidtab", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	err = errno;
	for (int i = 0; fd >= 0 && i < up; i++) {
		next = ioctl(fd, NS_GET_PARENT);
		err = errno;
		close(fd);
		fd = next;
	}
	if (fd < 0) {
		errno = err;
		return -1;
	}
	if (!fstat(fd, &st))
		id = ut_ino_id(st.st_ino);
	close(fd);
	return id;
}

/* The parent of process pid's table on the twin (ut_ancestor_of(pid, 1)). */
static inline long ut_parent_of(const char *pid)
{
	return ut_ancestor_of(pid, 1);
}

/*
 * The caller's table id: /proc/execns/self's one decimal line (the
 * module), or ut_table_of("self") (the twin); else -1.
 */
static inline long ut_self(void)
{
	char buf[64] = "", *end;
	int fd;
	ssize_t n;
	long v;

	if (execns_in_tree())
		return ut_table_of("self");
	fd = open(EXECNS_PROC_SELF, O_RDONLY | O_CLOEXEC);
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
	/*
	 * The rlimit counts, where the user_struct keeps them (5.10: its
	 * credentials have no ucounts); rlimits is 0 and they are -1 elsewhere.
	 */
	int rlimits;
	long nproc, sigpending, msgqueue, memlock;
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

/*
 * The rest of a "uid ..." line from @end: nothing, or the rlimit counts a
 * 5.10 user_struct keeps; whether the line ends there.
 */
static inline int ut_user_rlimits(struct ut_user *u, const char *line, int end)
{
	int more = -1;

	u->nproc = u->sigpending = u->msgqueue = u->memlock = -1;
	if (line[end] == '\n')
		return 1;
	if (sscanf(line + end, " nproc %ld sigpending %ld msgqueue %ld memlock %ld%n",
		   &u->nproc, &u->sigpending, &u->msgqueue, &u->memlock, &more) != 4)
		return 0;
	u->rlimits = 1;
	return line[end + more] == '\n';
}

/* Parse /proc/execns/tables; s->ok is 0 when it cannot be read. */
static inline void ut_snap_read(struct ut_snap *s)
{
	char line[512];
	FILE *f = fopen(EXECNS_PROC_TABLES, "re");
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

		if (sscanf(line, EXECNS_TABLES_TABLE " %ld parent %ld users %ld tasks %ld refs %ld%n",
			   &t.id, &t.parent, &t.users, &t.tasks, &t.refs, &end) == 5 &&
		    line[end] == '\n') {
			if (s->ntables < UT_MAX_TABLES) {
				cur = &s->t[s->ntables++];
				*cur = t;
			} else {
				ut_snap_bad(s, line);
			}
		} else if (sscanf(line, EXECNS_TABLES_UID " %lu table %ld refs %ld epoll_watches %ld pipe_bufs %ld "
				  "unix_inflight %ld locked_vm %ld watches %ld%n",
				  &u.uid, &u.table, &u.refs, &u.epoll_watches, &u.pipe_bufs,
				  &u.unix_inflight, &u.locked_vm, &u.watches, &end) == 8 &&
			   ut_user_rlimits(&u, line, end)) {
			if (!cur || cur->id != u.table || s->nusers >= UT_MAX_USERS) {
				ut_snap_bad(s, line);
				continue;
			}
			cur->uid_lines++;
			s->u[s->nusers++] = u;
		} else if (sscanf(line, EXECNS_TABLES_UCOUNTS " uid %lu ns %lu table %ld refs %ld nproc %ld sigpending %ld "
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

/*
 * The parent of the caller's table: its "parent" in /proc/execns/tables
 * (the module), NS_GET_PARENT (the twin); 0 when that is the initial
 * table, -1 when there is none (the caller is in the initial table) or the
 * caller's table is not listed.
 */
static inline long ut_parent(void)
{
	static struct ut_snap s;
	struct ut_table *t;

	if (!ut_listing())
		return ut_parent_of("self");
	ut_snap_read(&s);
	t = ut_find_table(&s, ut_self());
	return t ? t->parent : -1;
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
static inline int ut_wait_tables(int max, int secs)
{
	int n = ut_ntables();

	for (int i = 0; i < secs * 10 && n > max; i++) {
		child_reap_zombies();	/* orphans of ours: a zombie pins its credentials */
		sleep_ms(100);
		n = ut_ntables();
	}
	return n;
}

/*
 * On the twin, which lists no tables, a table is an nsfs object holding a
 * namespace inode number (upstream/ patch 8), from the pool every
 * namespace draws on.  ut_mark() takes the lowest free numbers
 * (lib/ns.h's ns_inums); once every table and namespace made since is
 * gone, they are all free again.  Nothing on the module's rows.
 */
struct ut_mark {
	int ok;
	struct ns_inums inums;
};

static inline struct ut_mark *ut_mark_get(void)
{
	static struct ut_mark m;

	return &m;
}

static inline void ut_mark(void)
{
	struct ut_mark *m = ut_mark_get();

	if (!ut_listing())
		m->ok = !ns_inums_read(&m->inums);
}

/*
 * The twin's ut_check_gone(): wait (up to UT_RCU_SECS) until no number of
 * ut_mark()'s is taken, reaping our orphans (a zombie pins its
 * credentials, hence its table).  -1 when a snapshot failed.
 */
static inline int ut_wait_unmarked(unsigned long *first)
{
	static struct ns_inums now;
	struct ut_mark *m = ut_mark_get();
	int taken = -1;

	*first = 0;
	for (int i = 0; m->ok && i <= UT_RCU_SECS * 10; i++) {
		child_reap_zombies();
		if (ns_inums_read(&now))
			return -1;
		taken = ns_inums_taken(&m->inums, &now, first);
		if (!taken)
			break;
		sleep_ms(100);
	}
	return taken;
}

/*
 * The check most programs end with: the live tables are back to tables0
 * (ut_start()'s), what was made is gone with its processes, after RCU.
 * what is its name.  On the twin: the namespace inode numbers free at
 * ut_mark() are free again.
 */
static inline void ut_check_gone(int tables0, const char *what)
{
	unsigned long first;
	int left;

	if (!ut_listing()) {
		left = ut_wait_unmarked(&first);
		if (left < 0)
			ksft_print_msg("a snapshot of the namespace inode numbers failed (%s)\n",
				       ut_mark_get()->ok ? "at the end" : "at the start");
		ksft_test_result(left == 0,
				 "%s (%d of the %d lowest namespace inode numbers free at the start still taken, first %lu)",
				 what, left, NS_INUMS, first);
		return;
	}
	left = ut_wait_tables(tables0, UT_RCU_SECS);
	ksft_test_result(tables0 >= 0 && left == tables0, "%s (%d left, %d before)", what, left, tables0);
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

/* ------------------------------------------------------------ common modes */

/*
 * Mode "table": "self T", "ruid U", "euid U", "parent P" of its table, and
 * from the module's listing "users N" and "uidU REFS" for each uid line
 * under it (none on the twin).
 */
static inline int ut_mode_table(int argc, char **argv)
{
	static struct ut_snap s;
	long self = ut_self();
	struct ut_table *t;
	char key[32];

	(void)argc;
	(void)argv;
	child_putl("self", self);
	child_putl("ruid", getuid());
	child_putl("euid", geteuid());
	ut_snap_read(&s);
	t = ut_find_table(&s, self);
	child_putl("parent", ut_listing() ? (t ? t->parent : -1) : ut_parent_of("self"));
	child_putl("users", t ? t->users : -1);
	for (int i = 0; i < s.nusers; i++) {
		if (s.u[i].table != self)
			continue;
		snprintf(key, sizeof(key), "uid%lu", s.u[i].uid);
		child_putl(key, s.u[i].refs);
	}
	return 0;
}

/* Mode "sleep": "self T" and "parent P", then stays (in its table) until killed. */
__attribute__((noreturn))
static inline int ut_mode_sleep(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	child_putl("self", ut_self());
	child_putl("parent", ut_parent());
	child_detach();
	alarm(CHILD_TIMEOUT);
	for (;;)
		pause();
}

/* The modes every uid-table program has, for its child_mode table. */
/*
 * Mode "member" (UT_MODE_MEMBER): "self T", then stays, detached; on
 * SIGUSR1 it becomes UT_UID, so that its table's accounting can be read
 * after something else happened meanwhile (test-uidtab-ipmodify, -klp).
 */
static inline int ut_mode_member(int argc, char **argv)
{
	sigset_t usr1;
	int sig;

	(void)argc;
	(void)argv;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	child_putl("self", ut_self());
	child_detach();
	alarm(CHILD_TIMEOUT);
	if (sigwait(&usr1, &sig) || setresuid(UT_UID, UT_UID, UT_UID))
		return 1;
	for (;;)
		pause();
}

#define UT_MODE_MEMBER	CHILD_MODE("member", 0, ut_mode_member)

#define UT_MODES \
	CHILD_MODE("table", 0, ut_mode_table), \
	CHILD_MODE("sleep", 0, ut_mode_sleep)

/* A table to stay in: a background "sleep" child; its pid, its table in *table. */
static inline pid_t ut_sleeper(long *table)
{
	static struct child o;

	*table = -1;
	if (child_execns(CLONE_NEWUSER, "sleep", NULL, 0, &o))
		return -1;
	*table = child_val(&o, "self");
	if (*table == CHILD_NONE || *table <= 0) {
		child_kill(o.pid);
		return -1;
	}
	return o.pid;
}

/*
 * Start a uid-table test program: test_start() with room for its children,
 * and the reaper role for orphans (a zombie pins its credentials, hence its
 * table).  Returns the live tables now, which the program's last test
 * expects again (on the twin, -1: ut_mark() is what it checks against).
 */
static inline int ut_start(unsigned int plan)
{
	test_start(plan, 2 * CHILD_TIMEOUT);
	child_subreaper();
	ut_mark();
	/*
	 * The tables of the program before this one go with the module's
	 * reaper (reap_ms): let them, so that the count this program's
	 * ut_check_gone() must come back to is not one they inflate.
	 */
	if (ut_listing())
		ut_wait_tables(0, 2);
	return ut_ntables();
}

/* The uid hooks: "hooks armed|disarmed" in /proc/execns/stats as 1 or 0; -1 when not there. */
static inline long hooks_armed(void)
{
	return execns_stat(EXECNS_STAT_HOOKS);
}

/* Until the hooks are disarmed (a work item does it), at most secs: hooks_armed() then. */
static inline long wait_disarmed(int secs)
{
	long armed = hooks_armed();

	for (int i = 0; armed != 0 && i < secs * 10; i++) {
		sleep_ms(100);
		armed = hooks_armed();
	}
	return armed;
}

#define UT_ENABLED_FUNCS	"/sys/kernel/tracing/enabled_functions"

/*
 * How ftrace lists func in enabled_functions (ftrace's own list of the
 * functions some ftrace_ops is on): 1 with the IPMODIFY flag (the word
 * "I" among the flags between "(N)" and the trampoline: a redirect), 0
 * without, -1 not listed (no ops on it), -2 the file cannot be read.
 */
static inline int ut_ftrace_state(const char *func)
{
	char line[512], name[128];
	FILE *f = fopen(UT_ENABLED_FUNCS, "re");
	int state = -1;

	if (!f)
		return -2;
	while (fgets(line, sizeof(line), f)) {
		char *flags, *word, *save;
		int end = -1;

		if (sscanf(line, "%127s (%*d)%n", name, &end) != 1 || end < 0 || strcmp(name, func))
			continue;
		flags = line + end;
		flags[strcspn(flags, "\t\n")] = '\0';
		if (strstr(flags, "->"))
			*strstr(flags, "->") = '\0';
		state = 0;
		for (word = strtok_r(flags, " ", &save); word; word = strtok_r(NULL, " ", &save))
			if (!strcmp(word, "I"))
				state = 1;
	}
	fclose(f);
	return state;
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
