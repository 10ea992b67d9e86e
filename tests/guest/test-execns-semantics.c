// SPDX-License-Identifier: GPL-2.0
/*
 * Where the in-tree twin (upstream/) and the module differ: the results
 * for each difference of docs/design.md's list ("The in-tree twin and the
 * module: where they differ", d1-d9), and for two things the same on both
 * that no other test showed (d10: the order of errors; d11: PRIO_USER's
 * walk over every process of the uid).  The program runs on both kinds of
 * rows and asserts what the kind it runs on does: libexecns's
 * execns_in_tree() says which.  Each result's name starts with its
 * number ("d2 ...") and says which kind it asserted.
 *
 * A module row whose load-time proof refused uid tables runs it too:
 * EOPNOTSUPP for CLONE_NEWUSER is difference 5's refusal there, asserted,
 * and the checks that need a table skip saying so.  So it is not in
 * needs-uid-tables.  Where the proof's verdict is partial (lto), tables
 * are made as where it is proven, and forbid_unshare is refused if a
 * check refusing it failed.
 */
#include <dirent.h>
#include <poll.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <linux/keyctl.h>
#include <linux/nsfs.h>
#include "lib/test.h"

/* The module's default slot, which the twin's kernel leaves unassigned. */
#define MODULE_SLOT	EXECNS_NR_DEFAULT

#define MISSING		"/nonexistent/execns-semantics"
#define MARK_FD		7	/* a descriptor without close-on-exec */
#define KPROBES_ENABLED	"/sys/kernel/debug/kprobes/enabled"
#define FTRACE_ENABLED	"/proc/sys/kernel/ftrace_enabled"
#define FORBID_SYSCTL	"/proc/sys/kernel/forbid_unshare"
#define FORBID_PARAM	EXECNS_SYSFS_DIR "/forbid_unshare"
#define SLABS		"/sys/kernel/slab"
#define EVENTS		"/sys/kernel/tracing/events"
#define MODULE_REFCNT	EXECNS_SYSFS_MODULE "/refcnt"

/* From <linux/io_uring.h>, which clashes with <fcntl.h> (test-uidtab-counters.c). */
#define IORING_OFF_SQ_RING	0ULL
#define IORING_OFF_SQES		0x10000000ULL
#define IORING_OP_POLL_ADD	6
#define IO_URING_PARAMS_SIZE	120	/* struct io_uring_params */
#define SQ_OFF			40	/* its struct io_sqring_offsets */
#define SQE_SIZE		64

static int in_tree;
static const char *kind;	/* "twin" or "module", in the names */

/* ------------------------------------------------------------ modes */

/* "PFX_KEY V" */
static void put(const char *pfx, const char *key, long v)
{
	char k[64];

	snprintf(k, sizeof(k), "%s_%s", pfx, key);
	child_putl(k, v);
}

/*
 * What the program sees of itself: namespaces, MARK_FD, its table (the
 * module's id, the twin's uidtab inode), /proc/self/ns/uidtab (inode or
 * -errno), the table's parent (twin: NS_GET_PARENT's inode or -errno;
 * module: /proc/execns/tables's field) and whether the listing has it.
 */
static void ident_put(const char *pfx)
{
	static struct ut_snap s;
	char link[64] = "";
	unsigned long ino = 0;
	long uidtab, parent = -1, self = ut_self();
	struct stat st;
	int fd, pfd;

	put(pfx, "uts", ns_inode("uts"));
	put(pfx, "ipc", ns_inode("ipc"));
	put(pfx, "fd7", fcntl(MARK_FD, F_GETFD) >= 0);
	put(pfx, "self", self);
	uidtab = stat(EXECNS_PROC_UIDTAB, &st) ? -errno : (long)st.st_ino;
	put(pfx, "uidtab", uidtab);
	if (readlink(EXECNS_PROC_UIDTAB, link, sizeof(link) - 1) > 0)
		put(pfx, "linkok", sscanf(link, "uidtab:[%lu]", &ino) == 1 && (long)ino == uidtab);
	if (in_tree) {
		fd = open(EXECNS_PROC_UIDTAB, O_RDONLY | O_CLOEXEC);
		pfd = fd < 0 ? -1 : ioctl(fd, NS_GET_PARENT);
		parent = pfd < 0 ? -errno : fstat(pfd, &st) ? -errno : (long)st.st_ino;
		if (pfd >= 0)
			close(pfd);
		if (fd >= 0)
			close(fd);
	} else {
		struct ut_table *t;

		ut_snap_read(&s);
		t = ut_find_table(&s, self);
		parent = t ? t->parent : -1;
		put(pfx, "listed", t != NULL);
	}
	put(pfx, "parent", parent);
	/* For d7: the session keyring the exec's own credentials carried in. */
	if (!strcmp(pfx, "race"))
		put(pfx, "session", syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0));
}

/* Mode "ident PFX". */
static int mode_ident(int argc, char **argv)
{
	(void)argc;
	ident_put(argv[2]);
	return 0;
}

/* Mode "nest": "outer_*" in its table, then the same as "inner_*" in a table made from it. */
static int mode_nest(int argc, char **argv)
{
	char *next[] = { "/proc/self/exe", "ident", "inner", NULL };

	(void)argc;
	(void)argv;
	ident_put("outer");
	execns(CLONE_NEWUSER, next[0], next, environ);
	child_putl("execns_errno", errno);
	return 99;
}

