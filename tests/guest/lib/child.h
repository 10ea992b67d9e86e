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

/* The wait status of a child that exited 0 (-1: none). */
static inline int exited_ok(int status)
{
	return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

#endif /* EXECNS_LIB_CHILD_H */
