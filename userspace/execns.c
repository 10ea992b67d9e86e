// SPDX-License-Identifier: GPL-2.0
/*
 * execns(1): run a program in new namespaces.  The execns syscall unshares
 * them and executes the program in one step, so that nothing of this
 * process survives into the new namespaces.  See execns(1) and execns(2).
 */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "execns.h"

#ifndef EXECNS_VERSION
#define EXECNS_VERSION "unknown"
#endif

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Exit codes as in env(1); otherwise the status is the program's own. */
enum {
	EXIT_EXECNS = 125,	/* execns itself failed */
	EXIT_CANNOT_RUN = 126,	/* the program was found but cannot run */
	EXIT_NOT_FOUND = 127,	/* the program was not found */
};

/*
 * One row per namespace.  -u keeps the 2006 meaning (the uid table), so UTS
 * takes -H (host name) instead of unshare(1)'s -u.
 */
static const struct namespace {
	int flag;
	char opt;
	const char *name;	/* long option */
	const char *nsfile;	/* in /proc/self/ns, if a kernel namespace */
	const char *help;
} namespaces[] = {
	{ CLONE_NEWIPC,    'i', "ipc",    "ipc",    "unshare the IPC namespace" },
	{ CLONE_NEWUTS,    'H', "uts",    "uts",    "unshare the UTS namespace (host name)" },
	{ CLONE_NEWNS,     'm', "mount",  "mnt",    "unshare the mount namespace" },
	{ CLONE_NEWNET,    'n', "net",    "net",    "unshare the network namespace" },
	{ CLONE_NEWPID,    'p', "pid",    "pid",    "unshare the PID namespace (for children)" },
	{ CLONE_NEWCGROUP, 'C', "cgroup", "cgroup", "unshare the cgroup namespace" },
	{ CLONE_NEWTIME,   'T', "time",   "time",   "unshare the time namespace (for children)" },
	{ CLONE_NEWUSER,   'u', "user",   NULL,     "unshare the execns uid accounting table" },
};

/* Exit from --help or --version, failing if the output was lost. */
static void __attribute__((noreturn)) exit_stdout(void)
{
	if (fflush(stdout) || ferror(stdout))
		err(EXIT_EXECNS, "write error");
	exit(EXIT_SUCCESS);
}

static void __attribute__((noreturn)) usage(void)
{
	const char *name = program_invocation_short_name;
	size_t i;

	printf("Usage:\n %s [options] [--] <program> [<argument>...]\n\n", name);
	puts("Run a program in new namespaces: unshare them and execute it in one\n"
	     "step, closing every file descriptor above 2.");
	puts("\nNamespaces:");
	for (i = 0; i < ARRAY_SIZE(namespaces); i++)
		printf(" -%c, --%-10s%s\n", namespaces[i].opt,
		       namespaces[i].name, namespaces[i].help);
	puts("\nOptions:");
	printf(" -h, --%-10s%s\n", "help", "display this help");
	printf(" -V, --%-10s%s\n", "version", "display the version");
	puts("\nExit status:\n"
	     " 125 if execns fails, 126 if the program cannot run, 127 if it is\n"
	     " not found; otherwise the program's own status.");
	puts("\nThe execns kernel module must be loaded.  See execns(1).");
	exit_stdout();
}

/*
 * Find the program like execvp(3): a name with a slash is used as is;
 * otherwise each PATH entry is tried in turn (an empty one is the current
 * directory).  Go on past entries where the program is absent, remember
 * EACCES so that a program found but not executable is reported as such,
 * and stop at any other error: it concerns the program found, or execns
 * itself.  Returns only on failure, with errno set.
 */
static void exec_path(int flags, const char *file, char *const argv[])
{
	const char *path = getenv("PATH"), *dir, *end;
	int eacces = 0, saved;
	char *buf;

	if (strchr(file, '/')) {
		execns(flags, file, argv, environ);
		return;
	}
	if (!*file) {
		errno = ENOENT;
		return;
	}
	if (!path)
		path = "/bin:/usr/bin";
	buf = malloc(strlen(path) + strlen(file) + 2);
	if (!buf)
		return;
	for (dir = path; ; dir = end + 1) {
		end = strchrnul(dir, ':');
		if (end == dir)
			strcpy(buf, file);
		else
			sprintf(buf, "%.*s/%s", (int)(end - dir), dir, file);
		execns(flags, buf, argv, environ);
		switch (errno) {
		case EACCES:
			eacces = 1;
			break;
		case ENOENT:
		case ENOTDIR:
		case ESTALE:
		case ENODEV:
		case ETIMEDOUT:
			break;
		default:
			goto out;
		}
		if (!*end) {
			if (eacces)
				errno = EACCES;
			break;
		}
	}
out:
	saved = errno;
	free(buf);
	errno = saved;
}

