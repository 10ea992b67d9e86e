/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the execns(2) test programs (test-execns-*.c, post-rmmod-*.c):
 *
 *  - the raw syscall, for arguments libexecns would not pass;
 *  - a "report" mode each program re-executes itself into (argv[1] ==
 *    "report"): the new program prints what it sees, one "key value" line
 *    at a time, on fd 1 (a pipe: execns closes every descriptor above 2);
 *  - spawn_report(): fork, optionally prepare the child, execns() into the
 *    report mode, and parse what it printed;
 *  - a snapshot of everything a failed execns must leave alone, and a
 *    comparison that names each difference.
 */
#ifndef EXECNS_TEST_UTIL_H
#define EXECNS_TEST_UTIL_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/msg.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <execns.h>
#include "ktap.h"

extern char **environ;

#define NS_ALL	(CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNS | CLONE_NEWNET | \
		 CLONE_NEWPID | CLONE_NEWCGROUP | CLONE_NEWTIME)
/* Seconds a whole test program may take (each child has its own, shorter alarm). */
#define TEST_TIMEOUT	180

/* The flags the failure tests ask for, so that prepared namespaces exist. */
#define NS_PREPARED	(CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET)

/* Each /proc/self/ns entry, and the flag that makes it new (0: none). */
static const struct {
	const char *name;
	int flag;
} ns_list[] = {
	{ "uts", CLONE_NEWUTS }, { "ipc", CLONE_NEWIPC }, { "mnt", CLONE_NEWNS },
	{ "net", CLONE_NEWNET }, { "pid", 0 }, { "pid_for_children", CLONE_NEWPID },
	{ "cgroup", CLONE_NEWCGROUP }, { "time", 0 },
	{ "time_for_children", CLONE_NEWTIME }, { "user", 0 },
};
#define NR_NS	(sizeof(ns_list) / sizeof(ns_list[0]))
enum { NS_UTS, NS_IPC, NS_MNT, NS_NET, NS_PID, NS_PID_CHILD, NS_CGROUP,
       NS_TIME, NS_TIME_CHILD, NS_USER };

static const struct {
	int flag;
	const char *name;
} flag_names[] = {
	{ CLONE_NEWUTS, "CLONE_NEWUTS" }, { CLONE_NEWIPC, "CLONE_NEWIPC" },
	{ CLONE_NEWNS, "CLONE_NEWNS" }, { CLONE_NEWNET, "CLONE_NEWNET" },
	{ CLONE_NEWPID, "CLONE_NEWPID" }, { CLONE_NEWCGROUP, "CLONE_NEWCGROUP" },
	{ CLONE_NEWTIME, "CLONE_NEWTIME" },
};
#define NR_FLAGS	(sizeof(flag_names) / sizeof(flag_names[0]))

/* ---------------------------------------------------------------- files */

/* The first line of path as a number, or -1. */
static inline long read_long(const char *path)
{
	char buf[64] = "";
	FILE *f = fopen(path, "r");
	long v = -1;

	if (f) {
		if (fgets(buf, sizeof(buf), f))
			v = strtol(buf, NULL, 0);
		fclose(f);
	}
	return v;
}

/* Whole file into buf (NUL-terminated); returns the length or -1. */
static inline ssize_t read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t off = 0;
	ssize_t n = 0;

	buf[0] = '\0';
	if (fd < 0)
		return -1;
	while (off + 1 < len && (n = read(fd, buf + off, len - 1 - off)) > 0)
		off += n;
	buf[off] = '\0';
	close(fd);
	return n < 0 ? -1 : (ssize_t)off;
}

/* Create path with content and mode (mode applied exactly, umask aside). */
static inline int write_file(const char *path, const char *s, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	int ok;

	if (fd < 0)
		return -1;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok && !chmod(path, mode) ? 0 : -1;
}

/* Read fd to EOF into buf (NUL-terminated). */
static inline void read_all(int fd, char *buf, size_t len)
{
	size_t off = 0;
	ssize_t n;

	while (off + 1 < len && ((n = read(fd, buf + off, len - 1 - off)) > 0 ||
				 (n < 0 && errno == EINTR)))
		if (n > 0)
			off += n;
	buf[off] = '\0';
}

/* ------------------------------------------------------------- syscall */

/* The slot of this ABI, read from sysfs once; -1 when not loaded. */
static inline long execns_nr(void)
{
	static long nr = -2;

	if (nr == -2)
		nr = read_long(EXECNS_SYSFS_NR_FILE);
	return nr;
}

