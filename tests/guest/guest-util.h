/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the in-guest test programs: the raw syscall, a
 * "report" mode that a test re-executes itself into (so the new program
 * tells what it sees over fd 1), and snapshots of the caller's state.
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

#define NS_ALL	(CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNS | CLONE_NEWNET | \
		 CLONE_NEWPID | CLONE_NEWCGROUP | CLONE_NEWTIME)

/* The namespaces a process can see, in /proc/self/ns order of interest. */
static const char *const ns_files[] = {
	"uts", "ipc", "mnt", "net", "pid", "pid_for_children",
	"cgroup", "time", "time_for_children",
};
#define NR_NS (sizeof(ns_files) / sizeof(ns_files[0]))

/* The flag that changes each entry of ns_files (pid/time: for children). */
static const int ns_flags[NR_NS] = {
	CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWNS, CLONE_NEWNET, 0, CLONE_NEWPID,
	CLONE_NEWCGROUP, 0, CLONE_NEWTIME,
};

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

/* A counter of /proc/execns/stats (tables, user_allocs, user_frees, users), or -1. */
static inline long execns_stat(const char *name)
{
	char key[32];
	long v, found = -1;
	FILE *f = fopen("/proc/execns/stats", "r");

	while (f && fscanf(f, "%31s %ld", key, &v) == 2)
		if (!strcmp(key, name))
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

/* The new program's view, as printed by the report mode below. */
struct report {
	int ok;			/* the report mode ran */
	unsigned long ns[NR_NS];
	int nfds;		/* open descriptors besides the one listing them */
	int low_fds;		/* 0, 1 and 2 all open */
	int threads;
	long table;
	char host[64];
	long child_pid;		/* getpid() of a child it forked, if asked */
	char text[4096];	/* everything it printed */
};

/*
 * Report mode: argv[1] == "report".  Prints "key value" lines.  Options
 * after it: "host NAME" sets the host name first; "fork" forks a child that
 * prints its pid; "nest FLAGS" execns()es itself again with FLAGS (reporting
 * the second level under "L2").
 */
static inline int report_main(int argc, char **argv)
{
	char host[64] = "";
	int i, threads = -1;
	char line[256];
	FILE *f;

	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "host") && i + 1 < argc)
			sethostname(argv[i + 1], strlen(argv[i + 1]));
	}
	for (size_t n = 0; n < NR_NS; n++)
		printf("ns %s %lu\n", ns_files[n], ns_inode(ns_files[n]));
	printf("fds %d\n", count_fds());
	printf("lowfds %d\n", fcntl(0, F_GETFD) >= 0 && fcntl(1, F_GETFD) >= 0 &&
	       fcntl(2, F_GETFD) >= 0);
	f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof(line), f))
		sscanf(line, "Threads: %d", &threads);
	if (f)
		fclose(f);
	printf("threads %d\n", threads);
	printf("table %ld\n", read_long("/proc/execns/self"));
	gethostname(host, sizeof(host) - 1);
	printf("host %s\n", host);
	fflush(stdout);
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "fork")) {
			pid_t p = fork();

			if (p == 0) {
				printf("childpid %d\n", getpid());
				fflush(stdout);
				_exit(0);
			}
			waitpid(p, NULL, 0);
		}
		if (!strcmp(argv[i], "nest") && i + 1 < argc) {
			char *nargv[] = { argv[0], "report", NULL };

			printf("L2\n");
			fflush(stdout);
			execns(strtol(argv[i + 1], NULL, 0), "/proc/self/exe", nargv, environ);
			printf("nesterr %d\n", errno);
		}
	}
	fflush(stdout);
	return 0;
}

/* Parse the report lines after "skip" occurrences of "L2". */
static inline void parse_report(struct report *r, const char *text, int level)
{
	const char *p = text;
	char key[32], name[32];
	unsigned long v;

	while (level-- > 0 && p) {
		p = strstr(p, "L2\n");
		if (p)
			p += 3;
	}
	if (!p)
		return;
	while (*p) {
		if (!strncmp(p, "L2\n", 3))
			break;
		if (sscanf(p, "ns %31s %lu", name, &v) == 2) {
			for (size_t i = 0; i < NR_NS; i++)
				if (!strcmp(name, ns_files[i]))
					r->ns[i] = v;
			r->ok = 1;
		} else if (sscanf(p, "%31s", key) == 1) {
			if (!strcmp(key, "fds"))
				sscanf(p, "fds %d", &r->nfds);
			else if (!strcmp(key, "lowfds"))
				sscanf(p, "lowfds %d", &r->low_fds);
			else if (!strcmp(key, "threads"))
				sscanf(p, "threads %d", &r->threads);
			else if (!strcmp(key, "table"))
				sscanf(p, "table %ld", &r->table);
			else if (!strcmp(key, "host"))
				sscanf(p, "host %63s", r->host);
			else if (!strcmp(key, "childpid"))
				sscanf(p, "childpid %ld", &r->child_pid);
		}
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
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

/*
 * Run a forked child that calls execns(flags, /proc/self/exe, report ...)
 * with its stdout on a pipe; extra report options in opts (NULL-ended).
 * Returns the child's exit status; *err gets execns's errno if it failed.
 */
static inline int spawn_report(int flags, const char *const *opts, struct report *r,
			       int *err)
{
	char *argv[16] = { "/proc/self/exe", "report" };
	int p[2], status = -1, i = 2;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	*err = 0;
	while (opts && *opts && i < 15)
		argv[i++] = (char *)*opts++;
	argv[i] = NULL;
	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		int keep = open("/", O_RDONLY);	/* not close-on-exec */

		(void)keep;
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		alarm(20);
		execns(flags, "/proc/self/exe", argv, environ);
		printf("errno %d\n", errno);
		fflush(stdout);
		_exit(99);
	}
	close(p[1]);
	read_all(p[0], r->text, sizeof(r->text));
	close(p[0]);
	waitpid(pid, &status, 0);
	if (sscanf(r->text, "errno %d", err) != 1)
		*err = 0;
	parse_report(r, r->text, 0);
	return status;
}

#endif /* EXECNS_GUEST_UTIL_H */
