/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The caller's state: a snapshot of everything a failed execns must leave
 * as it was (namespaces, root and working directory, credentials, names,
 * the uid table, signals, every descriptor with its flags and offset), and
 * a comparison that names each difference as a diagnostic line.
 */
#ifndef EXECNS_LIB_STATE_H
#define EXECNS_LIB_STATE_H

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "ktap.h"
#include "ns.h"
#include "sys.h"

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
	st->table = read_long(EXECNS_PROC_SELF);
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
			ksft_print_msg("%s: " fmt "\n", who, ##__VA_ARGS__);	\
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

#endif /* EXECNS_LIB_STATE_H */
