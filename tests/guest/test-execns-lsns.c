// SPDX-License-Identifier: GPL-2.0
/*
 * util-linux's lsns and nsenter against a program started by execns(1):
 * `execns -H -i -n -m -p -f sh -c 'hostname NAME; exec sleep'` makes a
 * sleep that is PID 1 of new UTS, IPC, network, mount and PID namespaces;
 *  - `lsns -p PID` reports, for each of the five, the inode the program's
 *    /proc/PID/ns link shows, and not this process's;
 *  - `nsenter -t PID -u -i -n -m -p` runs a shell in those same five, and
 *    `nsenter -t PID -u hostname` prints the name set inside.
 * The tools are Debian's (copied from the build root by tests/harness/
 * vm.sh into UL, with their libraries).
 *
 * lsns scans every /proc/PID and gives up, exit 1 with no output, when
 * one it listed is gone before it has read it: util-linux 2.42's
 * read_process() fails on a /proc/PID/stat that no longer reads, and
 * read_processes() then tolerates -EACCES and -ENOENT but not -ESRCH
 * (it compares with the positive ESRCH).  Any exit in the guest during
 * the scan (an earlier test's pid namespace being torn down, a kworker)
 * can do it: CI saw it once, on bookworm, in about 40 runs of the suite.
 * So only that silent exit 1 is retried, up to LSNS_TRIES times, each try
 * logged with lsns's own debug line (LSNS_DEBUG=4) naming the process it
 * lost; any other failure, or LSNS_TRIES of them, fails the test.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "lib/test.h"

#define CLI	"/usr/local/bin/execns"
#define UL	"/usr/local/lib/execns/util-linux"
#define NAME	"lsns-inside"
#define LSNS_TRIES	5

static const char *const types[] = { "uts", "ipc", "net", "mnt", "pid" };
#define NR_TYPES	(sizeof(types) / sizeof(types[0]))

static unsigned long inode_of(pid_t pid, const char *type)
{
	char path[64], link[64] = "";
	unsigned long ino = 0;

	snprintf(path, sizeof(path), "/proc/%d/ns/%s", (int)pid, type);
	if (readlink(path, link, sizeof(link) - 1) > 0)
		sscanf(strchr(link, '[') ? strchr(link, '[') : link, "[%lu]", &ino);
	return ino;
}

/* Run argv with stdout captured in out; the exit status. */
static int run(char *const argv[], char *out, size_t len)
{
	return child_exec(argv, CHILD_STDOUT, NULL, NULL, 20, out, len);
}

/* The child of parent whose command is comm, or 0. */
static pid_t child_of(pid_t parent, const char *comm)
{
	char path[64], buf[256], name[64];
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t found = 0;
	int pid, ppid;
	FILE *f;

	while (d && !found && (e = readdir(d))) {
		pid = atoi(e->d_name);
		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f) &&
		    sscanf(buf, "%*d (%63[^)]) %*c %d", name, &ppid) == 2 &&
		    ppid == parent && !strcmp(name, comm))
			found = pid;
		fclose(f);
	}
	if (d)
		closedir(d);
	return found;
}

/* In the lsns child: its PROC debug messages (mask 4) on stderr. */
static int lsns_debug(void *arg)
{
	(void)arg;
	return setenv("LSNS_DEBUG", "4", 1);
}

/*
 * The NS column of each of out's "NS TYPE" lines into ns[]; how many
 * there were.  With @quiet, only lsns's own messages that say why it
 * gave up are printed ("failed in ...", and the process it was reading).
 */
static int lsns_parse(char *out, unsigned long ns[NR_TYPES], int quiet)
{
	char *line, *save, *last = NULL, type[16];
	unsigned long ino;
	int found = 0, n;
	size_t i;

	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		/* "NS TYPE" and nothing else; "PID: lsns: ..." is debug. */
		n = 0;
		if (sscanf(line, "%lu %15[a-z]%n", &ino, type, &n) != 2 || line[n]) {
			if (strstr(line, "failed")) {
				ksft_print_msg("  %s\n", last ? last : "");
				ksft_print_msg("  %s\n", line);
			} else if (strstr(line, "reading ")) {
				last = line;
			} else if (!strstr(line, "PROC:")) {
				ksft_print_msg("  %s\n", line);
			}
			continue;
		}
		if (!quiet)
			ksft_print_msg("  %s\n", line);
		for (i = 0; i < NR_TYPES; i++)
			if (!strcmp(type, types[i])) {
				ns[i] = ino;
				found++;
			}
	}
	return found;
}