/* execns through the raw syscall, for pointers libc would not pass. */
static inline long raw_execns(long flags, const void *path, const void *argv,
			      const void *envp)
{
	return syscall(execns_nr(), flags, path, argv, envp);
}

/* ---------------------------------------------------------- namespaces */

/* The inode behind /proc/self/ns/NAME (or /proc/PID/...), 0 when unreadable. */
static inline unsigned long ns_inode_of(const char *pid, const char *name)
{
	char path[96], link[64] = "";
	const char *b;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%s/ns/%s", pid, name);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return 0;
	link[n] = '\0';
	b = strchr(link, '[');
	return strtoul(b ? b + 1 : link, NULL, 10);
}

static inline unsigned long ns_inode(const char *name)
{
	return ns_inode_of("self", name);
}

static inline void ns_all(unsigned long ns[NR_NS])
{
	for (size_t i = 0; i < NR_NS; i++)
		ns[i] = ns_inode(ns_list[i].name);
}

/*
 * The namespaces in got are new relative to ref exactly for the bits of
 * flags, and the same otherwise; each mismatch is a diagnostic line.  A new
 * pid/time namespace for children has no inode to show until its first
 * process exists on some kernels, so 0 counts as "new" there.
 */
static inline int ns_match(const unsigned long got[NR_NS], const unsigned long ref[NR_NS],
			   int flags, const char *who)
{
	int ok = 1;

	for (size_t i = 0; i < NR_NS; i++) {
		int want_new = ns_list[i].flag && (flags & ns_list[i].flag);
		int is_new = got[i] != ref[i];

		if (!got[i] && want_new && (i == NS_PID_CHILD || i == NS_TIME_CHILD))
			continue;
		if (!got[i] || is_new != want_new) {
			ktap_diag("%s: %s is %lu (reference %lu), want %s", who,
				  ns_list[i].name, got[i], ref[i], want_new ? "new" : "the same");
			ok = 0;
		}
	}
	return ok;
}

/* "CLONE_NEWUTS|CLONE_NEWNS" for test names. */
static inline const char *flags_str(int flags)
{
	static char buf[8][160];
	static int slot;
	char *s = buf[slot++ % 8];

	s[0] = '\0';
	for (size_t i = 0; i < NR_FLAGS; i++)
		if (flags & flag_names[i].flag)
			snprintf(s + strlen(s), 160 - strlen(s), "%s%s", s[0] ? "|" : "",
				 flag_names[i].name);
	if (flags & ~NS_ALL)
		snprintf(s + strlen(s), 160 - strlen(s), "%s%#x", s[0] ? "|" : "",
			 flags & ~NS_ALL);
	if (!s[0])
		snprintf(s, 160, "0");
	return s;
}

/* ---------------------------------------------------------- the caller */

/* Where a path is: device, inode and mount (the mount id tells mount trees apart). */
struct place {
	dev_t dev;
	ino_t ino;
	unsigned long long mnt_id;
};

static inline void place_of(const char *path, struct place *p)
{
	struct statx sx;

	memset(p, 0, sizeof(*p));
	if (statx(AT_FDCWD, path, 0, STATX_INO | STATX_MNT_ID, &sx))
		return;
	p->dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
	p->ino = sx.stx_ino;
	p->mnt_id = (sx.stx_mask & STATX_MNT_ID) ? sx.stx_mnt_id : 0;
}

#define MAX_FDS	64
struct fd_info {
	int fd;
	int fd_flags;		/* FD_CLOEXEC */
	int fl_flags;		/* O_* status flags */
	dev_t dev;
	ino_t ino;
	long long pos;		/* -1 where not seekable */
};

/* Everything a failed execns must leave as it was. */
struct proc_state {
	unsigned long ns[NR_NS];
	struct place root, cwd;
	uid_t uid[3];
	gid_t gid[3];
	int ngroups;
	gid_t groups[32];
	char status[1024];	/* credential and signal lines of /proc/self/status */
	char host[65], domain[65];
	char exe[256], comm[32], cmdline[256];
	long table;		/* /proc/execns/self: the uid table, -1 if none */
	pid_t pid, ppid;
	void (*usr1)(int);	/* the SIGUSR1 disposition */
	sigset_t blocked;
	int nfds;
	struct fd_info fds[MAX_FDS];
};