/* EINVAL: name the requested namespace that this kernel or module lacks. */
static void __attribute__((noreturn)) fail_einval(int flags)
{
	char path[64];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(namespaces); i++) {
		const struct namespace *ns = &namespaces[i];

		if (!(flags & ns->flag) || !ns->nsfile ||
		    access("/proc/self/ns", F_OK))
			continue;
		snprintf(path, sizeof(path), "/proc/self/ns/%s", ns->nsfile);
		if (access(path, F_OK) && errno == ENOENT)
			errx(EXIT_EXECNS, "this kernel has no %s namespaces (no %s): drop --%s",
			     ns->name, path, ns->name);
	}
	if (flags & CLONE_NEWUSER)
		errx(EXIT_EXECNS, "the loaded execns module does not support --user (its uid table namespace): drop -u");
	errx(EXIT_EXECNS, "the execns module rejected the namespace flags (Invalid argument): see execns(2)");
}

/* Report why the program did not start, in one line, and exit. */
static void __attribute__((noreturn)) fail(int flags, const char *file)
{
	int e = errno;
	const char *where = strchr(file, '/') ? "" : " in PATH";

	switch (e) {
	case ENOSYS:
		if (execns_available())
			errx(EXIT_EXECNS, "the syscall slot in %s does not answer: reload the execns module",
			     EXECNS_SYSFS_NR_FILE);
		if (access(EXECNS_SYSFS_DIR, F_OK))
			errx(EXIT_EXECNS, "the execns module is not loaded (no %s): run 'insmod execns.ko' or 'modprobe execns'",
			     EXECNS_SYSFS_NR_FILE);
		/* Loaded, but without a slot for this ABI (e.g. i386). */
		errx(EXIT_EXECNS, "the loaded execns module has no syscall slot for this program's ABI (no valid %s): see 'modinfo execns'",
		     EXECNS_SYSFS_NR_FILE);
	case EPERM:
		/* Without flags nothing is unshared: the exec itself refused. */
		if (!flags)
			break;
		errx(EXIT_EXECNS, "%s: unsharing namespaces needs CAP_SYS_ADMIN: run as root",
		     strerror(e));
	case EINVAL:
		fail_einval(flags);
	case ENOSPC:
	case EUSERS:
		errx(EXIT_EXECNS, "%s: too many namespaces: see /proc/sys/user/max_*_namespaces",
		     strerror(e));
	case ENOENT:
		errx(EXIT_NOT_FOUND, "%s: not found%s (or its #! or ELF interpreter is missing)",
		     file, where);
	case EACCES:
		errx(EXIT_CANNOT_RUN, "%s: %s: it needs execute permission, on a filesystem not mounted noexec",
		     file, strerror(e));
	case ENOEXEC:
		errx(EXIT_CANNOT_RUN, "%s: %s: not a binary this kernel runs (a script needs a #! line)",
		     file, strerror(e));
	}
	errx(EXIT_CANNOT_RUN, "%s: cannot execute: %s", file, strerror(e));
}

int main(int argc, char *argv[])
{
	enum { N = ARRAY_SIZE(namespaces) };
	struct option longopts[N + 3] = {
		[N]     = { "help",    no_argument, NULL, 'h' },
		[N + 1] = { "version", no_argument, NULL, 'V' },
	};
	/* '+': stop at the program, whose options are its own. */
	char optstring[N + 4] = "+hV";
	int flags = 0, c;
	size_t i;

	for (i = 0; i < N; i++) {
		longopts[i] = (struct option){ namespaces[i].name, no_argument,
					       NULL, namespaces[i].opt };
		optstring[3 + i] = namespaces[i].opt;
	}

	opterr = 0;	/* report bad options in one line, below */
	for (;;) {
		/* Without permutation argv[optind] is the word being parsed. */
		const char *word = optind < argc ? argv[optind] : "";

		c = getopt_long(argc, argv, optstring, longopts, NULL);
		if (c == -1)
			break;
		switch (c) {
		case 'h':
			usage();
		case 'V':
			printf("%s %s\n", program_invocation_short_name,
			       EXECNS_VERSION);
			exit_stdout();
		case '?':
			if (!strncmp(word, "--", 2))
				errx(EXIT_EXECNS, "invalid option '%s': see '%s --help'",
				     word, program_invocation_short_name);
			errx(EXIT_EXECNS, "invalid option '-%c': see '%s --help'",
			     optopt, program_invocation_short_name);
		default:
			for (i = 0; i < N; i++)
				if (c == namespaces[i].opt)
					flags |= namespaces[i].flag;
		}
	}
	if (optind >= argc)	/* also when argc is 0 */
		errx(EXIT_EXECNS, "no program given: see '%s --help'",
		     program_invocation_short_name);

	exec_path(flags, argv[optind], &argv[optind]);
	fail(flags, argv[optind]);
}