/*
 * Mode "prio": in its table, a process becomes uid UT_UID and stays, then
 * setpriority(PRIO_USER, UT_UID, 9): "set" (0 or -errno).
 */
static int mode_prio(int argc, char **argv)
{
	pid_t holder = child_hold(UT_UID, NULL, NULL);

	(void)argc;
	(void)argv;
	child_putl("holder", holder > 0);
	child_putl("set", setpriority(PRIO_USER, UT_UID, 9) ? -errno : 0);
	child_kill(holder);
	return 0;
}

static const struct child_mode modes[] = {
	CHILD_MODE("ident", 1, mode_ident),
	CHILD_MODE("nest", 0, mode_nest),
	CHILD_MODE("prio", 0, mode_prio),
	UT_MODES,		/* ut_sleeper()'s "sleep" */
};

/* ------------------------------------------------------------ helpers */

static long raw_missing(long nr)
{
	char *argv[] = { "x", NULL };

	return syscall(nr, 0L, MISSING, argv, environ);
}

static int exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

/* ------------------------------------------------------------ d1: the number */

static void test_number(void)
{
	long nr = execns_nr(), r, err;
	long r2, err2;

	r = raw_missing(nr);
	err = errno;
	if (in_tree) {
		ksft_test_result(nr == EXECNS_NR_IN_TREE && r == -1 && err == ENOENT,
				 "d1 number: twin: execns is the kernel's syscall %d (errno %ld for a missing file, want ENOENT)",
				 EXECNS_NR_IN_TREE, r ? err : 0);
		r2 = raw_missing(MODULE_SLOT);
		err2 = errno;
		ksft_test_result(r2 == -1 && err2 == ENOSYS && !execns_loaded() && !exists(EXECNS_SYSFS_NR_FILE),
				 "d1 number: twin: the module's slot %d is ENOSYS and no sysfs file names a number (errno %ld)",
				 MODULE_SLOT, r2 ? err2 : 0);
		return;
	}
	/* Never 463 here: a 6.13+ kernel's setxattrat (Debian's 7.3). */
	ksft_test_result(nr > 0 && nr == read_long(EXECNS_SYSFS_NR_FILE) && r == -1 && err == ENOENT,
			 "d1 number: module: execns is the slot sysfs names, %ld (errno %ld for a missing file, want ENOENT)",
			 nr, r ? err : 0);
	ksft_test_result(!exists(EXECNS_PROC_UIDTAB) && !execns_in_tree(),
			 "d1 number: module: the kernel has no execns of its own (no %s), so libexecns never calls %d",
			 EXECNS_PROC_UIDTAB, EXECNS_NR_IN_TREE);
}

/* The module's slot is a kprobe: with kprobes off it is gone; a system call is not. */
static void test_kprobes_off(void)
{
	long r, err;

	if (access(KPROBES_ENABLED, W_OK)) {
		ksft_test_result_code(KSFT_SKIP, "d1 number: execns with kprobes disabled",
				      "no %s to flip (debugfs)", KPROBES_ENABLED);
		return;
	}
	if (set_knob(KPROBES_ENABLED, "0")) {
		ksft_test_result_fail("d1 number: execns with kprobes disabled: cannot disable them");
		return;
	}
	r = raw_missing(execns_nr());
	err = errno;
	set_knob(KPROBES_ENABLED, "1");
	if (in_tree)
		ksft_test_result(r == -1 && err == ENOENT,
				 "d1 number: twin: with kprobes disabled execns still answers (errno %ld, want ENOENT): a system call, not a probe",
				 r ? err : 0);
	else
		ksft_test_result(r == -1 && err == ENOSYS,
				 "d1 number: module: with kprobes disabled execns is ENOSYS (errno %ld): the slot is a kprobe",
				 r ? err : 0);
}

/* ------------------------------------------------------------ d2: where the switch happens */

static int tracee(void *arg)
{
	char *argv[] = { "/proc/self/exe", "ident", "new", NULL };
	int fd = open("/dev/null", O_RDONLY);

	(void)arg;
	if (fd < 0 || (fd != MARK_FD && dup2(fd, MARK_FD) != MARK_FD))
		return 90;
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
		return 91;
	raise(SIGSTOP);
	execns(CLONE_NEWUTS | CLONE_NEWIPC, argv[0], argv, environ);
	child_putl("execns_errno", errno);
	return 99;
}

/* What the tracer sees of the tracee at PTRACE_EVENT_EXEC. */
struct at_exec {
	int stopped;			/* it stopped there */
	unsigned long uts, ipc;
	int mark, above2;		/* MARK_FD open; descriptors above 2 */
};

static void look_at(pid_t pid, struct at_exec *a)
{
	char pidstr[16], dir[32];
	struct dirent *de;
	DIR *d;

	snprintf(pidstr, sizeof(pidstr), "%d", pid);
	a->uts = ns_inode_of(pidstr, "uts");
	a->ipc = ns_inode_of(pidstr, "ipc");
	snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
	d = opendir(dir);
	a->mark = a->above2 = -1;
	if (!d)
		return;
	a->mark = a->above2 = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		a->mark |= atoi(de->d_name) == MARK_FD;
		a->above2 += atoi(de->d_name) > 2;
	}
	closedir(d);
}

