// SPDX-License-Identifier: GPL-2.0
/*
 * execns(1): run a program in new namespaces.  The execns syscall unshares
 * them and executes the program in one step, so that nothing of this
 * process survives into the new namespaces.  See execns(1) and execns(2).
 *
 * What must happen inside the new namespaces (a fork into the new PID
 * namespace, mounts, credentials, time offsets) cannot happen before the
 * call, so for those options execns runs in two stages: the first calls
 * execns(2) on itself with a private "--stage2=PATH" argument in front of
 * the original arguments; the second parses them again, does the work and
 * executes the program (PATH: resolved by the first stage, or empty when
 * only the second can resolve it).  Descriptors above 2 are gone by then,
 * so argv carries everything, and the environment a marker: STAGE2_ENV set
 * to the process ID, which the exec keeps.  Without it --stage2 is refused,
 * so that a command line copied from ps(1) cannot change the caller's own
 * mounts; the second stage removes it before the program starts.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "execns.h"

#ifndef EXECNS_VERSION
#define EXECNS_VERSION "unknown"
#endif

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define KPROBES_ENABLED "/sys/kernel/debug/kprobes/enabled"
#define STAGE2_ENV "EXECNS_STAGE2_PID"

/* Exit codes as in env(1); otherwise the status is the program's own. */
enum {
	EXIT_EXECNS = 125,	/* execns itself failed */
	EXIT_CANNOT_RUN = 126,	/* the program was found but cannot run */
	EXIT_NOT_FOUND = 127,	/* the program was not found */
};

/*
 * One row per namespace, named as in unshare(1) where the name means the
 * same.  -u is not here: unshare(1) users mean UTS by it and execns 0.1
 * users the uid table, so it is refused unless --seed-compat says which.
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
	{ EXECNS_NEWUIDTABLE, 't', "uid-table", NULL, "a new execns uid accounting table" },
};

/* Long-only options take values above any short option's. */
enum {
	OPT_KILL_CHILD = CHAR_MAX + 1,
	OPT_MOUNT_PROC,
	OPT_PROPAGATION,
	OPT_MONOTONIC,
	OPT_BOOTTIME,
	OPT_WHICH,
	OPT_SEED_COMPAT,
	OPT_USER,		/* --user: kept for --seed-compat */
	OPT_NOT_APPLICABLE,
	OPT_STAGE2,
};

static const struct action {
	struct option lo;
	char opt;		/* short option, 0: none */
	const char *arg;	/* for --help */
	const char *help;	/* NULL: not listed */
} actions[] = {
	{ { "fork", no_argument, NULL, 'f' }, 'f', NULL,
	  "fork; the program is PID 1 of a new PID namespace" },
	{ { "kill-child", optional_argument, NULL, OPT_KILL_CHILD }, 0, "[=<sig>]",
	  "with --fork: <sig> (KILL) to it if execns dies" },
	{ { "mount-proc", optional_argument, NULL, OPT_MOUNT_PROC }, 0, "[=<dir>]",
	  "mount a new proc on <dir> (/proc); implies --mount" },
	{ { "propagation", required_argument, NULL, OPT_PROPAGATION }, 0, " <mode>",
	  "private (default), shared, slave or unchanged" },
	{ { "setuid", required_argument, NULL, 'S' }, 'S', " <uid>",
	  "set the user ID for the program" },
	{ { "setgid", required_argument, NULL, 'G' }, 'G', " <gid>",
	  "set the group ID, and drop supplementary groups" },
	{ { "monotonic", required_argument, NULL, OPT_MONOTONIC }, 0, " <secs>",
	  "with --time: offset of CLOCK_MONOTONIC" },
	{ { "boottime", required_argument, NULL, OPT_BOOTTIME }, 0, " <secs>",
	  "with --time: offset of CLOCK_BOOTTIME" },
	{ { "root", required_argument, NULL, 'R' }, 'R', " <dir>",
	  "change the root directory to <dir>" },
	{ { "wd", required_argument, NULL, 'w' }, 'w', " <dir>",
	  "change the working directory to <dir>" },
	{ { "which", required_argument, NULL, OPT_WHICH }, 0, " <pid>",
	  "print the uid table of <pid> (0: the kernel's)" },
	{ { "seed-compat", no_argument, NULL, OPT_SEED_COMPAT }, 0, NULL,
	  "-u and --user mean --uid-table, as in execns 0.1" },
	{ { "help", no_argument, NULL, 'h' }, 'h', NULL, "display this help" },
	{ { "version", no_argument, NULL, 'V' }, 'V', NULL,
	  "display the versions of execns and of its module" },
	/* Traps and leftovers of unshare(1), refused with a hint. */
	{ { "user", no_argument, NULL, OPT_USER }, 'U', NULL, NULL },
	{ { "map-root-user", no_argument, NULL, OPT_NOT_APPLICABLE }, 0, NULL, NULL },
	{ { "map-current-user", no_argument, NULL, OPT_NOT_APPLICABLE }, 0, NULL, NULL },
	{ { "map-user", required_argument, NULL, OPT_NOT_APPLICABLE }, 0, NULL, NULL },
	{ { "map-group", required_argument, NULL, OPT_NOT_APPLICABLE }, 0, NULL, NULL },
	{ { "map-users", required_argument, NULL, OPT_NOT_APPLICABLE }, 0, NULL, NULL },
	{ { "map-groups", required_argument, NULL, OPT_NOT_APPLICABLE }, 0, NULL, NULL },
	{ { "map-auto", no_argument, NULL, OPT_NOT_APPLICABLE }, 0, NULL, NULL },
	{ { "setgroups", required_argument, NULL, OPT_NOT_APPLICABLE }, 0, NULL, NULL },
	{ { "keep-caps", no_argument, NULL, OPT_NOT_APPLICABLE }, 0, NULL, NULL },
	{ { "stage2", required_argument, NULL, OPT_STAGE2 }, 0, NULL, NULL },
};

