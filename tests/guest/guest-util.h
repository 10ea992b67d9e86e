/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the fault, trace, bench and stress programs: the raw syscall,
 * /proc/execns/stats, and snapshots of the caller's state.  The execns(2)
 * tests have their own, richer util.h.
 */
#ifndef EXECNS_GUEST_UTIL_H
#define EXECNS_GUEST_UTIL_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <execns.h>

/* The namespaces a process can see, in /proc/self/ns order of interest. */
static const char *const ns_files[] = {
	"uts", "ipc", "mnt", "net", "pid", "pid_for_children",
	"cgroup", "time", "time_for_children",
};
#define NR_NS (sizeof(ns_files) / sizeof(ns_files[0]))

static inline long read_long(const char *path)
{
	char buf[64] = "";
	FILE *f = fopen(path, "r");
	long v = -1;

	if (f) {
		if (fgets(buf, sizeof(buf), f))
			v = strtol(buf, NULL, 10);
		fclose(f);
	}
	return v;
}

static inline void write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write(fd, s, strlen(s)) < 0)
		fprintf(stderr, "# write %s: %s\n", path, strerror(errno));
	if (fd >= 0)
		close(fd);
}

/*
 * A counter of /proc/execns/stats (tables, users, ucounts, hook_arms, ...),
 * or -1.  Line by line: "hooks armed" is a word, not a number.
 */
static inline long execns_stat(const char *name)
{
	char line[128], key[32];
	long v, found = -1;
	FILE *f = fopen("/proc/execns/stats", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%31s %ld", key, &v) == 2 && !strcmp(key, name))
			found = v;
	if (f)
		fclose(f);
	return found;
}

/* execns through the raw syscall, for pointers libc would not pass. */
static inline long raw_execns(long flags, const void *path, const void *argv,
			      const void *envp)
{
	long nr = read_long(EXECNS_SYSFS_NR_FILE);

	return syscall(nr, flags, path, argv, envp);
}

/* The inode behind /proc/self/ns/NAME, 0 when unreadable. */
static inline unsigned long ns_inode(const char *name)
{
	char path[64], link[64] = "";
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/ns/%s", name);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return 0;
	link[n] = '\0';
	return strtoul(strchr(link, '[') ? strchr(link, '[') + 1 : link, NULL, 10);
}

/* Everything a failed execns must leave as it was. */
struct caller_state {
	unsigned long ns[NR_NS];
	dev_t root_dev, cwd_dev;
	ino_t root_ino, cwd_ino;
	uid_t r, e, s;
	char host[64];
	char exe[256];
	long table;
	int nfds;
	ino_t probe_ino;
};

static inline int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && atoi(de->d_name) != dirfd(d))
			n++;
	closedir(d);
	return n;
}

static inline void snapshot(struct caller_state *st, int probe_fd)
{
	struct stat sb;
	ssize_t n;

	memset(st, 0, sizeof(*st));
	for (size_t i = 0; i < NR_NS; i++)
		st->ns[i] = ns_inode(ns_files[i]);
	if (!stat("/", &sb)) {
		st->root_dev = sb.st_dev;
		st->root_ino = sb.st_ino;
	}
	if (!stat(".", &sb)) {
		st->cwd_dev = sb.st_dev;
		st->cwd_ino = sb.st_ino;
	}
	getresuid(&st->r, &st->e, &st->s);
	gethostname(st->host, sizeof(st->host) - 1);
	n = readlink("/proc/self/exe", st->exe, sizeof(st->exe) - 1);
	st->exe[n > 0 ? n : 0] = '\0';
	st->table = read_long("/proc/execns/self");
	st->nfds = count_fds();
	if (probe_fd >= 0 && !fstat(probe_fd, &sb))
		st->probe_ino = sb.st_ino;
}

static inline int same_state(const struct caller_state *a, const struct caller_state *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/* Read all of fd into buf (NUL-terminated). */
static inline void read_all(int fd, char *buf, size_t len)
{
	size_t off = 0;
	ssize_t n;

	while (off + 1 < len && (n = read(fd, buf + off, len - 1 - off)) > 0)
		off += n;
	buf[off] = '\0';
}

#endif /* EXECNS_GUEST_UTIL_H */