static void test_switch_point(void)
{
	unsigned long uts = ns_inode("uts"), ipc = ns_inode("ipc");
	struct at_exec a = { 0 };
	struct child c;
	int st = 0;
	long new_uts, new_ipc;

	if (child_start(&c, CHILD_STDOUT | CHILD_LIVE, CHILD_TIMEOUT, tracee, NULL)) {
		for (int i = 0; i < 3; i++)
			ksft_test_result_fail("d2 switch point: no child");
		return;
	}
	if (waitpid(c.pid, &st, 0) == c.pid && WIFSTOPPED(st) && WSTOPSIG(st) == SIGSTOP &&
	    !ptrace(PTRACE_SETOPTIONS, c.pid, NULL, (void *)(long)PTRACE_O_TRACEEXEC) &&
	    !ptrace(PTRACE_CONT, c.pid, NULL, NULL) &&
	    waitpid(c.pid, &st, 0) == c.pid && WIFSTOPPED(st) &&
	    st >> 8 == (SIGTRAP | (PTRACE_EVENT_EXEC << 8))) {
		a.stopped = 1;
		look_at(c.pid, &a);
	}
	if (WIFSTOPPED(st))
		ptrace(PTRACE_DETACH, c.pid, NULL, NULL);
	child_finish(&c);
	new_uts = child_val(&c, "new_uts");
	new_ipc = child_val(&c, "new_ipc");
	ksft_print_msg("tracer's uts %lu ipc %lu; at PTRACE_EVENT_EXEC uts %lu ipc %lu, fd %d %s, %d above 2; the new program: uts %ld ipc %ld\n",
		       uts, ipc, a.uts, a.ipc, MARK_FD, a.mark > 0 ? "open" : "closed", a.above2,
		       new_uts, new_ipc);
	if (in_tree) {
		ksft_test_result(a.stopped && a.uts && a.uts != uts && a.ipc && a.ipc != ipc,
				 "d2 switch point: twin: at PTRACE_EVENT_EXEC the tracee already has its new uts and ipc namespaces");
		ksft_test_result(a.stopped && a.mark == 0 && a.above2 == 0,
				 "d2 switch point: twin: at PTRACE_EVENT_EXEC only descriptors 0-2 are left (fd %d closed, %d above 2)",
				 MARK_FD, a.above2);
		ksft_test_result(child_ok(&c) && new_uts == (long)a.uts && new_ipc == (long)a.ipc &&
				 child_val(&c, "new_fd7") == 0,
				 "d2 switch point: twin: the new program runs in the namespaces the tracer saw at the event, without fd %d",
				 MARK_FD);
		return;
	}
	ksft_test_result(a.stopped && a.uts == uts && a.ipc == ipc,
			 "d2 switch point: module: at PTRACE_EVENT_EXEC the tracee still has the caller's uts and ipc namespaces (the commit follows the kernel's execve)");
	ksft_test_result(a.stopped && a.mark == 1,
			 "d2 switch point: module: at PTRACE_EVENT_EXEC fd %d (no close-on-exec) is still open (%d above 2)",
			 MARK_FD, a.above2);
	ksft_test_result(child_ok(&c) && new_uts > 0 && new_uts != (long)uts && new_ipc > 0 &&
			 new_ipc != (long)ipc && child_val(&c, "new_fd7") == 0,
			 "d2 switch point: module: once the tracee goes on, the new program has new uts and ipc namespaces and no fd %d",
			 MARK_FD);
}

/* ------------------------------------------------------------ d3, d4, d5: tables */

/*
 * d5: execns(CLONE_NEWUSER) is refused (EOPNOTSUPP) only by a module whose
 * load-time proof refused uid tables (proven and partial offer them).
 * Returns whether tables can be made.
 */
static int test_tables_allowed(struct child *a)
{
	char verdict[32];

	execns_verdict(verdict, sizeof(verdict));
	child_execns(CLONE_NEWUSER, "ident", (const char *[]){ "a", NULL }, 1, a);
	if (in_tree) {
		ksft_test_result(child_ok(a) && child_val(a, "a_self") > 0 && !exists(EXECNS_PROC_PROOF),
				 "d5 refusals: twin: execns(CLONE_NEWUSER) makes a table, no load-time proof to refuse it (execns errno %ld)",
				 child_val(a, "execns_errno") == CHILD_NONE ? 0 : child_val(a, "execns_errno"));
		return child_ok(a);
	}
	if (!strcmp(verdict, EXECNS_VERDICT_REFUSED)) {
		ksft_test_result(child_val(a, "execns_errno") == EOPNOTSUPP,
				 "d5 refusals: module: the load-time proof refused uid tables here, and execns(CLONE_NEWUSER) is EOPNOTSUPP (%ld)",
				 child_val(a, "execns_errno"));
		return 0;
	}
	ksft_test_result((!strcmp(verdict, EXECNS_VERDICT_PROVEN) ||
			  !strcmp(verdict, EXECNS_VERDICT_PARTIAL)) &&
			 child_ok(a) && child_val(a, "a_self") > 0,
			 "d5 refusals: module: the load-time proof says %s, and execns(CLONE_NEWUSER) makes a table (execns errno %ld)",
			 verdict[0] ? verdict : "nothing",
			 child_val(a, "execns_errno") == CHILD_NONE ? 0 : child_val(a, "execns_errno"));
	return child_ok(a);
}