/* The descriptors open now, in order, without the one that lists them. */
static inline int list_fds(int *fds, int max)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && atoi(de->d_name) != dirfd(d) && n < max)
			fds[n++] = atoi(de->d_name);
	closedir(d);
	/* readdir of /proc/self/fd is in fd order already; make sure. */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && fds[j - 1] > fds[j]; j--) {
			int t = fds[j];

			fds[j] = fds[j - 1];
			fds[j - 1] = t;
		}
	return n;
}

/* "0,1,2" */
static inline void fds_str(char *buf, size_t len)
{
	int fds[MAX_FDS], n = list_fds(fds, MAX_FDS);

	buf[0] = '\0';
	for (int i = 0; i < n; i++)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%d", i ? "," : "", fds[i]);
	if (n < 0)
		snprintf(buf, len, "?");
}

static inline void proc_status_lines(char *out, size_t len)
{
	static const char *const keep[] = {
		"Umask:", "Uid:", "Gid:", "Groups:", "NoNewPrivs:", "Seccomp:",
		"CapInh:", "CapPrm:", "CapEff:", "CapBnd:", "CapAmb:",
		"SigBlk:", "SigIgn:", "SigCgt:", "Threads:",
	};
	char text[4096], *line, *save;

	out[0] = '\0';
	if (read_text("/proc/self/status", text, sizeof(text)) < 0)
		return;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
			if (!strncmp(line, keep[i], strlen(keep[i])))
				snprintf(out + strlen(out), len - strlen(out), "%s\n", line);
}

static inline void snapshot(struct proc_state *st)
{
	struct sigaction sa;
	int fds[MAX_FDS];
	ssize_t n;

	memset(st, 0, sizeof(*st));
	ns_all(st->ns);
	place_of("/", &st->root);
	place_of(".", &st->cwd);
	getresuid(&st->uid[0], &st->uid[1], &st->uid[2]);
	getresgid(&st->gid[0], &st->gid[1], &st->gid[2]);
	st->ngroups = getgroups(32, st->groups);
	proc_status_lines(st->status, sizeof(st->status));
	gethostname(st->host, sizeof(st->host) - 1);
	getdomainname(st->domain, sizeof(st->domain) - 1);
	n = readlink("/proc/self/exe", st->exe, sizeof(st->exe) - 1);
	st->exe[n > 0 ? n : 0] = '\0';
	read_text("/proc/self/comm", st->comm, sizeof(st->comm));
	n = read_text("/proc/self/cmdline", st->cmdline, sizeof(st->cmdline));
	for (ssize_t i = 0; i < n; i++)		/* NULs between arguments */
		if (!st->cmdline[i])
			st->cmdline[i] = ' ';
	st->table = read_long("/proc/execns/self");
	st->pid = getpid();
	st->ppid = getppid();
	if (!sigaction(SIGUSR1, NULL, &sa))
		st->usr1 = sa.sa_handler;
	sigprocmask(SIG_BLOCK, NULL, &st->blocked);
	st->nfds = list_fds(fds, MAX_FDS);
	for (int i = 0; i < st->nfds; i++) {
		struct fd_info *f = &st->fds[i];
		struct stat sb;

		f->fd = fds[i];
		f->fd_flags = fcntl(fds[i], F_GETFD);
		f->fl_flags = fcntl(fds[i], F_GETFL);
		if (!fstat(fds[i], &sb)) {
			f->dev = sb.st_dev;
			f->ino = sb.st_ino;
		}
		/* 0-2 may be the test's own output, which moves on as it prints. */
		f->pos = fds[i] > 2 ? lseek(fds[i], 0, SEEK_CUR) : 0;
	}
}