enum { NR_LONG = ARRAY_SIZE(namespaces) + ARRAY_SIZE(actions) };

static const struct {
	const char *name;
	unsigned long flags;	/* 0: unchanged */
} propagations[] = {
	{ "private", MS_REC | MS_PRIVATE },
	{ "shared", MS_REC | MS_SHARED },
	{ "slave", MS_REC | MS_SLAVE },
	{ "unchanged", 0 },
};

struct opts {
	int flags;
	int kill_sig;		/* 0: none */
	bool fork;
	bool seed_compat;
	const char *u_word;	/* -u or --user as typed, until resolved */
	const char *proc_dir;
	int propagation;	/* index in propagations[], -1: default */
	bool set_uid, set_gid;
	uid_t uid;
	gid_t gid;
	const char *monotonic, *boottime;
	const char *root, *wd;
	long which;		/* 0: not asked */
	const char *stage2;	/* NULL in the first stage */
};

static const char *me(void)
{
	return program_invocation_short_name;
}

/* Exit from --help or --version, failing if the output was lost. */
static void __attribute__((noreturn)) exit_stdout(void)
{
	if (fflush(stdout) || ferror(stdout))
		err(EXIT_EXECNS, "write error");
	exit(EXIT_SUCCESS);
}

/*
 * One option of --help, as util-linux lays them out: " -x, --long<arg>" or,
 * without a short option, "     --long<arg>", then the text from column
 * col, which usage() puts two spaces past the longest option.
 */
static int option_label(char *buf, size_t len, char opt, const char *name,
			const char *arg)
{
	if (opt)
		return snprintf(buf, len, " -%c, --%s%s", opt, name, arg ? arg : "");
	return snprintf(buf, len, "     --%s%s", name, arg ? arg : "");
}

static void __attribute__((noreturn)) usage(void)
{
	char buf[64];
	size_t i;
	int col = 0, w;

	for (i = 0; i < ARRAY_SIZE(namespaces); i++) {
		w = option_label(buf, sizeof(buf), namespaces[i].opt, namespaces[i].name, NULL);
		col = w > col ? w : col;
	}
	for (i = 0; i < ARRAY_SIZE(actions); i++) {
		if (!actions[i].help)
			continue;
		w = option_label(buf, sizeof(buf), actions[i].opt, actions[i].lo.name, actions[i].arg);
		col = w > col ? w : col;
	}
	col += 2;

	printf("Usage:\n %s [options] [--] [<program> [<argument>...]]\n"
	       " %s --which <pid>\n\n", me(), me());
	puts("Run a program in new namespaces: unshare them and execute it in one\n"
	     "step, closing every file descriptor above 2.  Without a program,\n"
	     "run ${SHELL} (default: /bin/sh).");
	puts("\nNamespaces:");
	for (i = 0; i < ARRAY_SIZE(namespaces); i++) {
		option_label(buf, sizeof(buf), namespaces[i].opt, namespaces[i].name, NULL);
		printf("%-*s%s\n", col, buf, namespaces[i].help);
	}
	puts("\nInside the new namespaces:");
	for (i = 0; i < ARRAY_SIZE(actions); i++) {
		const struct action *a = &actions[i];

		if (!a->help)
			continue;
		if (a->lo.val == OPT_WHICH)
			puts("\nOther options:");
		option_label(buf, sizeof(buf), a->opt, a->lo.name, a->arg);
		printf("%-*s%s\n", col, buf, a->help);
	}
	puts("\nNo kernel user namespace is made: --user, --map-*, --setgroups and\n"
	     "--keep-caps do not apply, and every namespace needs CAP_SYS_ADMIN.");
	puts("\nExit status:\n"
	     " 125 if execns fails, 126 if the program cannot run, 127 if it is\n"
	     " not found; otherwise the program's own status.");
	puts("\nThe execns kernel module must be loaded.  See execns(1).");
	exit_stdout();
}

/* The first line of path, without its newline, or NULL. */
static char *read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	char *s;

	if (!f)
		return NULL;
	s = fgets(buf, len, f);
	fclose(f);
	if (s)
		s[strcspn(s, "\n")] = '\0';
	return s;
}

/*
 * What the module's load-time proof says (/proc/execns/proof): one line
 * per check, "ok ..." or "FAIL ...", each FAIL line ending in what it
 * costs, then "verdict proven|partial|refused".
 */
#define PROOF_LINE	512
#define PROOF_GLOBALS	8
#define PROOF_VERDICT	EXECNS_PROOF_VERDICT " "
#define PROOF_FAIL	EXECNS_PROOF_FAIL " "

struct proof {
	char verdict[16];		/* "" when the file has no verdict line */
	char first[PROOF_LINE];		/* the first FAIL line, without "FAIL " */
	char tables[PROOF_LINE];	/* the first that refuses uid tables */
	char forbid[PROOF_LINE];	/* the first that refuses forbid_unshare */
	/* The distinct counters the partial failures name (their "X may stay global"). */
	char global[PROOF_GLOBALS][PROOF_LINE];
	size_t nglobal;
};