#define NO_TABLES	"uid tables refused by the load-time proof here (the d5 result above asserts that refusal)"

static void test_identity(int tables, const struct child *a)
{
	struct child b;
	long ida, idb;

	if (!tables) {
		ksft_test_result_code(KSFT_SKIP, "d3 table identity", NO_TABLES);
		return;
	}
	child_execns(CLONE_NEWUSER, "ident", (const char *[]){ "b", NULL }, 1, &b);
	ida = child_val(a, "a_self");
	idb = child_val(&b, "b_self");
	if (in_tree) {
		ksft_test_result(child_ok(&b) && ida == child_val(a, "a_uidtab") &&
				 ida != (long)UT_INIT_UIDTAB_INO && idb == child_val(&b, "b_uidtab") &&
				 child_val(a, "a_linkok") == 1 && child_val(&b, "b_linkok") == 1,
				 "d3 table identity: twin: a table is the inode of /proc/PID/ns/uidtab (uidtab:[%ld], then uidtab:[%ld]), not the initial one's",
				 ida, idb);
		return;
	}
	ksft_test_result(child_ok(&b) && ida > 0 && idb > ida &&
			 child_val(a, "a_uidtab") == -ENOENT && child_val(&b, "b_uidtab") == -ENOENT,
			 "d3 table identity: module: a table is an id of /proc/execns/self, increasing (%ld, then %ld); no /proc/PID/ns/uidtab",
			 ida, idb);
}

static void test_parent(int tables)
{
	struct child c;
	long outer, op, ip;

	if (!tables) {
		ksft_test_result_code(KSFT_SKIP, "d3 table parent", NO_TABLES);
		return;
	}
	child_execns(CLONE_NEWUSER, "nest", NULL, 1, &c);
	outer = child_val(&c, "outer_self");
	op = child_val(&c, "outer_parent");
	ip = child_val(&c, "inner_parent");
	if (in_tree)
		ksft_test_result(child_ok(&c) && outer > 0 && ip == outer && op == (long)UT_INIT_UIDTAB_INO,
				 "d3 table parent: twin: NS_GET_PARENT on a nested table's uidtab opens the outer one (%ld; outer %ld), whose parent is the initial table (%ld)",
				 ip, outer, op);
	else
		ksft_test_result(child_ok(&c) && outer > 0 && ip == outer && op == 0,
				 "d3 table parent: module: /proc/execns/tables gives a nested table the outer one's id as parent (%ld; outer %ld), the outer one 0 (%ld)",
				 ip, outer, op);
}

/* The twin's tables are nsfs files; the module's are not files at all. */
static void test_nsfile(void)
{
	int fd, type, ret, err, perr;

	fd = open(EXECNS_PROC_UIDTAB, O_RDONLY | O_CLOEXEC);
	if (!in_tree) {
		err = errno;
		ksft_test_result(fd < 0 && err == ENOENT,
				 "d3 table as a file: module: no %s to open, setns(2) or lsns (errno %d)",
				 EXECNS_PROC_UIDTAB, fd < 0 ? err : 0);
		if (fd >= 0)
			close(fd);
		return;
	}
	type = fd < 0 ? -1 : ioctl(fd, NS_GET_NSTYPE);
	ret = fd < 0 ? 0 : setns(fd, 0);
	err = errno;
	perr = fd < 0 || ioctl(fd, NS_GET_PARENT) >= 0 ? 0 : errno;
	ksft_test_result(fd >= 0 && type == 0 && ret == -1 && err == EINVAL && perr == EPERM,
			 "d3 table as a file: twin: the initial table's uidtab: NS_GET_NSTYPE 0 (%d), setns(2) EINVAL (%d), NS_GET_PARENT EPERM (%d)",
			 type, ret ? err : 0, perr);
	if (fd >= 0)
		close(fd);
}

/* d4: the module's listing, which the twin has no counterpart of. */
static void test_listing(int tables, const struct child *a)
{
	static struct ut_snap s;

	if (in_tree) {
		ksft_test_result(!exists(EXECNS_PROC_DIR) && exists(EXECNS_PROC_UIDTAB),
				 "d4 listing: twin: no /proc/execns (no tables, stats, self or proof files); a table shows only as /proc/PID/ns/uidtab");
		return;
	}
	ut_snap_read(&s);
	ksft_test_result(s.ok && !s.bad && execns_stat(EXECNS_STAT_TABLES) >= 0 &&
			 (!tables || child_val(a, "a_listed") == 1),
			 "d4 listing: module: /proc/execns/tables lists every table (%d now, %d bad lines)%s",
			 s.ntables, s.bad, tables ? ", the new program's own among them while it ran" : "");
}