/* 1 when a and b agree; every difference is a diagnostic line. */
static inline int same_state(const struct proc_state *a, const struct proc_state *b,
			     const char *who)
{
	int ok = 1;

#define DIFF(cond, fmt, ...) do {					\
		if (cond) {						\
			ktap_diag("%s: " fmt, who, ##__VA_ARGS__);	\
			ok = 0;						\
		}							\
	} while (0)
	for (size_t i = 0; i < NR_NS; i++)
		DIFF(a->ns[i] != b->ns[i], "%s namespace %lu -> %lu", ns_list[i].name,
		     a->ns[i], b->ns[i]);
	DIFF(memcmp(&a->root, &b->root, sizeof(a->root)),
	     "root dev/ino/mount %lx/%lu/%llu -> %lx/%lu/%llu",
	     (unsigned long)a->root.dev, (unsigned long)a->root.ino, a->root.mnt_id,
	     (unsigned long)b->root.dev, (unsigned long)b->root.ino, b->root.mnt_id);
	DIFF(memcmp(&a->cwd, &b->cwd, sizeof(a->cwd)),
	     "cwd dev/ino/mount %lx/%lu/%llu -> %lx/%lu/%llu",
	     (unsigned long)a->cwd.dev, (unsigned long)a->cwd.ino, a->cwd.mnt_id,
	     (unsigned long)b->cwd.dev, (unsigned long)b->cwd.ino, b->cwd.mnt_id);
	DIFF(memcmp(a->uid, b->uid, sizeof(a->uid)) || memcmp(a->gid, b->gid, sizeof(a->gid)) ||
	     a->ngroups != b->ngroups || memcmp(a->groups, b->groups, sizeof(a->groups)),
	     "uids, gids or groups changed");
	DIFF(strcmp(a->status, b->status), "/proc/self/status changed:\n%s-> \n%s",
	     a->status, b->status);
	DIFF(strcmp(a->host, b->host) || strcmp(a->domain, b->domain),
	     "host name %s -> %s, domain %s -> %s", a->host, b->host, a->domain, b->domain);
	DIFF(strcmp(a->exe, b->exe), "/proc/self/exe %s -> %s", a->exe, b->exe);
	DIFF(strcmp(a->comm, b->comm), "comm %s -> %s", a->comm, b->comm);
	DIFF(strcmp(a->cmdline, b->cmdline), "cmdline %s -> %s", a->cmdline, b->cmdline);
	DIFF(a->table != b->table, "uid table %ld -> %ld", a->table, b->table);
	DIFF(a->pid != b->pid || a->ppid != b->ppid, "pid/ppid %d/%d -> %d/%d",
	     a->pid, a->ppid, b->pid, b->ppid);
	DIFF(a->usr1 != b->usr1, "SIGUSR1 disposition changed");
	DIFF(memcmp(&a->blocked, &b->blocked, sizeof(a->blocked)), "signal mask changed");
	DIFF(a->nfds != b->nfds, "%d descriptors -> %d", a->nfds, b->nfds);
	for (int i = 0; i < a->nfds && i < b->nfds; i++)
		DIFF(memcmp(&a->fds[i], &b->fds[i], sizeof(a->fds[i])),
		     "descriptor %d (flags %d/%#x, ino %lu, pos %lld) -> %d (flags %d/%#x, ino %lu, pos %lld)",
		     a->fds[i].fd, a->fds[i].fd_flags, a->fds[i].fl_flags,
		     (unsigned long)a->fds[i].ino, a->fds[i].pos,
		     b->fds[i].fd, b->fds[i].fd_flags, b->fds[i].fl_flags,
		     (unsigned long)b->fds[i].ino, b->fds[i].pos);
#undef DIFF
	return ok;
}

/* Become uid/gid 65534 with no supplementary groups: no capabilities left. */
static inline int drop_to_nobody(void)
{
	if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534))
		return -1;
	return 0;
}

/* --------------------------------------------------------- report mode */

#define REPORT_ENV	"EXECNS_TEST_ENV"

/*
 * argv: PROG report [OPTION...].  Prints "key value" lines on fd 1 and
 * "end" last.  Options, in order:
 *   host NAME	  sethostname(NAME) first
 *   mount DIR	  mount a tmpfs on DIR, print its device
 *   msgq KEY	  look for the System V message queue KEY
 *   stdin	  read a line from fd 0 and echo it; write a line to fd 2
 *   fork	  fork a child that prints its pid and pid/time namespaces
 *   nest FLAGS	  execns(FLAGS) into the report mode again ("level" counts)
 */