static bool ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), m = strlen(end);

	return n >= m && !strcmp(s + n - m, end);
}

/* The first len bytes of src (at most size - 1 of them), as a string in dst. */
static void copy_n(char *dst, size_t size, const char *src, size_t len)
{
	len = strnlen(src, len < size ? len : size - 1);
	memcpy(dst, src, len);
	dst[len] = '\0';
}

static void copy_line(char *dst, const char *src)
{
	copy_n(dst, PROOF_LINE, src, PROOF_LINE);
}

/* One FAIL line's text (after "FAIL "), into p. */
static void proof_fail(struct proof *p, const char *text)
{
	const char *what = strstr(text, EXECNS_PROOF_COSTS_ACCOUNTING);
	char global[PROOF_LINE];
	size_t i, len;

	if (!p->first[0])
		copy_line(p->first, text);
	if (!p->tables[0] && ends_with(text, EXECNS_PROOF_REFUSES_TABLES))
		copy_line(p->tables, text);
	if (!p->forbid[0] && ends_with(text, EXECNS_PROOF_REFUSES_FORBID))
		copy_line(p->forbid, text);
	if (!what || !ends_with(text, EXECNS_PROOF_MAY_STAY_GLOBAL))
		return;
	what += strlen(EXECNS_PROOF_COSTS_ACCOUNTING);
	if (strlen(what) <= strlen(EXECNS_PROOF_MAY_STAY_GLOBAL))
		return;
	len = strlen(what) - strlen(EXECNS_PROOF_MAY_STAY_GLOBAL);
	copy_n(global, sizeof(global), what, len);
	for (i = 0; i < p->nglobal; i++)
		if (!strcmp(p->global[i], global))
			return;
	if (p->nglobal < PROOF_GLOBALS)
		copy_line(p->global[p->nglobal++], global);
}

/* Read /proc/execns/proof into p; -1 (errno set) if it cannot be read. */
static int read_proof(struct proof *p)
{
	FILE *f = fopen(EXECNS_PROC_PROOF, "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	memset(p, 0, sizeof(*p));
	if (!f)
		return -1;
	while ((n = getline(&line, &cap, f)) > 0) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, PROOF_VERDICT, strlen(PROOF_VERDICT)))
			copy_n(p->verdict, sizeof(p->verdict), line + strlen(PROOF_VERDICT),
			       sizeof(p->verdict));
		else if (!strncmp(line, PROOF_FAIL, strlen(PROOF_FAIL)))
			proof_fail(p, line + strlen(PROOF_FAIL));
	}
	free(line);
	fclose(f);
	return 0;
}

/* A FAIL line's text without its cost, which the caller says in words. */
static int without_cost(const char *text, const char *cost)
{
	size_t n = strlen(text);

	return (int)(ends_with(text, cost) ? n - strlen(cost) : n);
}

/*
 * --version's lines about the loaded module's proof: its verdict, what it
 * costs (for partial, what may stay global), and forbid_unshare when that
 * is refused.
 */
static void show_proof(void)
{
	static struct proof p;
	const char *why;
	size_t i;

	if (read_proof(&p)) {
		printf("proof unknown (%s: %s)\n", EXECNS_PROC_PROOF, strerror(errno));
		return;
	}
	if (!strcmp(p.verdict, EXECNS_VERDICT_PROVEN)) {
		puts("proof proven: uid tables available, their accounting exact");
	} else if (!strcmp(p.verdict, EXECNS_VERDICT_PARTIAL)) {
		puts("proof partial: uid tables available, but what follows may stay global (shared with the same uid outside the table):");
		for (i = 0; i < p.nglobal; i++)
			printf("  %s\n", p.global[i]);
		if (!p.nglobal)
			printf("  see %s\n", EXECNS_PROC_PROOF);
	} else if (!strcmp(p.verdict, EXECNS_VERDICT_REFUSED)) {
		why = p.tables[0] ? p.tables : p.first[0] ? p.first : "see " EXECNS_PROC_PROOF;
		printf("proof refused: uid tables refused: %.*s\n", without_cost(why, EXECNS_PROOF_REFUSES_TABLES), why);
	} else {
		printf("proof unknown (%s has no verdict line)\n", EXECNS_PROC_PROOF);
	}
	if (p.forbid[0])
		printf("forbid_unshare refused: %.*s\n", without_cost(p.forbid, EXECNS_PROOF_REFUSES_FORBID), p.forbid);
}

static void __attribute__((noreturn)) version(void)
{
	char buf[64];

	printf("%s %s\n", me(), EXECNS_VERSION);
	if (read_line(EXECNS_SYSFS_VERSION, buf, sizeof(buf))) {
		printf("module %s\n", buf);
		show_proof();
	} else if (execns_in_tree())
		puts("module not loaded; the kernel has execns(2) of its own");
	else
		puts("module not loaded");
	exit_stdout();
}

/*
 * --which PID on a kernel with execns(2) of its own: the inode number of
 * /proc/PID/ns/uidtab, its table's nsfs identity (never 0: the initial
 * table has one too).
 */
static void __attribute__((noreturn)) which_in_tree(long pid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%ld/ns/uidtab", pid);
	if (stat(path, &st))
		err(EXIT_EXECNS, "%s", path);
	printf("%llu\n", (unsigned long long)st.st_ino);
	exit_stdout();
}