/* d5: a table needs no ftrace in the twin; the module's hooks hold ftrace on. */
static void test_ftrace_off(int tables)
{
	char v[16] = "";
	struct child c;
	long table;
	pid_t member;
	int ret, err;

	if (access(FTRACE_ENABLED, W_OK)) {
		ksft_test_result_code(KSFT_SKIP, "d5 refusals: ftrace off", "no %s", FTRACE_ENABLED);
		return;
	}
	if (!tables) {
		ksft_test_result_code(KSFT_SKIP, "d5 refusals: ftrace off", NO_TABLES);
		return;
	}
	if (in_tree) {
		ret = write_knob(FTRACE_ENABLED, "0");
		child_execns(CLONE_NEWUSER, "ident", (const char *[]){ "f", NULL }, 1, &c);
		read_line(FTRACE_ENABLED, v, sizeof(v));
		write_knob(FTRACE_ENABLED, "1");
		ksft_test_result(!ret && !strcmp(v, "0") && child_ok(&c) && child_val(&c, "f_self") > 0,
				 "d5 refusals: twin: with kernel.ftrace_enabled=0 execns(CLONE_NEWUSER) still makes a table (%ld): no hook to refuse it",
				 child_val(&c, "f_self"));
		return;
	}
	member = ut_sleeper(&table);
	ret = write_knob(FTRACE_ENABLED, "0");
	err = errno;
	read_line(FTRACE_ENABLED, v, sizeof(v));
	if (!ret)
		write_knob(FTRACE_ENABLED, "1");
	child_kill(member);
	ksft_test_result(member > 0 && ret && (err == EBUSY || err == EOPNOTSUPP) && !strcmp(v, "1"),
			 "d5 refusals: module: while table %ld lives kernel.ftrace_enabled=0 is refused (errno %d): its hooks are ftrace's",
			 table, ret ? err : 0);
}

/* ------------------------------------------------------------ d6: forbid_unshare */

static int try_unshare(void *arg)
{
	int ret = unshare((int)(long)arg);

	child_putl("err", ret ? errno : 0);
	return 0;
}

static long unshare_errno(int flag)
{
	struct child c;

	child_run(try_unshare, (void *)(long)flag, &c);
	return child_ok(&c) ? child_val(&c, "err") : -1;
}

static void test_forbid(void)
{
	const char *knob = in_tree ? FORBID_SYSCTL : FORBID_PARAM;
	const char *other = in_tree ? FORBID_PARAM : FORBID_SYSCTL;
	const char *on = in_tree ? "1" : "Y", *off = in_tree ? "0" : "N";
	char was[16], v[16];
	int ry, ey, r2 = 0, e2 = 0, is_on;
	long ipc_on, uts_on, ipc_off;

	read_line(knob, was, sizeof(was));
	ry = write_knob(knob, "y");
	ey = errno;
	read_line(knob, v, sizeof(v));
	if (in_tree) {
		r2 = write_knob(knob, "2");
		e2 = errno;
		read_line(knob, v, sizeof(v));
		ksft_test_result(!exists(other) && !strcmp(was, "0") && ry && ey == EINVAL && r2 &&
				 e2 == EINVAL && !strcmp(v, "0") && !set_knob(knob, "1"),
				 "d6 forbid_unshare: twin: the sysctl %s takes 0 or 1 (\"y\": errno %d, \"2\": errno %d, want EINVAL), no module parameter",
				 knob, ry ? ey : 0, r2 ? e2 : 0);
	} else {
		if (ut_forbid_refused())
			ksft_test_result(!exists(other) && ry && ey == EOPNOTSUPP && !strcmp(v, "N"),
					 "d6 forbid_unshare: module: the parameter %s refuses \"y\" with EOPNOTSUPP (%d) where the load-time proof refuses it (uid tables, d5, or its own check)",
					 knob, ry ? ey : 0);
		else
			ksft_test_result(!exists(other) && !strcmp(was, "N") && !ry && !strcmp(v, "Y"),
					 "d6 forbid_unshare: module: the parameter %s takes \"y\" (reads %s: kstrtobool's words), no sysctl",
					 knob, v);
	}
	read_line(knob, v, sizeof(v));
	is_on = !strcmp(v, on);
	if (!is_on) {
		ksft_test_result_code(KSFT_SKIP, "d6 forbid_unshare: the same effect",
				      "forbid_unshare could not be turned on here (the result above says why)");
		write_knob(knob, was);
		return;
	}
	ipc_on = unshare_errno(CLONE_NEWIPC);
	uts_on = unshare_errno(CLONE_NEWUTS);
	write_knob(knob, in_tree ? "0" : "n");
	read_line(knob, v, sizeof(v));
	ipc_off = unshare_errno(CLONE_NEWIPC);
	ksft_test_result(ipc_on == EINVAL && uts_on == 0 && !strcmp(v, off) && ipc_off == 0,
			 "d6 forbid_unshare: %s: the same effect: on, unshare(CLONE_NEWIPC) is EINVAL (%ld) and CLONE_NEWUTS works (%ld); off (%s), it works (%ld)",
			 kind, ipc_on, uts_on, v, ipc_off);
	write_knob(knob, was);
}

/* ------------------------------------------------------------ d7: the cred hand-over */

/*
 * The module hands a new table's user_struct over in a commit_creds() hook
 * during the exec; task work that commits another cred inside
 * begin_new_exec() takes it instead, and the module then kills the task
 * (module/exec.c).  The twin writes the exec's own cred.  The case made on
 * purpose: the tracee has an io_uring request in flight (so
 * begin_new_exec()'s io_uring_task_cancel() runs task work) and a child of
 * its own; the tracer stops it at execns's syscall entry, then has that
 * child call KEYCTL_SESSION_TO_PARENT, which queues a commit_creds() of a
 * new session keyring on the tracee as task work, and lets it go on.
 */
