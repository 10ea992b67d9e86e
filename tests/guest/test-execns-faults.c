// SPDX-License-Identifier: GPL-2.0
/*
 * Failure injection: make each fallible step of execns fail in turn, through
 * the module's fail_nth parameter (Debian's kernels have no
 * CONFIG_FAULT_INJECTION), and check that every failure is ENOMEM with the
 * caller intact, and that nothing is left behind: no uid table, every
 * user_struct allocated freed again (/proc/execns/stats).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <execns.h>
#include "ktap.h"

#define FAIL_NTH	"/sys/module/execns/parameters/fail_nth"
#define FLAGS		(CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET | \
			 CLONE_NEWPID | CLONE_NEWUSER)
#define MAX_STEPS	16

static const char *const ns_names[] = { "mnt", "uts", "ipc", "net", "pid_for_children" };

struct state {
	char ns[5][64];
	char table[32];
	char root[64];
	int fd_probe;
};

static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (f) {
		if (!fgets(buf, len, f))
			buf[0] = '\0';
		fclose(f);
	}
}

static void write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, s, strlen(s)) < 0)
		perror(path);
	if (fd >= 0)
		close(fd);
}

static void snapshot(struct state *st, int fd_probe)
{
	char path[64];
	ssize_t n;

	memset(st, 0, sizeof(*st));
	for (int i = 0; i < 5; i++) {
		snprintf(path, sizeof(path), "/proc/self/ns/%s", ns_names[i]);
		n = readlink(path, st->ns[i], sizeof(st->ns[i]) - 1);
		st->ns[i][n > 0 ? n : 0] = '\0';
	}
	read_line("/proc/execns/self", st->table, sizeof(st->table));
	n = readlink("/proc/self/root", st->root, sizeof(st->root) - 1);
	st->root[n > 0 ? n : 0] = '\0';
	st->fd_probe = fcntl(fd_probe, F_GETFD) >= 0;
}

/* A counter of /proc/execns/stats, or -1. */
static long stat_of(const char *name)
{
	char key[32];
	long v, found = -1;
	FILE *f = fopen("/proc/execns/stats", "r");

	if (!f)
		return -1;
	while (fscanf(f, "%31s %ld", key, &v) == 2)
		if (!strcmp(key, name))
			found = v;
	fclose(f);
	return found;
}

/* Wait (for RCU callbacks) until counter @name reads 0. */
static long settle(const char *name)
{
	long v = -1;

	for (int tries = 0; tries < 50 && v; tries++) {
		v = stat_of(name);
		if (v)
			usleep(100000);
	}
	return v;
}

/* One try in a child: 0 ENOMEM and intact, 1 wrong, 2 execns succeeded. */
static int one_try(int nth, const char *self)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		struct state before, after;
		char *argv[] = { (char *)self, "ran", NULL };
		char nbuf[16];
		int probe = open("/", O_RDONLY);	/* not close-on-exec */

		alarm(30);
		snapshot(&before, probe);
		snprintf(nbuf, sizeof(nbuf), "%d", nth);
		write_str(FAIL_NTH, nbuf);
		execns(FLAGS, self, argv, environ);
		if (errno != ENOMEM) {
			ktap_diag("step %d: errno %d (%s), want ENOMEM", nth, errno, strerror(errno));
			_exit(1);
		}
		snapshot(&after, probe);
		if (memcmp(&before, &after, sizeof(before))) {
			ktap_diag("step %d: caller changed (table %s -> %s)", nth, before.table, after.table);
			_exit(1);
		}
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return 1;
	return WEXITSTATUS(status) == 42 ? 2 : WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	int result[MAX_STEPS + 1];
	char self[256];
	ssize_t n;
	int nth, steps;

	if (argc > 1 && !strcmp(argv[1], "ran"))
		return 42;	/* the new program: execns succeeded */

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = '\0';

	/* Fail step 1, 2, ... until execns gets through; then report. */
	for (nth = 1; nth <= MAX_STEPS; nth++) {
		result[nth] = one_try(nth, self);
		if (result[nth] == 2)
			break;
	}
	steps = nth - 1;
	write_str(FAIL_NTH, "0");

	ktap_plan(steps + 3);
	for (nth = 1; nth <= steps; nth++)
		ktap_result(result[nth] == 0, "fallible step %d fails with ENOMEM, caller intact", nth);
	ktap_result(steps >= 4 && steps < MAX_STEPS,
		    "execns succeeds once past its %d fallible steps", steps);
	ktap_result(settle("tables") == 0, "no uid table left behind");
	ktap_result(settle("users") == 0, "every user_struct the module allocated was freed (allocs %ld, frees %ld)",
		    stat_of("user_allocs"), stat_of("user_frees"));
	return ktap_finish();
}