/*
 * --which PID: one number, the table id, as /proc/execns/self prints it
 * (the module), or as /proc/PID/ns/uidtab names it (the kernel's own).
 */
static void __attribute__((noreturn)) which(long pid)
{
	char line[64], proc[32];
	FILE *f;
	long p;
	unsigned long long id;

	if (execns_in_tree())
		which_in_tree(pid);
	f = fopen(EXECNS_PROC_PIDS, "re");
	if (!f)
		err(EXIT_EXECNS, "%s (the execns module is not loaded, or older than 0.2)",
		    EXECNS_PROC_PIDS);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%ld %llu", &p, &id) == 2 && p == pid) {
			fclose(f);
			printf("%llu\n", id);
			exit_stdout();
		}
	}
	fclose(f);
	/* Not listed: in the kernel's own table, if it exists at all. */
	snprintf(proc, sizeof(proc), "/proc/%ld", pid);
	if (access(proc, F_OK))
		errx(EXIT_EXECNS, "no process %ld in this PID namespace", pid);
	puts("0");
	exit_stdout();
}

/* A decimal number in [min, max], or exit naming the option. */
static long long number(const char *s, long long min, long long max,
			const char *opt)
{
	long long v;
	char *end;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (!*s || *end || errno || v < min || v > max)
		errx(EXIT_EXECNS, "--%s: '%s' is not a number from %lld to %lld",
		     opt, s, min, max);
	return v;
}

/* SIG: a number, or a name with or without "SIG" (KILL, SIGTERM, ...). */
static int signal_number(const char *s)
{
	const char *name = strncasecmp(s, "SIG", 3) ? s : s + 3;
	const char *abbrev;
	int sig;

	if (*s >= '0' && *s <= '9')
		return number(s, 1, SIGRTMAX, "kill-child");
	for (sig = 1; sig < SIGRTMIN; sig++) {
		abbrev = sigabbrev_np(sig);
		if (abbrev && !strcasecmp(abbrev, name))
			return sig;
	}
	errx(EXIT_EXECNS, "--kill-child: unknown signal '%s'", s);
}

/*
 * --stage2 is only for the second stage that execns itself starts: the
 * first sets STAGE2_ENV to its process ID, which the exec keeps (it stays
 * in its PID namespace; only children enter a new one).  Anyone else is
 * refused before anything is done: run in the caller's own namespaces the
 * second stage would change its mounts (--propagation on /, --mount-proc).
 */
static void check_stage2(void)
{
	const char *mark = getenv(STAGE2_ENV);
	char pid[24];

	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	if (!mark || strcmp(mark, pid))
		errx(EXIT_EXECNS, "--stage2 is internal: execns passes it to itself, never to be given by hand; run the same command without it");
	unsetenv(STAGE2_ENV);	/* not for the program */
}

static void parse_action(struct opts *o, int c, const char *word)
{
	size_t i;

	switch (c) {
	case 'f':
		o->fork = true;
		break;
	case OPT_KILL_CHILD:
		o->kill_sig = optarg ? signal_number(optarg) : SIGKILL;
		break;
	case OPT_MOUNT_PROC:
		o->proc_dir = optarg ? optarg : "/proc";
		break;
	case OPT_PROPAGATION:
		for (i = 0; i < ARRAY_SIZE(propagations); i++)
			if (!strcmp(optarg, propagations[i].name))
				break;
		if (i == ARRAY_SIZE(propagations))
			errx(EXIT_EXECNS, "--propagation: '%s' is not private, shared, slave or unchanged",
			     optarg);
		o->propagation = i;
		break;
	case 'S':
		o->uid = number(optarg, 0, (uid_t)-2, "setuid");
		o->set_uid = true;
		break;
	case 'G':
		o->gid = number(optarg, 0, (gid_t)-2, "setgid");
		o->set_gid = true;
		break;
	case OPT_MONOTONIC:
		number(optarg, LLONG_MIN, LLONG_MAX, "monotonic");
		o->monotonic = optarg;
		break;
	case OPT_BOOTTIME:
		number(optarg, LLONG_MIN, LLONG_MAX, "boottime");
		o->boottime = optarg;
		break;
	case 'R':
		o->root = optarg;
		break;
	case 'w':
		o->wd = optarg;
		break;
	case OPT_WHICH:
		o->which = number(optarg, 1, INT_MAX, "which");
		break;
	case OPT_SEED_COMPAT:
		o->seed_compat = true;
		break;
	case 'u':
		o->u_word = "-u";
		break;
	case OPT_USER:
		o->u_word = "--user";
		break;
	case 'U':
		errx(EXIT_EXECNS, "-U: execns makes no kernel user namespace; for a new uid accounting table say -t/--uid-table");
	case OPT_NOT_APPLICABLE:
		errx(EXIT_EXECNS, "%s does not apply: execns makes no kernel user namespace (see execns(1))",
		     word);
	case OPT_STAGE2:
		check_stage2();
		o->stage2 = optarg;
		break;
	case 'h':
		usage();
	case 'V':
		version();
	default:
		/* getopt has said what was wrong, in one line. */
		fprintf(stderr, "Try '%s --help' for more information.\n", me());
		exit(EXIT_EXECNS);
	}
}