struct race {
	int ready[2], go[2], done[2];
	int ring;		/* leave an io_uring request in flight */
};

/* An io_uring with a POLL_ADD on an empty pipe: a request left in flight. */
static int ring_pending(void)
{
	unsigned char params[IO_URING_PARAMS_SIZE];
	unsigned int sq_off[10], *tail, *array;
	unsigned char *sq, *sqe;
	int ring, p[2];

	memset(params, 0, sizeof(params));
	ring = syscall(SYS_io_uring_setup, 4, params);
	if (ring < 0 || pipe(p))
		return -1;
	memcpy(sq_off, params + SQ_OFF, sizeof(sq_off));
	/* sq_off: head, tail, ring_mask, ring_entries, flags, dropped, array */
	sq = mmap(NULL, sq_off[6] + 4 * sizeof(unsigned int), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQ_RING);
	sqe = mmap(NULL, 4 * SQE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		   ring, IORING_OFF_SQES);
	if (sq == MAP_FAILED || sqe == MAP_FAILED)
		return -1;
	memset(sqe, 0, SQE_SIZE);
	sqe[0] = IORING_OP_POLL_ADD;
	memcpy(sqe + 4, &p[0], sizeof(int));			/* fd */
	*(unsigned int *)(sqe + 28) = POLLIN;			/* poll32_events */
	array = (unsigned int *)(sq + sq_off[6]);
	tail = (unsigned int *)(sq + sq_off[1]);
	array[*tail & *(unsigned int *)(sq + sq_off[2])] = 0;
	__atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
	return syscall(SYS_io_uring_enter, ring, 1, 0, 0, NULL, 0) == 1 ? 0 : -1;
}

static int race_tracee(void *arg)
{
	struct race *r = arg;
	char *argv[] = { "/proc/self/exe", "ident", "race", NULL };
	int res[2] = { 0, 0 };	/* the helper's errno and session keyring */
	char b = 0;
	pid_t helper;

	if (r->ring && ring_pending()) {
		child_putl("ring_errno", errno);
		return 90;
	}
	/* By hand: KEYCTL_SESSION_TO_PARENT acts on the caller's parent, this process. */
	helper = fork();
	if (helper == 0) {
		/* Only the ends it uses: the tracer's close is its EOF. */
		close(r->ready[0]);
		close(r->go[1]);
		close(r->done[0]);
		res[1] = syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL);
		if (res[1] < 0)
			res[0] = errno;
		else if (write(r->ready[1], "r", 1) != 1 || read(r->go[0], &b, 1) != 1)
			res[0] = EPIPE;
		else
			res[0] = syscall(SYS_keyctl, KEYCTL_SESSION_TO_PARENT) ? errno : 0;
		_exit(write(r->done[1], res, sizeof(res)) == sizeof(res) ? 0 : 1);
	}
	close(r->ready[1]);
	close(r->go[0]);
	close(r->go[1]);
	close(r->done[0]);
	close(r->done[1]);
	if (helper < 0 || read(r->ready[0], &b, 1) != 1)
		return 91;
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
		return 92;
	raise(SIGSTOP);
	execns(CLONE_NEWUSER, argv[0], argv, environ);
	child_putl("execns_errno", errno);
	return 99;
}

/* Run the tracee to execns's syscall-entry stop: 1 when it is there. */
static int to_execns_entry(pid_t pid)
{
	struct __ptrace_syscall_info info;
	long nr = execns_nr();
	int st;

	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st) || WSTOPSIG(st) != SIGSTOP ||
	    ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)(long)PTRACE_O_TRACESYSGOOD))
		return 0;
	for (int i = 0; i < 200; i++) {
		if (ptrace(PTRACE_SYSCALL, pid, NULL, NULL) || waitpid(pid, &st, 0) != pid ||
		    !WIFSTOPPED(st))
			return 0;
		if (WSTOPSIG(st) != (SIGTRAP | 0x80))
			continue;
		memset(&info, 0, sizeof(info));
		if (ptrace(PTRACE_GET_SYSCALL_INFO, pid, (void *)sizeof(info), &info) > 0 &&
		    info.op == PTRACE_SYSCALL_INFO_ENTRY && (long)info.entry.nr == nr)
			return 1;
	}
	return 0;
}

/* One run: the tracee to execns's entry, the helper's keyctl, then on. */
struct race_run {
	int at;			/* stopped at execns's entry */
	int res[2];		/* the helper's errno and session keyring */
	long self, session;	/* the new program's table and session keyring */
	int code;		/* how the tracee ended */
	int ring_errno;		/* io_uring could not be set up (0: it could) */
	pid_t pid;
};