static inline int report_main(int argc, char **argv)
{
	char buf[512];
	long level = 0;
	const char *lv = getenv("EXECNS_TEST_LEVEL");
	int i;

	if (lv)
		level = strtol(lv, NULL, 10);
	printf("level %ld\n", level);
	for (i = 2; i < argc; i++)
		if (!strcmp(argv[i], "host") && i + 1 < argc)
			printf("sethostname %d\n",
			       sethostname(argv[i + 1], strlen(argv[i + 1])) ? errno : 0);
	for (size_t n = 0; n < NR_NS; n++)
		printf("ns %s %lu\n", ns_list[n].name, ns_inode(ns_list[n].name));
	fds_str(buf, sizeof(buf));
	printf("fds %s\n", buf);
	printf("pid %d\n", getpid());
	proc_status_lines(buf, sizeof(buf));
	printf("threads %ld\n", strstr(buf, "Threads:") ?
	       strtol(strstr(buf, "Threads:") + 8, NULL, 10) : -1L);
	printf("table %ld\n", read_long("/proc/execns/self"));
	gethostname(buf, 64);
	buf[64] = '\0';
	printf("host %s\n", buf);
	printf("env %s\n", getenv(REPORT_ENV) ? getenv(REPORT_ENV) : "(unset)");
	printf("argc %d\n", argc);
	{
		struct place r, c;

		place_of("/", &r);
		place_of(".", &c);
		printf("root %lu %lu %llu\n", (unsigned long)r.dev, (unsigned long)r.ino, r.mnt_id);
		printf("cwd %lu %lu %llu\n", (unsigned long)c.dev, (unsigned long)c.ino, c.mnt_id);
	}
	fflush(stdout);
	for (i = 2; i < argc; i++) {
		const char *arg = i + 1 < argc ? argv[i + 1] : "";

		if (!strcmp(argv[i], "mount")) {
			struct stat sb = { 0 };
			int err = mount("execns-test", arg, "tmpfs", 0, NULL) ? errno : 0;

			stat(arg, &sb);
			printf("mount %d %lu\n", err, (unsigned long)sb.st_dev);
		} else if (!strcmp(argv[i], "msgq")) {
			int id = msgget((key_t)strtol(arg, NULL, 0), 0);

			printf("msgq %d\n", id < 0 ? errno : 0);
		} else if (!strcmp(argv[i], "stdin")) {
			ssize_t n = read(0, buf, 100);

			buf[n > 0 ? n : 0] = '\0';
			buf[strcspn(buf, "\n")] = '\0';
			printf("stdin %s\n", n > 0 ? buf : "(nothing)");
			printf("stderr %d\n", write(2, "from-report\n", 12) == 12);
		} else if (!strcmp(argv[i], "fork")) {
			pid_t p;

			fflush(stdout);
			p = fork();
			if (p == 0) {
				printf("child %d %lu %lu\n", getpid(), ns_inode("pid"),
				       ns_inode("time"));
				fflush(stdout);
				_exit(0);
			}
			waitpid(p, NULL, 0);
		} else if (!strcmp(argv[i], "nest")) {
			char *nargv[16] = { argv[0], "report" };
			int k = 2;

			for (int j = i + 2; j < argc && k < 15; j++)
				nargv[k++] = argv[j];
			nargv[k] = NULL;
			snprintf(buf, sizeof(buf), "%ld", level + 1);
			setenv("EXECNS_TEST_LEVEL", buf, 1);
			printf("end\n");
			fflush(stdout);
			execns(strtol(arg, NULL, 0), "/proc/self/exe", nargv, environ);
			/* Still here: report that, and this level once more. */
			printf("nesterr %d\n", errno);
			snprintf(buf, sizeof(buf), "%ld", level);
			setenv("EXECNS_TEST_LEVEL", buf, 1);
			fflush(stdout);
			for (size_t n = 0; n < NR_NS; n++)
				printf("after %s %lu\n", ns_list[n].name, ns_inode(ns_list[n].name));
			break;
		}
	}
	printf("end\n");
	fflush(stdout);
	return 0;
}

/* What one level of the report mode printed. */
struct report {
	int ok;			/* that level's report was found */
	long level;
	unsigned long ns[NR_NS];
	unsigned long after[NR_NS];	/* after a failed nest */
	char fds[256];
	pid_t pid;
	int threads;
	long table;
	char host[65];
	char env[128];
	int argc;
	struct place root, cwd;
	int sethost_err;
	int mount_err;
	unsigned long mount_dev;
	int msgq_err;
	char stdin_line[128];
	int stderr_ok;
	pid_t child_pid;
	unsigned long child_pid_ns, child_time_ns;
	int nest_err;		/* -1: no failed nest */
	int has_after;
	char text[8192];	/* everything that was read, all levels */
};