static void parse(struct opts *o, int argc, char *argv[])
{
	struct option longopts[NR_LONG + 1] = { { 0 } };
	/* '+': stop at the program, whose options are its own; -u traps. */
	char optstring[3 * NR_LONG + 8] = "+u";
	size_t i, n = 0, len = 2;
	int c;

	for (i = 0; i < ARRAY_SIZE(namespaces); i++) {
		longopts[n++] = (struct option){ namespaces[i].name, no_argument,
						 NULL, namespaces[i].opt };
		optstring[len++] = namespaces[i].opt;
	}
	for (i = 0; i < ARRAY_SIZE(actions); i++) {
		longopts[n++] = actions[i].lo;
		if (!actions[i].opt)
			continue;
		optstring[len++] = actions[i].opt;
		if (actions[i].lo.has_arg == required_argument)
			optstring[len++] = ':';
	}

	/* getopt's own messages name argv[0]: make it "execns", as ours. */
	if (argc > 0)
		argv[0] = program_invocation_short_name;
	o->propagation = -1;
	for (;;) {
		/* Without permutation argv[optind] is the word being parsed. */
		const char *word = optind < argc ? argv[optind] : "";

		c = getopt_long(argc, argv, optstring, longopts, NULL);
		if (c == -1)
			break;
		for (i = 0; i < ARRAY_SIZE(namespaces); i++)
			if (c == namespaces[i].opt)
				break;
		if (i < ARRAY_SIZE(namespaces))
			o->flags |= namespaces[i].flag;
		else
			parse_action(o, c, word);
	}
}

/* Option combinations, and what one option implies, as in unshare(1). */
static void check(struct opts *o, int argc, char *argv[])
{
	if (o->u_word && !o->seed_compat && !strcmp(o->u_word, "-u"))
		errx(EXIT_EXECNS, "-u is ambiguous: say -H/--uts for the UTS namespace (unshare(1)'s -u) or -t/--uid-table for a uid table (execns 0.1's -u)");
	if (o->u_word && !o->seed_compat)
		errx(EXIT_EXECNS, "--user: execns makes no kernel user namespace; for a new uid accounting table say -t/--uid-table");
	if (o->u_word)
		o->flags |= EXECNS_NEWUIDTABLE;
	if (o->which)
		which(o->which);
	if (o->kill_sig)
		o->fork = true;
	if (o->proc_dir)
		o->flags |= CLONE_NEWNS;
	if (o->propagation >= 0 && !(o->flags & CLONE_NEWNS))
		errx(EXIT_EXECNS, "--propagation applies to a new mount namespace only: add -m/--mount");
	if ((o->monotonic || o->boottime) && !(o->flags & CLONE_NEWTIME))
		errx(EXIT_EXECNS, "--monotonic and --boottime set a new time namespace's offsets: add -T/--time");
	if (o->propagation < 0)
		o->propagation = 0;	/* private, as unshare(1) */
	if (optind >= argc)	/* default_program() has seen to it */
		errx(EXIT_EXECNS, "no program given: see '%s --help'", me());
	if (!*argv[optind])
		errx(EXIT_EXECNS, "the program name is empty");
}

/* Whether anything must happen between the switch and the program. */
static bool needs_stage2(const struct opts *o)
{
	return o->fork || o->proc_dir || o->set_uid || o->set_gid ||
	       o->monotonic || o->boottime || o->root || o->wd ||
	       ((o->flags & CLONE_NEWNS) && propagations[o->propagation].flags);
}

/*
 * execns(2) of flag alone on an empty name: EINVAL if the flag is refused
 * (the module does not know it, the kernel lacks the namespace type, or,
 * for CLONE_NEWNS, a shared fs_struct), else another errno (ENOENT for the
 * name, once the namespaces were made and dropped; EPERM...).
 */
static int refused(int flag)
{
	char *argv[] = { "execns", NULL }, *envp[] = { NULL };

	execns(flag, "", argv, envp);
	return errno == EINVAL;
}

/*
 * EINVAL from execns(2): try each namespace flag alone to find the one
 * refused, and name the cause this process can see; none refused alone:
 * the exec itself refused the file.
 */
static void __attribute__((noreturn)) fail_einval(int flags, const char *file)
{
	char path[64], mod[64] = "?";
	size_t i;

	for (i = 0; i < ARRAY_SIZE(namespaces); i++) {
		const struct namespace *ns = &namespaces[i];

		if (!(flags & ns->flag) || !ns->nsfile || !refused(ns->flag))
			continue;
		if (ns->flag == CLONE_NEWNS)
			errx(EXIT_EXECNS, "Invalid argument: --mount needs a root and working directory of this process's own, and it shares them with another process (clone(2) CLONE_FS)");
		snprintf(path, sizeof(path), "/proc/self/ns/%s", ns->nsfile);
		if (!access("/proc/self/ns", F_OK) && access(path, F_OK) && errno == ENOENT)
			errx(EXIT_EXECNS, "this kernel has no %s namespaces (no %s): drop --%s",
			     ns->name, path, ns->name);
		read_line(EXECNS_SYSFS_VERSION, mod, sizeof(mod));
		if (strcmp(mod, EXECNS_VERSION))
			errx(EXIT_EXECNS, "the loaded execns module (version %s) refuses --%s (EINVAL), which this execns (version %s) knows: load the module of the same version",
			     mod, ns->name, EXECNS_VERSION);
		errx(EXIT_EXECNS, "--%s: Invalid argument from the kernel, although it has %s namespaces (%s): see 'dmesg | grep execns'",
		     ns->name, ns->name, path);
	}
	/* Every flag is valid here, so the exec itself refused the file. */
	errx(EXIT_CANNOT_RUN, "%s: cannot execute: Invalid argument (a malformed executable or interpreter)",
	     file);
}