/* lsns -p pid into ns[]; lsns's exit status. */
static int lsns(pid_t pid, unsigned long ns[NR_TYPES])
{
	static char out[64 * 1024];
	char p[16];
	char *argv[] = { UL "/lsns", "-p", p, "-n", "-r", "-o", "NS,TYPE", NULL };
	int st, try;

	snprintf(p, sizeof(p), "%d", (int)pid);
	for (try = 1; try <= LSNS_TRIES; try++) {
		st = child_exec(argv, CHILD_STDOUT | CHILD_STDERR, lsns_debug, NULL,
				  20, out, sizeof(out));
		ksft_print_msg("lsns -p %s -n -r -o NS,TYPE: exit %d (try %d)\n", p, st, try);
		/* Only a silent exit 1 (lsns lost a process mid-scan) is retried. */
		if (lsns_parse(out, ns, st != 0) || st != 1)
			break;
	}
	return st;
}

static void check_nsenter(pid_t pid, const unsigned long want[NR_TYPES])
{
	char t[16], out[1024], expect[1024] = "";
	char *all[] = { UL "/nsenter", "-t", t, "-u", "-i", "-n", "-m", "-p", "--",
			"/bin/sh", "-c",
			"for n in uts ipc net mnt pid; do readlink /proc/self/ns/$n; done",
			NULL };
	char *host[] = { UL "/nsenter", "-t", t, "-u", "--", "/bin/hostname", NULL };
	char mine[64] = "";
	size_t i, len = 0;
	int st;

	snprintf(t, sizeof(t), "%d", (int)pid);
	for (i = 0; i < NR_TYPES; i++)
		len += snprintf(expect + len, sizeof(expect) - len, "%s:[%lu] ",
				types[i], want[i]);
	st = run(all, out, sizeof(out));
	/* One line per link: one KTAP line for all, as expect is. */
	for (i = 0; out[i]; i++)
		if (out[i] == '\n')
			out[i] = ' ';
	ksft_test_result(st == 0 && !strcmp(out, expect),
		    "nsenter -t PID -u -i -n -m -p enters the program's namespaces (exit %d; got \"%s\", want \"%s\")",
		    st, out, expect);

	st = run(host, out, sizeof(out));
	out[strcspn(out, "\n")] = '\0';
	gethostname(mine, sizeof(mine) - 1);
	ksft_test_result(st == 0 && !strcmp(out, NAME) && strcmp(mine, NAME),
		    "nsenter -t PID -u hostname prints the name set inside, \"%s\" (exit %d, \"%s\"; ours \"%s\")",
		    NAME, st, out, mine);
}

int main(void)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	char *cli_argv[] = { CLI, "-H", "-i", "-n", "-m", "-p", "-f", "--kill-child",
			     "sh", "-c", "hostname " NAME " && exec sleep 100", NULL };
	unsigned long want[NR_TYPES], got[NR_TYPES] = { 0 };
	pid_t cli = 0, prog = 0;
	struct child c;
	size_t i;
	int st, k;

	test_start(3 + NR_TYPES, 120);
	if (access(UL "/lsns", X_OK) || access(UL "/nsenter", X_OK)) {
		for (k = 0; k < (int)(3 + NR_TYPES); k++)
			ksft_test_result_code(KSFT_SKIP, "lsns and nsenter", "%s", "no util-linux lsns and nsenter in " UL);
		ksft_finished();
	}

	if (!child_spawn(cli_argv, CHILD_LIVE, TEST_TIMEOUT, &c))
		cli = c.pid;
	for (k = 0; cli > 0 && k < 200 && !prog; k++) {
		nanosleep(&ts, NULL);
		prog = child_of(cli, "sleep");
	}
	ksft_test_result(prog > 0, "execns -H -i -n -m -p -f runs sleep as PID 1 of new namespaces (pid %d)",
		    (int)prog);
	if (prog <= 0)
		goto out;

	for (i = 0; i < NR_TYPES; i++)
		want[i] = inode_of(prog, types[i]);
	st = lsns(prog, got);
	for (i = 0; i < NR_TYPES; i++)
		ksft_test_result(st == 0 && got[i] && got[i] == want[i] &&
			    got[i] != inode_of(getpid(), types[i]),
			    "lsns -p PID: %s %lu, the program's (%lu), not ours (%lu)",
			    types[i], got[i], want[i], inode_of(getpid(), types[i]));
	check_nsenter(prog, want);
out:
	/* PID 1 of its namespace ignores SIGTERM from here: SIGKILL. */
	if (prog > 0)
		kill(prog, SIGKILL);
	if (cli > 0) {
		kill(cli, SIGKILL);
		child_finish(&c);
	}
	ksft_finished();
}