static void race_run(int ring, struct race_run *out)
{
	struct race r = { .ring = ring };
	struct child c;

	memset(out, 0, sizeof(*out));
	out->res[0] = -1;
	if (pipe2(r.ready, O_CLOEXEC) || pipe2(r.go, O_CLOEXEC) || pipe2(r.done, O_CLOEXEC) ||
	    child_start(&c, CHILD_STDOUT | CHILD_LIVE, CHILD_TIMEOUT, race_tracee, &r))
		return;
	close(r.ready[0]);
	close(r.ready[1]);
	close(r.go[0]);
	close(r.done[1]);
	out->at = to_execns_entry(c.pid);
	if (!out->at || write(r.go[1], "g", 1) != 1 ||
	    read(r.done[0], out->res, sizeof(out->res)) != sizeof(out->res))
		out->res[0] = -1;
	close(r.go[1]);
	close(r.done[0]);
	if (out->at)
		ptrace(PTRACE_DETACH, c.pid, NULL, NULL);
	else
		kill(c.pid, SIGKILL);
	child_finish(&c);
	child_reap_zombies();
	out->pid = c.pid;
	out->code = child_code(&c);
	out->self = child_val(&c, "race_self");
	out->session = child_val(&c, "race_session");
	out->ring_errno = child_val(&c, "ring_errno") == CHILD_NONE ? 0 : child_val(&c, "ring_errno");
	ksft_print_msg("%s io_uring request in flight: tracee stopped at execns's entry: %s; KEYCTL_SESSION_TO_PARENT errno %d (session keyring %d); tracee ended %d, in table %ld with session keyring %ld\n",
		       ring ? "an" : "no", out->at ? "yes" : "no", out->res[0], out->res[1], out->code,
		       out->self, out->session);
}

/*
 * Without a request in flight (the control), nothing runs the task work
 * inside the exec: it commits on the way back to user space, after the
 * exec, and the new program has the helper's session keyring (and stays in
 * its table: the keyring's cred is made from the exec's).  With one, the
 * exec runs it inside begin_new_exec(), after the exec made its own
 * credentials: the new program has its own keyring, which is how the
 * twin's result knows the commit happened inside.
 */
static void test_handover(int tables, int before)
{
	struct race_run ctl, run;
	char line[96];
	int left;

	if (!tables) {
		ksft_test_result_code(KSFT_SKIP, "d7 cred hand-over: control, no io_uring request", NO_TABLES);
		ksft_test_result_code(KSFT_SKIP, "d7 cred hand-over", NO_TABLES);
		return;
	}
	race_run(0, &ctl);
	ksft_test_result(ctl.at && ctl.res[0] == 0 && ctl.res[1] > 0 && ctl.code == 0 && ctl.self > 0 &&
			 ctl.session == ctl.res[1],
			 "d7 cred hand-over: %s: control: with no io_uring request in flight the task work commits after the exec: the program runs in its table (%ld) with the keyring it brought (%ld)",
			 kind, ctl.self, ctl.session);
	race_run(1, &run);
	if (run.ring_errno) {
		ksft_test_result_code(KSFT_SKIP, "d7 cred hand-over", "no io_uring here (errno %d)",
				      run.ring_errno);
		return;
	}
	if (in_tree) {
		ksft_test_result(run.at && run.res[0] == 0 && run.res[1] > 0 && run.code == 0 &&
				 run.self > 0 && run.session != run.res[1],
				 "d7 cred hand-over: twin: a cred committed by task work inside begin_new_exec() (the keyring it brought is gone, %ld) changes nothing: the program runs in its new table (%ld)",
				 run.session, run.self);
		return;
	}
	if (!kernel_cred_ucounts()) {
		/*
		 * 5.10 (told by its credentials without ucounts, the same era):
		 * its exec runs no task work inside begin_new_exec(), so the
		 * commit comes after the exec, as in the control: the keyring
		 * it brought stays.  A 6.x kernel must take the kill below.
		 */
		ksft_test_result(run.at && run.res[0] == 0 && run.code == 0 && run.res[1] > 0 &&
				 run.session == run.res[1] && run.self > 0,
				 "d7 cred hand-over: module: this kernel's exec runs no task work inside begin_new_exec() even with an io_uring request in flight (the keyring it brought stays, %ld): the commit comes after the exec, and the program runs in its table (%ld)",
				 run.session, run.self);
		return;
	}
	left = ut_wait_tables(before, UT_RCU_SECS);
	snprintf(line, sizeof(line), "pid %d: new credentials missed the uid table; killing it", run.pid);
	ksft_test_result(run.at && run.res[0] == 0 && run.code == 128 + SIGKILL && kernel_log_has(line) &&
			 run.self == CHILD_NONE && left == before,
			 "d7 cred hand-over: module: task work's commit_creds() inside the exec takes the table's user, and the module kills the task (ended %d, \"new credentials missed the uid table\" logged) rather than run it outside its table; the table is freed (%d tables, %d before)",
			 run.code, left, before);
}

/* ------------------------------------------------------------ d8, d9 */

/*
 * d8 is no difference any more: the module's users and ucounts are the
 * kernel's kind of object, from uid_cache and kmalloc, as the twin's are,
 * so that the kernel's own release code is right for them.  Neither kind
 * of row has a cache of its own.
 */