/* Parse the report of the given level out of text (level 0: the first). */
static inline void parse_report(struct report *r, const char *text, long level)
{
	const char *p = text;
	char key[32], name[32];
	unsigned long v;
	long lv = -1;

	r->ok = 0;
	r->nest_err = -1;
	for (; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (sscanf(p, "level %ld", &lv) == 1)
			continue;
		if (lv != level)
			continue;
		r->level = lv;
		if (sscanf(p, "ns %31s %lu", name, &v) == 2) {
			for (size_t i = 0; i < NR_NS; i++)
				if (!strcmp(name, ns_list[i].name))
					r->ns[i] = v;
			r->ok = 1;
		} else if (sscanf(p, "after %31s %lu", name, &v) == 2) {
			for (size_t i = 0; i < NR_NS; i++)
				if (!strcmp(name, ns_list[i].name))
					r->after[i] = v;
			r->has_after = 1;
		} else if (sscanf(p, "%31s", key) == 1) {
			unsigned long a, b, c;

			if (!strcmp(key, "fds"))
				sscanf(p, "fds %255s", r->fds);
			else if (!strcmp(key, "pid"))
				sscanf(p, "pid %d", &r->pid);
			else if (!strcmp(key, "threads"))
				sscanf(p, "threads %d", &r->threads);
			else if (!strcmp(key, "table"))
				sscanf(p, "table %ld", &r->table);
			else if (!strcmp(key, "host"))
				sscanf(p, "host %64s", r->host);
			else if (!strcmp(key, "env"))
				sscanf(p, "env %127s", r->env);
			else if (!strcmp(key, "argc"))
				sscanf(p, "argc %d", &r->argc);
			else if (!strcmp(key, "sethostname"))
				sscanf(p, "sethostname %d", &r->sethost_err);
			else if (!strcmp(key, "mount"))
				sscanf(p, "mount %d %lu", &r->mount_err, &r->mount_dev);
			else if (!strcmp(key, "msgq"))
				sscanf(p, "msgq %d", &r->msgq_err);
			else if (!strcmp(key, "stdin"))
				sscanf(p, "stdin %127s", r->stdin_line);
			else if (!strcmp(key, "stderr"))
				sscanf(p, "stderr %d", &r->stderr_ok);
			else if (!strcmp(key, "child"))
				sscanf(p, "child %d %lu %lu", &r->child_pid, &r->child_pid_ns,
				       &r->child_time_ns);
			else if (!strcmp(key, "nesterr"))
				sscanf(p, "nesterr %d", &r->nest_err);
			else if (sscanf(p, "root %lu %lu %lu", &a, &b, &c) == 3)
				r->root = (struct place){ a, b, c };
			else if (sscanf(p, "cwd %lu %lu %lu", &a, &b, &c) == 3)
				r->cwd = (struct place){ a, b, c };
		}
	}
}

/* Pass the "# " lines a child printed on as diagnostics. */
static inline void pass_diags(const char *text)
{
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, "# ", 2))
			ktap_diag("  %.*s", (int)strcspn(p + 2, "\n"), p + 2);
}

/*
 * fork(); in the child, stdout goes to a pipe, prep(arg) runs (it may exit
 * the child, or print "# " lines), a non-close-on-exec descriptor is opened
 * above 2, and execns(flags, /proc/self/exe, report opts..., envp with
 * REPORT_ENV=report-env) follows.  On failure the child prints "errno N".
 * Returns the wait status (-1 if none); *err gets that errno (0 if none);
 * r gets the level-0 report, r->text all output.  *pid_out: the child's pid.
 */
static inline int spawn_report_prep(int flags, const char *const *opts,
				    void (*prep)(void *), void *arg,
				    struct report *r, int *err, pid_t *pid_out)
{
	char *argv[24] = { "/proc/self/exe", "report" };
	int p[2], status = -1, i = 2;
	const char *e;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	*err = 0;
	while (opts && *opts && i < 23)
		argv[i++] = (char *)*opts++;
	argv[i] = NULL;
	if (pipe(p))
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		char *envp[] = { REPORT_ENV "=report-env", "EXECNS_TEST_LEVEL=0", NULL };

		alarm(30);
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		if (open("/", O_RDONLY) < 0)	/* not close-on-exec: must not survive */
			_exit(97);
		if (prep)
			prep(arg);
		fflush(stdout);
		execns(flags, "/proc/self/exe", argv, envp);
		printf("errno %d\n", errno);
		fflush(stdout);
		_exit(99);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return -1;
	}
	if (pid_out)
		*pid_out = pid;
	read_all(p[0], r->text, sizeof(r->text));
	close(p[0]);
	waitpid(pid, &status, 0);
	e = strstr(r->text, "errno ");
	if (e && (e == r->text || e[-1] == '\n'))
		sscanf(e, "errno %d", err);
	pass_diags(r->text);
	parse_report(r, r->text, 0);
	return status;
}

static inline int spawn_report(int flags, const char *const *opts, struct report *r, int *err)
{
	return spawn_report_prep(flags, opts, NULL, NULL, r, err, NULL);
}

/* The child ran, reported, and exited 0. */
static inline int exited_ok(int status)
{
	return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

#endif /* EXECNS_TEST_UTIL_H */
