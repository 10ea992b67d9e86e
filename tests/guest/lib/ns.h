/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Namespaces as the tests see them: the /proc/PID/ns entries, their inodes,
 * the CLONE_NEW* flags that make each one new, and which namespace inode
 * numbers are in use (what is left behind where no counter shows it).
 */
#ifndef EXECNS_LIB_NS_H
#define EXECNS_LIB_NS_H

#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ktap.h"
#include "sys.h"

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

/* The inode behind /proc/PID/ns/NAME (PID may be "self"), 0 when unreadable. */
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
			ksft_print_msg("%s: %s is %lu (reference %lu), want %s\n", who,
				       ns_list[i].name, got[i], ref[i], want_new ? "new" : "the same");
			ok = 0;
		}
	}
	return ok;
}

/* "CLONE_NEWUTS|CLONE_NEWNS" for test names (eight calls may be in use at once). */
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
	if (flags & ~EXECNS_NS_FLAGS)
		snprintf(s + strlen(s), 160 - strlen(s), "%s%#x", s[0] ? "|" : "",
			 flags & ~EXECNS_NS_FLAGS);
	if (!s[0])
		snprintf(s, 160, "0");
	return s;
}

/*
 * What is left behind where no counter shows it (the kernel's own execns(2)
 * has no /proc/execns/stats): every namespace, and there every uid table,
 * gets the lowest free number of one allocator (ns_alloc_inum(), an IDA
 * that /proc entries share), so n namespaces made at once get the n lowest
 * free numbers.  A namespace or table kept by what ran between two such
 * snapshots holds one of the first snapshot's numbers.
 */
#define NS_INUMS	512

struct ns_inums {
	unsigned int n;
	unsigned long ino[NS_INUMS];
};

/* The snapshot: NS_INUMS new UTS namespaces held at once by a child; 0 or -1. */
static inline int ns_inums_read(struct ns_inums *s)
{
	struct rlimit rl;
	unsigned long ino;
	int p[2], status;
	pid_t pid;

	s->n = 0;
	if (pipe(p))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (!pid) {
		struct stat st;
		int fd;

		close(p[0]);
		/* a descriptor keeps each namespace */
		if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < NS_INUMS + 16) {
			rl.rlim_cur = rl.rlim_max < NS_INUMS + 16 ? rl.rlim_max : NS_INUMS + 16;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
		for (int i = 0; i < NS_INUMS; i++) {
			if (unshare(CLONE_NEWUTS))
				_exit(1);
			fd = open("/proc/self/ns/uts", O_RDONLY | O_CLOEXEC);
			if (fd < 0 || fstat(fd, &st))
				_exit(1);
			ino = st.st_ino;
			if (write(p[1], &ino, sizeof(ino)) != sizeof(ino))
				_exit(1);
		}
		_exit(0);
	}
	close(p[1]);
	while (s->n < NS_INUMS && read(p[0], &ino, sizeof(ino)) == sizeof(ino))
		s->ino[s->n++] = ino;
	close(p[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) ||
	    s->n != NS_INUMS)
		return -1;
	return 0;
}

/*
 * How many of before's numbers below now's highest are taken in now (now
 * has the lowest free ones, so such a number missing from it is in use);
 * the first in *first.  Numbers freed in between (a namespace still going
 * at the first snapshot) do not count.
 */
static inline unsigned int ns_inums_taken(const struct ns_inums *before,
					   const struct ns_inums *now, unsigned long *first)
{
	unsigned long top = 0;
	unsigned int taken = 0, j;

	*first = 0;
	for (unsigned int i = 0; i < now->n; i++)
		top = now->ino[i] > top ? now->ino[i] : top;
	for (unsigned int i = 0; i < before->n; i++) {
		if (before->ino[i] >= top)
			continue;
		for (j = 0; j < now->n && now->ino[j] != before->ino[i]; j++)
			;
		if (j == now->n && !taken++)
			*first = before->ino[i];
	}
	return taken;
}

/*
 * Wait (up to secs) until nothing made since before holds a number any
 * more: namespaces and tables go after an RCU grace period, network
 * namespaces from a work item.  Returns how many are still taken (-1 when
 * a snapshot failed), the first in *first.
 */
static inline int ns_inums_settle(const struct ns_inums *before, int secs, unsigned long *first)
{
	static struct ns_inums now;
	int taken = -1;

	*first = 0;
	for (int i = 0; i <= secs * 10; i++) {
		if (ns_inums_read(&now))
			return -1;
		taken = ns_inums_taken(before, &now, first);
		if (!taken)
			break;
		sleep_ms(100);
	}
	return taken;
}

#endif /* EXECNS_LIB_NS_H */
