/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The child protocol of the in-guest test programs.
 *
 * A program that needs code to run in a new program (after execns, which
 * closes every descriptor above 2) re-executes itself, /proc/self/exe, with
 * a mode name in argv[1] and the mode's arguments after it.  main() starts
 * with CHILD_DISPATCH(modes, argc, argv): when argv[1] names a mode of the
 * table, that mode's function runs and its value is the exit status;
 * otherwise main() goes on to the tests.
 *
 * The child writes its results on fd 1, a pipe to the test: "key value"
 * lines, "# " lines that the test passes on as diagnostics, and whatever the
 * mode defines.  The test reads the pipe to EOF (child_collect()), then
 * reaps the child.  Every child sets an alarm, so nothing outlives a hung
 * test for long.
 *
 * The execns(2) tests' own mode, "report", is in report.h; the uid-table
 * tests' common modes and their ut_spawn() are in uidtab.h.
 */
#ifndef EXECNS_LIB_CHILD_H
#define EXECNS_LIB_CHILD_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ktap.h"
#include "sys.h"

/* Seconds a whole test program may take (each child has its own, shorter alarm). */
#define TEST_TIMEOUT	180

/* ------------------------------------------------------------ modes */

struct child_mode {
	const char *name;	/* argv[1] */
	int args;		/* arguments it needs after its name */
	int (*run)(int argc, char **argv);	/* main()'s; argv[1] is the name */
};

#define CHILD_DISPATCH(modes, argc, argv) \
	child_dispatch(modes, sizeof(modes) / sizeof(modes[0]), argc, argv)

/*
 * Run the mode argv[1] names and exit with what it returns; return when it
 * names none.  A mode given too few arguments is an error, not the tests.
 */
static inline void child_dispatch(const struct child_mode *modes, size_t n,
				  int argc, char **argv)
{
	if (argc < 2)
		return;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(argv[1], modes[i].name))
			continue;
		if (argc - 2 < modes[i].args) {
			fprintf(stderr, "%s: mode %s needs %d argument%s\n", argv[0],
				modes[i].name, modes[i].args, modes[i].args == 1 ? "" : "s");
			exit(2);
		}
		exit(modes[i].run(argc, argv));
	}
}

/* ------------------------------------------------------------ collecting */

/* Pass the "# " lines a child printed on as diagnostics of this program. */
static inline void pass_diags(const char *text)
{
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, "# ", 2))
			printf("%.*s\n", (int)strcspn(p, "\n"), p);
	fflush(stdout);
}

/* Read a child's output to EOF into buf; pass its "# " lines on. */
static inline void child_collect(int fd, char *buf, size_t len)
{
	read_all(fd, buf, len);
	pass_diags(buf);
}

/* What run_captured() reads from the program. */
#define CAPTURE_STDOUT	(1 << 1)
#define CAPTURE_STDERR	(1 << 2)

/*
 * Run argv[0] (a path) in a child, with the streams @fds names going into
 * out (NUL-terminated, cut at len - 1).  @prep, if not NULL, runs in the
 * child first (drop privileges, install a filter, ...); a nonzero return
 * ends the child with status 98.  The child has @secs seconds.  Returns the
 * exit status, 128+N for a signal N, or -1.
 */
static inline int run_captured(char *const argv[], int fds, int (*prep)(void *), void *arg,
			       unsigned int secs, char *out, size_t len)
{
	int p[2], status;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		if (fds & CAPTURE_STDOUT)
			dup2(p[1], 1);
		if (fds & CAPTURE_STDERR)
			dup2(p[1], 2);
		close(p[0]);
		close(p[1]);
		alarm(secs);
		if (prep && prep(arg))
			_exit(98);
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	read_all(p[0], out, len);
	close(p[0]);
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) :
	       WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
}

/* The wait status of a child that exited 0 (-1: none). */
static inline int exited_ok(int status)
{
	return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

#endif /* EXECNS_LIB_CHILD_H */