/* The seccomp mode of this process (2: filtered), or -1. */
static int seccomp_mode(void)
{
	char line[128];
	FILE *f = fopen("/proc/self/status", "re");
	int mode = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Seccomp: %d", &mode) == 1)
			break;
	fclose(f);
	return mode;
}

/*
 * Whether the running kernel's configuration (/boot/config-RELEASE, as
 * Debian installs it; its path into path) says "# NAME is not set".
 */
static bool config_lacks(const char *name, char *path, size_t len)
{
	char line[256], want[128];
	struct utsname u;
	bool lacks = false;
	FILE *f;

	if (uname(&u))
		return false;
	snprintf(path, len, "/boot/config-%s", u.release);
	snprintf(want, sizeof(want), "# %s is not set\n", name);
	f = fopen(path, "re");
	while (f && !lacks && fgets(line, sizeof(line), f))
		lacks = !strcmp(line, want);
	if (f)
		fclose(f);
	return lacks;
}

/* ENOSYS: one cause, the first of these this process can see. */
static void __attribute__((noreturn)) fail_enosys(void)
{
	char nr[32], path[300], on[8];

	if (execns_in_tree()) {
		if (seccomp_mode() == 2)
			errx(EXIT_EXECNS, "the kernel's own execns(2) answered ENOSYS: a seccomp filter on this process (Seccomp: 2 in /proc/self/status) most likely refuses it");
		errx(EXIT_EXECNS, "the kernel's own execns(2) answered ENOSYS: this execns was built for another syscall number than the kernel's (rebuild it against the kernel's headers, which define __NR_execns)");
	}
	if (access(EXECNS_SYSFS_MODULE, F_OK)) {
		/* insmod fails: the module registers kprobes. */
		if (config_lacks("CONFIG_KPROBES", path, sizeof(path)))
			errx(EXIT_EXECNS, "the execns module is not loaded, and cannot be: this kernel is built without kprobes (CONFIG_KPROBES is not set in %s); boot a kernel with CONFIG_KPROBES=y",
			     path);
		errx(EXIT_EXECNS, "the execns module is not loaded (no %s): load it with 'modprobe execns' or 'insmod execns.ko'",
		     EXECNS_SYSFS_MODULE);
	}
	/* Loaded, but without a slot for this ABI (e.g. i386). */
	if (!execns_available())
		errx(EXIT_EXECNS, "the loaded execns module has no syscall slot for this program's ABI (no valid %s): see 'modinfo execns'",
		     EXECNS_SYSFS_NR_FILE);
	read_line(EXECNS_SYSFS_NR_FILE, nr, sizeof(nr));
	if (seccomp_mode() == 2)
		errx(EXIT_EXECNS, "syscall %s answered ENOSYS although the execns module is loaded: a seccomp filter on this process (Seccomp: 2 in /proc/self/status) most likely refuses it",
		     nr);
	/* Globally disarmed kprobes stay registered: insmod works, calls do not. */
	if (!read_line(KPROBES_ENABLED, on, sizeof(on)))
		errx(EXIT_EXECNS, "syscall %s answered ENOSYS although the execns module is loaded and no seccomp filter is on this process: are kprobes off? (mount debugfs on /sys/kernel/debug and read %s); else see 'dmesg | grep execns' and reload the module",
		     nr, KPROBES_ENABLED);
	if (!strcmp(on, "0"))
		errx(EXIT_EXECNS, "syscall %s answered ENOSYS: kprobes are switched off (%s is 0) and the execns module's syscall entry is a kprobe; switch them on with 'echo 1 > %s'",
		     nr, KPROBES_ENABLED, KPROBES_ENABLED);
	errx(EXIT_EXECNS, "syscall %s answered ENOSYS although the execns module is loaded, kprobes are on and no seccomp filter is on this process: the number in %s does not reach the module; see 'dmesg | grep execns' and reload the module",
	     nr, EXECNS_SYSFS_NR_FILE);
}

/*
 * Whether @path is a program this process may run, as libexecns judges
 * one along PATH (a regular file, executable for the effective ids);
 * errno says why not.
 */
static bool runnable(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return false;
	if (!S_ISREG(st.st_mode)) {
		errno = EACCES;
		return false;
	}
	return !faccessat(AT_FDCWD, path, X_OK, AT_EACCESS);
}

/* Why the program did not start, from errno e, in one line; exits. */
static void __attribute__((noreturn)) fail_program(int e, const char *file)
{
	switch (e) {
	case ENOENT:
		errx(EXIT_NOT_FOUND, "%s: not found%s (or its #! or ELF interpreter is missing)",
		     file, strchr(file, '/') ? "" : " in PATH");
	case EACCES:
		errx(EXIT_CANNOT_RUN, "%s: %s: it needs execute permission, as a regular file on a filesystem not mounted noexec",
		     file, strerror(e));
	case ENOEXEC:
		errx(EXIT_CANNOT_RUN, "%s: %s: not a binary this kernel runs (a script needs a #! line)",
		     file, strerror(e));
	case ENAMETOOLONG:
		errx(EXIT_NOT_FOUND, "%s: %s", file, strerror(e));
	}
	errx(EXIT_CANNOT_RUN, "%s: cannot execute: %s", file, strerror(e));
}