static void test_slabs(void)
{
	char list[512] = "";
	struct dirent *de;
	DIR *d = opendir(SLABS);

	if (!d) {
		ksft_test_result_code(KSFT_SKIP, "d8 slab caches", "no %s", SLABS);
		return;
	}
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "execns", 6))
			snprintf(list + strlen(list), sizeof(list) - strlen(list), " %.64s", de->d_name);
	closedir(d);
	ksft_test_result(!list[0] && exists(SLABS "/uid_cache"),
			 "d8 slab caches: %s: no execns cache in %s (%s), uid_cache there: tables, users and ucounts live in the kernel's own caches",
			 in_tree ? "twin" : "module", SLABS, list[0] ? list + 1 : "none");
}

static void test_tracepoints(void)
{
	if (!exists(EVENTS "/sched/sched_process_exec")) {
		ksft_test_result_code(KSFT_SKIP, "d9 tracepoints", "no tracefs events at %s", EVENTS);
		return;
	}
	if (in_tree)
		ksft_test_result(!exists(EVENTS "/execns"),
				 "d9 tracepoints: twin: no events/execns, the kernel's sched_process_exec remains");
	else
		ksft_test_result(exists(EVENTS "/execns/execns_call") && exists(EVENTS "/execns/execns_return"),
				 "d9 tracepoints: module: events/execns/execns_call and execns_return");
}

/* ------------------------------------------------------------ d10, d11: the same on both */

/* As uid 65534: flags, then permission, then the exec; "inval", "perm" (errnos). */
static int order_child(void *arg)
{
	char *argv[] = { "x", NULL };

	(void)arg;
	if (drop_to_nobody())
		return 90;
	child_putl("inval", raw_execns(CLONE_NEWUTS | CLONE_VM, MISSING, argv, environ) ? errno : 0);
	child_putl("perm", raw_execns(CLONE_NEWUTS, MISSING, argv, environ) ? errno : 0);
	return 0;
}

static void test_error_order(void)
{
	char *argv[] = { "x", NULL };
	struct child c;
	long r, err;

	child_run(order_child, NULL, &c);
	r = raw_execns(CLONE_NEWUTS, MISSING, argv, environ);
	err = errno;
	ksft_test_result(child_ok(&c) && child_val(&c, "inval") == EINVAL && child_val(&c, "perm") == EPERM &&
			 r == -1 && err == ENOENT,
			 "d10 same: %s: the order of errors: an unknown flag is EINVAL before EPERM (%ld), EPERM before the exec's ENOENT (%ld); with the right, ENOENT (%ld)",
			 kind, child_val(&c, "inval"), child_val(&c, "perm"), r ? err : 0);
}

/*
 * find_user() only gates PRIO_USER: once the caller's table has the uid,
 * the kernel's loop over every process of that uid reaches outside the
 * table too.  A limitation both share.
 */
static void test_prio_walk(int tables)
{
	struct child c;
	pid_t outside;
	int before, after;

	if (!tables) {
		ksft_test_result_code(KSFT_SKIP, "d11 same: PRIO_USER", NO_TABLES);
		return;
	}
	outside = child_hold(UT_UID, NULL, NULL);
	errno = 0;
	before = getpriority(PRIO_PROCESS, outside);
	child_execns(CLONE_NEWUSER, "prio", NULL, 1, &c);
	errno = 0;
	after = getpriority(PRIO_PROCESS, outside);
	child_kill(outside);
	ksft_test_result(outside > 0 && before != 9 && child_ok(&c) && child_val(&c, "holder") == 1 &&
			 child_val(&c, "set") == 0 && after == 9,
			 "d11 same: %s: setpriority(PRIO_USER, %d) in a table that has uid %d also renices uid %d outside it (nice %d -> %d)",
			 kind, UT_UID, UT_UID, UT_UID, before, after);
}

/*
 * Until the module's reference count is back to ref0, at most secs.  A
 * table's last reference goes in an RCU callback after /proc/execns/stats
 * already counts it gone (module/uidtab.c), and the runner unloads the
 * module as soon as no table is listed: when this program runs last, a
 * slow grace period (arm64 under TCG) would make that rmmod EAGAIN.
 */
static void wait_module_refs(long ref0, int secs)
{
	for (int i = 0; i < secs * 10 && read_long(MODULE_REFCNT) > ref0; i++) {
		child_reap_zombies();
		sleep_ms(100);
	}
}

int main(int argc, char **argv)
{
	struct child a;
	int tables, before;
	long ref0;

	in_tree = execns_in_tree();
	kind = in_tree ? "twin" : "module";
	CHILD_DISPATCH(modes, argc, argv);

	before = ut_start(20);
	ref0 = read_long(MODULE_REFCNT);
	ksft_print_msg("running on a %s row: %s\n", kind,
		       in_tree ? "execns(2) is the kernel's own" : "execns(2) is the module's");
	test_number();
	test_kprobes_off();
	test_switch_point();
	tables = test_tables_allowed(&a);
	test_identity(tables, &a);
	test_parent(tables);
	test_nsfile();
	test_listing(tables, &a);
	test_ftrace_off(tables);
	test_forbid();
	test_handover(tables, before);
	test_slabs();
	test_tracepoints();
	test_error_order();
	test_prio_walk(tables);
	if (!in_tree) {
		wait_module_refs(ref0, UT_RCU_SECS);
		ksft_print_msg("module references: %ld at the start, %ld at the end\n",
			       ref0, read_long(MODULE_REFCNT));
	}
	ksft_finished();
}