/*
 * libexecns reports a missing module as ENOSYS, but any other failure to
 * read the slot from sysfs (no descriptor free, EACCES...) as its own errno,
 * which must not be blamed on the program.  Nothing was cached before the
 * call, so a read failing the same way now is what failed then; exits then.
 */
static void fail_slot(int e)
{
	int fd;

	if (e == ENOENT || e == ENOTDIR)
		return;
	fd = open(EXECNS_SYSFS_NR_FILE, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return;
	}
	if (errno != e)
		return;
	if (e == EMFILE)
		errx(EXIT_EXECNS, "cannot read the syscall number in %s: %s: execns needs a free descriptor (close some, or raise ulimit -n)",
		     EXECNS_SYSFS_NR_FILE, strerror(e));
	if (e == ENFILE)
		errx(EXIT_EXECNS, "cannot read the syscall number in %s: %s: the system's file table is full (see /proc/sys/fs/file-max)",
		     EXECNS_SYSFS_NR_FILE, strerror(e));
	errx(EXIT_EXECNS, "cannot read the syscall number in %s: %s",
	     EXECNS_SYSFS_NR_FILE, strerror(e));
}

/*
 * EOPNOTSUPP for a uid table: the module's load-time proof refused uid
 * tables on this kernel (a check that ends "(refuses uid tables)": the
 * hand-over's commit_creds(), the kernel's uid lock and cache), or, with
 * a verdict that offers them, the module found it cannot make them here
 * (the kernel log's "uid tables refused:" line).  A failure that only
 * costs accounting (verdict partial) never refuses them.
 */
static void __attribute__((noreturn)) fail_proof(void)
{
	static struct proof p;
	const char *why;

	if (read_proof(&p) || !p.verdict[0])
		errx(EXIT_EXECNS, "uid tables are refused on this kernel: the module's load-time proof failed (see %s); namespaces still work without -t; see %s and execns(2)",
		     EXECNS_PROC_PROOF, EXECNS_PROC_PROOF);
	why = p.tables[0] ? p.tables :
	      !strcmp(p.verdict, EXECNS_VERDICT_REFUSED) && p.first[0] ? p.first : NULL;
	if (why)
		errx(EXIT_EXECNS, "uid tables are refused on this kernel: the module's load-time proof failed (%s); namespaces still work without -t; see %s and execns(2)",
		     why, EXECNS_PROC_PROOF);
	errx(EXIT_EXECNS, "uid tables are refused on this kernel: its load-time proof says %s, but the module cannot use the kernel's uid lock or cache here (the kernel log's \"uid tables refused:\" line says why); namespaces still work without -t; see execns(2)",
	     p.verdict);
}

/* Why execns(2) failed, in one line; exits.  self: it was execns's stage 2. */
static void __attribute__((noreturn)) fail(int flags, const char *file, bool self)
{
	int e = errno;

	fail_slot(e);
	switch (e) {
	case ENOSYS:
		fail_enosys();
	case EPERM:
		/* Without flags nothing is unshared: the exec itself refused. */
		if (!flags)
			break;
		if (flags == EXECNS_NEWUIDTABLE)
			errx(EXIT_EXECNS, "%s: a new uid table needs CAP_SYS_ADMIN: run as root",
			     strerror(e));
		errx(EXIT_EXECNS, "%s: unsharing namespaces needs CAP_SYS_ADMIN: run as root",
		     strerror(e));
	case EINVAL:
		fail_einval(flags, file);
	case EOPNOTSUPP:
		if (flags & EXECNS_NEWUIDTABLE)
			fail_proof();
		break;
	case EBUSY:
		if (flags & EXECNS_NEWUIDTABLE)
			errx(EXIT_EXECNS, "%s: the module cannot arm its uid hooks: another IP-modifying ftrace user (a livepatch, a module) holds a function they need, or ftrace is off ('dmesg | grep execns' names it); namespaces still work without -t",
			     strerror(e));
		break;
	case ENOSPC:
	case EUSERS:
		errx(EXIT_EXECNS, "%s: too many namespaces: see /proc/sys/user/max_*_namespaces",
		     strerror(e));
	}
	if (self)
		errx(EXIT_EXECNS, "re-executing itself through /proc/self/exe for the second stage: %s%s",
		     strerror(e), e == ENOENT ? " (is /proc mounted?)" : "");
	fail_program(e, file);
}

/* --monotonic/--boottime, before anything enters the new time namespace. */
static void set_time_offsets(const struct opts *o)
{
	char buf[128];
	int len = 0;
	FILE *f;

	if (o->monotonic)
		len += snprintf(buf + len, sizeof(buf) - len, "monotonic %s 0\n", o->monotonic);
	if (o->boottime)
		len += snprintf(buf + len, sizeof(buf) - len, "boottime %s 0\n", o->boottime);
	if (!len)
		return;
	f = fopen("/proc/self/timens_offsets", "we");
	if (!f || fputs(buf, f) == EOF || fclose(f))
		err(EXIT_EXECNS, "setting the time namespace's offsets (/proc/self/timens_offsets)");
}

static pid_t child;

/* The parent's SIGTERM and SIGHUP go to the program. */
static void forward(int sig)
{
	kill(child, sig);
}

/*
 * --fork: the child goes on to the program (PID 1 in a new PID namespace);
 * the parent waits and exits as it did, re-raising a fatal signal.
 */
static void fork_program(const struct opts *o)
{
	struct sigaction sa = { .sa_handler = forward };
	int status, sig;

	child = fork();
	if (child < 0)
		err(EXIT_EXECNS, "fork");
	if (!child) {
		/*
		 * A parent dying before this goes unnoticed: it cannot be
		 * checked with getppid(), which is 0 in a new PID namespace.
		 */
		if (o->kill_sig && prctl(PR_SET_PDEATHSIG, o->kill_sig))
			err(EXIT_EXECNS, "--kill-child: prctl(PR_SET_PDEATHSIG)");
		return;
	}
	/* The terminal's ^C and ^\ reach the program's process group too. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	while (waitpid(child, &status, 0) < 0)
		if (errno != EINTR)
			err(EXIT_EXECNS, "waitpid");
	if (WIFEXITED(status))
		exit(WEXITSTATUS(status));
	sig = WTERMSIG(status);
	signal(sig, SIG_DFL);
	raise(sig);
	exit(128 + sig);
}

static void mount_proc(const struct opts *o)
{
	/*
	 * Keep the new proc out of other namespaces: with --propagation
	 * shared or unchanged the mount point may have peers outside.
	 */
	if (mount("none", o->proc_dir, NULL, MS_REC | MS_PRIVATE, NULL) &&
	    !(errno == EINVAL && (propagations[o->propagation].flags & (MS_PRIVATE | MS_SLAVE))))
		err(EXIT_EXECNS, "--mount-proc: making %s private", o->proc_dir);
	if (mount("proc", o->proc_dir, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
		err(EXIT_EXECNS, "--mount-proc: mounting proc on %s", o->proc_dir);
}

/* Stage 2: in the new namespaces, before the program. */
static void __attribute__((noreturn)) stage2(const struct opts *o, char *argv[])
{
	unsigned long prop = propagations[o->propagation].flags;
	char path[PATH_MAX];
	const char *file = argv[0];

	/* Inside the new mount namespace only: the host's is never touched. */
	if ((o->flags & CLONE_NEWNS) && prop && mount("none", "/", NULL, prop, NULL))
		err(EXIT_EXECNS, "--propagation %s: changing / in the new mount namespace",
		    propagations[o->propagation].name);
	set_time_offsets(o);
	if (o->fork)
		fork_program(o);
	if (o->root && chroot(o->root))
		err(EXIT_EXECNS, "--root: chroot %s", o->root);
	if ((o->root || o->wd) && chdir(o->wd ? o->wd : "/"))
		err(EXIT_EXECNS, "--wd: chdir %s", o->wd ? o->wd : "/");
	if (o->proc_dir)
		mount_proc(o);
	if (o->set_gid && (setgroups(0, NULL) || setgid(o->gid)))
		err(EXIT_EXECNS, "--setgid %u", (unsigned int)o->gid);
	if (o->set_uid && setuid(o->uid))
		err(EXIT_EXECNS, "--setuid %u", (unsigned int)o->uid);

	/* Empty: only here, after --root and --wd, do names mean anything. */
	if (!*o->stage2 && execns_find_program(file, path, sizeof(path)))
		fail_program(errno, file);
	execv(*o->stage2 ? o->stage2 : path, argv);
	fail_program(errno, file);
}

/*
 * No program: ${SHELL}, or /bin/sh if it is unset or empty, as unshare(1)
 * runs; argv with it appended (argc one more).
 */
static char **default_program(int *argc, char *argv[])
{
	const char *shell = getenv("SHELL");
	char **v = calloc(*argc + 2, sizeof(*v));

	if (!v)
		err(EXIT_EXECNS, "memory");
	memcpy(v, argv, *argc * sizeof(*v));
	v[(*argc)++] = (char *)(shell && *shell ? shell : "/bin/sh");
	return v;
}

int main(int argc, char *argv[])
{
	struct opts o = { 0 };
	char path[PATH_MAX], pid[24], **argv2;
	const char *file;
	bool resolve;

	parse(&o, argc, argv);
	if (optind >= argc && argc > 0)
		argv = default_program(&argc, argv);
	check(&o, argc, argv);
	file = argv[optind];
	if (o.stage2)
		stage2(&o, &argv[optind]);

	/*
	 * Find the program once, before the call: each failed execns(2)
	 * would build and drop a whole set of namespaces and a uid table.
	 * With --root or --wd the names are only meaningful in stage 2.
	 */
	resolve = !o.root && !o.wd;
	/*
	 * A path is checked here too, not first by the call: a missing
	 * program exits 127 (126 if it cannot run) before anything about the
	 * module is asked, whichever way it was named.
	 */
	if (resolve && (execns_find_program(file, path, sizeof(path)) ||
			(strchr(file, '/') && !runnable(path))))
		fail_program(errno, file);
	if (!needs_stage2(&o)) {
		execns(o.flags, path, &argv[optind], environ);
		fail(o.flags, file, false);
	}

	argv2 = calloc(argc + 2, sizeof(*argv2));
	if (!argv2 || asprintf(&argv2[1], "--stage2=%s", resolve ? path : "") < 0)
		err(EXIT_EXECNS, "memory");
	argv2[0] = argv[0];
	memcpy(&argv2[2], &argv[1], (argc - 1) * sizeof(*argv2));
	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	if (setenv(STAGE2_ENV, pid, 1))
		err(EXIT_EXECNS, "setting %s for the second stage", STAGE2_ENV);
	execns(o.flags, "/proc/self/exe", argv2, environ);
	fail(o.flags, "/proc/self/exe", true);
}
